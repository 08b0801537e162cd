// SPDX-License-Identifier: MIT
/*
 * int8 GEMM: weight packing, argument checks, the reference definition, and
 * the driver that cuts C into tiles, hands blocks of tiles to the thread
 * pool and calls the ISA's microkernel on each tile.
 */
#include "context_internal.h"
#include "kernels_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_LINE 64

/* Blocks are sized so that a block's A rows and weight panels stay in L2. */
#define BLOCK_A_BYTES (384 * 1024)
#define BLOCK_B_BYTES (512 * 1024)

void enpu_gemm_tile_set_requant(struct enpu_gemm_tile *tile,
				const struct enpu_cpu_requant *rq)
{
	tile->multiplier = rq->multiplier;
	tile->shift = rq->shift;
	tile->per_channel = rq->per_channel;
	tile->zero_point = rq->zero_point;
	tile->min = rq->min;
	tile->max = rq->max;
}

static void *aligned_calloc(size_t size)
{
	void *p;

	size = (size + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1);
	if (size == 0)
		size = CACHE_LINE;
	p = aligned_alloc(CACHE_LINE, size);
	if (p)
		memset(p, 0, size);
	return p;
}

void enpu_cpu_gemm_weights_destroy(enpu_cpu_gemm_weights *weights)
{
	if (!weights)
		return;
	free(weights->packed);
	free(weights->bias);
	free(weights->column_sum);
	free(weights->packed16);
	free(weights);
}

/* The int16 copy (cpu_internal.h, packed16), zero where K or N is padded. */
static int pack_int16(enpu_cpu_context *context, enpu_cpu_gemm_weights *w,
		      const int8_t *b, size_t ldb)
{
	w->panel16_stride = w->k_groups * ENPU_GEMM_PANEL16_GROUP;
	w->packed16 = aligned_calloc(w->panel_count * w->panel16_stride *
				     sizeof(int16_t));
	if (!w->packed16)
		return enpu_cpu_fail(context, -ENOMEM,
				     "gemm weights: out of memory for the int16 copy of %zu x %zu",
				     w->k, w->n);
	for (size_t col = 0; col < w->n; col++) {
		size_t lane = col % ENPU_GEMM_PANEL_COLUMNS;
		int16_t *panel = w->packed16 + (col / ENPU_GEMM_PANEL_COLUMNS) *
					       w->panel16_stride +
				 (lane / 4) * 16 + (lane % 4) * 2;

		for (size_t row = 0; row < w->k; row++)
			panel[(row / 4) * ENPU_GEMM_PANEL16_GROUP +
			      (row % 4 / 2) * 8 + row % 2] = b[row * ldb + col];
	}
	return 0;
}

