// SPDX-License-Identifier: MIT
/* Float rows on the CPU runtime's row kernels, threaded; see frows.h. */
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

static void dispatch(struct rt_kernel *k, struct rows *r)
{
	size_t tasks = (r->n + CHUNK - 1) / CHUNK;

	r->f = enpu_cpu_fmath(k->cpu);
	if (tasks < 2 || enpu_cpu_context_thread_count(k->cpu) < 2) {
		for (size_t t = 0; t < tasks; t++)
			run_rows(r, t);
		return;
	}
	enpu_cpu_parallel_for(k->cpu, tasks, run_rows, r);
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
