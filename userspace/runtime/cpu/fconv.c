// SPDX-License-Identifier: MIT
/*
 * Float NCHW convolution (enpu_cpu_float.h). Dense and grouped: per image
 * and group one GEMM, C[M_g][P] = W_g[M_g][K] x B[K][P] with the weights
 * read in place as A (K = C_g * kh * kw contiguous per output channel)
 * and B the unfolded input, built panel by panel inside the GEMM's tasks
 * (sgemm_panels.h) so the unfolding never exists whole; a 1x1, stride 1,
 * unpadded convolution reads the input itself as B. Stride-1
 * convolutions with few output channels, or with output rows that fill
 * the microkernel's panels, do not unfold at all (reads_in_place()):
 * each task (a band of output rows) copies the input rows it reads, with
 * their padding, into scratch and hands the microkernel one offset per
 * (channel, ky, kx) into it, the K rows of B in place (the indirect
 * microkernel; where the ISA has tall kernels, blocks of 14, 12 or 8
 * output channels run on them over weights packed k-major, once by
 * enpu_cpu_fconv_weights_pack() or else per call). Bias is per row, the
 * clamp fused. Depthwise: the context's depthwise kernel per (image,
 * channel, band of rows). Dense at stride 2 with at most
 * ENPU_FCONV_FEW_TAPS taps: the context's few-taps kernel where the ISA
 * has one (uses_few_taps()), per (image, band of rows), nothing unfolded.
 */
#include "context_internal.h"
#include "cpu_internal.h"
#include "enpu_cpu_float.h"
#include "sgemm_panels.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SIZE_LIMIT ENPU_CPU_SIZE_LIMIT
#define MAX_KERNEL ENPU_CPU_FCONV_MAX_KERNEL
/* Output rows per depthwise task, so two threads both get work. */
#define DW_ROWS 8

static int check_shape(enpu_cpu_context *context,
		       const struct enpu_cpu_fconv_shape *s, size_t *oh,
		       size_t *ow)
{
	size_t span_h, span_w;

	if (!s)
		return enpu_cpu_fail(context, -EINVAL, "fconv: shape is NULL");
	if (!s->batch || !s->in_channels || !s->height || !s->width ||
	    !s->out_channels || !s->group || !s->kernel_height ||
	    !s->kernel_width || !s->stride_height || !s->stride_width ||
	    !s->dilation_height || !s->dilation_width ||
	    s->batch > SIZE_LIMIT || s->in_channels > SIZE_LIMIT ||
	    s->height > SIZE_LIMIT || s->width > SIZE_LIMIT ||
	    s->out_channels > SIZE_LIMIT || s->kernel_height > MAX_KERNEL ||
	    s->kernel_width > MAX_KERNEL || s->stride_height > SIZE_LIMIT ||
	    s->stride_width > SIZE_LIMIT || s->dilation_height > MAX_KERNEL ||
	    s->dilation_width > MAX_KERNEL || s->pad_top > SIZE_LIMIT ||
	    s->pad_bottom > SIZE_LIMIT || s->pad_left > SIZE_LIMIT ||
	    s->pad_right > SIZE_LIMIT)
		return enpu_cpu_fail(context, -EINVAL,
				     "fconv: a size is 0 or out of range");
	if (s->in_channels % s->group || s->out_channels % s->group)
		return enpu_cpu_fail(context, -EINVAL,
				     "fconv: %zu/%zu channels do not split into %zu groups",
				     s->in_channels, s->out_channels, s->group);
	span_h = s->dilation_height * (s->kernel_height - 1) + 1;
	span_w = s->dilation_width * (s->kernel_width - 1) + 1;
	if (s->height + s->pad_top + s->pad_bottom < span_h ||
	    s->width + s->pad_left + s->pad_right < span_w)
		return enpu_cpu_fail(context, -EINVAL,
				     "fconv: kernel does not fit the padded input");
	*oh = (s->height + s->pad_top + s->pad_bottom - span_h) /
	      s->stride_height + 1;
	*ow = (s->width + s->pad_left + s->pad_right - span_w) /
	      s->stride_width + 1;
	return 0;
}

int enpu_cpu_fconv_output_size(enpu_cpu_context *context,
			       const struct enpu_cpu_fconv_shape *shape,
			       size_t *out_height, size_t *out_width)
{
	if (!context || !out_height || !out_width)
		return -EINVAL;
	return check_shape(context, shape, out_height, out_width);
}

/* The unfolding of one image's group, for the GEMM's panel callback. */
struct unfold {
	const struct enpu_cpu_fconv_shape *s;
	const float *x;		/* the group's first input channel */
	size_t oh, ow, channels;
};

/*
 * One row of the unfolding (tap c, ky, kx) over output pixels
 * [col0, col0 + cols): run by run of output rows; each run is one input
 * row segment (a copy at stride 1, a strided gather otherwise) with the
 * padding zero-filled around it.
 */
