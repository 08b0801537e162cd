// SPDX-License-Identifier: MIT
/*
 * The float GEMM driver: B packing, argument checks, the reference, and
 * the tiling + threading of the context's microkernel (sgemm_internal.h).
 *
 * B is used in NR-column panels of k rows. Packed weights store every
 * panel contiguously ([panel][k][NR], zero-padded columns); a B given as
 * is (row-major, not transposed) is read in place for its full panels
 * and only the tail panel is copied; a transposed B, or one produced by
 * a panel callback (convolution's unfolding, sgemm_panels.h), is packed
 * per task into scratch. Tasks are (chunk of panels) x (range of row
 * blocks); a chunk's panels are sized to stay in L2 while every row
 * block of the task streams over them.
 */
#include "context_internal.h"
#include "cpu_internal.h"
#include "enpu_cpu_float.h"
#include "sgemm_panels.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SIZE_LIMIT ((size_t)1 << 31)
/* Panel bytes per task chunk (k * NR * 4 each): about half of L2. */
#define CHUNK_BYTES (512 * 1024)
/* The most thin columns any kernel leaves to its column kernel. */
#define MAX_THIN 4

struct enpu_cpu_sgemm_weights {
	size_t k, n, nr, panels;
	float *packed;		/* panels * k * nr, 64-byte aligned */
};

/* Copies columns [col0, col0 + cols) of B into one zero-padded panel. */
static void pack_panel(const float *b, size_t ldb, int transposed, size_t k,
		       size_t col0, size_t cols, size_t nr, float *panel)
{
	for (size_t kk = 0; kk < k; kk++) {
		float *dst = panel + kk * nr;

		if (transposed)
			for (size_t j = 0; j < cols; j++)
				dst[j] = b[(col0 + j) * ldb + kk];
		else
			memcpy(dst, b + kk * ldb + col0, cols * sizeof(float));
		for (size_t j = cols; j < nr; j++)
			dst[j] = 0.0f;
	}
}

static void *aligned(size_t bytes)
{
	void *p = NULL;

	return posix_memalign(&p, 64, bytes ? bytes : 64) ? NULL : p;
}

int enpu_cpu_sgemm_weights_pack(enpu_cpu_context *context, size_t k,
				size_t n, const float *b, size_t ldb,
				int transposed,
				enpu_cpu_sgemm_weights **weights)
{
	const struct enpu_sgemm_kernel_info *info;
	enpu_cpu_sgemm_weights *w;

	if (!context || !weights)
		return -EINVAL;
	*weights = NULL;
	info = context->kernels.sgemm;
	if (!b || !k || !n || k > SIZE_LIMIT || n > SIZE_LIMIT ||
	    ldb < (transposed ? k : n))
		return enpu_cpu_fail(context, -EINVAL,
				     "sgemm pack: B %zux%zu with ldb %zu is invalid",
				     k, n, ldb);
	w = calloc(1, sizeof(*w));
	if (!w)
		return enpu_cpu_fail(context, -ENOMEM, "sgemm pack: out of memory");
	w->k = k;
	w->n = n;
	w->nr = info->nr;
	w->panels = enpu_divide_up(n, info->nr);
	w->packed = aligned(w->panels * k * w->nr * sizeof(float));
	if (!w->packed) {
		free(w);
		return enpu_cpu_fail(context, -ENOMEM, "sgemm pack: out of memory");
	}
	for (size_t p = 0; p < w->panels; p++) {
		size_t col0 = p * w->nr;

		pack_panel(b, ldb, transposed, k, col0,
			   n - col0 < w->nr ? n - col0 : w->nr, w->nr,
			   w->packed + p * k * w->nr);
	}
	*weights = w;
	return 0;
}

void enpu_cpu_sgemm_weights_destroy(enpu_cpu_sgemm_weights *weights)
{
	if (!weights)
		return;
	free(weights->packed);
	free(weights);
}

