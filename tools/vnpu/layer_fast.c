// SPDX-License-Identifier: GPL-2.0
/*
 * FAST mode: the layers' arithmetic on the CPU runtime's optimized int8
 * kernels (userspace/runtime/cpu, libenpu-cpu), which are bit-exact with
 * the CPU reference kernels and therefore with the device's own loops
 * (tests/vnpu_exec compares all three). The device keeps only what the
 * kernels cannot express in its own code: row windows, zero-point rows for
 * vertical padding, and the pooling loops (layer_pool.c).
 *
 * A convolution's weights are packed once per layer (layer_exec_begin;
 * layer_cache.c keeps them across jobs) for a shape without vertical
 * padding: each row range is then computed
 * from its input rows with the padding rows filled with the input zero
 * point, which is what padding means (docs/quantization.md), so every
 * range uses the same packed weights. FULLY_CONNECTED is a 1x1
 * convolution over its M pixels: its [N][K] weights are OIHW [N][K][1][1].
 * A network's first convolution (a few input channels) goes to the
 * kernels as it is: they read its windows one kernel row at a time
 * (userspace/runtime/cpu/conv.c, wide rows).
 *
 * When the kernels refuse a layer (shapes beyond their limits, e.g. a
 * group's K above ENPU_CPU_GEMM_MAX_K), layer_exec.c runs the oracle for
 * it instead; results are the same by definition, only slower.
 */
#include <stdlib.h>
#include <string.h>

#include "enpu_cpu.h"
#include "enpu_cpu_float.h"
#include "layer.h"
#include "layer_fast.h"

static enum enpu_cpu_dtype cpu_type(uint32_t dtype)
{
	switch (dtype) {
	case ENPU_DTYPE_UINT8:
		return ENPU_CPU_UINT8;
	case ENPU_DTYPE_INT8:
		return ENPU_CPU_INT8;
	default:
		return ENPU_CPU_INT32;
	}
}

int fast_conv_prepare(const struct layer_engine *e, const struct layer *l,
		      const int8_t *weights, const int32_t *bias,
		      const struct requant_channel *rq, bool per_channel,
		      struct fast_conv *f)
{
	bool fc = l->opcode == ENPU_CMD_FULLY_CONNECTED;
	struct enpu_cpu_conv_shape shape = {
		.input_channels = l->in.c,
		.output_channels = l->out.c,
		.groups = fc ? 1 : l->groups,
		.kernel_height = fc ? 1 : l->kernel_h,
		.kernel_width = fc ? 1 : l->kernel_w,
		.stride_height = fc ? 1 : l->stride_h,
		.stride_width = fc ? 1 : l->stride_w,
		.dilation_height = fc ? 1 : l->dilation_h,
		.dilation_width = fc ? 1 : l->dilation_w,
		.pad_left = fc ? 0 : l->pad_left,
		.pad_right = fc ? 0 : l->pad_right,
	};
	uint32_t count = per_channel ? l->out.c : 1;

	memset(f, 0, sizeof(*f));
	f->multiplier = malloc(count * sizeof(*f->multiplier));
	f->shift = malloc(count * sizeof(*f->shift));
	if (!f->multiplier || !f->shift) {
		fast_conv_release(f);
		return -1;
	}
	for (uint32_t i = 0; i < count; i++) {
		f->multiplier[i] = rq[i].multiplier;
		f->shift[i] = rq[i].shift;
	}
	f->requant.multiplier = f->multiplier;
	f->requant.shift = f->shift;
	f->requant.per_channel = per_channel;
	f->requant.zero_point = l->out.zero_point;
	f->requant.min = l->min;
	f->requant.max = l->max;
	if (enpu_cpu_conv_weights_pack(e->cpu, &shape, weights, bias,
				       &f->weights)) {
		fast_conv_release(f);
		return -1;
	}
	return 0;
}

void fast_conv_release(struct fast_conv *f)
{
	enpu_cpu_conv_weights_destroy(f->weights);
	free(f->multiplier);
	free(f->shift);
	f->weights = NULL;
	f->multiplier = f->shift = NULL;
}

static int conv_rows(const struct layer_engine *e, const struct layer *l,
		     const struct fast_conv *f, const void *input,
		     uint32_t input_rows, void *out)
{
	bool fc = l->opcode == ENPU_CMD_FULLY_CONNECTED;
	struct enpu_cpu_conv_args args = {
		.batch = 1,
		.input_height = fc ? 1 : input_rows,
		.input_width = fc ? input_rows : l->in.w,
		.input = input,
		.input_type = cpu_type(l->in.dtype),
		.input_zero_point = l->in.zero_point,
		.weights = f->weights,
		.output = out,
		.output_type = cpu_type(l->out.dtype),
		.requant = &f->requant,
	};

	return enpu_cpu_conv2d(e->cpu, &args);
}

/*
 * Rows of one output image of ADD/MUL; @a and @b hold the rows of their
 * images that these read (one when broadcast in H).
 */
