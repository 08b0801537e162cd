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
	uint8_t *raw_out;		/* narrowed output; NULL for INT32 */
	struct requant_channel *rq;
	bool per_channel;
	int8_t *weights;
	int32_t *taps;			/* regrouped conv weights, or NULL */
	int32_t *bias;
	struct enpu_pool_param *params;
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
	if (l->out.dtype != ENPU_DTYPE_INT32)
		st->raw_out = scratch_get(&st->s, count, 1);
	if (!st->out || (l->out.dtype != ENPU_DTYPE_INT32 && !st->raw_out))
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
	scratch_free(&state->s);
	free(state);
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
uint32_t layer_run_range(const struct layer *l, const struct vnpu_job *job,
			 const struct guest_ram *ram, struct layer_state **state,
			 uint64_t first, uint64_t end)
{
	struct layer_state *st = *state;
	uint64_t i;

	if (!st) {
		uint32_t status;

		st = calloc(1, sizeof(*st));
		if (!st)
			return LAYER_HOST_TROUBLE;
		status = layer_prepare(l, job, ram, st);
		if (status != ENPU_JOB_STATUS_OK) {
			layer_state_free(st);
			return status;
		}
		*state = st;
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
uint32_t layer_run(const struct layer *l, const struct vnpu_job *job,
		   const struct guest_ram *ram)
{
	struct layer_state *st = NULL;
	uint32_t status = layer_run_range(l, job, ram, &st, 0,
					  tensor_elements(&l->out));

	layer_state_free(st);
	return status;
}
