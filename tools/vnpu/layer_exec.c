// SPDX-License-Identifier: GPL-2.0
/*
 * Performing a layer command: gather its operands through the BOs'
 * scatter-gather lists into dense host buffers, check the parameter tables
 * read at run time, compute, and scatter the output back pixel by pixel.
 * Tensors may straddle segments anywhere; dma_gather/dma_scatter walk the
 * lists (re-checked on every use, as for DMA commands). Simple and exact
 * beats clever here: the device's speed is the timing model's, not the
 * host's.
 *
 * A preemptible job runs a layer in tiles (ranges of output elements,
 * engine.c): the first tile gathers the operands into a struct
 * layer_state, every tile computes and scatters only its own elements,
 * and the state is dropped when the command ends or the job is preempted
 * (a resumed job gathers again; in-layer preemption points exist only
 * when the output shares no BO with an input, so the inputs are the same).
 *
 * Two ways to compute (layer.h, enum layer_mode). ORACLE widens every
 * operand to int32 and runs the device's own loops on exactly the
 * elements of the range. FAST keeps the operands as stored, runs the CPU
 * runtime's kernels (layer_fast.c) or the channel-vectorized pooling
 * loops over whole output rows, the rows a range touches and no others,
 * into a host copy of the output, and scatters the range's elements from
 * there. A convolution's input is gathered with zero-point rows above and
 * below each image (that is what vertical padding reads as), so every
 * row range runs on the same packed weights, which FAST keeps across
 * jobs (layer_cache.c). Where the kernels refuse a layer, FAST runs the
 * oracle for it.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

struct scratch {
	uint64_t used;		/* bytes handed out, against the cap */
	void *blocks[16];
	unsigned int count;
};

static void *scratch_get(struct scratch *s, uint64_t count, uint64_t size)
{
	void *p;

	if (!count)
		count = 1;
	if (size && count > LAYER_SCRATCH_MAX / size)
		return NULL;
	if (count * size > LAYER_SCRATCH_MAX - s->used ||
	    s->count == sizeof(s->blocks) / sizeof(s->blocks[0]))
		return NULL;
	p = malloc((size_t)(count * size));
	if (!p)
		return NULL;
	s->used += count * size;
	s->blocks[s->count++] = p;
	return p;
}

static void scratch_free(struct scratch *s)
{
	while (s->count)
		free(s->blocks[--s->count]);
}

static uint64_t pixels_of(const struct layer_tensor *t)
{
	return (uint64_t)t->n * t->h * t->w;
}

/* Reads a tensor into @raw (dense, as stored) and widens it to @values. */
static bool tensor_gather(const struct layer_tensor *t,
			  const struct vnpu_job *job,
			  const struct guest_ram *ram, struct scratch *s,
			  int32_t **values)
{
	uint32_t es = dtype_size(t->dtype);
	uint64_t count = tensor_elements(t), i;
	uint8_t *raw = scratch_get(s, count, es);
	int32_t *v = scratch_get(s, count, sizeof(int32_t));

	*values = NULL;
	if (!raw || !v)
		return true;	/* *values NULL: host trouble */
	if (!dma_gather(ram, &job->bos[t->bo], t->offset, (uint64_t)t->c * es,
			(uint64_t)t->pixel_stride * es, pixels_of(t), raw))
		return false;
	switch (t->dtype) {
	case ENPU_DTYPE_UINT8:
		for (i = 0; i < count; i++)
			v[i] = raw[i];
		break;
	case ENPU_DTYPE_INT8:
		for (i = 0; i < count; i++)
			v[i] = (int8_t)raw[i];
		break;
	default:
		memcpy(v, raw, count * sizeof(int32_t));
		break;
	}
	*values = v;
	return true;
}

/* Writes channels [c0, c0 + count) of pixel @pixel from @raw (the dense
 * tensor as stored). */
static bool scatter_run(const struct layer_tensor *t, const struct vnpu_job *job,
			const struct guest_ram *ram, const uint8_t *raw,
			uint64_t pixel, uint32_t c0, uint64_t count)
{
	uint32_t es = dtype_size(t->dtype);

	return dma_scatter(ram, &job->bos[t->bo],
			   t->offset + (pixel * t->pixel_stride + c0) * es,
			   count * es, count * es, 1,
			   raw + (pixel * t->c + c0) * es);
}

