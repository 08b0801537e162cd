// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "demo_npu.h"

#define POISON 0x5a

static int device_failed(struct demo_npu *npu, int status, const char *what,
			 size_t error_size, char *error)
{
	const char *message = "";

	if (npu->device)
		enpu_device_last_error(npu->device, &message);
	snprintf(error, error_size, "%s: %s", what,
		 *message ? message : strerror(-status));
	return status;
}

/* Why there is no device, in terms of what the user can do about it. */
static void explain_no_device(size_t error_size, char *error)
{
	if (access("/sys/module/enpu", F_OK))
		snprintf(error, error_size,
			 "no ENPU device: the enpu kernel module is not loaded (modprobe enpu; see kernel/README.md)");
	else if (access("/sys/bus/pci/drivers/enpu", F_OK) &&
		 access("/sys/bus/platform/drivers/enpu", F_OK))
		snprintf(error, error_size,
			 "no ENPU device: module enpu is loaded but registered no driver");
	else
		snprintf(error, error_size,
			 "no ENPU device: module enpu is loaded but no device node is bound to it (is the vnpu attached? see dmesg)");
}

int demo_npu_open(struct demo_npu *npu, const char *path, size_t error_size,
		  char *error)
{
	struct enpu_error failure = { "" };
	enpu_device_list *list = NULL;
	size_t count = 0;
	int status;

	memset(npu, 0, sizeof(*npu));
	if (path) {
		status = enpu_device_open_path(path, &npu->device, &failure);
		if (status)
			snprintf(error, error_size, "%s", failure.message);
		return status;
	}
	status = enpu_device_list_create(&list, &failure);
	if (status) {
		snprintf(error, error_size, "%s", failure.message);
		return status;
	}
	enpu_device_list_count(list, &count);
	enpu_device_list_destroy(list);
	if (count == 0) {
		explain_no_device(error_size, error);
		return -ENODEV;
	}
	status = enpu_device_open_index(0, &npu->device, &failure);
	if (status)
		snprintf(error, error_size, "%s", failure.message);
	return status;
}

static struct enpu_layer_tensor layer_tensor(const struct demo_tensor *t)
{
	return (struct enpu_layer_tensor){
		.buf = { .bo_index = t->buffer, .offset = t->offset },
		.batch = 1, .height = t->height, .width = t->width,
		.channels = t->channels, .dtype = ENPU_DTYPE_INT8,
		.zero_point = t->zero_point,
	};
}

static struct enpu_layer_ref param_ref(uint64_t offset)
{
	if (offset == DEMO_NO_PARAMS)
		return (struct enpu_layer_ref){ .bo_index = ENPU_BUF_NONE };
	return (struct enpu_layer_ref){ .bo_index = DEMO_BUFFER_PARAMS,
					.offset = offset };
}

static struct enpu_layer_requant layer_requant(const struct demo_layer *l)
{
	struct enpu_layer_requant requant = {
		.per_channel = param_ref(l->requant_offset),
		.min = l->min, .max = l->max,
	};

	if (l->requant_offset == DEMO_NO_PARAMS) {
		requant.multiplier = l->multiplier[0];
		requant.shift = l->shift[0];
	}
	return requant;
}

static int encode_conv(enpu_cmdbuf *cmdbuf, const struct demo_layer *l)
{
	const struct enpu_cpu_conv_shape *s = &l->conv;
	struct enpu_conv2d_layer layer = {
		.input = layer_tensor(&l->input),
		.output = layer_tensor(&l->output),
		.weights = param_ref(l->weights_offset),
		.bias = param_ref(l->bias_offset),
		.requant = layer_requant(l),
		.kernel_height = (uint32_t)s->kernel_height,
		.kernel_width = (uint32_t)s->kernel_width,
		.stride_height = (uint32_t)s->stride_height,
		.stride_width = (uint32_t)s->stride_width,
		.dilation_height = (uint32_t)s->dilation_height,
		.dilation_width = (uint32_t)s->dilation_width,
		.pad_top = (uint32_t)s->pad_top,
		.pad_left = (uint32_t)s->pad_left,
		.pad_bottom = (uint32_t)s->pad_bottom,
		.pad_right = (uint32_t)s->pad_right,
		.groups = (uint32_t)s->groups,
	};

	return l->kind == DEMO_DEPTHWISE_CONV2D ?
	       enpu_cmdbuf_depthwise_conv2d(cmdbuf, &layer) :
	       enpu_cmdbuf_conv2d(cmdbuf, &layer);
}