static void unfold_row(const struct unfold *u, const float *plane, size_t ky,
		       size_t kx, size_t col0, size_t cols, float *dst)
{
	const struct enpu_cpu_fconv_shape *s = u->s;
	size_t oy = col0 / u->ow, ox = col0 % u->ow, j = 0;
	ptrdiff_t off = (ptrdiff_t)(kx * s->dilation_width) -
			(ptrdiff_t)s->pad_left;

	while (j < cols) {
		size_t run = cols - j < u->ow - ox ? cols - j : u->ow - ox;
		ptrdiff_t iy = (ptrdiff_t)(oy * s->stride_height +
					   ky * s->dilation_height) -
			       (ptrdiff_t)s->pad_top;

		if (iy < 0 || iy >= (ptrdiff_t)s->height) {
			memset(dst + j, 0, run * sizeof(float));
		} else {
			const float *row = plane + (size_t)iy * s->width;
			ptrdiff_t sw = (ptrdiff_t)s->stride_width;
			ptrdiff_t first = (ptrdiff_t)ox * sw + off;	/* ix of i = 0 */
			ptrdiff_t room = (ptrdiff_t)s->width - first;
			size_t lo = first >= 0 ? 0 :
				    (size_t)((-first + sw - 1) / sw);
			size_t hi = room <= 0 ? 0 : (size_t)((room + sw - 1) / sw);

			if (hi > run)
				hi = run;
			if (lo > hi)
				lo = hi;
			memset(dst + j, 0, lo * sizeof(float));
			if (sw == 1) {
				memcpy(dst + j + lo, row + first + (ptrdiff_t)lo,
				       (hi - lo) * sizeof(float));
			} else if (sw == 2) {
				/* A constant stride the compiler vectorizes. */
				const float *src = row + first;

				for (size_t i = lo; i < hi; i++)
					dst[j + i] = src[2 * i];
			} else {
				for (size_t i = lo; i < hi; i++)
					dst[j + i] = row[first + (ptrdiff_t)i * sw];
			}
			memset(dst + j + hi, 0, (run - hi) * sizeof(float));
		}
		j += run;
		ox = 0;
		oy++;
	}
}

static void unfold_panel(void *argument, size_t col0, size_t cols, size_t nr,
			 float *panel)
{
	const struct unfold *u = argument;
	const struct enpu_cpu_fconv_shape *s = u->s;
	size_t kh = s->kernel_height, kw = s->kernel_width;

	for (size_t c = 0; c < u->channels; c++)
	for (size_t ky = 0; ky < kh; ky++)
	for (size_t kx = 0; kx < kw; kx++) {
		float *dst = panel + ((c * kh + ky) * kw + kx) * nr;

		unfold_row(u, u->x + c * s->height * s->width, ky, kx, col0,
			   cols, dst);
		for (size_t j = cols; j < nr; j++)
			dst[j] = 0.0f;
	}
}

/*
 * The blocks of output channels of one group for the tall kernels
 * (sgemm_internal.h) and where each block's packed weights start: the
 * split of mg rows into blocks of the kernels' sizes that costs least by
 * the kernels' measured costs, a last block padded with zero rows where
 * none fits exactly (64 = 14 + 14 + 12 + 12 + 12, 16 = 8 + 8).
 */
struct fconv_block {
	size_t m0, mr;		/* first row, rows stored */
	size_t tall;		/* index into the kernel table's talls */
	size_t offset;		/* packed rows before it (k floats each) */
};

struct fconv_plan {
	size_t blocks, group_floats;	/* per group */
	struct fconv_block *block;
};

/*
 * Stride 1, read in place: one task per band of output rows. The task
 * copies the input rows its band reads (every channel of the group, with
 * the padding) into scratch, which stays in L2 while the microkernel runs
 * the band's panels over it. A copy of the whole padded image instead
 * went to memory and back: its memset and memcpy were a quarter of a
 * 32->16 3x3 convolution at 256x256. The microkernel's K rows are the
 * same offsets into every band (tap (c, ky, kx) at channel c's rows
 * ky * dilation down, kx * dilation across), worked out once.
 */
struct direct_job {
	const struct enpu_cpu_fconv_shape *s;
	const struct enpu_sgemm_kernel_info *kn;
	const float *x;			/* the group's first input channel */
	const float *w, *bias, *clamp;
	float *y;			/* the group's first output channel */
	const ptrdiff_t *offsets;	/* k of them */
	/* NULL (no tall kernels), or the group's blocks and their weights. */
	const struct fconv_plan *plan;
	const float *packed;
	size_t wp, oh, ow, mg, cg, k, panels;
	size_t band, rows_in;		/* output rows, input rows read */
	atomic_int failed;
};

/* Scratch per band: about a quarter of L2, next to the weights. */
#define BAND_BYTES (512 * 1024)

