// SPDX-License-Identifier: MIT
/*
 * Elementwise int8 ops: QLinearAdd / QLinearMul parameters from float
 * scales, broadcasting through strides, the reference definitions and the
 * driver. The driver merges dimensions that are contiguous for both inputs,
 * so that the innermost run is as long as possible, then hands runs whose
 * inputs step by 1 (a row) or 0 (a broadcast scalar) to the ISA's
 * microkernel; any other stride is done element by element.
 */
#include "context_internal.h"
#include "kernels_internal.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define SIZE_LIMIT ((size_t)1 << 40)
/* Elements per task, so that threads get work of a useful size. */
#define CHUNK_ELEMENTS 16384

enum eltwise_op { OP_ADD, OP_MUL, OP_CLAMP };

static int check_quant(enpu_cpu_context *context, const char *op,
		       const struct enpu_cpu_eltwise_quant *q)
{
	int32_t lo, hi;
	int err;

	if (!q)
		return enpu_cpu_fail(context, -EINVAL, "%s: quant is NULL", op);
	err = enpu_cpu_check_activation(context, op, "A", q->type,
					q->a_zero_point);
	if (!err)
		err = enpu_cpu_check_activation(context, op, "B", q->type,
						q->b_zero_point);
	if (!err)
		err = enpu_cpu_check_activation(context, op, "output", q->type,
						q->output_zero_point);
	if (err)
		return err;
	enpu_cpu_type_range(q->type, &lo, &hi);
	if (q->min < lo || q->max > hi || q->min > q->max)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: output clamp [%d, %d] not inside [%d, %d]",
				     op, q->min, q->max, lo, hi);
	if (!isfinite(q->a_scale) || !isfinite(q->b_scale) ||
	    !isfinite(q->output_scale) || q->a_scale <= 0 ||
	    q->b_scale <= 0 || q->output_scale <= 0)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: scales %g, %g, %g must be positive numbers",
				     op, q->a_scale, q->b_scale,
				     q->output_scale);
	return 0;
}

static void copy_common(const struct enpu_cpu_eltwise_quant *q,
			struct enpu_cpu_eltwise_params *p)
{
	memset(p, 0, sizeof(*p));
	p->type = q->type;
	p->a_zero_point = q->a_zero_point;
	p->b_zero_point = q->b_zero_point;
	p->output_zero_point = q->output_zero_point;
	p->min = q->min;
	p->max = q->max;
}

int enpu_cpu_add_params(enpu_cpu_context *context,
			const struct enpu_cpu_eltwise_quant *q,
			struct enpu_cpu_eltwise_params *p)
{
	double ra, rb;
	int err;

	if (!context || !p)
		return -EINVAL;
	err = check_quant(context, "add", q);
	if (err)
		return err;
	copy_common(q, p);
	ra = q->a_scale / q->output_scale;
	rb = q->b_scale / q->output_scale;
	for (int s = 31; s >= 1; s--) {
		long long ma = llround(ldexp(ra, s)), mb = llround(ldexp(rb, s));

		if (ma < (1LL << 21) && mb < (1LL << 21)) {
			p->a_multiplier = (int32_t)ma;
			p->b_multiplier = (int32_t)mb;
			p->add_shift = s;
			return 0;
		}
	}
	return enpu_cpu_fail(context, -EINVAL,
			     "add: scale ratios %g and %g exceed 2^20", ra, rb);
}

int enpu_cpu_mul_params(enpu_cpu_context *context,
			const struct enpu_cpu_eltwise_quant *q,
			struct enpu_cpu_eltwise_params *p)
{
	double ratio;
	int err;

	if (!context || !p)
		return -EINVAL;
	err = check_quant(context, "mul", q);
	if (err)
		return err;
	copy_common(q, p);
	ratio = q->a_scale * q->b_scale / q->output_scale;
	for (int l = 0; l <= 15; l++) {
		double r = ldexp(ratio, -l);

		if (r >= 1.0)
			continue;
		if (enpu_requant_from_scale(r, &p->multiplier, &p->shift))
			break;
		p->left_shift = l;
		return 0;
	}
	return enpu_cpu_fail(context, -EINVAL,
			     "mul: scale ratio %g cannot be represented (2^-62..2^15)",
			     ratio);
}