/* Writes the elements [first, end) (NHWC order) of the dense @raw: only
 * those channels of each pixel, leaving the rest of each pixel_stride
 * (and of partly covered pixels) alone. */
static bool tensor_scatter(const struct layer_tensor *t,
			   const struct vnpu_job *job,
			   const struct guest_ram *ram, const uint8_t *raw,
			   uint64_t first, uint64_t end)
{
	uint32_t es = dtype_size(t->dtype), c0 = first % t->c, c1 = end % t->c;
	uint64_t p0 = first / t->c, p1 = end / t->c;

	if (first >= end)
		return true;
	if (p0 == p1)
		return scatter_run(t, job, ram, raw, p0, c0, c1 - c0);
	if (c0) {
		if (!scatter_run(t, job, ram, raw, p0, c0, t->c - c0))
			return false;
		p0++;
	}
	if (p1 > p0 &&
	    !dma_scatter(ram, &job->bos[t->bo],
			 t->offset + p0 * t->pixel_stride * es,
			 (uint64_t)t->c * es, (uint64_t)t->pixel_stride * es,
			 p1 - p0, raw + p0 * t->c * es))
		return false;
	return !c1 || scatter_run(t, job, ram, raw, p1, 0, c1);
}

static void *array_gather(struct layer_ref r, uint64_t bytes,
			  const struct vnpu_job *job,
			  const struct guest_ram *ram, struct scratch *s,
			  bool *ok)
{
	void *p = scratch_get(s, bytes, 1);

	*ok = true;
	if (p && !dma_gather(ram, &job->bos[r.bo], r.offset, bytes, bytes, 1,
			     p))
		*ok = false;
	return p;
}

/* Per-channel (M, S) of CONV2D/FC: the table when there is one (values
 * checked now, since the kernel cannot), else the per-tensor pair. */
static uint32_t load_requant(const struct layer *l, const struct vnpu_job *job,
			     const struct guest_ram *ram, struct scratch *s,
			     struct requant_channel **rq, bool *per_channel)
{
	static_assert(sizeof(struct requant_channel) ==
		      sizeof(struct enpu_requant_param), "same layout");
	uint32_t channels = l->out.c, i;
	bool ok;

	*per_channel = l->table.bo != ENPU_BUF_NONE;
	if (!*per_channel) {
		*rq = scratch_get(s, 1, sizeof(**rq));
		if (!*rq)
			return LAYER_HOST_TROUBLE;
		(*rq)->multiplier = l->multiplier;
		(*rq)->shift = l->shift;
		return ENPU_JOB_STATUS_OK;
	}
	*rq = array_gather(l->table, (uint64_t)channels * sizeof(**rq), job,
			   ram, s, &ok);
	if (!*rq)
		return LAYER_HOST_TROUBLE;
	if (!ok)
		return ENPU_JOB_STATUS_DMA_FAULT;
	for (i = 0; i < channels; i++)
		if ((*rq)[i].multiplier < 0 ||
		    (*rq)[i].shift < ENPU_REQUANT_SHIFT_MIN ||
		    (*rq)[i].shift > ENPU_REQUANT_SHIFT_MAX)
			return ENPU_JOB_STATUS_INVALID;
	return ENPU_JOB_STATUS_OK;
}

/* The operands of one layer command, gathered once for all its tiles. */
struct layer_state {
	struct scratch s;
	int32_t *in, *in2, *out;
	uint8_t *raw_out;		/* narrowed output; NULL for 4-byte types */
	struct requant_channel *rq;
	bool per_channel;
	int8_t *weights;
	int32_t *taps;			/* regrouped conv weights, or NULL */
	int32_t *bias;
	struct enpu_pool_param *params;
	/* FAST: operands and the output as stored, and which output rows
	 * are computed; @conv, the packed weights of a CONV2D/DW/FC. */
	const struct layer_engine *engine;
	bool fast;
	const struct fast_conv *conv;
	uint8_t *fin, *fin2, *fout;
	uint32_t image_rows;		/* conv: rows of a padded image */
	unsigned char *row_done;
	uint32_t *pool_sum;
};