/* Rows [row0, row0 + job->rows_in) of the padded input, each channel. */
static void copy_band(const struct direct_job *job, size_t row0,
		      float *band)
{
	const struct enpu_cpu_fconv_shape *s = job->s;

	for (size_t c = 0; c < job->cg; c++)
		for (size_t r = 0; r < job->rows_in; r++) {
			float *dst = band + (c * job->rows_in + r) * job->wp;
			size_t pr = row0 + r;

			/* Rows past the image (the last band's): zeros too. */
			if (pr < s->pad_top || pr - s->pad_top >= s->height) {
				memset(dst, 0, job->wp * sizeof(float));
				continue;
			}
			memset(dst, 0, s->pad_left * sizeof(float));
			memcpy(dst + s->pad_left, job->x + (c * s->height +
			       pr - s->pad_top) * s->width,
			       s->width * sizeof(float));
			memset(dst + s->pad_left + s->width, 0,
			       s->pad_right * sizeof(float));
		}
}

static void direct_task(void *argument, size_t task)
{
	struct direct_job *job = argument;
	const struct enpu_sgemm_kernel_info *kn = job->kn;
	size_t row0 = task * job->band;
	size_t row1 = row0 + job->band < job->oh ? row0 + job->band : job->oh;
	/* NR floats of slack: a tail panel reads a full NR past its row. */
	size_t floats = job->cg * job->rows_in * job->wp + kn->nr;
	float *band = malloc(floats * sizeof(float));

	if (!band) {
		atomic_store(&job->failed, 1);
		return;
	}
	copy_band(job, row0, band);
	memset(band + floats - kn->nr, 0, kn->nr * sizeof(float));
	for (size_t oy = row0; oy < row1; oy++)
	for (size_t p = 0; p < job->panels; p++) {
		size_t ox0 = p * kn->nr;
		size_t nr = job->ow - ox0 < kn->nr ? job->ow - ox0 : kn->nr;
		const float *b = band + (oy - row0) * job->wp + ox0;
		size_t plane = job->oh * job->ow;
		float *y = job->y + oy * job->ow + ox0;

		if (job->plan) {
			for (size_t i = 0; i < job->plan->blocks; i++) {
				const struct fconv_block *bl =
					&job->plan->block[i];

				kn->talls[bl->tall].kernel(bl->mr, nr, job->k,
					job->packed + bl->offset * job->k, b,
					job->offsets, y + bl->m0 * plane,
					plane, job->bias ? job->bias + bl->m0 :
					NULL, job->clamp);
			}
			continue;
		}
		for (size_t m0 = 0; m0 < job->mg; m0 += kn->mr) {
			size_t mr = job->mg - m0 < kn->mr ? job->mg - m0 :
				    kn->mr;

			kn->indirect(mr, nr, job->k, job->w + m0 * job->k,
				     job->k, b, job->offsets, y + m0 * plane,
				     plane, job->bias ? job->bias + m0 : NULL,
				     1, job->clamp);
		}
	}
	free(band);
}

/*
 * Output rows per band: as many as BAND_BYTES of input rows hold past
 * the kernel's own span, and at most a quarter of each thread's share of
 * the rows, so the threads get several bands each.
 */
static size_t band_rows(size_t row_bytes, size_t span_h, size_t oh,
			unsigned int threads)
{
	size_t fit = BAND_BYTES / row_bytes, most;

	fit = fit > span_h ? fit - (span_h - 1) : 1;
	most = enpu_divide_up(oh, 4 * (size_t)threads);
	return fit < most ? fit : most;
}

/* Rows planned exactly; above, blocks of the largest kernel first. */
#define PLAN_ROWS 128

static size_t tall_count(const struct enpu_sgemm_kernel_info *kn)
{
	size_t n = 0;

	while (n < ENPU_SGEMM_TALLS && kn->talls[n].kernel)
		n++;
	return n;
}

/*
 * Fills @plan->block (NULL: only counts) for mg rows; returns the number
 * of blocks.
 */
static size_t plan_blocks(const struct enpu_sgemm_kernel_info *kn, size_t mg,
			  struct fconv_plan *plan)
{
	size_t talls = tall_count(kn), big = kn->talls[0].rows;
	size_t cost[PLAN_ROWS + 1], pick[PLAN_ROWS + 1];
	size_t rest = mg, bulk = 0, n = 0, m0 = 0, offset = 0;