static int encode_fully_connected(enpu_cmdbuf *cmdbuf,
				  const struct demo_layer *l)
{
	struct enpu_fc_layer layer = {
		.input = layer_tensor(&l->input),
		.output = layer_tensor(&l->output),
		.weights = param_ref(l->weights_offset),
		.bias = param_ref(l->bias_offset),
		.requant = layer_requant(l),
	};

	/* M rows of K: the 1x1xK pooled tensor is one row. */
	layer.input.width = 1;
	layer.input.channels = (uint32_t)l->conv.input_channels;
	return enpu_cmdbuf_fully_connected(cmdbuf, &layer);
}

static int encode_add(enpu_cmdbuf *cmdbuf, const struct demo_layer *l)
{
	struct enpu_add_layer layer = {
		.a = layer_tensor(&l->input),
		.b = layer_tensor(&l->input_b),
		.output = layer_tensor(&l->output),
		.a_multiplier = l->add.a_multiplier,
		.b_multiplier = l->add.b_multiplier,
		.shift = l->add.add_shift,
		.min = l->add.min, .max = l->add.max,
	};

	return enpu_cmdbuf_add(cmdbuf, &layer);
}

static int encode_pool(enpu_cmdbuf *cmdbuf, const struct demo_layer *l)
{
	const struct enpu_cpu_pool_shape *s = &l->pool;
	struct enpu_pool_layer layer = {
		.input = layer_tensor(&l->input),
		.output = layer_tensor(&l->output),
		.params = param_ref(l->pool_table_offset),
		.kernel_height = (uint32_t)s->kernel_height,
		.kernel_width = (uint32_t)s->kernel_width,
		.stride_height = (uint32_t)s->stride_height,
		.stride_width = (uint32_t)s->stride_width,
		.dilation_height = (uint32_t)s->dilation_height,
		.dilation_width = (uint32_t)s->dilation_width,
		.pad_top = (uint32_t)s->pad_top,
		.pad_left = (uint32_t)s->pad_left,
		.pad_bottom = (uint32_t)s->pad_bottom,
		.pad_right = (uint32_t)s->pad_right,
		.flags = (s->ceil_mode ? ENPU_POOL_CEIL_MODE : 0) |
			 (s->count_include_pad ?
			  ENPU_POOL_COUNT_INCLUDE_PAD : 0),
		.multiplier = l->pool_multiplier,
		.shift = l->pool_shift,
		.left_shift = l->pool_left_shift,
		.min = l->min, .max = l->max,
	};

	return l->kind == DEMO_MAX_POOL ?
	       enpu_cmdbuf_max_pool(cmdbuf, &layer) :
	       enpu_cmdbuf_avg_pool(cmdbuf, &layer);
}

static int encode(enpu_cmdbuf *cmdbuf, const struct demo_layer *l)
{
	switch (l->kind) {
	case DEMO_CONV2D:
	case DEMO_DEPTHWISE_CONV2D:
		return encode_conv(cmdbuf, l);
	case DEMO_FULLY_CONNECTED:
		return encode_fully_connected(cmdbuf, l);
	case DEMO_ADD:
		return encode_add(cmdbuf, l);
	case DEMO_MAX_POOL:
	case DEMO_AVG_POOL:
		return encode_pool(cmdbuf, l);
	}
	return -EINVAL;
}

static int create_buffers(struct demo_npu *npu,
			  const struct demo_network *network,
			  size_t error_size, char *error)
{
	static const char *const names[DEMO_BUFFER_COUNT] = {
		"input BO", "params BO", "arena BO", "output BO",
	};

	for (int i = 0; i < DEMO_BUFFER_COUNT; i++) {
		void *map;
		int status;

		status = enpu_bo_create(npu->device, network->size[i], 0,
					&npu->bo[i]);
		if (status)
			return device_failed(npu, status, names[i], error_size,
					     error);
		status = enpu_bo_map(npu->bo[i], &map);
		if (status)
			return device_failed(npu, status, names[i], error_size,
					     error);
		npu->map[i] = map;
		npu->size[i] = network->size[i];
	}
	memcpy(npu->map[DEMO_BUFFER_INPUT], network->input,
	       network->size[DEMO_BUFFER_INPUT]);
	memcpy(npu->map[DEMO_BUFFER_PARAMS], network->params,
	       network->size[DEMO_BUFFER_PARAMS]);
	return 0;
}

