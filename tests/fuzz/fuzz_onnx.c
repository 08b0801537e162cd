// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the ONNX loader and the load-time passes: any byte
 * string must either be refused with a status and a message or load; a
 * model that loads with small fixed input shapes is also run on zeroed
 * inputs, so the ops' shape checks face hostile attributes too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "enpu/enpu_rt.h"

#define FUZZ_MAX_INPUT_BYTES (1u << 20)

static void run_zeroed(enpu_rt_session *session)
{
	size_t inputs = enpu_rt_session_input_count(session);
	void *buffers[16] = { 0 };

	if (inputs > 16)
		return;
	for (size_t i = 0; i < inputs; i++) {
		struct enpu_rt_tensor_info info;
		size_t elements = 1, size;

		if (enpu_rt_session_input_info(session, i, &info) ||
		    info.rank < 0)
			goto out;
		for (int d = 0; d < info.rank; d++) {
			if (info.dims[d] < 0 ||
			    info.dims[d] > FUZZ_MAX_INPUT_BYTES)
				goto out;
			elements *= (size_t)info.dims[d];
			if (elements > FUZZ_MAX_INPUT_BYTES)
				goto out;
		}
		size = elements * enpu_rt_dtype_size(info.dtype);
		if (!size && elements)
			goto out;
		if (size > FUZZ_MAX_INPUT_BYTES)
			goto out;
		buffers[i] = calloc(1, size + 1);
		if (!buffers[i] ||
		    enpu_rt_session_bind_input(session, i, info.dtype,
					       (size_t)info.rank, info.dims,
					       buffers[i], size))
			goto out;
	}
	enpu_rt_session_run(session);
out:
	for (size_t i = 0; i < inputs && i < 16; i++)
		free(buffers[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enpu_rt_options *options;
	enpu_rt_session *session = NULL;

	if (enpu_rt_options_create(&options))
		return 0;
	if (!enpu_rt_session_create_from_memory(data, size, NULL, options,
						&session)) {
		run_zeroed(session);
		enpu_rt_session_destroy(session);
	} else if (!enpu_rt_options_error(options)[0]) {
		/* Every refusal must say why. */
		abort();
	}
	enpu_rt_options_destroy(options);
	return 0;
}