static int check(enpu_cpu_context *context,
		 const struct enpu_cpu_sgemm_args *a,
		 const struct enpu_sgemm_source *src)
{
	if (!a)
		return enpu_cpu_fail(context, -EINVAL, "sgemm: args are NULL");
	if (!a->m || !a->n || !a->k || a->m > SIZE_LIMIT ||
	    a->n > SIZE_LIMIT || a->k > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "sgemm: %zux%zux%zu outside 1..2^31",
				     a->m, a->n, a->k);
	if (!a->a || !a->c || a->lda < a->k || a->ldc < a->n)
		return enpu_cpu_fail(context, -EINVAL,
				     "sgemm: A or C missing or strides too small");
	if (src)
		return 0;
	if (a->weights) {
		if (a->weights->k != a->k || a->weights->n != a->n)
			return enpu_cpu_fail(context, -EINVAL,
					     "sgemm: packed B is %zux%zu, not %zux%zu",
					     a->weights->k, a->weights->n, a->k,
					     a->n);
		if (a->weights->nr != context->kernels.sgemm->nr)
			return enpu_cpu_fail(context, -EINVAL,
					     "sgemm: B was packed for another kernel");
		return 0;
	}
	if (!a->b || a->ldb < (a->b_transposed ? a->k : a->n))
		return enpu_cpu_fail(context, -EINVAL,
				     "sgemm: B missing or ldb too small");
	return 0;
}

int enpu_cpu_sgemm_reference(enpu_cpu_context *context,
			     const struct enpu_cpu_sgemm_args *a)
{
	int err;

	if (!context)
		return -EINVAL;
	if (a && a->weights)
		return enpu_cpu_fail(context, -EINVAL,
				     "sgemm reference: takes B as given, not packed");
	err = check(context, a, NULL);
	if (err)
		return err;
	for (size_t i = 0; i < a->m; i++)
		for (size_t j = 0; j < a->n; j++) {
			double s = 0;
			float v;

			for (size_t kk = 0; kk < a->k; kk++)
				s += (double)a->a[i * a->lda + kk] *
				     (a->b_transposed ? a->b[j * a->ldb + kk] :
				      a->b[kk * a->ldb + j]);
			if (a->bias)
				s += a->bias[a->bias_per_row ? i : j];
			v = (float)s;
			if (a->clamp) {
				v = v < a->clamp[0] ? a->clamp[0] : v;
				v = v > a->clamp[1] ? a->clamp[1] : v;
			}
			a->c[i * a->ldc + j] = v;
		}
	return 0;
}

struct sgemm_job {
	const struct enpu_cpu_sgemm_args *args;
	const struct enpu_sgemm_source *source;
	const struct enpu_sgemm_kernel_info *kernel;
	size_t panels, chunk, chunks, row_blocks, row_ranges;
	size_t n, thin;		/* columns in panels, thin ones after them */
	/*
	 * The last panel has at most 16 columns and the kernel a wide twin:
	 * it runs with the panel before it, so no chunk ends before it.
	 */
	int wide;
	atomic_int failed;
};

/* Column j of B, k floats, into x (or in place): for the column kernel. */
static const float *column_of(const struct sgemm_job *job, size_t j,
			      float *x)
{
	const struct enpu_cpu_sgemm_args *a = job->args;
	size_t k = a->k;

	if (job->source) {
		job->source->pack(job->source->argument, j, 1, 1, x);
	} else if (a->weights) {
		size_t nr = a->weights->nr;
		const float *panel = a->weights->packed + j / nr * k * nr +
				     j % nr;

		for (size_t kk = 0; kk < k; kk++)
			x[kk] = panel[kk * nr];
	} else if (a->b_transposed) {
		return a->b + j * a->ldb;
	} else {
		for (size_t kk = 0; kk < k; kk++)
			x[kk] = a->b[kk * a->ldb + j];
	}
	return x;
}

/*
 * The thin columns of rows [r0, r1), their B columns gathered in @x
 * (k floats each) by the caller.
 */
static void thin_columns(const struct sgemm_job *job, const float *const *x,
			 size_t r0, size_t r1)
{
	const struct enpu_cpu_sgemm_args *a = job->args;

	for (size_t t = 0; t < job->thin; t++) {
		size_t j = job->n + t;

		job->kernel->column(r1 - r0, a->k, a->a + r0 * a->lda, a->lda,
				    x[t], a->c + r0 * a->ldc + j, a->ldc,
				    a->bias ? a->bias + (a->bias_per_row ?
				    r0 : j) : NULL, a->bias_per_row, a->clamp);
	}
}