	if (rest > PLAN_ROWS)
		bulk = enpu_divide_up(rest - PLAN_ROWS, big);
	rest -= bulk * big;
	cost[0] = 0;
	for (size_t m = 1; m <= rest; m++) {
		cost[m] = SIZE_MAX;
		for (size_t t = 0; t < talls; t++) {
			size_t rows = kn->talls[t].rows;
			size_t c = kn->talls[t].cost +
				   cost[m > rows ? m - rows : 0];

			if (c < cost[m]) {
				cost[m] = c;
				pick[m] = t;
			}
		}
	}
	for (size_t m = mg; m > 0; n++) {
		size_t t = m > rest ? 0 : pick[m];
		size_t rows = kn->talls[t].rows;
		size_t mr = m < rows ? m : rows;

		if (plan->block) {
			plan->block[n].m0 = m0;
			plan->block[n].mr = mr;
			plan->block[n].tall = t;
			plan->block[n].offset = offset;
		}
		m0 += mr;
		offset += rows;
		m -= mr;
	}
	plan->blocks = n;
	return n;
}

/* One group's weights, block by block, k-major, padding rows zero. */
static void pack_blocks(const struct enpu_sgemm_kernel_info *kn,
			const struct fconv_plan *plan, size_t k,
			const float *w, float *packed)
{
	for (size_t i = 0; i < plan->blocks; i++) {
		const struct fconv_block *bl = &plan->block[i];
		size_t rows = kn->talls[bl->tall].rows;
		float *dst = packed + bl->offset * k;

		for (size_t kk = 0; kk < k; kk++)
			for (size_t r = 0; r < rows; r++)
				dst[kk * rows + r] = r < bl->mr ?
					w[(bl->m0 + r) * k + kk] : 0.0f;
	}
}

/*
 * Convolution weights packed once (enpu_cpu_float.h): the plan of one
 * group and every group's blocks, for the kernel table they were packed
 * with.
 */
struct enpu_cpu_fconv_weights {
	const struct enpu_sgemm_kernel_info *kn;
	size_t group, mg, k;
	struct fconv_plan plan;
	float *packed;		/* group after group, plan.group_floats each */
};

static int plan_init(enpu_cpu_context *context, size_t mg, size_t k,
		     struct fconv_plan *plan)
{
	const struct enpu_sgemm_kernel_info *kn = context->kernels.sgemm;
	size_t n;

	memset(plan, 0, sizeof(*plan));
	n = plan_blocks(kn, mg, plan);
	plan->block = calloc(n, sizeof(*plan->block));
	if (!plan->block)
		return enpu_cpu_fail(context, -ENOMEM, "fconv: out of memory");
	plan_blocks(kn, mg, plan);
	plan->group_floats = (plan->block[n - 1].offset +
			      kn->talls[plan->block[n - 1].tall].rows) * k;
	return 0;
}

void enpu_cpu_fconv_weights_destroy(enpu_cpu_fconv_weights *weights)
{
	if (!weights)
		return;
	free(weights->plan.block);
	free(weights->packed);
	free(weights);
}

/*
 * One image: every group, band by band; @weights packed (NULL: the
 * blocks are packed here, where the ISA has tall kernels).
 */
static int direct_conv(enpu_cpu_context *context,
		       const struct enpu_cpu_fconv_shape *s, size_t oh,
		       size_t ow, const float *x, const float *w,
		       const enpu_cpu_fconv_weights *weights,
		       const float *bias, const float *clamp, float *y)
{
	const struct enpu_sgemm_kernel_info *kn = context->kernels.sgemm;
	size_t kh = s->kernel_height, kw = s->kernel_width;
	size_t span_h = s->dilation_height * (kh - 1) + 1;
	size_t cg = s->in_channels / s->group, mg = s->out_channels / s->group;
	struct direct_job job;
	struct fconv_plan own = { 0 };
	ptrdiff_t *offsets;
	float *packed = NULL;

	memset(&job, 0, sizeof(job));
	job.s = s;
	job.kn = kn;
	job.wp = s->width + s->pad_left + s->pad_right;
	job.oh = oh;
	job.ow = ow;
	job.mg = mg;
	job.cg = cg;
	job.k = cg * kh * kw;
	job.panels = enpu_divide_up(ow, kn->nr);
	job.band = band_rows(cg * job.wp * sizeof(float), span_h, oh,
			     enpu_thread_pool_thread_count(context->pool));
	job.rows_in = job.band + span_h - 1;
	job.clamp = clamp;
	if (weights) {
		job.plan = &weights->plan;
	} else if (tall_count(kn)) {
		if (plan_init(context, mg, job.k, &own))
			return -ENOMEM;
		packed = malloc(own.group_floats * sizeof(*packed));
		if (!packed) {
			free(own.block);
			return enpu_cpu_fail(context, -ENOMEM,
					     "fconv: out of memory");
		}
		job.plan = &own;
	}
	offsets = malloc(job.k * sizeof(*offsets));
	if (!offsets) {
		free(own.block);
		free(packed);
		return enpu_cpu_fail(context, -ENOMEM, "fconv: out of memory");
	}
	for (size_t c = 0; c < cg; c++)
	for (size_t ky = 0; ky < kh; ky++)
	for (size_t kx = 0; kx < kw; kx++)
		offsets[(c * kh + ky) * kw + kx] = (ptrdiff_t)
			((c * job.rows_in + ky * s->dilation_height) * job.wp +
			 kx * s->dilation_width);
	job.offsets = offsets;
	atomic_init(&job.failed, 0);
	for (size_t g = 0; g < s->group; g++) {
		job.x = x + g * cg * s->height * s->width;
		job.w = w + g * mg * job.k;
		if (weights) {
			job.packed = weights->packed +
				     g * weights->plan.group_floats;
		} else if (packed) {
			pack_blocks(kn, &own, job.k, job.w, packed);
			job.packed = packed;
		}
		job.bias = bias ? bias + g * mg : NULL;
		job.y = y + g * mg * oh * ow;
		enpu_thread_pool_parallel_for(context->pool,
					      enpu_divide_up(oh, job.band),
					      direct_task, &job);
	}
	free(offsets);
	free(own.block);
	free(packed);
	if (atomic_load(&job.failed))
		return enpu_cpu_fail(context, -ENOMEM, "fconv: out of memory");
	return 0;
}

