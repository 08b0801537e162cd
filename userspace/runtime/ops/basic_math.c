// SPDX-License-Identifier: MIT
/* Relu over the common numeric types (Add lives with the other binary ops). */
#include <string.h>

#include "rt_op.h"

#define OPSET_MAX 21

static int relu_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int32_t t = in[0]->dtype;

	(void)n_in, (void)n_out;
	if (t != ENPU_RT_FLOAT && t != ENPU_RT_DOUBLE && t != ENPU_RT_INT8 &&
	    t != ENPU_RT_INT16 && t != ENPU_RT_INT32 && t != ENPU_RT_INT64)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "type %s is not supported",
				   rt_dtype_name(t));
	return rt_tensor_set_shape(k, out[0], t, in[0]->rank, in[0]->dims);
}

#define RELU_LOOP(type) do { \
	const type *x = in[0]->data; \
	type *y = out[0]->data; \
	for (size_t i = 0; i < n; i++) \
		y[i] = x[i] < 0 ? 0 : x[i]; /* NaN stays NaN */ \
} while (0)

static int relu_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	size_t n = rt_tensor_elements(out[0]);

	(void)k, (void)n_in, (void)n_out;
	switch (in[0]->dtype) {
	case ENPU_RT_FLOAT: RELU_LOOP(float); break;
	case ENPU_RT_DOUBLE: RELU_LOOP(double); break;
	case ENPU_RT_INT8: RELU_LOOP(int8_t); break;
	case ENPU_RT_INT16: RELU_LOOP(int16_t); break;
	case ENPU_RT_INT32: RELU_LOOP(int32_t); break;
	case ENPU_RT_INT64: RELU_LOOP(int64_t); break;
	}
	return 0;
}

const struct rt_op_def rt_ops_basic_math[] = {
	{ "Relu", "", 1, OPSET_MAX, 1, 1, 1, 1, 0, relu_infer, NULL,
	  relu_run, NULL },
	{ 0 },
};