int enpu_cpu_broadcast_strides(enpu_cpu_context *context, size_t dims,
			       const size_t *shape, size_t input_dims,
			       const size_t *input_shape, size_t *strides)
{
	size_t stride = 1;

	if (!context || !shape || !strides || (input_dims && !input_shape))
		return -EINVAL;
	if (dims == 0 || dims > ENPU_CPU_MAX_DIMS || input_dims > dims)
		return enpu_cpu_fail(context, -EINVAL,
				     "broadcast: %zu input dimensions into %zu (max %d)",
				     input_dims, dims, ENPU_CPU_MAX_DIMS);
	for (size_t d = dims; d-- > 0;) {
		size_t from_end = dims - 1 - d;
		size_t extent = from_end < input_dims ?
				input_shape[input_dims - 1 - from_end] : 1;

		if (extent == shape[d]) {
			strides[d] = extent == 1 ? 0 : stride;
		} else if (extent == 1) {
			strides[d] = 0;
		} else {
			return enpu_cpu_fail(context, -EINVAL,
					     "broadcast: input dimension %zu of %zu does not match %zu",
					     d, extent, shape[d]);
		}
		stride *= extent;
	}
	return 0;
}

static int check_args(enpu_cpu_context *context, const char *op,
		      const struct enpu_cpu_eltwise_args *args)
{
	size_t total = 1;

	if (!args || !args->params)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: args or params are NULL", op);
	if (args->dims == 0 || args->dims > ENPU_CPU_MAX_DIMS)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: %zu dimensions outside 1..%d", op,
				     args->dims, ENPU_CPU_MAX_DIMS);
	for (size_t d = 0; d < args->dims; d++) {
		if (args->shape[d] == 0 || args->shape[d] > SIZE_LIMIT ||
		    args->a_strides[d] > SIZE_LIMIT ||
		    args->b_strides[d] > SIZE_LIMIT)
			return enpu_cpu_fail(context, -EINVAL,
					     "%s: dimension %zu: extent %zu or strides %zu/%zu out of range",
					     op, d, args->shape[d],
					     args->a_strides[d],
					     args->b_strides[d]);
		total *= args->shape[d];
		if (total > SIZE_LIMIT)
			return enpu_cpu_fail(context, -EINVAL,
					     "%s: more than 2^40 elements", op);
	}
	if (!args->a || !args->b || !args->output)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: an input or the output is NULL", op);
	if (args->params->type != ENPU_CPU_UINT8 &&
	    args->params->type != ENPU_CPU_INT8)
		return enpu_cpu_fail(context, -EINVAL,
				     "%s: type %d is not uint8 or int8", op,
				     (int)args->params->type);
	return 0;
}

static int32_t load(const void *base, size_t index, int is_signed)
{
	return is_signed ? ((const int8_t *)base)[index] :
			   ((const uint8_t *)base)[index];
}

static int reference(enpu_cpu_context *context, const char *op,
		     const struct enpu_cpu_eltwise_args *args,
		     enum eltwise_op kind)
{
	size_t index[ENPU_CPU_MAX_DIMS] = { 0 }, total = 1;
	int is_signed;
	int err;

	if (!context)
		return -EINVAL;
	err = check_args(context, op, args);
	if (err)
		return err;
	is_signed = args->params->type == ENPU_CPU_INT8;
	for (size_t d = 0; d < args->dims; d++)
		total *= args->shape[d];
	for (size_t i = 0; i < total; i++) {
		size_t at_a = 0, at_b = 0;
		int32_t a, b;

		for (size_t d = 0; d < args->dims; d++) {
			at_a += index[d] * args->a_strides[d];
			at_b += index[d] * args->b_strides[d];
		}
		a = load(args->a, at_a, is_signed);
		b = load(args->b, at_b, is_signed);
		((uint8_t *)args->output)[i] = (uint8_t)(kind == OP_ADD ?
			enpu_add_one(args->params, a, b) :
			enpu_mul_one(args->params, a, b));
		for (size_t d = args->dims; d-- > 0;) {
			if (++index[d] < args->shape[d])
				break;
			index[d] = 0;
		}
	}
	return 0;
}