static uint32_t prepare_conv_or_fc(const struct layer *l,
				   const struct vnpu_job *job,
				   const struct guest_ram *ram,
				   struct layer_state *st)
{
	bool fc = l->opcode == ENPU_CMD_FULLY_CONNECTED, ok;
	uint64_t weight_bytes = fc ? (uint64_t)l->out.c * l->in.c :
			(uint64_t)l->out.c * (l->in.c / l->groups) *
			l->kernel_h * l->kernel_w;
	uint32_t status;

	status = load_requant(l, job, ram, &st->s, &st->rq, &st->per_channel);
	if (status != ENPU_JOB_STATUS_OK)
		return status;
	st->weights = array_gather(l->weights, weight_bytes, job, ram, &st->s,
				   &ok);
	if (st->weights && ok && l->bias.bo != ENPU_BUF_NONE)
		st->bias = array_gather(l->bias, (uint64_t)l->out.c * 4, job,
					ram, &st->s, &ok);
	if (!st->weights || (l->bias.bo != ENPU_BUF_NONE && ok && !st->bias))
		return LAYER_HOST_TROUBLE;
	if (!ok)
		return ENPU_JOB_STATUS_DMA_FAULT;
	/* Without memory for the regrouped taps the slow path still works. */
	if (!fc) {
		st->taps = scratch_get(&st->s, weight_bytes, sizeof(int32_t));
		if (st->taps)
			conv_regroup_weights(l, st->weights, st->taps);
	}
	return ENPU_JOB_STATUS_OK;
}

static uint32_t prepare_pool(const struct layer *l, const struct vnpu_job *job,
			     const struct guest_ram *ram,
			     struct layer_state *st)
{
	uint64_t entries = (uint64_t)l->kernel_h * l->kernel_w, i;
	struct enpu_pool_param *params;
	bool ok;

	if (l->opcode != ENPU_CMD_AVG_POOL || l->table.bo == ENPU_BUF_NONE)
		return ENPU_JOB_STATUS_OK;
	params = array_gather(l->table, entries * sizeof(*params), job, ram,
			      &st->s, &ok);
	if (!params)
		return LAYER_HOST_TROUBLE;
	if (!ok)
		return ENPU_JOB_STATUS_DMA_FAULT;
	for (i = 0; i < entries; i++)
		if (params[i].multiplier < 0 ||
		    params[i].shift < ENPU_REQUANT_SHIFT_MIN ||
		    params[i].shift > ENPU_REQUANT_SHIFT_MAX ||
		    params[i].left_shift < 0 ||
		    params[i].left_shift > 30 || params[i].reserved)
			return ENPU_JOB_STATUS_INVALID;
	st->params = params;
	return ENPU_JOB_STATUS_OK;
}

static bool is_eltwise(const struct layer *l)
{
	return l->opcode == ENPU_CMD_ADD || l->opcode == ENPU_CMD_MUL;
}

/* Gathers the inputs, checks the run-time tables, allocates the output. */
static uint32_t layer_prepare(const struct layer *l, const struct vnpu_job *job,
			      const struct guest_ram *ram,
			      struct layer_state *st)
{
	uint64_t count = tensor_elements(&l->out);
	uint32_t status = ENPU_JOB_STATUS_OK;

