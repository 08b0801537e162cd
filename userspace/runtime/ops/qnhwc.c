// SPDX-License-Identifier: MIT
/* Helpers of the integer NHWC op families; see qnhwc.h. */
#include <errno.h>
#include <math.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "qnhwc.h"

int rt_q_is_8bit(int32_t dtype)
{
	return dtype == ENPU_RT_UINT8 || dtype == ENPU_RT_INT8;
}

enum enpu_cpu_dtype rt_q_cpu_type(int32_t dtype)
{
	return dtype == ENPU_RT_UINT8 ? ENPU_CPU_UINT8 : ENPU_CPU_INT8;
}

void rt_q_range(int32_t dtype, int32_t *lo, int32_t *hi)
{
	*lo = dtype == ENPU_RT_UINT8 ? 0 : -128;
	*hi = dtype == ENPU_RT_UINT8 ? 255 : 127;
}

int rt_q_scale(struct rt_kernel *k, const struct rt_tensor *t,
	       const char *what, double *scale)
{
	if (t->dtype != ENPU_RT_FLOAT || rt_tensor_elements(t) != 1)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "%s must be one float (is %s with %zu "
				   "elements)", what, rt_dtype_name(t->dtype),
				   rt_tensor_elements(t));
	if (!t->data)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "%s must be a constant", what);
	*scale = *(const float *)t->data;
	if (!(*scale > 0) || !isfinite(*scale))
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "%s %g is not positive and finite", what,
				   *scale);
	return 0;
}

int rt_q_zero_point(struct rt_kernel *k, const struct rt_tensor *t,
		    const char *what, int32_t dtype, int32_t *zero_point)
{
	*zero_point = 0;
	if (!t)
		return 0;
	if (t->dtype != dtype || rt_tensor_elements(t) != 1)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "%s must be one %s (is %s with %zu "
				   "elements)", what, rt_dtype_name(dtype),
				   rt_dtype_name(t->dtype),
				   rt_tensor_elements(t));
	if (!t->data)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "%s must be a constant", what);
	*zero_point = dtype == ENPU_RT_UINT8 ? *(const uint8_t *)t->data :
		      *(const int8_t *)t->data;
	return 0;
}

int rt_q_quantize_params(struct rt_kernel *k,
			 const struct rt_tensor *const *in, double *scale,
			 int32_t *zero_point)
{
	int status = rt_q_scale(k, in[1], "y_scale", scale);

	return status ? status :
	       rt_q_zero_point(k, in[2], "y_zero_point", in[2]->dtype,
			       zero_point);
}

int rt_q_dequantize_params(struct rt_kernel *k,
			   const struct rt_tensor *const *in, double *scale,
			   int32_t *zero_point)
{
	int status = rt_q_scale(k, in[1], "x_scale", scale);

	return status ? status :
	       rt_q_zero_point(k, in[2], "x_zero_point", in[0]->dtype,
			       zero_point);
}

void rt_q_activation_clamp(const struct rt_kernel *k, double scale,
			   int32_t zero_point, int32_t *lo, int32_t *hi)
{
	double a, b;

	if (k->activation.kind == RT_ACTIVATION_RELU) {
		if (zero_point > *lo)
			*lo = zero_point > *hi ? *hi : zero_point;
	} else if (k->activation.kind == RT_ACTIVATION_CLIP) {
		/* Q(clip(x)) = clip(Q(x)) with the bounds quantized alike. */
		a = nearbyint(k->activation.min / scale) + zero_point;
		b = nearbyint(k->activation.max / scale) + zero_point;
		if (a > *lo)
			*lo = a > *hi ? *hi : (int32_t)a;
		if (b < *hi)
			*hi = b < *lo ? *lo : (int32_t)b;
	}
}

int rt_q_channels_last(struct rt_kernel *k, int *channels_last)
{
	int64_t v;
	int status = rt_attr_int(k, "channels_last", 0, &v);

	if (status)
		return status;
	if (v != 0 && v != 1)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "channels_last must be 0 or 1 (is %lld)",
				   (long long)v);
	*channels_last = (int)v;
	return 0;
}

/*
 * Tiles of 64 source rows x 16 source columns: each destination row of a
 * tile is 64 contiguous elements (a cache line of bytes, written in one
 * run), and the tile's 64 source rows stay in L1 while its 16 columns
 * are read.
 */
