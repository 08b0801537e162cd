// SPDX-License-Identifier: MIT
/*
 * Elementwise activations: Sigmoid, Tanh, LeakyRelu, HardSigmoid, HardSwish
 * (float and double) and Clip (every numeric type; bounds from attributes
 * before opset 11, from optional inputs since).
 *
 * float32 runs on the CPU runtime's vectorized, threaded row kernels
 * (frows.h); double rows use libm, being rare and not worth a second
 * approximation.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "rt_op.h"
#include "frows.h"

enum activation_op {
	ACTIVATION_SIGMOID,
	ACTIVATION_TANH,
	ACTIVATION_LEAKY_RELU,
	ACTIVATION_HARD_SIGMOID,
	ACTIVATION_HARD_SWISH,
};

struct activation_params {
	enum activation_op op;
	float alpha;
	float beta;
};

static int activation_params_of(struct rt_kernel *k,
				struct activation_params *p)
{
	const char *type = k->op_type;
	int status;

	p->alpha = 0.0f;
	p->beta = 0.0f;
	if (!strcmp(type, "Sigmoid")) {
		p->op = ACTIVATION_SIGMOID;
		return 0;
	}
	if (!strcmp(type, "Tanh")) {
		p->op = ACTIVATION_TANH;
		return 0;
	}
	if (!strcmp(type, "LeakyRelu")) {
		p->op = ACTIVATION_LEAKY_RELU;
		return rt_attr_float(k, "alpha", 0.01f, &p->alpha);
	}
	if (!strcmp(type, "HardSwish")) {
		/* HardSigmoid with fixed alpha 1/6 and beta 0.5, times x. */
		p->op = ACTIVATION_HARD_SWISH;
		p->alpha = 1.0f / 6.0f;
		p->beta = 0.5f;
		return 0;
	}
	p->op = ACTIVATION_HARD_SIGMOID;
	status = rt_attr_float(k, "alpha", 0.2f, &p->alpha);
	if (status)
		return status;
	return rt_attr_float(k, "beta", 0.5f, &p->beta);
}

static int activation_infer(struct rt_kernel *k,
			    const struct rt_tensor *const *in, size_t n_in,
			    struct rt_tensor *const *out, size_t n_out)
{
	struct activation_params p;
	int status;

	(void)n_in;
	(void)n_out;
	if (in[0]->dtype != ENPU_RT_FLOAT && in[0]->dtype != ENPU_RT_DOUBLE)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported (float, double)",
				   rt_dtype_name(in[0]->dtype));
	status = activation_params_of(k, &p);
	if (status)
		return status;
	return rt_tensor_set_shape(k, out[0], in[0]->dtype, in[0]->rank,
				   in[0]->dims);
}

/* float32: the CPU runtime's vectorized, threaded row kernels. */
static void activation_f32(struct rt_kernel *k,
			   const struct activation_params *p, size_t n,
			   const float *x, float *y)
{
	switch (p->op) {
	case ACTIVATION_SIGMOID:
		rt_frows_unary(k, ENPU_FSIGMOID, n, x, y);
		break;
	case ACTIVATION_TANH:
		rt_frows_unary(k, ENPU_FTANH, n, x, y);
		break;
	case ACTIVATION_LEAKY_RELU:
		rt_frows_leaky_relu(k, n, x, p->alpha, y);
		break;
	case ACTIVATION_HARD_SIGMOID:
		rt_frows_hard_sigmoid(k, n, x, p->alpha, p->beta, y);
		break;
	case ACTIVATION_HARD_SWISH:
		rt_frows_hard_sigmoid(k, n, x, p->alpha, p->beta, y);
		rt_frows_binary(k, ENPU_FMUL, n, x, 1, y, 1, y);
		break;
	}
}

static double hard_sigmoid_f64(double x, double alpha, double beta)
{
	double v = alpha * x + beta;

	v = v < 0.0 ? 0.0 : v;
	return v > 1.0 ? 1.0 : v;
}