	if (!tensor_gather(&l->in, job, ram, &st->s, &st->in))
		return ENPU_JOB_STATUS_DMA_FAULT;
	if (st->in && is_eltwise(l) &&
	    !tensor_gather(&l->in2, job, ram, &st->s, &st->in2))
		return ENPU_JOB_STATUS_DMA_FAULT;
	if (!st->in || (is_eltwise(l) && !st->in2))
		return LAYER_HOST_TROUBLE;
	switch (l->opcode) {
	case ENPU_CMD_CONV2D:
	case ENPU_CMD_DEPTHWISE_CONV2D:
	case ENPU_CMD_FULLY_CONNECTED:
		status = prepare_conv_or_fc(l, job, ram, st);
		break;
	case ENPU_CMD_MAX_POOL:
	case ENPU_CMD_AVG_POOL:
		status = prepare_pool(l, job, ram, st);
		break;
	}
	if (status != ENPU_JOB_STATUS_OK)
		return status;
	if (l->opcode == ENPU_CMD_COPY)
		st->out = st->in;	/* same type and zero point */
	else
		st->out = scratch_get(&st->s, count, sizeof(int32_t));
	if (dtype_size(l->out.dtype) == 1)
		st->raw_out = scratch_get(&st->s, count, 1);
	if (!st->out || (dtype_size(l->out.dtype) == 1 && !st->raw_out))
		return LAYER_HOST_TROUBLE;
	return ENPU_JOB_STATUS_OK;
}

static void layer_compute(const struct layer *l, struct layer_state *st,
			  uint64_t first, uint64_t end)
{
	switch (l->opcode) {
	case ENPU_CMD_CONV2D:
	case ENPU_CMD_DEPTHWISE_CONV2D:
		conv_accumulate(l, st->in, st->weights, st->taps, st->bias,
				first, end, st->out);
		break;
	case ENPU_CMD_FULLY_CONNECTED:
		fc_accumulate(l, st->in, st->weights, st->bias, first, end,
			      st->out);
		break;
	case ENPU_CMD_ADD:
	case ENPU_CMD_MUL:
		eltwise_compute(l, st->in, st->in2, first, end, st->out);
		return;
	case ENPU_CMD_MAX_POOL:
	case ENPU_CMD_AVG_POOL:
		pool_compute(l, st->in, st->params, first, end, st->out);
		return;
	case ENPU_CMD_QUANTIZE:
		quantize_compute(l, st->in, first, end, st->out);
		return;
	case ENPU_CMD_DEQUANTIZE:
		dequantize_compute(l, st->in, first, end, st->out);
		return;
	default:
		return;		/* COPY */
	}
	if (l->out.dtype != ENPU_DTYPE_INT32)
		requantize_all(l, st->out, first, end, st->rq,
			       st->per_channel);
}

void layer_state_free(struct layer_state *state)
{
	if (!state)
		return;
	if (state->conv)
		state->engine->fast->conv_end(state->engine, state->conv);
	scratch_free(&state->s);
	free(state);
}

/* ---- FAST ---------------------------------------------------------- */

/*
 * What a CONV2D/DW/FC's packed form depends on besides its activations,
 * in one block that is also its key in the packed-weights cache: a
 * header of shape and output parameters, the per-channel (M, S), the
 * bias, the weights.
 */
struct conv_key_header {
	uint32_t opcode, in_c, out_c, groups;
	uint32_t kernel_h, kernel_w, stride_h, stride_w;
	uint32_t dilation_h, dilation_w, pad_left, pad_right;
	int32_t out_zero_point, min, max, per_channel;
	uint32_t has_bias, reserved;
};