int enpu_cpu_gemm_weights_pack(enpu_cpu_context *context, size_t k, size_t n,
			       const int8_t *b, size_t ldb,
			       const int32_t *bias,
			       enpu_cpu_gemm_weights **out)
{
	enpu_cpu_gemm_weights *w;
	size_t padded_n;
	int err;

	if (!context || !out)
		return -EINVAL;
	*out = NULL;
	if (!b)
		return enpu_cpu_fail(context, -EINVAL, "gemm weights: B is NULL");
	if (k == 0 || n == 0)
		return enpu_cpu_fail(context, -EINVAL,
				     "gemm weights: empty shape K=%zu N=%zu", k, n);
	if (k > ENPU_CPU_GEMM_MAX_K)
		return enpu_cpu_fail(context, -EINVAL,
				     "gemm weights: K=%zu exceeds the int32 accumulator limit %d",
				     k, ENPU_CPU_GEMM_MAX_K);
	if (n > ((size_t)1 << 30))
		return enpu_cpu_fail(context, -EINVAL,
				     "gemm weights: N=%zu too large", n);
	if (ldb < n)
		return enpu_cpu_fail(context, -EINVAL,
				     "gemm weights: ldb=%zu smaller than N=%zu",
				     ldb, n);
	w = calloc(1, sizeof(*w));
	if (!w)
		return enpu_cpu_fail(context, -ENOMEM,
				     "gemm weights: out of memory");
	w->k = k;
	w->n = n;
	w->k_groups = (k + ENPU_GEMM_K_GROUP - 1) / ENPU_GEMM_K_GROUP;
	w->panel_count = (n + ENPU_GEMM_PANEL_COLUMNS - 1) /
			 ENPU_GEMM_PANEL_COLUMNS;
	w->panel_stride = w->k_groups * ENPU_GEMM_K_GROUP *
			  ENPU_GEMM_PANEL_COLUMNS;
	padded_n = w->panel_count * ENPU_GEMM_PANEL_COLUMNS;
	w->packed = aligned_calloc(w->panel_count * w->panel_stride);
	w->bias = aligned_calloc(padded_n * sizeof(int32_t));
	w->column_sum = aligned_calloc(padded_n * sizeof(int32_t));
	if (!w->packed || !w->bias || !w->column_sum) {
		enpu_cpu_gemm_weights_destroy(w);
		return enpu_cpu_fail(context, -ENOMEM,
				     "gemm weights: out of memory for %zu x %zu",
				     k, n);
	}
	for (size_t col = 0; col < n; col++) {
		int8_t *panel = w->packed + (col / ENPU_GEMM_PANEL_COLUMNS) *
					    w->panel_stride;
		size_t lane = col % ENPU_GEMM_PANEL_COLUMNS;
		int32_t sum = 0;

		for (size_t row = 0; row < k; row++) {
			int8_t v = b[row * ldb + col];

			panel[(row / 4) * 64 + lane * 4 + row % 4] = v;
			sum += v;
		}
		w->column_sum[col] = sum;
		w->bias[col] = bias ? bias[col] : 0;
	}
	if (context->kernels.gemm->int16_panels) {
		err = pack_int16(context, w, b, ldb);
		if (err) {
			enpu_cpu_gemm_weights_destroy(w);
			return err;
		}
	}
	*out = w;
	return 0;
}

size_t enpu_cpu_gemm_weights_k(const enpu_cpu_gemm_weights *weights)
{
	return weights->k;
}

size_t enpu_cpu_gemm_weights_n(const enpu_cpu_gemm_weights *weights)
{
	return weights->n;
}

static int check_args(enpu_cpu_context *context,
		      const struct enpu_cpu_gemm_args *args, size_t k, size_t n)
{
	int err;

	if (args->m > ((size_t)1 << 31))
		return enpu_cpu_fail(context, -EINVAL, "gemm: M=%zu too large",
				     args->m);
	if (args->m && (!args->a || !args->c))
		return enpu_cpu_fail(context, -EINVAL, "gemm: A or C is NULL");
	if (args->lda < k)
		return enpu_cpu_fail(context, -EINVAL,
				     "gemm: lda=%zu smaller than K=%zu",
				     args->lda, k);
	if (args->ldc < n)
		return enpu_cpu_fail(context, -EINVAL,
				     "gemm: ldc=%zu smaller than N=%zu",
				     args->ldc, n);
	err = enpu_cpu_check_activation(context, "gemm", "A", args->a_type,
					args->a_zero_point);
	if (err)
		return err;
	return enpu_cpu_check_output(context, "gemm", args->c_type, args->requant,
				     n);
}