/*
 * Panel @p's B and its row stride: packed weights, B itself where the
 * panel is full and read in place, else the task's copy in @scratch.
 */
static const float *panel_of(const struct sgemm_job *job, size_t p,
			     size_t p0, const float *scratch, size_t *ldb)
{
	const struct enpu_cpu_sgemm_args *a = job->args;
	size_t nr = job->kernel->nr, k = a->k, col0 = p * nr;
	int in_place = !job->source && !a->weights && !a->b_transposed;

	*ldb = nr;
	if (a->weights)
		return a->weights->packed + p * k * nr;
	if (in_place && job->n - col0 >= nr) {
		*ldb = a->ldb;
		return a->b + col0;
	}
	return scratch + (in_place ? 0 : (p - p0) * k * nr);
}

static void run_task(void *argument, size_t task)
{
	struct sgemm_job *job = argument;
	const struct enpu_cpu_sgemm_args *a = job->args;
	const struct enpu_sgemm_kernel_info *kn = job->kernel;
	size_t chunk = task / job->row_ranges, range = task % job->row_ranges;
	size_t units = job->panels - (size_t)job->wide;
	size_t p0 = chunk * job->chunk;
	size_t p1 = p0 + job->chunk < units ? p0 + job->chunk : job->panels;
	size_t blocks_per = enpu_divide_up(job->row_blocks, job->row_ranges);
	size_t b0 = range * blocks_per, b1 = b0 + blocks_per;
	size_t nr = kn->nr, k = a->k;
	float *scratch = NULL, *thin_x = NULL;
	const float *x[MAX_THIN];
	int in_place = !job->source && !a->weights && !a->b_transposed;
	int thin = job->thin && p1 == job->panels;

	if (b1 > job->row_blocks)
		b1 = job->row_blocks;
	if (b0 >= b1)
		return;
	/*
	 * The last chunk's tasks also do the thin columns, block by block
	 * right after the block's panels, while its rows of A are still in
	 * L1: done after all blocks, the column kernel read the whole of A
	 * once more (320->1280 at 7x7: 1.6 MB for one column of 49).
	 */
	if (thin) {
		thin_x = malloc(job->thin * k * sizeof(float));
		if (!thin_x) {
			atomic_store(&job->failed, 1);
			return;
		}
		for (size_t t = 0; t < job->thin; t++)
			x[t] = column_of(job, job->n + t, thin_x + t * k);
	}
	/* Panels this task has to build: all, or a tail read in place. */
	if (!a->weights && (!in_place || p1 * nr > job->n)) {
		size_t count = in_place ? 1 : p1 - p0;

		scratch = malloc(count * k * nr * sizeof(float) + 64);
		if (!scratch) {
			free(thin_x);
			atomic_store(&job->failed, 1);
			return;
		}
		for (size_t p = in_place ? p1 - 1 : p0; p < p1; p++) {
			size_t col0 = p * nr, cols = job->n - col0 < nr ?
				      job->n - col0 : nr;
			float *dst = scratch + (in_place ? 0 : (p - p0) * k * nr);

			if (job->source)
				job->source->pack(job->source->argument, col0,
						  cols, nr, dst);
			else
				pack_panel(a->b, a->ldb, a->b_transposed, k,
					   col0, cols, nr, dst);
		}
	}
	for (size_t blk = b0; blk < b1; blk++) {
		size_t r0 = blk * kn->mr;
		size_t mr = a->m - r0 < kn->mr ? a->m - r0 : kn->mr;

		for (size_t p = p0; p < p1; p++) {
			size_t col0 = p * nr, cols = job->n - col0 < nr ?
				      job->n - col0 : nr;
			const float *b, *b2;
			size_t ldb, ldb2;
			const float *bias = a->bias ? a->bias +
				(a->bias_per_row ? r0 : col0) : NULL;

			b = panel_of(job, p, p0, scratch, &ldb);
			/*
			 * The tail with the panel before it (the last chunk
			 * only); one row's product streams B in the panel
			 * kernel instead.
			 */
			if (job->wide && mr > 1 && p + 2 == p1 &&
			    p1 == job->panels) {
				b2 = panel_of(job, p + 1, p0, scratch, &ldb2);
				kn->wide(mr, job->n - col0, k, a->a + r0 * a->lda,
					 a->lda, b, ldb, b2, ldb2,
					 a->c + r0 * a->ldc + col0, a->ldc, bias,
					 a->bias_per_row, a->clamp);
				break;
			}
			kn->kernel(mr, cols, k, a->a + r0 * a->lda, a->lda, b,
				   ldb, a->c + r0 * a->ldc + col0, a->ldc, bias,
				   a->bias_per_row, a->clamp);
		}
		if (thin)
			thin_columns(job, x, r0, r0 + mr);
	}
	free(scratch);
	free(thin_x);
}

