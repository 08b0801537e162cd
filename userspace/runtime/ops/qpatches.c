// SPDX-License-Identifier: MIT
/*
 * ai.enpu QuantizePatches(x float [N, C, H, W], scale, zero_point), C <= 4:
 * QuantizeLinear (per tensor, the arithmetic of Quantize8) fused with the
 * unfolding of a KxK convolution window, for a network's first layer.
 * Output [N, OH, OW, kh * kw * 4], 8-bit: for each output pixel, tap after
 * tap (row-major over the window), the C quantized input channels padded
 * to 4 with the zero point; taps in the padding are all zero point. The
 * first convolution then becomes a 1x1 convolution (a plain GEMM with
 * K = kh * kw * 4) instead of an indirect one with 4-channel taps, which
 * the GEMM microkernels run poorly. graph/patches.c makes the rewrite.
 * Attributes: kernel_shape, strides, pads, dilations (Conv's meaning).
 */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "qnhwc.h"
#include "spatial.h"

/* Scratch of the quantized NHWC4 image, kept across runs. */
struct patches_state {
	uint8_t *image;
	size_t capacity;
};

/*
 * Pixel i of the @c byte planes (each @count long) becomes the 32-bit
 * word of its c bytes followed by @zero bytes (little-endian: the loader
 * refuses other hosts). SSE2 does 16 pixels per step.
 */
static void interleave(const uint8_t *planes, size_t count, size_t c,
		       uint8_t zero, uint32_t *image)
{
	const uint8_t *p[4];
	size_t i = 0;

	for (size_t ch = 0; ch < 4; ch++)
		p[ch] = ch < c ? planes + ch * count : NULL;
#ifdef __SSE2__
	{
		const __m128i z = _mm_set1_epi8((char)zero);

		for (; i + 16 <= count; i += 16) {
			__m128i v[4], lo01, hi01, lo23, hi23;

			for (size_t ch = 0; ch < 4; ch++)
				v[ch] = p[ch] ? _mm_loadu_si128(
					(const __m128i *)(p[ch] + i)) : z;
			lo01 = _mm_unpacklo_epi8(v[0], v[1]);
			hi01 = _mm_unpackhi_epi8(v[0], v[1]);
			lo23 = _mm_unpacklo_epi8(v[2], v[3]);
			hi23 = _mm_unpackhi_epi8(v[2], v[3]);
			_mm_storeu_si128((__m128i *)(image + i),
					 _mm_unpacklo_epi16(lo01, lo23));
			_mm_storeu_si128((__m128i *)(image + i + 4),
					 _mm_unpackhi_epi16(lo01, lo23));
			_mm_storeu_si128((__m128i *)(image + i + 8),
					 _mm_unpacklo_epi16(hi01, hi23));
			_mm_storeu_si128((__m128i *)(image + i + 12),
					 _mm_unpackhi_epi16(hi01, hi23));
		}
	}
#endif
	for (; i < count; i++) {
		uint32_t word = 0;

		for (size_t ch = 0; ch < 4; ch++)
			word |= (uint32_t)(p[ch] ? p[ch][i] : zero) << (8 * ch);
		image[i] = word;
	}
}

static int geometry(struct rt_kernel *k, const struct rt_tensor *x,
		    struct rt_spatial *s)
{
	const int64_t *kernel;
	size_t count;
	int status = rt_attr_ints(k, "kernel_shape", &kernel, &count);

	if (status)
		return status;
	if (x->rank != 4 || x->dims[1] > 4 || x->dims[1] < 1)
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "input must be [N, C <= 4, H, W]");
	if (!kernel || count != 2)
		return rt_op_error(k, ENPU_RT_INVALID_MODEL,
				   "kernel_shape must have 2 values");
	return rt_spatial_init(k, x, kernel, 0, s);
}

static int patches_infer(struct rt_kernel *k,
			 const struct rt_tensor *const *in, size_t n_in,
			 struct rt_tensor *const *out, size_t n_out)
{
	struct rt_spatial s;
	int64_t dims[4];
	int status;

	(void)n_in;
	(void)n_out;
	if (in[0]->dtype != ENPU_RT_FLOAT || !rt_q_is_8bit(in[2]->dtype))
		return rt_op_error(k, ENPU_RT_UNSUPPORTED,
				   "types %s -> %s are not float -> 8-bit",
				   rt_dtype_name(in[0]->dtype),
				   rt_dtype_name(in[2]->dtype));
	status = geometry(k, in[0], &s);
	if (status)
		return status;
	dims[0] = s.batch;
	dims[1] = s.out[1];
	dims[2] = s.out[2];
	dims[3] = s.kernel[1] * s.kernel[2] * 4;
	return rt_tensor_set_shape(k, out[0], in[2]->dtype, 4, dims);
}

/*
 * The work is cut in two parallel passes over the context's threads:
 * quantizing the image in chunks of pixels, then unfolding bands of output
 * rows (a band reads its neighbours' input rows, hence the join between).
 * Chunks are small enough for the channel planes to sit on the stack.
 */
#define QUANT_CHUNK_PIXELS 2048
#define UNFOLD_BAND_ROWS 4

struct patches_job {
	const float *x;
	uint32_t *image;	/* NHWC4 quantized input */
	uint32_t *dst;
	size_t c, h, w, plane, chunks_per_image;
	float scale, flo, fhi;
	int32_t zero, lo, hi, dtype;
	uint32_t fill;
	struct rt_spatial s;
	size_t taps, kw, rows, bands;
};