/* A job of bands of output rows: depthwise, max pool, or few taps. */
struct dw_job {
	const struct enpu_cpu_fconv_shape *s;
	const float *x, *w, *bias, *clamp;
	float *y;
	size_t oh, ow, bands;
	enpu_fdwconv_kernel kernel;
	int max_pool;
	/* few_taps_task()'s kernel; w is then the transposed weights. */
	enpu_fconv_few_taps_kernel few_taps;
	/* blocked_dw_task()'s kernel. */
	enpu_fdwconv_blocked_kernel blocked;
};

static void dw_task(void *argument, size_t task)
{
	const struct dw_job *job = argument;
	const struct enpu_cpu_fconv_shape *s = job->s;
	size_t plane = task / job->bands, band = task % job->bands;
	size_t c = plane % s->in_channels;
	struct enpu_fdwconv_pass pass = {
		.x = job->x + plane * s->height * s->width,
		.w = job->w ? job->w + c * s->kernel_height * s->kernel_width :
		     NULL,
		.bias = job->bias ? job->bias[c] : 0.0f,
		.y = job->y + plane * job->oh * job->ow,
		.height = s->height, .width = s->width,
		.out_height = job->oh, .out_width = job->ow,
		.kernel_h = s->kernel_height, .kernel_w = s->kernel_width,
		.stride_h = s->stride_height, .stride_w = s->stride_width,
		.dilation_h = s->dilation_height,
		.dilation_w = s->dilation_width,
		.pad_top = s->pad_top, .pad_left = s->pad_left,
		.row0 = band * DW_ROWS,
		.row1 = band * DW_ROWS + DW_ROWS < job->oh ?
			band * DW_ROWS + DW_ROWS : job->oh,
		.clamp = job->clamp,
		.max_pool = job->max_pool,
	};

	job->kernel(&pass);
}

/*
 * Depthwise 3x3 on small planes (fmath_internal.h): the context's
 * blocked kernel, one task per image and block of 8 channels, where one
 * task per plane and band paid a padded copy and the edges per plane.
 */
#define DW_BLOCK ENPU_FDWCONV_BLOCK_CHANNELS

static int is_depthwise(const struct enpu_cpu_fconv_shape *s);

static int uses_blocked_dw(const enpu_cpu_context *context,
			   const struct enpu_cpu_fconv_shape *s)
{
	return context->kernels.fdwconv_blocked && is_depthwise(s) &&
	       s->kernel_height == 3 && s->kernel_width == 3 &&
	       s->dilation_height == 1 && s->dilation_width == 1 &&
	       s->stride_height == s->stride_width &&
	       (s->stride_height == 1 || s->stride_height == 2) &&
	       s->pad_top <= 1 && s->pad_left <= 1 && s->pad_bottom <= 1 &&
	       s->pad_right <= 1 &&
	       s->height <= ENPU_FDWCONV_BLOCKED_MAX_SIDE &&
	       s->width <= ENPU_FDWCONV_BLOCKED_MAX_SIDE;
}

static void blocked_dw_task(void *argument, size_t task)
{
	const struct dw_job *job = argument;
	const struct enpu_cpu_fconv_shape *s = job->s;
	size_t blocks = enpu_divide_up(s->in_channels, DW_BLOCK);
	size_t n = task / blocks, c0 = task % blocks * DW_BLOCK;
	size_t first = n * s->in_channels + c0;
	struct enpu_fdwconv_block_pass pass = {
		.x = job->x + first * s->height * s->width,
		.w = job->w + c0 * 9,
		.bias = job->bias ? job->bias + c0 : NULL,
		.clamp = job->clamp,
		.y = job->y + first * job->oh * job->ow,
		.channels = s->in_channels - c0 < DW_BLOCK ?
			    s->in_channels - c0 : DW_BLOCK,
		.height = s->height, .width = s->width,
		.out_height = job->oh, .out_width = job->ow,
		.stride = s->stride_height,
		.pad_top = s->pad_top, .pad_left = s->pad_left,
	};

	job->blocked(&pass);
}