static int eltwise_rows(const struct layer_engine *e, const struct layer *l,
			const void *a, const void *b, uint32_t rows,
			void *out)
{
	const struct layer_tensor *ta = &l->in, *tb = &l->in2;
	struct enpu_cpu_eltwise_params p = {
		.type = cpu_type(l->in.dtype),
		.a_zero_point = ta->zero_point,
		.b_zero_point = tb->zero_point,
		.output_zero_point = l->out.zero_point,
		.min = l->min,
		.max = l->max,
		.a_multiplier = l->a_multiplier,
		.b_multiplier = l->b_multiplier,
		.add_shift = l->add_shift,
		.left_shift = l->left_shift,
		.multiplier = l->multiplier,
		.shift = l->shift,
	};
	struct enpu_cpu_eltwise_args args = {
		.dims = 3,
		.shape = { rows, l->out.w, l->out.c },
		.a = a,
		.a_strides = {
			ta->h == 1 ? 0 : (size_t)ta->w * ta->c,
			ta->w == 1 ? 0 : ta->c,
			ta->c == 1 ? 0 : 1,
		},
		.b = b,
		.b_strides = {
			tb->h == 1 ? 0 : (size_t)tb->w * tb->c,
			tb->w == 1 ? 0 : tb->c,
			tb->c == 1 ? 0 : 1,
		},
		.output = out,
		.params = &p,
	};

	return l->opcode == ENPU_CMD_ADD ? enpu_cpu_add(e->cpu, &args) :
					   enpu_cpu_mul(e->cpu, &args);
}

/* QUANTIZE on the CPU runtime's quantize row: the same division and
 * rounding as the CPU's QuantizeLinear, bit for bit. */
static void quantize(const struct layer_engine *e, const struct layer *l,
		     const float *x, uint64_t count, uint8_t *out)
{
	enpu_cpu_fmath(e->cpu)->quantize((size_t)count, x, l->scale,
					 l->out.zero_point,
					 l->out.dtype == ENPU_DTYPE_INT8, out);
}

/* DEQUANTIZE on the CPU runtime's dequantize row, the one its
 * DequantizeLinear runs: the same multiplication, bit for bit. */
static void dequantize(const struct layer_engine *e, const struct layer *l,
		       const uint8_t *x, uint64_t count, float *out)
{
	enpu_cpu_fmath(e->cpu)->dequantize((size_t)count, x, l->scale,
					   l->in.zero_point,
					   l->in.dtype == ENPU_DTYPE_INT8, out);
}

/* The packed weights from the cache, or packed now (and kept). */
static const struct fast_conv *conv_begin(const struct layer_engine *e,
					  const struct layer *l,
					  const uint8_t *key, uint64_t key_bytes,
					  const int8_t *weights,
					  const int32_t *bias,
					  const struct requant_channel *rq,
					  bool per_channel)
{
	uint64_t weight_bytes = l->opcode == ENPU_CMD_FULLY_CONNECTED ?
				(uint64_t)l->out.c * l->in.c :
				(uint64_t)l->out.c * (l->in.c / l->groups) *
				l->kernel_h * l->kernel_w;
	const struct fast_conv *hit = layer_cache_get(e->cache, key,
						      key_bytes);
	struct fast_conv packed, *owned;

	if (hit)
		return hit;
	if (fast_conv_prepare(e, l, weights, bias, rq, per_channel, &packed))
		return NULL;
	/* Packed weights take at most 4 bytes per weight (taps rounded up
	 * to 4 channels). */
	packed.cached = true;
	hit = layer_cache_put(e->cache, key, key_bytes, &packed,
			      4 * weight_bytes);
	if (hit)
		return hit;
	packed.cached = false;
	owned = malloc(sizeof(*owned));
	if (!owned) {
		fast_conv_release(&packed);
		return NULL;
	}
	*owned = packed;
	return owned;
}

static void conv_end(const struct layer_engine *e, const struct fast_conv *f)
{
	if (f->cached) {
		layer_cache_release(e->cache, f);
	} else {
		struct fast_conv *owned = (struct fast_conv *)f;

		fast_conv_release(owned);
		free(owned);
	}
}

static const struct layer_fast_ops fast_ops = {
	.conv_begin = conv_begin,
	.conv_end = conv_end,
	.conv_rows = conv_rows,
	.eltwise_rows = eltwise_rows,
	.quantize = quantize,
	.dequantize = dequantize,
};

int layer_engine_init(struct layer_engine *e, enum layer_mode mode,
		      unsigned int threads)
{
	memset(e, 0, sizeof(*e));
	e->mode = mode;
	e->scatter_chunk_bytes = LAYER_SCATTER_CHUNK_BYTES;
	e->solo_cycles = LAYER_SOLO_CYCLES;
	if (mode != LAYER_MODE_FAST)
		return 0;
	e->fast = &fast_ops;
	e->cache = layer_cache_create();
	if (!e->cache ||
	    enpu_cpu_context_create(threads ? threads : 1, &e->cpu)) {
		layer_engine_destroy(e);
		return -1;
	}
	if (threads > 1) {
		e->solo = malloc(sizeof(*e->solo));
		if (!e->solo) {
			layer_engine_destroy(e);
			return -1;
		}
		*e->solo = *e;
		e->solo->solo = NULL;
		e->solo->cpu = NULL;
		if (enpu_cpu_context_create(1, &e->solo->cpu)) {
			layer_engine_destroy(e);
			return -1;
		}
	}
	return 0;
}

void layer_engine_destroy(struct layer_engine *e)
{
	if (e->solo) {
		enpu_cpu_context_destroy(e->solo->cpu);
		free(e->solo);
	}
	layer_cache_destroy(e->cache);
	enpu_cpu_context_destroy(e->cpu);
	e->solo = NULL;
	e->cache = NULL;
	e->cpu = NULL;
}


bool layer_mode_from_name(const char *name, enum layer_mode *mode)
{
	if (!strcmp(name, "fast"))
		*mode = LAYER_MODE_FAST;
	else if (!strcmp(name, "oracle"))
		*mode = LAYER_MODE_ORACLE;
	else
		return false;
	return true;
}

const char *layer_mode_name(enum layer_mode mode)
{
	return mode == LAYER_MODE_ORACLE ? "oracle" : "fast";
}