int enpu_cpu_gemm_reference(enpu_cpu_context *context,
			    const struct enpu_cpu_gemm_args *args,
			    const int8_t *b, size_t ldb, const int32_t *bias,
			    size_t k, size_t n)
{
	const struct enpu_cpu_requant *rq = args ? args->requant : NULL;
	int err;

	if (!context || !args)
		return -EINVAL;
	if (!b || ldb < n || k == 0 || n == 0 || k > ENPU_CPU_GEMM_MAX_K)
		return enpu_cpu_fail(context, -EINVAL,
				     "gemm reference: bad B (K=%zu N=%zu ldb=%zu)",
				     k, n, ldb);
	err = check_args(context, args, k, n);
	if (err)
		return err;
	for (size_t m = 0; m < args->m; m++) {
		for (size_t col = 0; col < n; col++) {
			/* uint32: int32 arithmetic that wraps instead of UB. */
			uint32_t acc = bias ? (uint32_t)bias[col] : 0;
			size_t ch = rq && rq->per_channel ? col : 0;
			int32_t a, out;

			for (size_t i = 0; i < k; i++) {
				if (args->a_type == ENPU_CPU_UINT8)
					a = ((const uint8_t *)args->a)[m * args->lda + i];
				else
					a = ((const int8_t *)args->a)[m * args->lda + i];
				acc += (uint32_t)((a - args->a_zero_point) *
						  b[i * ldb + col]);
			}
			if (args->c_type == ENPU_CPU_INT32) {
				((int32_t *)args->c)[m * args->ldc + col] =
					(int32_t)acc;
				continue;
			}
			out = enpu_requantize((int32_t)acc, rq->multiplier[ch],
					      rq->shift[ch], rq->zero_point,
					      rq->min, rq->max);
			if (args->c_type == ENPU_CPU_UINT8)
				((uint8_t *)args->c)[m * args->ldc + col] =
					(uint8_t)out;
			else
				((int8_t *)args->c)[m * args->ldc + col] =
					(int8_t)out;
		}
	}
	return 0;
}

struct gemm_job {
	const struct enpu_cpu_gemm_args *args;
	const struct enpu_gemm_kernel_info *kernel;
	struct enpu_gemm_tile base;
	size_t element_size;
	size_t row_tiles;        /* tiles of kernel->rows over M */
	size_t column_tiles;     /* tiles of kernel->columns over N */
	size_t rows_per_block;   /* in tiles */
	size_t columns_per_block;
	size_t row_blocks;
	size_t column_blocks;
};

static void run_block(void *argument, size_t block)
{
	const struct gemm_job *job = argument;
	const struct enpu_cpu_gemm_args *args = job->args;
	const enpu_cpu_gemm_weights *w = args->weights;
	size_t row_block = block / job->column_blocks;
	size_t column_block = block % job->column_blocks;
	size_t tile_row_end = (row_block + 1) * job->rows_per_block;
	size_t tile_column_end = (column_block + 1) * job->columns_per_block;
	size_t kr = job->kernel->rows, kc = job->kernel->columns;
	struct enpu_gemm_tile tile = job->base;

	if (tile_row_end > job->row_tiles)
		tile_row_end = job->row_tiles;
	if (tile_column_end > job->column_tiles)
		tile_column_end = job->column_tiles;
	for (size_t ct = column_block * job->columns_per_block;
	     ct < tile_column_end; ct++) {
		size_t col = ct * kc;
		size_t ch = job->base.per_channel ? col : 0;

		tile.columns = w->n - col < kc ? w->n - col : kc;
		tile.panel = w->packed +
			     (col / ENPU_GEMM_PANEL_COLUMNS) * w->panel_stride;
		tile.panel16 = w->packed16 ? w->packed16 +
			       (col / ENPU_GEMM_PANEL_COLUMNS) *
			       w->panel16_stride : NULL;
		tile.bias = w->bias + col;
		tile.column_sum = w->column_sum + col;
		if (job->base.multiplier) {
			tile.multiplier = job->base.multiplier + ch;
			tile.shift = job->base.shift + ch;
		}
		for (size_t rt = row_block * job->rows_per_block;
		     rt < tile_row_end; rt++) {
			size_t row = rt * kr;

			tile.rows = args->m - row < kr ? args->m - row : kr;
			tile.a = (const uint8_t *)args->a + row * args->lda;
			tile.c = (char *)args->c +
				 (row * args->ldc + col) * job->element_size;
			job->kernel->kernel(&tile);
		}
	}
}