/*
 * Stride 2 with few taps (MobileNet's first layer): the context's
 * few-taps kernel, one task per image and band of output rows, over the
 * weights transposed once per call (taps x output channels, padded to
 * the kernel's blocks of channels).
 */
#define FEW_TAPS_ROWS 4

static void few_taps_task(void *argument, size_t task)
{
	const struct dw_job *job = argument;
	const struct enpu_cpu_fconv_shape *s = job->s;
	size_t n = task / job->bands, row0 = task % job->bands * FEW_TAPS_ROWS;
	struct enpu_fconv_few_taps_pass pass = {
		.x = job->x + n * s->in_channels * s->height * s->width,
		.wt = job->w, .bias = job->bias, .clamp = job->clamp,
		.y = job->y + n * s->out_channels * job->oh * job->ow,
		.channels = s->in_channels, .height = s->height,
		.width = s->width, .out_channels = s->out_channels,
		.out_height = job->oh, .out_width = job->ow,
		.kernel_h = s->kernel_height, .kernel_w = s->kernel_width,
		.pad_top = s->pad_top, .pad_left = s->pad_left,
		.row0 = row0,
		.row1 = row0 + FEW_TAPS_ROWS < job->oh ?
			row0 + FEW_TAPS_ROWS : job->oh,
	};

	job->few_taps(&pass);
}

static int uses_few_taps(const enpu_cpu_context *context,
			 const struct enpu_cpu_fconv_shape *s)
{
	return context->kernels.fconv_few_taps && s->group == 1 &&
	       s->stride_height == 2 && s->stride_width == 2 &&
	       s->dilation_height == 1 && s->dilation_width == 1 &&
	       s->in_channels * s->kernel_height * s->kernel_width <=
	       ENPU_FCONV_FEW_TAPS;
}

static int few_taps_conv(enpu_cpu_context *context,
			 const struct enpu_cpu_fconv_shape *s, size_t oh,
			 size_t ow, const float *x, const float *w,
			 const float *bias, const float *clamp, float *y)
{
	size_t taps = s->in_channels * s->kernel_height * s->kernel_width;
	size_t ldw = enpu_divide_up(s->out_channels,
				    ENPU_FCONV_FEW_TAPS_BLOCK) *
		     ENPU_FCONV_FEW_TAPS_BLOCK;
	float *wt = calloc(taps * ldw, sizeof(float));
	struct dw_job job = {
		.s = s, .x = x, .w = wt, .bias = bias, .clamp = clamp, .y = y,
		.oh = oh, .ow = ow, .bands = enpu_divide_up(oh, FEW_TAPS_ROWS),
		.few_taps = context->kernels.fconv_few_taps,
	};

	if (!wt)
		return enpu_cpu_fail(context, -ENOMEM, "fconv: out of memory");
	for (size_t m = 0; m < s->out_channels; m++)
		for (size_t t = 0; t < taps; t++)
			wt[t * ldw + m] = w[m * taps + t];
	enpu_thread_pool_parallel_for(context->pool, s->batch * job.bands,
				      few_taps_task, &job);
	free(wt);
	return 0;
}

/*
 * Whether a stride-1 convolution reads its padded input in place (one
 * task per output row and panel) instead of unfolding it. Unfolding
 * costs K writes per output pixel, which only M x K multiply-adds
 * repay: below 64 output channels in place always wins. Above, it wins
 * too wherever output rows fill the microkernel's panels (the unfolding
 * was a third of a 128->64 3x3 convolution at 64x64: memcpy calls of one
 * panel row each), and loses where a row leaves most of a panel empty
 * (the unfolding runs across rows). Measured on AVX-512 (NR 32), best
 * of 10, ms, unfolded -> in place: 128->64 at 64x64 9.0 -> 5.2, 64->64
 * at 64x64 3.4-4.2 -> 2.3-2.5, 256->64 at 56x56 14.6 -> 10.4, 128->128
 * at 28x28 2.8 -> 2.1 (fill 7/8), 128->128 at 14x14 0.84 -> 0.89
 * (fill 7/16), 256->256 at 16x16 3.0 -> 4.8, 512->512 at 8x8
 * 3.1 -> 9.7; on AVX2 (NR 16) 128->128 at 14x14 (fill 7/8) 1.01 -> 0.73.
 */
static int reads_in_place(size_t mg, size_t ow, size_t nr)
{
	size_t lanes = enpu_divide_up(ow, nr) * nr;

	return mg < 64 || 8 * ow >= 7 * lanes;
}

/* One channel per group in and out: the context's depthwise kernel. */
static int is_depthwise(const struct enpu_cpu_fconv_shape *s)
{
	return s->group == s->in_channels && s->group == s->out_channels &&
	       s->group > 1;
}