/* The key block, gathered; the table's values checked now. */
static uint32_t fast_conv_operands(const struct layer *l,
				   const struct vnpu_job *job,
				   const struct guest_ram *ram,
				   struct layer_state *st, uint8_t **key,
				   uint64_t *key_bytes)
{
	static_assert(sizeof(struct requant_channel) ==
		      sizeof(struct enpu_requant_param), "same layout");
	bool fc = l->opcode == ENPU_CMD_FULLY_CONNECTED;
	uint64_t weight_bytes = fc ? (uint64_t)l->out.c * l->in.c :
			(uint64_t)l->out.c * (l->in.c / l->groups) *
			l->kernel_h * l->kernel_w;
	uint64_t bias_bytes = l->bias.bo != ENPU_BUF_NONE ? l->out.c * 4ull : 0;
	uint64_t rq_count;
	struct conv_key_header *h;

	st->per_channel = l->table.bo != ENPU_BUF_NONE;
	rq_count = st->per_channel ? l->out.c : 1;
	if (weight_bytes > LAYER_SCRATCH_MAX / 2)
		return LAYER_HOST_TROUBLE;
	*key_bytes = sizeof(*h) + rq_count * sizeof(*st->rq) + bias_bytes +
		     weight_bytes;
	*key = scratch_get(&st->s, *key_bytes, 1);
	if (!*key)
		return LAYER_HOST_TROUBLE;
	h = (struct conv_key_header *)*key;
	memset(h, 0, sizeof(*h));
	h->opcode = l->opcode;
	h->in_c = l->in.c;
	h->out_c = l->out.c;
	h->groups = fc ? 1 : l->groups;
	h->kernel_h = l->kernel_h;
	h->kernel_w = l->kernel_w;
	h->stride_h = l->stride_h;
	h->stride_w = l->stride_w;
	h->dilation_h = l->dilation_h;
	h->dilation_w = l->dilation_w;
	h->pad_left = l->pad_left;
	h->pad_right = l->pad_right;
	h->out_zero_point = l->out.zero_point;
	h->min = l->min;
	h->max = l->max;
	h->per_channel = st->per_channel;
	h->has_bias = bias_bytes != 0;
	st->rq = (struct requant_channel *)(*key + sizeof(*h));
	st->bias = bias_bytes ? (int32_t *)(st->rq + rq_count) : NULL;
	st->weights = (int8_t *)(*key + *key_bytes - weight_bytes);
	if (st->per_channel) {
		if (!dma_gather(ram, &job->bos[l->table.bo], l->table.offset,
				rq_count * sizeof(*st->rq),
				rq_count * sizeof(*st->rq), 1, st->rq))
			return ENPU_JOB_STATUS_DMA_FAULT;
		for (uint32_t i = 0; i < l->out.c; i++)
			if (st->rq[i].multiplier < 0 ||
			    st->rq[i].shift < ENPU_REQUANT_SHIFT_MIN ||
			    st->rq[i].shift > ENPU_REQUANT_SHIFT_MAX)
				return ENPU_JOB_STATUS_INVALID;
	} else {
		st->rq->multiplier = l->multiplier;
		st->rq->shift = l->shift;
	}
	if (!dma_gather(ram, &job->bos[l->weights.bo], l->weights.offset,
			weight_bytes, weight_bytes, 1, st->weights) ||
	    (bias_bytes && !dma_gather(ram, &job->bos[l->bias.bo],
				       l->bias.offset, bias_bytes, bias_bytes,
				       1, st->bias)))
		return ENPU_JOB_STATUS_DMA_FAULT;
	return ENPU_JOB_STATUS_OK;
}

/* Pixels [first, first + count) of @t into @dst, as stored. */
static bool pixels_gather(const struct layer_tensor *t,
			  const struct vnpu_job *job,
			  const struct guest_ram *ram, uint64_t first,
			  uint64_t count, uint8_t *dst)
{
	uint32_t es = dtype_size(t->dtype);

	return dma_gather(ram, &job->bos[t->bo],
			  t->offset + first * t->pixel_stride * es,
			  (uint64_t)t->c * es, (uint64_t)t->pixel_stride * es,
			  count, dst);
}

/* The whole tensor, dense, as stored. */
static uint8_t *fast_gather(const struct layer_tensor *t,
			    const struct vnpu_job *job,
			    const struct guest_ram *ram, struct scratch *s,
			    uint32_t *status)
{
	uint8_t *raw = scratch_get(s, tensor_elements(t), dtype_size(t->dtype));

	if (!raw) {
		*status = LAYER_HOST_TROUBLE;
		return NULL;
	}
	if (!pixels_gather(t, job, ram, 0, pixels_of(t), raw)) {
		*status = ENPU_JOB_STATUS_DMA_FAULT;
		return NULL;
	}
	return raw;
}

/*
 * A convolution's input, image by image, with pad_top zero-point rows
 * above and as many below as the last window reaches past the image.
 */
