// SPDX-License-Identifier: MIT
/* Float rows on the CPU runtime's row kernels, threaded; see frows.h. */
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "frows.h"

/* Elements per task; below two of these the caller's thread does it all. */
#define CHUNK 16384

enum row_kind { ROW_UNARY, ROW_CLAMP, ROW_HSIG, ROW_LEAKY, ROW_BINARY,
		ROW_QUANT, ROW_DEQUANT };

struct rows {
	const struct enpu_fmath_kernels *f;
	enum row_kind kind;
	int op;
	size_t n;
	const void *a, *b;
	size_t a_step, b_step;
	void *y;
	float p0, p1;
	int32_t zero_point;
	int is_signed;
};

static void run_rows(void *argument, size_t task)
{
	const struct rows *r = argument;
	size_t i0 = task * CHUNK, n = r->n - i0 < CHUNK ? r->n - i0 : CHUNK;
	const float *a = r->kind == ROW_DEQUANT ? NULL :
			 (const float *)r->a + i0 * (r->kind == ROW_BINARY ?
						     r->a_step : 1);
	float *y = r->kind == ROW_QUANT ? NULL : (float *)r->y + i0;

	switch (r->kind) {
	case ROW_UNARY:
		r->f->unary[r->op](n, a, y);
		break;
	case ROW_CLAMP:
		r->f->clamp(n, a, r->p0, r->p1, y);
		break;
	case ROW_HSIG:
		r->f->hard_sigmoid(n, a, r->p0, r->p1, y);
		break;
	case ROW_LEAKY:
		r->f->leaky_relu(n, a, r->p0, y);
		break;
	case ROW_BINARY:
		r->f->binary[r->op](n, a, r->a_step,
				    (const float *)r->b + i0 * r->b_step,
				    r->b_step, y);
		break;
	case ROW_QUANT:
		r->f->quantize(n, a, r->p0, r->zero_point, r->is_signed,
			       (uint8_t *)r->y + i0);
		break;
	case ROW_DEQUANT:
		r->f->dequantize(n, (const uint8_t *)r->a + i0, r->p0,
				 r->zero_point, r->is_signed, y);
		break;
	}
}

/*
 * Operations per element of each kind, for the pool's grain rule
 * (thread_pool.h): the unary functions' polynomials (Gelu's row of
 * 128 x 1024 takes about 80 us on one AVX-512 core, 160 operations an
 * element at ENPU_THREAD_POOL_FLOPS_PER_NS), a few for the affine and
 * conversion rows.
 */
static uint64_t flops_per_element(const struct rows *r)
{
	switch (r->kind) {
	case ROW_UNARY:
		return r->op == ENPU_FSQRT ? 16 : r->op == ENPU_FEXP ? 80 : 160;
	case ROW_QUANT:
		return 8;
	default:
		return 4;
	}
}

static uint64_t bytes_per_element(const struct rows *r)
{
	switch (r->kind) {
	case ROW_QUANT:
	case ROW_DEQUANT:
		return 5;
	case ROW_BINARY:
		return 12;
	default:
		return 8;
	}
}

static void dispatch(struct rt_kernel *k, struct rows *r)
{
	size_t tasks = (r->n + CHUNK - 1) / CHUNK;

	r->f = enpu_cpu_fmath(k->cpu);
	if (tasks < 2 || enpu_cpu_context_thread_count(k->cpu) < 2) {
		for (size_t t = 0; t < tasks; t++)
			run_rows(r, t);
		return;
	}
	enpu_cpu_parallel_for_work(k->cpu, tasks, r->n * bytes_per_element(r),
				   r->n * flops_per_element(r), run_rows, r);
}

void rt_frows_unary(struct rt_kernel *k, enum enpu_funary op, size_t n,
		    const float *x, float *y)
{
	struct rows r = { .kind = ROW_UNARY, .op = op, .n = n, .a = x, .y = y };

	dispatch(k, &r);
}

void rt_frows_clamp(struct rt_kernel *k, size_t n, const float *x, float lo,
		    float hi, float *y)
{
	struct rows r = { .kind = ROW_CLAMP, .n = n, .a = x, .y = y,
			  .p0 = lo, .p1 = hi };

	dispatch(k, &r);
}

void rt_frows_hard_sigmoid(struct rt_kernel *k, size_t n, const float *x,
			   float alpha, float beta, float *y)
{
	struct rows r = { .kind = ROW_HSIG, .n = n, .a = x, .y = y,
			  .p0 = alpha, .p1 = beta };

	dispatch(k, &r);
}

void rt_frows_leaky_relu(struct rt_kernel *k, size_t n, const float *x,
			 float alpha, float *y)
{
	struct rows r = { .kind = ROW_LEAKY, .n = n, .a = x, .y = y,
			  .p0 = alpha };

	dispatch(k, &r);
}

void rt_frows_binary(struct rt_kernel *k, enum enpu_fbinary op, size_t n,
		     const float *a, size_t a_step, const float *b,
		     size_t b_step, float *y)
{
	struct rows r = { .kind = ROW_BINARY, .op = op, .n = n, .a = a,
			  .a_step = a_step, .b = b, .b_step = b_step, .y = y };

	dispatch(k, &r);
}

