// SPDX-License-Identifier: MIT
/*
 * Byte lookup over a block of strided rows: the requantization of an
 * 8-bit tensor from one per-tensor quantization to another (QLinearConcat
 * and the QDQ Concat seams), where the caller has computed the 256
 * results once with the float DequantizeLinear / QuantizeLinear
 * arithmetic, so a lookup gives the same bytes as the float path. The
 * driver checks the arguments and shares blocks of rows among the
 * context's threads; the table's kernel does a block.
 */
#include "context_internal.h"
#include "kernels_internal.h"

#include <errno.h>

#define SIZE_LIMIT ((size_t)1 << 40)
/* Output bytes per task, so that threads get work of a useful size. */
#define CHUNK_BYTES 65536

static int check(enpu_cpu_context *context,
		 const struct enpu_cpu_lookup_args *args)
{
	if (!args)
		return enpu_cpu_fail(context, -EINVAL, "lookup: args is NULL");
	if (args->rows > SIZE_LIMIT || args->row_bytes > SIZE_LIMIT ||
	    (args->rows > 1 && (args->input_stride < args->row_bytes ||
				args->output_stride < args->row_bytes)) ||
	    (args->rows && args->row_bytes > SIZE_LIMIT / args->rows))
		return enpu_cpu_fail(context, -EINVAL,
				     "lookup: %zu rows of %zu bytes at strides "
				     "%zu / %zu do not fit", args->rows,
				     args->row_bytes, args->input_stride,
				     args->output_stride);
	if (args->rows && args->row_bytes &&
	    (!args->table || !args->input || !args->output))
		return enpu_cpu_fail(context, -EINVAL,
				     "lookup: table, input or output is NULL");
	return 0;
}

int enpu_cpu_lookup_reference(enpu_cpu_context *context,
			      const struct enpu_cpu_lookup_args *args)
{
	int err;

	if (!context)
		return -EINVAL;
	err = check(context, args);
	if (err)
		return err;
	for (size_t r = 0; r < args->rows; r++)
		for (size_t i = 0; i < args->row_bytes; i++)
			args->output[r * args->output_stride + i] =
				args->table[args->input[r * args->input_stride + i]];
	return 0;
}

struct lookup_job {
	enpu_lookup_kernel kernel;
	const struct enpu_cpu_lookup_args *args;
	size_t rows_per_task;
};

static void run_task(void *argument, size_t task)
{
	const struct lookup_job *job = argument;
	const struct enpu_cpu_lookup_args *a = job->args;
	size_t first = task * job->rows_per_task;
	size_t rows = a->rows - first < job->rows_per_task ? a->rows - first :
			  job->rows_per_task;

	job->kernel(a->table, a->input + first * a->input_stride,
		    a->input_stride, a->output + first * a->output_stride,
		    a->output_stride, rows, a->row_bytes);
}

int enpu_cpu_lookup(enpu_cpu_context *context,
		    const struct enpu_cpu_lookup_args *args)
{
	struct lookup_job job;
	int err;

	if (!context)
		return -EINVAL;
	err = check(context, args);
	if (err || !args->rows || !args->row_bytes)
		return err;
	job.kernel = context->kernels.lookup;
	job.args = args;
	job.rows_per_task = CHUNK_BYTES / args->row_bytes;
	if (!job.rows_per_task)
		job.rows_per_task = 1;
	enpu_thread_pool_parallel_for(context->pool,
				      (args->rows + job.rows_per_task - 1) /
				      job.rows_per_task, run_task, &job);
	return 0;
}