static void activation_f64(const struct activation_params *p, size_t n,
			   const double *x, double *y)
{
	double alpha = p->alpha, beta = p->beta;

	if (p->op == ACTIVATION_HARD_SWISH)
		alpha = 1.0 / 6.0;
	for (size_t i = 0; i < n; i++) {
		double v = x[i];

		switch (p->op) {
		case ACTIVATION_SIGMOID:
			v = v >= 0.0 ? 1.0 / (1.0 + exp(-v)) :
				exp(v) / (1.0 + exp(v));
			break;
		case ACTIVATION_TANH:
			v = tanh(v);
			break;
		case ACTIVATION_LEAKY_RELU:
			v = v < 0.0 ? alpha * v : v;
			break;
		case ACTIVATION_HARD_SIGMOID:
			v = hard_sigmoid_f64(v, alpha, beta);
			break;
		case ACTIVATION_HARD_SWISH:
			v = v * hard_sigmoid_f64(v, alpha, beta);
			break;
		}
		y[i] = v;
	}
}

static int activation_run(struct rt_kernel *k,
			  const struct rt_tensor *const *in, size_t n_in,
			  struct rt_tensor *const *out, size_t n_out)
{
	struct activation_params p;
	size_t n = rt_tensor_elements(in[0]);
	int status;

	(void)n_in;
	(void)n_out;
	status = activation_params_of(k, &p);
	if (status)
		return status;
	if (in[0]->dtype == ENPU_RT_FLOAT)
		activation_f32(k, &p, n, in[0]->data, out[0]->data);
	else
		activation_f64(&p, n, in[0]->data, out[0]->data);
	return 0;
}

/* Clip */

/*
 * One row per type: bounds are already in the element type. min > max
 * gives max everywhere, as ONNX specifies; NaN stays NaN.
 */
#define CLIP_ROW(suffix, type)						\
static void clip_##suffix(size_t n, const void *x_data, const void *lo_p,\
			  const void *hi_p, void *y_data)		\
{									\
	const type *x = x_data;						\
	type *y = y_data;						\
	type lo, hi;							\
									\
	memcpy(&lo, lo_p, sizeof(lo));					\
	memcpy(&hi, hi_p, sizeof(hi));					\
	for (size_t i = 0; i < n; i++) {				\
		type v = x[i] < lo ? lo : x[i];				\
									\
		y[i] = v > hi ? hi : v;					\
	}								\
}

CLIP_ROW(f32, float)
CLIP_ROW(f64, double)
CLIP_ROW(i8, int8_t)
CLIP_ROW(i16, int16_t)
CLIP_ROW(i32, int32_t)
CLIP_ROW(i64, int64_t)
CLIP_ROW(u8, uint8_t)
CLIP_ROW(u16, uint16_t)
CLIP_ROW(u32, uint32_t)
CLIP_ROW(u64, uint64_t)

typedef void (*clip_row_fn)(size_t n, const void *x, const void *lo,
			    const void *hi, void *y);

/* The type's row and its full range, the bounds when absent. */
struct clip_type {
	int32_t dtype;
	clip_row_fn row;
	union {
		float f32;
		double f64;
		int64_t i64;
		uint64_t u64;
		unsigned char bytes[8];
	} lowest, highest;
};

static const struct clip_type clip_types[] = {
	{ ENPU_RT_FLOAT, clip_f32, { .f32 = -FLT_MAX }, { .f32 = FLT_MAX } },
	{ ENPU_RT_DOUBLE, clip_f64, { .f64 = -DBL_MAX }, { .f64 = DBL_MAX } },
	{ ENPU_RT_INT64, clip_i64, { .i64 = INT64_MIN }, { .i64 = INT64_MAX } },
	{ ENPU_RT_UINT64, clip_u64, { .u64 = 0 }, { .u64 = UINT64_MAX } },
	/* Narrower types: little-endian low bytes of the 64-bit values. */
	{ ENPU_RT_INT8, clip_i8, { .i64 = INT8_MIN }, { .i64 = INT8_MAX } },
	{ ENPU_RT_INT16, clip_i16, { .i64 = INT16_MIN }, { .i64 = INT16_MAX } },
	{ ENPU_RT_INT32, clip_i32, { .i64 = INT32_MIN }, { .i64 = INT32_MAX } },
	{ ENPU_RT_UINT8, clip_u8, { .u64 = 0 }, { .u64 = UINT8_MAX } },
	{ ENPU_RT_UINT16, clip_u16, { .u64 = 0 }, { .u64 = UINT16_MAX } },
	{ ENPU_RT_UINT32, clip_u32, { .u64 = 0 }, { .u64 = UINT32_MAX } },
};