/*
 * Whether enpu_cpu_conv2d_f32_packed() runs @s on the in-place path
 * (direct_conv(), the only reader of packed weights): not depthwise, not
 * few taps, stride 1, not a plain 1x1 (that reads its input as B), and
 * rows that reads_in_place() takes. @s must have passed check_shape().
 */
static int runs_direct(const enpu_cpu_context *context,
		       const struct enpu_cpu_fconv_shape *s, size_t ow)
{
	return !is_depthwise(s) && !uses_few_taps(context, s) &&
	       s->stride_height == 1 && s->stride_width == 1 &&
	       reads_in_place(s->out_channels / s->group, ow,
			      context->kernels.sgemm->nr) &&
	       (s->kernel_height > 1 || s->kernel_width > 1 || s->pad_top ||
		s->pad_left || s->pad_bottom || s->pad_right);
}

int enpu_cpu_fconv_weights_pack(enpu_cpu_context *context,
				const struct enpu_cpu_fconv_shape *s,
				const float *w,
				enpu_cpu_fconv_weights **weights)
{
	const struct enpu_sgemm_kernel_info *kn;
	enpu_cpu_fconv_weights *p;
	size_t oh, ow;
	int err;

	if (!context || !weights)
		return -EINVAL;
	*weights = NULL;
	err = check_shape(context, s, &oh, &ow);
	if (err)
		return err;
	if (!w)
		return enpu_cpu_fail(context, -EINVAL,
				     "fconv: weights are NULL");
	kn = context->kernels.sgemm;
	/*
	 * Only the in-place path reads packed weights, and only on ISAs with
	 * tall kernels; every other path (and shape) reads w as given.
	 */
	if (!tall_count(kn) || !runs_direct(context, s, ow))
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return enpu_cpu_fail(context, -ENOMEM, "fconv: out of memory");
	p->kn = kn;
	p->group = s->group;
	p->mg = s->out_channels / s->group;
	p->k = s->in_channels / s->group * s->kernel_height *
	       s->kernel_width;
	err = plan_init(context, p->mg, p->k, &p->plan);
	if (!err) {
		p->packed = malloc(p->group * p->plan.group_floats *
				   sizeof(float));
		if (!p->packed)
			err = enpu_cpu_fail(context, -ENOMEM,
					    "fconv: out of memory");
	}
	if (err) {
		enpu_cpu_fconv_weights_destroy(p);
		return err;
	}
	for (size_t g = 0; g < p->group; g++)
		pack_blocks(kn, &p->plan, p->k, w + g * p->mg * p->k,
			    p->packed + g * p->plan.group_floats);
	*weights = p;
	return 0;
}

int enpu_cpu_conv2d_f32(enpu_cpu_context *context,
			const struct enpu_cpu_fconv_shape *s, const float *x,
			const float *w, const float *bias, const float *clamp,
			float *y)
{
	return enpu_cpu_conv2d_f32_packed(context, s, x, w, NULL, bias, clamp,
					  y);
}