static uint32_t fast_conv_input(const struct layer *l,
				const struct vnpu_job *job,
				const struct guest_ram *ram,
				struct layer_state *st)
{
	uint64_t row = (uint64_t)l->in.w * l->in.c;
	int64_t reach = (int64_t)(l->out.h - 1) * l->stride_h - l->pad_top +
			(int64_t)(l->kernel_h - 1) * l->dilation_h + 1;
	uint32_t below = reach > l->in.h ? (uint32_t)(reach - l->in.h) : 0;

	st->image_rows = l->pad_top + l->in.h + below;
	st->fin = scratch_get(&st->s, (uint64_t)l->in.n * st->image_rows,
			      row);
	if (!st->fin)
		return LAYER_HOST_TROUBLE;
	/* Only the padding rows are filled: the gather writes the rest. */
	for (uint32_t n = 0; n < l->in.n; n++) {
		uint8_t *image = st->fin + (uint64_t)n * st->image_rows * row;

		memset(image, (uint8_t)l->in.zero_point, l->pad_top * row);
		memset(image + (uint64_t)(l->pad_top + l->in.h) * row,
		       (uint8_t)l->in.zero_point, below * row);
		if (!pixels_gather(&l->in, job, ram,
				   (uint64_t)n * l->in.h * l->in.w,
				   (uint64_t)l->in.h * l->in.w,
				   image + (uint64_t)l->pad_top * row))
			return ENPU_JOB_STATUS_DMA_FAULT;
	}
	return ENPU_JOB_STATUS_OK;
}

static uint64_t output_rows(const struct layer *l)
{
	return l->opcode == ENPU_CMD_FULLY_CONNECTED ? l->out.w :
	       (uint64_t)l->out.n * l->out.h;
}

/*
 * FAST's gather: operands as stored, the packed weights, the output copy.
 * Returns ENPU_JOB_STATUS_OK with st->fast set, OK without it when the
 * kernels refuse the layer (the oracle's gather comes next), or a failure.
 */
static uint32_t fast_prepare(const struct layer *l, const struct vnpu_job *job,
			     const struct guest_ram *ram,
			     struct layer_state *st)
{
	const struct layer_engine *e = st->engine;
	uint32_t status = ENPU_JOB_STATUS_OK;
	uint8_t *key;
	uint64_t key_bytes;

	switch (l->opcode) {
	case ENPU_CMD_CONV2D:
	case ENPU_CMD_DEPTHWISE_CONV2D:
	case ENPU_CMD_FULLY_CONNECTED:
		status = fast_conv_operands(l, job, ram, st, &key, &key_bytes);
		if (status != ENPU_JOB_STATUS_OK)
			return status;
		st->conv = e->fast->conv_begin(e, l, key, key_bytes,
					       st->weights, st->bias, st->rq,
					       st->per_channel);
		if (!st->conv) {
			/* The oracle gathers again, from scratch. */
			scratch_free(&st->s);
			st->s.used = 0;
			st->rq = NULL;
			st->bias = NULL;
			st->weights = NULL;
			return ENPU_JOB_STATUS_OK;
		}
		if (l->opcode == ENPU_CMD_FULLY_CONNECTED)
			st->fin = fast_gather(&l->in, job, ram, &st->s,
					      &status);
		else
			status = fast_conv_input(l, job, ram, st);
		break;
	case ENPU_CMD_ADD:
	case ENPU_CMD_MUL:
		st->fin = fast_gather(&l->in, job, ram, &st->s, &status);
		if (st->fin)
			st->fin2 = fast_gather(&l->in2, job, ram, &st->s,
					       &status);
		break;
	case ENPU_CMD_MAX_POOL:
	case ENPU_CMD_AVG_POOL:
		status = prepare_pool(l, job, ram, st);
		if (status == ENPU_JOB_STATUS_OK)
			st->fin = fast_gather(&l->in, job, ram, &st->s,
					      &status);
		st->pool_sum = scratch_get(&st->s, l->out.c, sizeof(uint32_t));
		if (!st->pool_sum && status == ENPU_JOB_STATUS_OK)
			status = LAYER_HOST_TROUBLE;
		break;
	default:		/* COPY, QUANTIZE, DEQUANTIZE */
		st->fin = fast_gather(&l->in, job, ram, &st->s, &status);
		break;
	}
	if (status != ENPU_JOB_STATUS_OK)
		return status;
	st->fout = scratch_get(&st->s, tensor_elements(&l->out),
			       dtype_size(l->out.dtype));
	st->row_done = scratch_get(&st->s, output_rows(l), 1);
	if (!st->fout || !st->row_done)
		return LAYER_HOST_TROUBLE;
	memset(st->row_done, 0, output_rows(l));
	st->fast = true;
	return ENPU_JOB_STATUS_OK;
}