static const struct clip_type *clip_type_for(int32_t dtype)
{
	for (size_t i = 0; i < sizeof(clip_types) / sizeof(clip_types[0]);
	     i++)
		if (clip_types[i].dtype == dtype)
			return &clip_types[i];
	return NULL;
}

static int clip_infer(struct rt_kernel *k, const struct rt_tensor *const *in,
		      size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	int32_t dtype = in[0]->dtype;

	(void)n_out;
	if (!clip_type_for(dtype) ||
	    (k->opset < 12 && dtype != ENPU_RT_FLOAT && dtype != ENPU_RT_DOUBLE))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input type %s is not supported at opset %" PRId64,
				   rt_dtype_name(dtype), k->opset);
	for (size_t i = 1; i < n_in; i++) {
		char shape[96];

		if (!in[i])
			continue;
		if (in[i]->dtype != dtype)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "bound %s has type %s, input has %s",
					   i == 1 ? "min" : "max",
					   rt_dtype_name(in[i]->dtype),
					   rt_dtype_name(dtype));
		/* Scalars by the spec; exporters also write shape [1]. */
		if (in[i]->rank >= 0 && rt_tensor_elements(in[i]) != 1)
			return rt_op_error(k, ENPU_RT_INVALID_MODEL,
					   "bound %s must be a scalar, has shape %s",
					   i == 1 ? "min" : "max",
					   rt_shape_string(in[i], shape,
							   sizeof(shape)));
	}
	return rt_tensor_set_shape(k, out[0], dtype, in[0]->rank,
				   in[0]->dims);
}

static int clip_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		    size_t n_in, struct rt_tensor *const *out, size_t n_out)
{
	const struct clip_type *type = clip_type_for(in[0]->dtype);
	const void *lo = type->lowest.bytes, *hi = type->highest.bytes;
	float lo_f32, hi_f32;
	int status;

	(void)n_out;
	if (k->opset < 11) {
		/* Float attributes; absent means the type's whole range. */
		status = rt_attr_float(k, "min", -FLT_MAX, &lo_f32);
		if (!status)
			status = rt_attr_float(k, "max", FLT_MAX, &hi_f32);
		if (status)
			return status;
		if (in[0]->dtype == ENPU_RT_FLOAT) {
			lo = &lo_f32;
			hi = &hi_f32;
		} else {
			double lo_f64 = rt_attr_find(k, "min") ? lo_f32 : -DBL_MAX;
			double hi_f64 = rt_attr_find(k, "max") ? hi_f32 : DBL_MAX;

			type->row(rt_tensor_elements(in[0]), in[0]->data,
				  &lo_f64, &hi_f64, out[0]->data);
			return 0;
		}
	} else {
		if (n_in > 1 && in[1])
			lo = in[1]->data;
		if (n_in > 2 && in[2])
			hi = in[2]->data;
	}
	if (in[0]->dtype == ENPU_RT_FLOAT) {
		float l, h;

		memcpy(&l, lo, sizeof(l));
		memcpy(&h, hi, sizeof(h));
		rt_frows_clamp(k, rt_tensor_elements(in[0]), in[0]->data, l, h,
			       out[0]->data);
		return 0;
	}
	type->row(rt_tensor_elements(in[0]), in[0]->data, lo, hi,
		  out[0]->data);
	return 0;
}

#define ACTIVATION_DEF(name, first)					\
	{ name, "", first, 21, 1, 1, 1, 1, 0, activation_infer, NULL,	\
	  activation_run, NULL }

const struct rt_op_def rt_ops_activation[] = {
	ACTIVATION_DEF("Sigmoid", 6),
	ACTIVATION_DEF("Tanh", 6),
	ACTIVATION_DEF("LeakyRelu", 6),
	ACTIVATION_DEF("HardSigmoid", 6),
	ACTIVATION_DEF("HardSwish", 14),
	{ "Clip", "", 6, 10, 1, 1, 1, 1, 0, clip_infer, NULL, clip_run, NULL },
	{ "Clip", "", 11, 21, 1, 3, 1, 1, 0, clip_infer, NULL, clip_run,
	  NULL },
	{ 0 },
};