int enpu_cpu_conv2d_f32_packed(enpu_cpu_context *context,
			       const struct enpu_cpu_fconv_shape *s,
			       const float *x, const float *w,
			       const enpu_cpu_fconv_weights *weights,
			       const float *bias, const float *clamp, float *y)
{
	size_t oh, ow, cg, mg, k, p;
	int err;

	if (!context)
		return -EINVAL;
	err = check_shape(context, s, &oh, &ow);
	if (err)
		return err;
	if (!x || !w || !y)
		return enpu_cpu_fail(context, -EINVAL,
				     "fconv: input, weights or output is NULL");
	if (weights && (weights->kn != context->kernels.sgemm ||
			weights->group != s->group ||
			weights->mg != s->out_channels / s->group ||
			weights->k != s->in_channels / s->group *
			s->kernel_height * s->kernel_width))
		return enpu_cpu_fail(context, -EINVAL,
				     "fconv: weights packed for another shape or ISA");
	if (uses_blocked_dw(context, s)) {
		struct dw_job job = {
			.s = s, .x = x, .w = w, .bias = bias, .clamp = clamp,
			.y = y, .oh = oh, .ow = ow,
			.blocked = context->kernels.fdwconv_blocked,
		};

		enpu_thread_pool_parallel_for(context->pool,
					      s->batch *
					      enpu_divide_up(s->in_channels,
							     DW_BLOCK),
					      blocked_dw_task, &job);
		return 0;
	}
	if (is_depthwise(s)) {
		struct dw_job job = {
			s, x, w, bias, clamp, y, oh, ow,
			enpu_divide_up(oh, DW_ROWS), context->kernels.fdwconv, 0,
			NULL, NULL,
		};

		enpu_thread_pool_parallel_for(context->pool,
					      s->batch * s->in_channels *
					      job.bands, dw_task, &job);
		return 0;
	}
	if (uses_few_taps(context, s))
		return few_taps_conv(context, s, oh, ow, x, w, bias, clamp, y);
	cg = s->in_channels / s->group;
	mg = s->out_channels / s->group;
	k = cg * s->kernel_height * s->kernel_width;
	p = oh * ow;
	if (runs_direct(context, s, ow)) {
		for (size_t n = 0; n < s->batch; n++) {
			err = direct_conv(context, s, oh, ow,
					  x + n * s->in_channels * s->height *
					  s->width, w, weights, bias, clamp,
					  y + n * s->out_channels * p);
			if (err)
				return err;
		}
		return 0;
	}
	for (size_t n = 0; n < s->batch; n++)
	for (size_t g = 0; g < s->group; g++) {
		const float *xg = x + (n * s->in_channels + g * cg) *
				  s->height * s->width;
		struct unfold u = { s, xg, oh, ow, cg };
		struct enpu_sgemm_source source = { unfold_panel, &u };
		int pointwise = s->kernel_height == 1 && s->kernel_width == 1 &&
				s->stride_height == 1 && s->stride_width == 1 &&
				!s->pad_top && !s->pad_left && !s->pad_bottom &&
				!s->pad_right;
		struct enpu_cpu_sgemm_args a = {
			.m = mg, .n = p, .k = k,
			.a = w + g * mg * k, .lda = k,
			.b = pointwise ? xg : NULL, .ldb = p,
			.bias = bias ? bias + g * mg : NULL, .bias_per_row = 1,
			.clamp = clamp,
			.c = y + (n * s->out_channels + g * mg) * p, .ldc = p,
		};

		err = enpu_sgemm_run(context, &a, pointwise ? NULL : &source);
		if (err)
			return err;
	}
	return 0;
}

int enpu_cpu_max_pool_f32(enpu_cpu_context *context,
			  const struct enpu_cpu_fconv_shape *s, const float *x,
			  float *y)
{
	size_t oh = 0, ow = 0;
	int err;

	if (!context)
		return -EINVAL;
	err = check_shape(context, s, &oh, &ow);
	if (err)
		return err;
	if (!x || !y)
		return enpu_cpu_fail(context, -EINVAL,
				     "max pool: input or output is NULL");
	{
		struct dw_job job = {
			s, x, NULL, NULL, NULL, y, oh, ow,
			enpu_divide_up(oh, DW_ROWS), context->kernels.fdwconv, 1,
			NULL, NULL,
		};

		enpu_thread_pool_parallel_for(context->pool,
					      s->batch * s->in_channels *
					      job.bands, dw_task, &job);
	}
	return 0;
}

int enpu_cpu_conv2d_f32_reference(enpu_cpu_context *context,
				  const struct enpu_cpu_fconv_shape *s,
				  const float *x, const float *w,
				  const float *bias, const float *clamp,
				  float *y)
{
	size_t oh, ow, cg, mg;
	int err;

	if (!context)
		return -EINVAL;
	err = check_shape(context, s, &oh, &ow);
	if (err)
		return err;
	if (!x || !w || !y)
		return enpu_cpu_fail(context, -EINVAL,
				     "fconv: input, weights or output is NULL");
	cg = s->in_channels / s->group;
	mg = s->out_channels / s->group;
	for (size_t n = 0; n < s->batch; n++)
	for (size_t m = 0; m < s->out_channels; m++)
	for (size_t oy = 0; oy < oh; oy++)
	for (size_t ox = 0; ox < ow; ox++) {
		size_t g = m / mg;
		double acc = bias ? bias[m] : 0;
		float v;

		for (size_t c = 0; c < cg; c++)
		for (size_t ky = 0; ky < s->kernel_height; ky++)
		for (size_t kx = 0; kx < s->kernel_width; kx++) {
			ptrdiff_t iy = (ptrdiff_t)(oy * s->stride_height +
						   ky * s->dilation_height) -
				       (ptrdiff_t)s->pad_top;
			ptrdiff_t ix = (ptrdiff_t)(ox * s->stride_width +
						   kx * s->dilation_width) -
				       (ptrdiff_t)s->pad_left;

			if (iy < 0 || iy >= (ptrdiff_t)s->height || ix < 0 ||
			    ix >= (ptrdiff_t)s->width)
				continue;
			acc += (double)w[((m * cg + c) * s->kernel_height + ky) *
					 s->kernel_width + kx] *
			       x[((n * s->in_channels + g * cg + c) * s->height +
				  (size_t)iy) * s->width + (size_t)ix];
		}
		v = (float)acc;
		if (clamp) {
			v = v < clamp[0] ? clamp[0] : v;
			v = v > clamp[1] ? clamp[1] : v;
		}
		y[((n * s->out_channels + m) * oh + oy) * ow + ox] = v;
	}
	return 0;
}