int demo_npu_prepare(struct demo_npu *npu, const struct demo_network *network,
		     uint32_t priority, size_t error_size, char *error)
{
	int status;

	status = enpu_context_create(npu->device, priority, &npu->context);
	if (status)
		return device_failed(npu, status, "context", error_size,
				     error);
	status = enpu_syncobj_create(npu->device, &npu->syncobj);
	if (status)
		return device_failed(npu, status, "syncobj", error_size,
				     error);
	status = create_buffers(npu, network, error_size, error);
	if (status)
		return status;
	status = enpu_cmdbuf_create(&npu->cmdbuf);
	if (status) {
		snprintf(error, error_size, "command buffer: %s",
			 strerror(-status));
		return status;
	}
	for (size_t i = 0; i < network->layer_count; i++) {
		status = encode(npu->cmdbuf, &network->layer[i]);
		if (status) {
			const char *message = "";

			enpu_cmdbuf_last_error(npu->cmdbuf, &message);
			snprintf(error, error_size, "encoding %s: %s",
				 network->layer[i].name,
				 *message ? message : strerror(-status));
			return status;
		}
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static const char *job_status_name(int status)
{
	switch (status) {
	case -EINVAL:
		return "invalid at run time";
	case -EFAULT:
		return "device fault";
	case -ETIMEDOUT:
		return "hang";
	case -ECANCELED:
		return "aborted";
	case -ENODEV:
		return "device gone";
	}
	return strerror(-status);
}

int demo_npu_run(struct demo_npu *npu, int64_t timeout_ns,
		 uint64_t *latency_ns, size_t error_size, char *error)
{
	static const uint32_t access[DEMO_BUFFER_COUNT] = {
		[DEMO_BUFFER_INPUT] = DRM_ENPU_SUBMIT_BO_READ,
		[DEMO_BUFFER_PARAMS] = DRM_ENPU_SUBMIT_BO_READ,
		[DEMO_BUFFER_ARENA] = DRM_ENPU_SUBMIT_BO_READ |
				      DRM_ENPU_SUBMIT_BO_WRITE,
		[DEMO_BUFFER_OUTPUT] = DRM_ENPU_SUBMIT_BO_WRITE,
	};
	struct enpu_submit_bo list[DEMO_BUFFER_COUNT];
	struct enpu_submit_desc desc = { 0 };
	uint64_t seqno, start;
	uint32_t context_id;
	int job_status = 0, status;

	memset(npu->map[DEMO_BUFFER_ARENA], POISON,
	       npu->size[DEMO_BUFFER_ARENA]);
	memset(npu->map[DEMO_BUFFER_OUTPUT], POISON,
	       npu->size[DEMO_BUFFER_OUTPUT]);
	for (int i = 0; i < DEMO_BUFFER_COUNT; i++)
		list[i] = (struct enpu_submit_bo){ npu->bo[i], access[i], 0 };
	enpu_context_id(npu->context, &context_id);
	status = enpu_cmdbuf_data(npu->cmdbuf, &desc.commands,
				  &desc.commands_size);
	if (status)
		return device_failed(npu, status, "command buffer", error_size,
				     error);
	desc.bos = list;
	desc.bo_count = DEMO_BUFFER_COUNT;
	desc.out_syncobj = npu->syncobj;
	desc.context = context_id;

	start = now_ns();
	status = enpu_submit(npu->device, &desc, &seqno);
	if (status)
		return device_failed(npu, status, "submit", error_size, error);
	status = enpu_job_wait(npu->device, npu->syncobj, timeout_ns, 0,
			       &job_status);
	*latency_ns = now_ns() - start;
	if (status)
		return device_failed(npu, status, "waiting for the job",
				     error_size, error);
	if (job_status) {
		snprintf(error, error_size, "job failed: %s (%d)",
			 job_status_name(job_status), job_status);
		return job_status;
	}
	/* The fence signalled; the BO wait is the documented CPU-read rule. */
	status = enpu_bo_wait(npu->bo[DEMO_BUFFER_OUTPUT], timeout_ns, 0);
	if (status)
		return device_failed(npu, status, "waiting for the output BO",
				     error_size, error);
	return 0;
}

uint32_t demo_npu_stream_size(const struct demo_npu *npu)
{
	const void *data;
	uint32_t size = 0;

	if (npu->cmdbuf)
		enpu_cmdbuf_data(npu->cmdbuf, &data, &size);
	return size;
}

void demo_npu_close(struct demo_npu *npu)
{
	enpu_cmdbuf_destroy(npu->cmdbuf);
	for (int i = 0; i < DEMO_BUFFER_COUNT; i++) {
		if (npu->map[i])
			enpu_bo_unmap(npu->bo[i]);
		enpu_bo_destroy(npu->bo[i]);
	}
	if (npu->syncobj)
		enpu_syncobj_destroy(npu->device, npu->syncobj);
	enpu_context_destroy(npu->context);
	enpu_device_close(npu->device);
	memset(npu, 0, sizeof(*npu));
}