int enpu_cpu_add_reference(enpu_cpu_context *context,
			   const struct enpu_cpu_eltwise_args *args)
{
	return reference(context, "add", args, OP_ADD);
}

int enpu_cpu_mul_reference(enpu_cpu_context *context,
			   const struct enpu_cpu_eltwise_args *args)
{
	return reference(context, "mul", args, OP_MUL);
}

/* The problem after merging dimensions: outer dims, then one inner run. */
struct eltwise_job {
	const struct enpu_cpu_eltwise_args *args;
	enpu_eltwise_kernel kernel;
	enum eltwise_op kind;
	size_t dims;                    /* outer dims + the inner one */
	size_t shape[ENPU_CPU_MAX_DIMS];
	size_t a_strides[ENPU_CPU_MAX_DIMS];
	size_t b_strides[ENPU_CPU_MAX_DIMS];
	size_t inner, chunk, chunks_per_run;
};

static void run_task(void *argument, size_t task)
{
	const struct eltwise_job *job = argument;
	const struct enpu_cpu_eltwise_args *args = job->args;
	size_t run = task / job->chunks_per_run;
	size_t first = task % job->chunks_per_run * job->chunk;
	size_t count = job->inner - first < job->chunk ? job->inner - first :
							  job->chunk;
	size_t last = job->dims - 1, at_a = 0, at_b = 0, rest = run;
	size_t sa = job->a_strides[last], sb = job->b_strides[last];
	int is_signed = args->params->type == ENPU_CPU_INT8;
	uint8_t *out = (uint8_t *)args->output + run * job->inner + first;

	for (size_t d = last; d-- > 0;) {
		size_t i = rest % job->shape[d];

		rest /= job->shape[d];
		at_a += i * job->a_strides[d];
		at_b += i * job->b_strides[d];
	}
	at_a += first * sa;
	at_b += first * sb;
	if (sa <= 1 && sb <= 1) {
		struct enpu_eltwise_pass pass = {
			.a = (const uint8_t *)args->a + at_a,
			.b = (const uint8_t *)args->b + at_b,
			.a_step = sa, .b_step = sb, .out = out, .count = count,
			.is_signed = is_signed, .params = args->params,
		};

		job->kernel(&pass);
		return;
	}
	for (size_t i = 0; i < count; i++) {
		int32_t a = load(args->a, at_a + i * sa, is_signed);
		int32_t b = load(args->b, at_b + i * sb, is_signed);

		out[i] = (uint8_t)(job->kind == OP_ADD ?
				   enpu_add_one(args->params, a, b) :
				   enpu_mul_one(args->params, a, b));
	}
}

static int run(enpu_cpu_context *context, const char *op,
	       const struct enpu_cpu_eltwise_args *args, enum eltwise_op kind)
{
	struct eltwise_job job;
	size_t runs = 1;
	int err;

	if (!context)
		return -EINVAL;
	err = check_args(context, op, args);
	if (err)
		return err;
	memset(&job, 0, sizeof(job));
	job.args = args;
	job.kind = kind;
	job.kernel = kind == OP_ADD ? context->kernels.add :
		     context->kernels.mul;
	/*
	 * Merge dimension d into d + 1 (innermost first) when both inputs
	 * step over d exactly as over a whole run of d + 1: the two then
	 * address memory like one longer dimension. Extents of 1 go away.
	 */
	for (size_t d = 0; d < args->dims; d++) {
		size_t n = job.dims;

		if (args->shape[d] == 1)
			continue;
		if (n > 0 && job.a_strides[n - 1] ==
			     args->a_strides[d] * args->shape[d] &&
		    job.b_strides[n - 1] == args->b_strides[d] * args->shape[d]) {
			job.shape[n - 1] *= args->shape[d];
			job.a_strides[n - 1] = args->a_strides[d];
			job.b_strides[n - 1] = args->b_strides[d];
			continue;
		}
		job.shape[n] = args->shape[d];
		job.a_strides[n] = args->a_strides[d];
		job.b_strides[n] = args->b_strides[d];
		job.dims++;
	}
	if (job.dims == 0) {
		job.dims = 1;
		job.shape[0] = 1;
	}
	job.inner = job.shape[job.dims - 1];
	for (size_t d = 0; d + 1 < job.dims; d++)
		runs *= job.shape[d];
	job.chunk = job.inner < CHUNK_ELEMENTS ? job.inner : CHUNK_ELEMENTS;
	job.chunks_per_run = (job.inner + job.chunk - 1) / job.chunk;
	/* two int8 inputs and the output; a requantization per element */
	enpu_thread_pool_parallel_for_work(context->pool,
					   runs * job.chunks_per_run,
					   enpu_thread_pool_work_ns(
						   (uint64_t)runs * job.inner * 3,
						   (uint64_t)runs * job.inner * 8),
					   run_task, &job);
	return 0;
}