int enpu_cpu_gemm(enpu_cpu_context *context,
		  const struct enpu_cpu_gemm_args *args)
{
	const enpu_cpu_gemm_weights *w;
	const struct enpu_cpu_requant *rq;
	struct gemm_job job;
	unsigned int threads;
	size_t wanted;
	int err;

	if (!context || !args)
		return -EINVAL;
	w = args->weights;
	if (!w)
		return enpu_cpu_fail(context, -EINVAL, "gemm: weights are NULL");
	err = check_args(context, args, w->k, w->n);
	if (err)
		return err;
	if (args->m == 0)
		return 0;
	rq = args->requant;

	memset(&job, 0, sizeof(job));
	job.args = args;
	job.kernel = context->kernels.gemm;
	job.base.lda = args->lda;
	job.base.a_flip = args->a_type == ENPU_CPU_INT8 ? 0x80808080u : 0;
	job.base.a_zero_point = args->a_type == ENPU_CPU_INT8 ?
				args->a_zero_point + 128 : args->a_zero_point;
	job.base.k = w->k;
	job.base.k_groups = w->k_groups;
	job.base.panel_stride = w->panel_stride;
	job.base.panel16_stride = w->panel16_stride;
	job.base.c_type = args->c_type;
	job.base.ldc = args->ldc;
	job.element_size = args->c_type == ENPU_CPU_INT32 ? 4 : 1;
	if (args->c_type != ENPU_CPU_INT32)
		enpu_gemm_tile_set_requant(&job.base, rq);

	job.row_tiles = enpu_divide_up(args->m, job.kernel->rows);
	job.column_tiles = enpu_divide_up(w->n, job.kernel->columns);
	job.rows_per_block = BLOCK_A_BYTES /
			     (job.kernel->rows * w->k_groups * 4);
	job.columns_per_block = BLOCK_B_BYTES /
				(job.kernel->columns * w->k_groups * 4 *
				 (w->packed16 ? 2 : 1));
	if (job.rows_per_block == 0)
		job.rows_per_block = 1;
	if (job.columns_per_block == 0)
		job.columns_per_block = 1;
	if (job.rows_per_block > job.row_tiles)
		job.rows_per_block = job.row_tiles;
	if (job.columns_per_block > job.column_tiles)
		job.columns_per_block = job.column_tiles;

	/*
	 * With several threads, cut finer until there are a few blocks per
	 * thread, so that uneven blocks and a busy core even out; rows first,
	 * since splitting columns re-reads A.
	 */
	threads = enpu_thread_pool_thread_count(context->pool);
	wanted = threads > 1 ? 4 * (size_t)threads : 1;
	for (;;) {
		size_t blocks = enpu_divide_up(job.row_tiles, job.rows_per_block) *
				enpu_divide_up(job.column_tiles,
					  job.columns_per_block);

		if (blocks >= wanted)
			break;
		if (job.rows_per_block > 1)
			job.rows_per_block = enpu_divide_up(job.rows_per_block, 2);
		else if (job.columns_per_block > 1)
			job.columns_per_block =
				enpu_divide_up(job.columns_per_block, 2);
		else
			break;
	}
	job.row_blocks = enpu_divide_up(job.row_tiles, job.rows_per_block);
	job.column_blocks = enpu_divide_up(job.column_tiles, job.columns_per_block);
	enpu_thread_pool_parallel_for_work(context->pool,
		job.row_blocks * job.column_blocks,
		enpu_thread_pool_work_ns(
			(uint64_t)args->m * w->k + (uint64_t)w->k * w->n +
			(uint64_t)args->m * w->n,
			(uint64_t)args->m * w->n * w->k),
		run_block, &job);
	return 0;
}