#define TRANSPOSE(type)							\
	do {								\
		const type *in = src;					\
		type *out = dst;					\
		for (size_t b = 0; b < n; b++, in += rows * cols,	\
		     out += rows * cols)				\
			for (size_t r0 = 0; r0 < rows; r0 += 64)	\
				for (size_t c0 = 0; c0 < cols; c0 += 16) {\
					size_t r1 = rows - r0 < 64 ?	\
						    rows : r0 + 64;	\
					size_t c1 = cols - c0 < 16 ?	\
						    cols : c0 + 16;	\
					for (size_t q = c0; q < c1; q++) { \
						type *o = out + q * rows; \
						const type *i = in + q;	\
						for (size_t r = r0; r < r1; r++) \
							o[r] = i[r * cols]; \
					}				\
				}					\
	} while (0)

/* Each image is a rows x cols matrix. */
static void transpose(const void *src, void *dst, size_t n, size_t rows,
		      size_t cols, size_t size)
{
	if (size == 1)
		TRANSPOSE(uint8_t);
	else if (size == 2)
		TRANSPOSE(uint16_t);
	else if (size == 4)
		TRANSPOSE(uint32_t);
	else
		TRANSPOSE(uint64_t);
}

void rt_q_to_nhwc(const void *src, void *dst, size_t n, size_t c, size_t s,
		  size_t size)
{
	transpose(src, dst, n, c, s, size);
}

void rt_q_to_nchw(const void *src, void *dst, size_t n, size_t c, size_t s,
		  size_t size)
{
	transpose(src, dst, n, s, c, size);
}

int rt_q_cpu_fail(struct rt_kernel *k, int err, const char *what)
{
	return rt_op_error(k, err == -ENOMEM ? ENPU_RT_OUT_OF_MEMORY :
			   err == -EINVAL ? ENPU_RT_UNSUPPORTED :
			   ENPU_RT_RUNTIME_ERROR, "%s: %s", what,
			   enpu_cpu_context_error(k->cpu));
}

/* rint() by the 1.5 * 2^23 trick: exact for |v| < 2^22, ties to even. */
static inline float round_even(float v)
{
	const float magic = 12582912.0f;

	return (v + magic) - magic;
}

/*
 * @count elements of @src to every @step-th byte of @dst. The bounds
 * [flo, fhi] are the type's range minus the zero point, widened by one so
 * the saturation below still decides; SSE2 (x86-64 baseline) does 16 at
 * a time, the saturating packs being the final clamp.
 */
void rt_q_quantize_span(const float *src, void *dst, size_t count,
			  size_t step, float s, float flo, float fhi,
			  int32_t zero, int32_t lo, int32_t hi, int32_t dtype)
{
	uint8_t *out = dst;
	size_t i = 0;
#ifdef __SSE2__
	uint8_t tmp[16];
	const __m128 vs = _mm_set1_ps(s), vlo = _mm_set1_ps(flo);
	const __m128 vhi = _mm_set1_ps(fhi), magic = _mm_set1_ps(12582912.0f);
	const __m128i vzero = _mm_set1_epi32(zero);

	for (; i + 16 <= count; i += 16) {
		__m128i q[4], w0, w1, b;

		for (int j = 0; j < 4; j++) {
			__m128 v = _mm_div_ps(_mm_loadu_ps(src + i + 4 * j), vs);
			__m128 ordered = _mm_cmpord_ps(v, v);

			v = _mm_and_ps(v, ordered);
			v = _mm_max_ps(_mm_min_ps(v, vhi), vlo);
			v = _mm_sub_ps(_mm_add_ps(v, magic), magic);
			/* NaN gives 0, as the QuantizeLinear op does */
			q[j] = _mm_and_si128(_mm_add_epi32(_mm_cvttps_epi32(v),
							   vzero),
					     _mm_castps_si128(ordered));
		}
		w0 = _mm_packs_epi32(q[0], q[1]);
		w1 = _mm_packs_epi32(q[2], q[3]);
		b = dtype == ENPU_RT_UINT8 ? _mm_packus_epi16(w0, w1) :
		    _mm_packs_epi16(w0, w1);
		if (step == 1) {
			_mm_storeu_si128((__m128i *)(out + i), b);
		} else {
			_mm_storeu_si128((__m128i *)tmp, b);
			for (int j = 0; j < 16; j++)
				out[(i + j) * step] = tmp[j];
		}
	}
#endif
	for (; i < count; i++) {
		float v = src[i] / s;
		int32_t q;

		if (v != v) {
			out[i * step] = 0;
			continue;
		}
		v = v < flo ? flo : v > fhi ? fhi : v;
		q = (int32_t)round_even(v) + zero;
		q = q < lo ? lo : q > hi ? hi : q;
		/* int8 is stored as its two's complement byte */
		out[i * step] = dtype == ENPU_RT_UINT8 ? (uint8_t)q :
				(uint8_t)(int8_t)q;
	}
}