/* Output rows [first, end) of image @n (FC: pixels [first, end)). */
static int fast_rows(const struct layer *l, struct layer_state *st,
		     uint32_t n, uint32_t first, uint32_t end)
{
	const struct layer_engine *e = st->engine;
	uint32_t es = dtype_size(l->out.dtype), rows = end - first;
	uint64_t out_row = (uint64_t)l->out.w * l->out.c * es;
	uint8_t *out = st->fout + ((uint64_t)n * l->out.h + first) * out_row;

	switch (l->opcode) {
	case ENPU_CMD_FULLY_CONNECTED:
		return e->fast->conv_rows(e, l, st->conv,
					  st->fin + (uint64_t)first * l->in.c,
					  rows, st->fout + (uint64_t)first *
						l->out.c * es);
	case ENPU_CMD_CONV2D:
	case ENPU_CMD_DEPTHWISE_CONV2D:
		return e->fast->conv_rows(
			e, l, st->conv,
			st->fin + ((uint64_t)n * st->image_rows +
				   (uint64_t)first * l->stride_h) *
				  l->in.w * l->in.c,
			(rows - 1) * l->stride_h +
			(l->kernel_h - 1) * l->dilation_h + 1, out);
	case ENPU_CMD_ADD:
	case ENPU_CMD_MUL: {
		const struct layer_tensor *a = &l->in, *b = &l->in2;
		uint64_t ra = (uint64_t)a->w * a->c, rb = (uint64_t)b->w * b->c;

		return e->fast->eltwise_rows(
			e, l,
			st->fin + ((uint64_t)(a->n == 1 ? 0 : n) * a->h +
				   (a->h == 1 ? 0 : first)) * ra,
			st->fin2 + ((uint64_t)(b->n == 1 ? 0 : n) * b->h +
				    (b->h == 1 ? 0 : first)) * rb,
			rows, out);
	}
	case ENPU_CMD_MAX_POOL:
	case ENPU_CMD_AVG_POOL:
		pool_fast_rows(l, st->fin + (uint64_t)n * l->in.h * l->in.w *
				  l->in.c, st->params, first, end, out,
			       st->pool_sum);
		return 0;
	case ENPU_CMD_QUANTIZE:
		e->fast->quantize(e, l, (const float *)(const void *)
				  (st->fin + ((uint64_t)n * l->in.h + first) *
				   l->in.w * l->in.c * 4),
				  (uint64_t)rows * l->out.w * l->out.c, out);
		return 0;
	case ENPU_CMD_DEQUANTIZE:
		e->fast->dequantize(e, l, st->fin + ((uint64_t)n * l->in.h +
						     first) * l->in.w * l->in.c,
				    (uint64_t)rows * l->out.w * l->out.c,
				    (float *)(void *)out);
		return 0;
	default:		/* COPY: same shape, type and zero point */
		memcpy(out, st->fin + ((uint64_t)n * l->in.h + first) *
			    out_row, rows * out_row);
		return 0;
	}
}

/* Computes the output rows elements [first, end) lie in, once each. */
static uint32_t fast_compute(const struct layer *l, struct layer_state *st,
			     uint64_t first, uint64_t end)
{
	bool fc = l->opcode == ENPU_CMD_FULLY_CONNECTED;
	uint64_t row_elems = fc ? l->out.c : (uint64_t)l->out.w * l->out.c;
	uint64_t r = first / row_elems, last = (end + row_elems - 1) / row_elems;
	uint32_t per_image = fc ? l->out.w : l->out.h;

	while (r < last) {
		uint64_t stop;
		uint32_t n = (uint32_t)(r / per_image);
		uint32_t y = (uint32_t)(r % per_image);

		if (st->row_done[r]) {
			r++;
			continue;
		}
		/* A run of rows to do, within one image. */
		for (stop = r; stop < last && !st->row_done[stop] &&
		     stop / per_image == n; stop++)
			st->row_done[stop] = 1;
		if (fast_rows(l, st, n, y, (uint32_t)(y + (stop - r))))
			return LAYER_HOST_TROUBLE;
		r = stop;
	}
	return ENPU_JOB_STATUS_OK;
}