static void quantize_chunk(void *argument, size_t task)
{
	const struct patches_job *job = argument;
	size_t b = task / job->chunks_per_image;
	size_t first = task % job->chunks_per_image * QUANT_CHUNK_PIXELS;
	size_t count = job->plane - first;
	/* Contiguous planes keep the quantizer's 16-wide stores. */
	uint8_t planes[4 * QUANT_CHUNK_PIXELS];

	if (count > QUANT_CHUNK_PIXELS)
		count = QUANT_CHUNK_PIXELS;
	for (size_t ch = 0; ch < job->c; ch++)
		rt_q_quantize_span(job->x + (b * job->c + ch) * job->plane +
				   first, planes + ch * count, count, 1,
				   job->scale, job->flo, job->fhi, job->zero,
				   job->lo, job->hi, job->dtype);
	interleave(planes, count, job->c, (uint8_t)job->zero,
		   job->image + b * job->plane + first);
}

/* Row by row of the window: most pixels take the branch-free path. */
static void unfold_row(const struct patches_job *job, size_t b, int64_t oy)
{
	const struct rt_spatial *s = &job->s;
	size_t h = job->h, w = job->w, taps = job->taps, kw = job->kw;

	for (int64_t ky = 0; ky < s->kernel[1]; ky++) {
		int64_t iy = oy * s->stride[1] - s->pad_begin[1] +
			     ky * s->dilation[1];
		const uint32_t *row = iy < 0 || iy >= (int64_t)h ? NULL :
			job->image + (b * h + (size_t)iy) * w;
		uint32_t *d = job->dst + ((b * (size_t)s->out[1] +
					   (size_t)oy) *
					  (size_t)s->out[2]) * taps +
			      (size_t)ky * kw;

		for (int64_t ox = 0; ox < s->out[2]; ox++, d += taps) {
			int64_t ix = ox * s->stride[2] - s->pad_begin[2];
			int64_t last = ix + ((int64_t)kw - 1) * s->dilation[2];

			if (row && ix >= 0 && last < (int64_t)w) {
				const uint32_t *p = row + ix;

				for (size_t kx = 0; kx < kw; kx++)
					d[kx] = p[kx * (size_t)s->dilation[2]];
				continue;
			}
			for (size_t kx = 0; kx < kw; kx++) {
				int64_t x0 = ix + (int64_t)kx * s->dilation[2];

				d[kx] = !row || x0 < 0 || x0 >= (int64_t)w ?
					job->fill : row[x0];
			}
		}
	}
}

static void unfold_band(void *argument, size_t task)
{
	const struct patches_job *job = argument;
	size_t first = task * UNFOLD_BAND_ROWS;
	size_t end = first + UNFOLD_BAND_ROWS;
	size_t out_h = (size_t)job->s.out[1];

	if (end > job->rows)
		end = job->rows;
	for (size_t r = first; r < end; r++)
		unfold_row(job, r / out_h, (int64_t)(r % out_h));
}

static int patches_run(struct rt_kernel *k, const struct rt_tensor *const *in,
		       size_t n_in, struct rt_tensor *const *out,
		       size_t n_out)
{
	const struct rt_tensor *x = in[0];
	struct patches_state *st = k->state;
	struct patches_job job;
	size_t n, image_bytes;
	double scale;
	int status;

	(void)n_in;
	(void)n_out;
	memset(&job, 0, sizeof(job));
	status = geometry(k, x, &job.s);
	if (!status)
		status = rt_q_quantize_params(k, in, &scale, &job.zero);
	if (status)
		return status;
	n = (size_t)x->dims[0];
	job.c = (size_t)x->dims[1];
	job.h = (size_t)x->dims[2];
	job.w = (size_t)x->dims[3];
	job.plane = job.h * job.w;
	image_bytes = n * job.plane * 4;
	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory");
		k->state = st;
	}
	if (st->capacity < image_bytes) {
		uint8_t *grown = realloc(st->image, image_bytes);

		if (!grown)
			return rt_op_error(k, ENPU_RT_OUT_OF_MEMORY,
					   "out of memory for %zu bytes",
					   image_bytes);
		st->image = grown;
		st->capacity = image_bytes;
	}
	rt_q_range(in[2]->dtype, &job.lo, &job.hi);
	job.x = x->data;
	job.image = (uint32_t *)st->image;
	job.dst = out[0]->data;
	job.scale = (float)scale;
	job.flo = (float)(job.lo - job.zero) - 1.0f;
	job.fhi = (float)(job.hi - job.zero) + 1.0f;
	job.dtype = in[2]->dtype;
	job.chunks_per_image = (job.plane + QUANT_CHUNK_PIXELS - 1) /
			       QUANT_CHUNK_PIXELS;
	memset(&job.fill, (uint8_t)job.zero, sizeof(job.fill));
	job.taps = (size_t)(job.s.kernel[1] * job.s.kernel[2]);
	job.kw = (size_t)job.s.kernel[2];
	job.rows = n * (size_t)job.s.out[1];
	job.bands = (job.rows + UNFOLD_BAND_ROWS - 1) / UNFOLD_BAND_ROWS;
	enpu_cpu_parallel_for(k->cpu, n * job.chunks_per_image,
			      quantize_chunk, &job);
	enpu_cpu_parallel_for(k->cpu, job.bands, unfold_band, &job);
	return 0;
}

static void patches_release(struct rt_kernel *k)
{
	struct patches_state *st = k->state;

	if (st)
		free(st->image);
	free(st);
	k->state = NULL;
}

const struct rt_op_def rt_ops_qpatches[] = {
	{ "QuantizePatches", RT_ENPU_DOMAIN, 1, 1, 3, 3, 1, 1, 0,
	  patches_infer, NULL, patches_run, patches_release },
	{ 0 },
};
