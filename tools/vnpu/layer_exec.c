// SPDX-License-Identifier: GPL-2.0
/*
 * Performing a layer command: gather its operands through the BOs'
 * scatter-gather lists into dense host buffers, check the parameter tables
 * read at run time, compute, and scatter the output back pixel by pixel.
 * Tensors may straddle segments anywhere; dma_gather/dma_scatter walk the
 * lists (re-checked on every use, as for DMA commands). Simple and exact
 * beats clever here: the device's speed is the timing model's, not the
 * host's.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

struct scratch {
	uint64_t used;		/* bytes handed out, against the cap */
	void *blocks[8];
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

/* Narrows @values to the tensor's type and writes its channels of every
 * pixel, leaving the rest of each pixel_stride alone. */
static bool tensor_scatter(const struct layer_tensor *t,
			   const struct vnpu_job *job,
			   const struct guest_ram *ram, struct scratch *s,
			   const int32_t *values, bool *host_trouble)
{
	uint32_t es = dtype_size(t->dtype);
	uint64_t count = tensor_elements(t), i;
	uint8_t *raw;

	if (t->dtype == ENPU_DTYPE_INT32) {
		raw = (uint8_t *)values;
	} else {
		raw = scratch_get(s, count, 1);
		if (!raw) {
			*host_trouble = true;
			return true;
		}
		for (i = 0; i < count; i++)
			raw[i] = (uint8_t)values[i];
	}
	return dma_scatter(ram, &job->bos[t->bo], t->offset,
			   (uint64_t)t->c * es, (uint64_t)t->pixel_stride * es,
			   pixels_of(t), raw);
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

static uint32_t run_conv_or_fc(const struct layer *l,
			       const struct vnpu_job *job,
			       const struct guest_ram *ram, struct scratch *s,
			       const int32_t *input, int32_t **out)
{
	bool fc = l->opcode == ENPU_CMD_FULLY_CONNECTED, per_channel, ok;
	uint64_t weight_bytes = fc ? (uint64_t)l->out.c * l->in.c :
			(uint64_t)l->out.c * (l->in.c / l->groups) *
			l->kernel_h * l->kernel_w;
	struct requant_channel *rq;
	int32_t *bias = NULL;
	int8_t *weights;
	uint32_t status;

	status = load_requant(l, job, ram, s, &rq, &per_channel);
	if (status != ENPU_JOB_STATUS_OK)
		return status;
	weights = array_gather(l->weights, weight_bytes, job, ram, s, &ok);
	if (weights && ok && l->bias.bo != ENPU_BUF_NONE)
		bias = array_gather(l->bias, (uint64_t)l->out.c * 4, job, ram, s,
				    &ok);
	if (!weights || (l->bias.bo != ENPU_BUF_NONE && ok && !bias))
		return LAYER_HOST_TROUBLE;
	if (!ok)
		return ENPU_JOB_STATUS_DMA_FAULT;
	*out = scratch_get(s, tensor_elements(&l->out), sizeof(int32_t));
	if (!*out)
		return LAYER_HOST_TROUBLE;
	if (fc)
		fc_accumulate(l, input, weights, bias, *out);
	else
		conv_accumulate(l, input, weights, bias, l->out.h, l->out.w,
				*out);
	if (l->out.dtype != ENPU_DTYPE_INT32)
		requantize_all(l, *out, pixels_of(&l->out), l->out.c, rq,
			       per_channel);
	return ENPU_JOB_STATUS_OK;
}

static uint32_t run_pool(const struct layer *l, const struct vnpu_job *job,
			 const struct guest_ram *ram, struct scratch *s,
			 const int32_t *input, int32_t **out)
{
	uint64_t entries = (uint64_t)l->kernel_h * l->kernel_w, i;
	struct enpu_pool_param *params = NULL;
	bool ok;

	if (l->opcode == ENPU_CMD_AVG_POOL && l->table.bo != ENPU_BUF_NONE) {
		params = array_gather(l->table, entries * sizeof(*params), job,
				      ram, s, &ok);
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
	}
	*out = scratch_get(s, tensor_elements(&l->out), sizeof(int32_t));
	if (!*out)
		return LAYER_HOST_TROUBLE;
	pool_compute(l, input, params, *out);
	return ENPU_JOB_STATUS_OK;
}

/*
 * Performs a checked layer command. Returns ENPU_JOB_STATUS_OK, INVALID (a
 * parameter table read now holds a value out of range; nothing written),
 * DMA_FAULT (a scatter-gather list changed since the job started), or
 * LAYER_HOST_TROUBLE (the host could not provide scratch memory).
 */
uint32_t layer_run(const struct layer *l, const struct vnpu_job *job,
		   const struct guest_ram *ram)
{
	struct scratch s = { 0 };
	int32_t *in = NULL, *in2 = NULL, *out = NULL;
	uint32_t status = ENPU_JOB_STATUS_DMA_FAULT;
	bool host_trouble = false;

	if (!tensor_gather(&l->in, job, ram, &s, &in))
		goto done;
	if (in && (l->opcode == ENPU_CMD_ADD || l->opcode == ENPU_CMD_MUL) &&
	    !tensor_gather(&l->in2, job, ram, &s, &in2))
		goto done;
	if (!in || ((l->opcode == ENPU_CMD_ADD || l->opcode == ENPU_CMD_MUL) &&
		    !in2)) {
		status = LAYER_HOST_TROUBLE;
		goto done;
	}
	switch (l->opcode) {
	case ENPU_CMD_CONV2D:
	case ENPU_CMD_DEPTHWISE_CONV2D:
	case ENPU_CMD_FULLY_CONNECTED:
		status = run_conv_or_fc(l, job, ram, &s, in, &out);
		break;
	case ENPU_CMD_ADD:
	case ENPU_CMD_MUL:
		out = scratch_get(&s, tensor_elements(&l->out),
				  sizeof(int32_t));
		status = out ? ENPU_JOB_STATUS_OK : LAYER_HOST_TROUBLE;
		if (out)
			eltwise_compute(l, in, in2, out);
		break;
	case ENPU_CMD_MAX_POOL:
	case ENPU_CMD_AVG_POOL:
		status = run_pool(l, job, ram, &s, in, &out);
		break;
	default:
		out = in;	/* COPY: same type and zero point */
		status = ENPU_JOB_STATUS_OK;
		break;
	}
	if (status != ENPU_JOB_STATUS_OK)
		goto done;
	if (!tensor_scatter(&l->out, job, ram, &s, out, &host_trouble))
		status = ENPU_JOB_STATUS_DMA_FAULT;
	else if (host_trouble)
		status = LAYER_HOST_TROUBLE;
done:
	scratch_free(&s);
	return status;
}