/* Here, not in layer_fast.c: the device's own files (the validator and
 * its fuzzer link only those) call it too. */
const struct layer_engine *layer_engine_for(const struct layer_engine *e,
					    const struct layer *l)
{
	struct layer_cost cost;

	if (!e || !e->solo)
		return e;
	layer_cost(l, &cost);
	return cost.cycles < e->solo_cycles ? e->solo : e;
}

/*
 * Performs the output elements [first, end) of a checked layer command,
 * gathering its operands into *@state first if it is NULL (the caller
 * frees it with layer_state_free() when the command ends). Returns
 * ENPU_JOB_STATUS_OK, INVALID (a parameter table read at the gather holds
 * a value out of range; nothing written), DMA_FAULT (a scatter-gather
 * list changed since the job started), or LAYER_HOST_TROUBLE (the host
 * could not provide scratch memory).
 */
uint32_t layer_run_range(const struct layer_engine *e, const struct layer *l,
			 const struct vnpu_job *job,
			 const struct guest_ram *ram, struct layer_state **state,
			 uint64_t first, uint64_t end)
{
	struct layer_state *st = *state;
	uint64_t i;

	if (!st) {
		uint32_t status = ENPU_JOB_STATUS_OK;

		st = calloc(1, sizeof(*st));
		if (!st)
			return LAYER_HOST_TROUBLE;
		e = layer_engine_for(e, l);
		st->engine = e;
		if (e && e->fast)
			status = fast_prepare(l, job, ram, st);
		if (status == ENPU_JOB_STATUS_OK && !st->fast)
			status = layer_prepare(l, job, ram, st);
		if (status != ENPU_JOB_STATUS_OK) {
			layer_state_free(st);
			return status;
		}
		*state = st;
	}
	if (st->fast) {
		/*
		 * In chunks of whole output rows, each scattered right after
		 * it is computed, while it is still in the cache: a large
		 * layer's output scattered at the end is read back from
		 * memory.
		 */
		bool fc = l->opcode == ENPU_CMD_FULLY_CONNECTED;
		uint64_t row = fc ? l->out.c : (uint64_t)l->out.w * l->out.c;
		uint64_t rows = (e->scatter_chunk_bytes /
				 (row * dtype_size(l->out.dtype))) + 1;

		for (uint64_t a = first, b; a < end; a = b) {
			uint32_t status;

			b = (a / row + rows) * row;
			if (b > end)
				b = end;
			status = fast_compute(l, st, a, b);
			if (status != ENPU_JOB_STATUS_OK)
				return status;
			if (!tensor_scatter(&l->out, job, ram, st->fout, a, b))
				return ENPU_JOB_STATUS_DMA_FAULT;
		}
		return ENPU_JOB_STATUS_OK;
	}
	layer_compute(l, st, first, end);
	if (st->raw_out)
		for (i = first; i < end; i++)
			st->raw_out[i] = (uint8_t)st->out[i];
	if (!tensor_scatter(&l->out, job, ram,
			    st->raw_out ? st->raw_out : (uint8_t *)st->out,
			    first, end))
		return ENPU_JOB_STATUS_DMA_FAULT;
	return ENPU_JOB_STATUS_OK;
}

/* The whole layer at once (a job without preemption points inside it). */
uint32_t layer_run(const struct layer_engine *e, const struct layer *l,
		   const struct vnpu_job *job, const struct guest_ram *ram)
{
	struct layer_state *st = NULL;
	uint32_t status = layer_run_range(e, l, job, ram, &st, 0,
					  tensor_elements(&l->out));

	layer_state_free(st);
	return status;
}