int enpu_sgemm_run(enpu_cpu_context *context,
		   const struct enpu_cpu_sgemm_args *a,
		   const struct enpu_sgemm_source *source)
{
	struct sgemm_job job;
	size_t threads, tasks, per_panel, units;
	int err;

	if (!context)
		return -EINVAL;
	err = check(context, a, source);
	if (err)
		return err;
	memset(&job, 0, sizeof(job));
	job.args = a;
	job.source = source;
	job.kernel = context->kernels.sgemm;
	/*
	 * A last vector of 1 or 2 columns (N = 49: a 7x7 plane) goes to the
	 * column kernel: in panels it would cost as many FMAs as 16 columns
	 * (320->1280 at 7x7: 4 vectors of FMAs a k for 49 columns, 3 plus a
	 * sixteenth this way).
	 */
	job.n = a->n;
	if (job.kernel->column && a->n > job.kernel->lanes &&
	    a->n % job.kernel->lanes <= job.kernel->thin_columns &&
	    a->n % job.kernel->lanes <= MAX_THIN)
		job.thin = a->n % job.kernel->lanes;
	job.n -= job.thin;
	job.panels = enpu_divide_up(job.n, job.kernel->nr);
	job.wide = job.kernel->wide && job.panels > 1 &&
		   job.n - (job.panels - 1) * job.kernel->nr <= 16;
	units = job.panels - (size_t)job.wide;
	per_panel = a->k * job.kernel->nr * sizeof(float);
	job.chunk = CHUNK_BYTES / per_panel;
	job.chunk = job.chunk < 1 ? 1 : job.chunk > units ? units : job.chunk;
	job.chunks = enpu_divide_up(units, job.chunk);
	job.row_blocks = enpu_divide_up(a->m, job.kernel->mr);
	/*
	 * Enough tasks for every thread: split the panels finer first (each
	 * task then builds fewer panels), then the rows.
	 */
	threads = enpu_thread_pool_thread_count(context->pool);
	while (threads > 1 && job.chunks < 2 * threads && job.chunk > 1) {
		job.chunk = enpu_divide_up(job.chunk, 2);
		job.chunks = enpu_divide_up(units, job.chunk);
	}
	job.row_ranges = 1;
	if (threads > 1 && job.chunks < 2 * threads)
		job.row_ranges = enpu_divide_up(2 * threads, job.chunks);
	if (job.row_ranges > job.row_blocks)
		job.row_ranges = job.row_blocks;
	tasks = job.chunks * job.row_ranges;
	atomic_init(&job.failed, 0);
	enpu_thread_pool_parallel_for_work(context->pool, tasks,
		enpu_thread_pool_work_ns(
			4 * ((uint64_t)a->m * a->k + (uint64_t)a->k * a->n +
			     (uint64_t)a->m * a->n),
			2 * (uint64_t)a->m * a->n * a->k),
		run_task, &job);
	if (atomic_load(&job.failed))
		return enpu_cpu_fail(context, -ENOMEM,
				     "sgemm: out of memory for B panels");
	return 0;
}

int enpu_cpu_sgemm(enpu_cpu_context *context,
		   const struct enpu_cpu_sgemm_args *args)
{
	return enpu_sgemm_run(context, args, NULL);
}