int enpu_cpu_add(enpu_cpu_context *context,
		 const struct enpu_cpu_eltwise_args *args)
{
	return run(context, "add", args, OP_ADD);
}

int enpu_cpu_mul(enpu_cpu_context *context,
		 const struct enpu_cpu_eltwise_args *args)
{
	return run(context, "mul", args, OP_MUL);
}

static int check_clamp(enpu_cpu_context *context, enum enpu_cpu_dtype type,
		       const void *input, void *output, size_t count,
		       int32_t min, int32_t max)
{
	int32_t lo, hi;
	int err = enpu_cpu_check_activation(context, "clamp", "input", type, 0);

	if (err)
		return err;
	if (count && (!input || !output))
		return enpu_cpu_fail(context, -EINVAL,
				     "clamp: input or output is NULL");
	if (count > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "clamp: %zu elements is too many", count);
	enpu_cpu_type_range(type, &lo, &hi);
	if (min < lo || max > hi || min > max)
		return enpu_cpu_fail(context, -EINVAL,
				     "clamp: [%d, %d] not inside [%d, %d]", min,
				     max, lo, hi);
	return 0;
}

int enpu_cpu_clamp_reference(enpu_cpu_context *context,
			     enum enpu_cpu_dtype type, const void *input,
			     void *output, size_t count, int32_t min,
			     int32_t max)
{
	int err;

	if (!context)
		return -EINVAL;
	err = check_clamp(context, type, input, output, count, min, max);
	if (err)
		return err;
	for (size_t i = 0; i < count; i++) {
		int32_t v = load(input, i, type == ENPU_CPU_INT8);

		((uint8_t *)output)[i] = (uint8_t)(v < min ? min :
						   v > max ? max : v);
	}
	return 0;
}

struct clamp_job {
	enpu_eltwise_kernel kernel;
	struct enpu_eltwise_pass base;
	size_t count;
};

static void run_clamp(void *argument, size_t task)
{
	const struct clamp_job *job = argument;
	struct enpu_eltwise_pass pass = job->base;
	size_t first = task * CHUNK_ELEMENTS;

	pass.a += first;
	pass.out += first;
	pass.count = job->count - first < CHUNK_ELEMENTS ? job->count - first :
							   CHUNK_ELEMENTS;
	job->kernel(&pass);
}

int enpu_cpu_clamp(enpu_cpu_context *context, enum enpu_cpu_dtype type,
		   const void *input, void *output, size_t count, int32_t min,
		   int32_t max)
{
	struct enpu_cpu_eltwise_params params = { .type = type, .min = min,
						  .max = max };
	struct clamp_job job;
	int err;

	if (!context)
		return -EINVAL;
	err = check_clamp(context, type, input, output, count, min, max);
	if (err || count == 0)
		return err;
	job.kernel = context->kernels.clamp;
	job.count = count;
	job.base = (struct enpu_eltwise_pass){
		.a = input, .b = input, .a_step = 1, .out = output,
		.is_signed = type == ENPU_CPU_INT8, .params = &params,
	};
	enpu_thread_pool_parallel_for(context->pool,
				      (count + CHUNK_ELEMENTS - 1) / CHUNK_ELEMENTS,
				      run_clamp, &job);
	return 0;
}
