// SPDX-License-Identifier: MIT
/*
 * Built by test-install against the installed runtime through
 * `pkg-config enpu-rt` only: loads ONNX's Relu node test model, runs it on
 * a ramp and checks every output element.
 */
#include <stdio.h>

#include <enpu/enpu_rt.h>

int main(int argc, char **argv)
{
	static float x[3 * 4 * 5];
	const int64_t dims[] = { 3, 4, 5 };
	struct enpu_rt_output out;
	enpu_rt_session *s;
	const float *y;
	size_t i;

	if (argc != 2)
		return 2;
	for (i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		x[i] = (float)i - 30.0f;
	if (enpu_rt_session_create_from_file(argv[1], NULL, &s) != ENPU_RT_OK) {
		fprintf(stderr, "cannot load %s\n", argv[1]);
		return 1;
	}
	if (enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 3, dims, x,
				       sizeof(x)) != ENPU_RT_OK ||
	    enpu_rt_session_run(s) != ENPU_RT_OK ||
	    enpu_rt_session_output(s, 0, &out) != ENPU_RT_OK ||
	    out.byte_size != sizeof(x)) {
		fprintf(stderr, "run failed: %s\n", enpu_rt_session_error(s));
		enpu_rt_session_destroy(s);
		return 1;
	}
	y = out.data;
	for (i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
		if (y[i] != (x[i] > 0 ? x[i] : 0)) {
			fprintf(stderr, "y[%zu] = %g for x %g\n", i, y[i], x[i]);
			enpu_rt_session_destroy(s);
			return 1;
		}
	}
	enpu_rt_session_destroy(s);
	printf("relu ok\n");
	return 0;
}