void rt_frows_quantize(struct rt_kernel *k, size_t n, const float *x,
		       float scale, int32_t zero_point, int is_signed,
		       uint8_t *y)
{
	struct rows r = { .kind = ROW_QUANT, .n = n, .a = x, .y = y,
			  .p0 = scale, .zero_point = zero_point,
			  .is_signed = is_signed };

	dispatch(k, &r);
}

void rt_frows_dequantize(struct rt_kernel *k, size_t n, const uint8_t *x,
			 float scale, int32_t zero_point, int is_signed,
			 float *y)
{
	struct rows r = { .kind = ROW_DEQUANT, .n = n, .a = x, .y = y,
			  .p0 = scale, .zero_point = zero_point,
			  .is_signed = is_signed };

	dispatch(k, &r);
}

/*
 * NCHW float -> NHWC 8-bit: per task a block of NHWC_PIXELS pixels of
 * one image; per group of NHWC_GROUP channels their rows are quantized
 * by the row kernel into a tile (16 x 256 bytes, in L1), which is then
 * transposed 16 x 16 bytes at a time into whole 16-byte pixel runs of
 * the output, instead of one byte store per element at a stride of C.
 */
#define NHWC_PIXELS 256
#define NHWC_GROUP 16

struct nhwc_rows {
	const struct enpu_fmath_kernels *f;
	const float *x;
	uint8_t *y;
	size_t channels, plane, blocks;
	float scale;
	int32_t zero_point;
	int is_signed;
};

/*
 * Rows @tile[c][p0 .. p0 + 15] of 16 channels to 16 pixels of 16 bytes
 * at @y, @stride bytes apart. Four rounds of interleaving row i with row
 * i + 8 (low halves to 2i, high halves to 2i + 1) transpose 16 x 16.
 * SSE2 is the x86-64 baseline; elsewhere (arm64, whose runtime ops the
 * qemu tests do not run) the bytes are moved one by one.
 */
#ifdef __SSE2__
static void transpose_16x16(const uint8_t *tile, size_t p0, uint8_t *y,
			    size_t stride)
{
	__m128i v[16], w[16];

	for (int c = 0; c < 16; c++)
		v[c] = _mm_loadu_si128((const __m128i *)(tile + c *
							 NHWC_PIXELS + p0));
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 8; i++) {
			w[2 * i] = _mm_unpacklo_epi8(v[i], v[i + 8]);
			w[2 * i + 1] = _mm_unpackhi_epi8(v[i], v[i + 8]);
		}
		memcpy(v, w, sizeof(v));
	}
	for (int p = 0; p < 16; p++)
		_mm_storeu_si128((__m128i *)(y + p * stride), v[p]);
}
#endif

static void run_nhwc(void *argument, size_t task)
{
	const struct nhwc_rows *r = argument;
	size_t image = task / r->blocks;
	size_t p0 = (task % r->blocks) * NHWC_PIXELS;
	size_t np = r->plane - p0 < NHWC_PIXELS ? r->plane - p0 : NHWC_PIXELS;
	const float *x = r->x + image * r->channels * r->plane + p0;
	uint8_t *y = r->y + (image * r->plane + p0) * r->channels;
	uint8_t tile[NHWC_GROUP * NHWC_PIXELS];

	for (size_t c0 = 0; c0 < r->channels; c0 += NHWC_GROUP) {
		size_t nc = r->channels - c0 < NHWC_GROUP ? r->channels - c0 :
			    NHWC_GROUP;
		size_t p = 0;

		for (size_t c = 0; c < nc; c++)
			r->f->quantize(np, x + (c0 + c) * r->plane, r->scale,
				       r->zero_point, r->is_signed,
				       tile + c * NHWC_PIXELS);
#ifdef __SSE2__
		if (nc == NHWC_GROUP)
			for (; p + 16 <= np; p += 16)
				transpose_16x16(tile, p, y + p * r->channels +
						c0, r->channels);
#endif
		/* a group of fewer than 16 channels, the last pixels */
		for (; p < np; p++)
			for (size_t c = 0; c < nc; c++)
				y[p * r->channels + c0 + c] =
					tile[c * NHWC_PIXELS + p];
	}
}

void rt_frows_quantize_nhwc(struct rt_kernel *k, size_t images,
			    size_t channels, size_t plane, const float *x,
			    float scale, int32_t zero_point, int is_signed,
			    uint8_t *y)
{
	struct nhwc_rows r = {
		.f = enpu_cpu_fmath(k->cpu), .x = x, .y = y,
		.channels = channels, .plane = plane,
		.blocks = (plane + NHWC_PIXELS - 1) / NHWC_PIXELS,
		.scale = scale, .zero_point = zero_point,
		.is_signed = is_signed,
	};
	size_t tasks = images * r.blocks;

	/* as dispatch(): threads only when each gets a CHUNK or more */
	if (!channels || tasks < 2 || images * channels * plane < 2 * CHUNK ||
	    enpu_cpu_context_thread_count(k->cpu) < 2) {
		for (size_t t = 0; t < tasks; t++)
			run_nhwc(&r, t);
		return;
	}
	enpu_cpu_parallel_for_work(k->cpu, tasks,
				   (uint64_t)images * channels * plane * 5,
				   (uint64_t)images * channels * plane * 8,
				   run_nhwc, &r);
}
