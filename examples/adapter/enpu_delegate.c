// SPDX-License-Identifier: MIT
/*
 * An ENPU delegate for the toy runtime: the adapter a third-party runtime
 * would write (a TFLite delegate / an ONNX Runtime execution provider in
 * miniature), using nothing but libenpu's public header <enpu/enpu.h>
 * and `pkg-config libenpu`. Like Mesa's Teflon it stays thin: the
 * device's layer commands are the compiled form.
 *
 *  claim:   CONV2D (groups 1), FULLY_CONNECTED and ADD of int8 tensors
 *           whose scales the device's integer rules can express; SOFTMAX
 *           never (float math).
 *  compile: one BO per partition (an arena: weights and biases written
 *           once, then every activation), one command buffer with a layer
 *           command per node.
 *  run:     the partition's inputs copied into the arena, one SUBMIT, a
 *           wait on its out-syncobj, the outputs copied back.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enpu/enpu.h>

#include "enpu_delegate.h"

#define DELEGATE_ALIGN 64
#define DELEGATE_TIMEOUT_NS (60 * 1000000000LL)

struct delegate_state {
	enpu_device *device;
};

/* Where a tensor of the partition lives in the arena. */
struct arena_slot {
	int tensor;
	uint64_t offset, size;
	int copy_in, copy_out;
};

struct delegate_kernel {
	enpu_device *device;
	enpu_bo *arena;
	uint8_t *map;
	enpu_cmdbuf *cmdbuf;
	uint32_t syncobj;
	size_t slot_count;
	struct arena_slot slots[TOY_MAX_TENSORS];
};

/*
 * ENPU's requantization takes M * 2^-S with M < 2^31 and S in
 * [ENPU_REQUANT_SHIFT_MIN, ENPU_REQUANT_SHIFT_MAX] (docs/quantization.md).
 */
static int device_requant(double real, int32_t *multiplier, int32_t *shift)
{
	for (int s = ENPU_REQUANT_SHIFT_MIN; s <= ENPU_REQUANT_SHIFT_MAX; s++) {
		double m = nearbyint(ldexp(real, s));

		if (m >= (double)(1u << 30) && m < (double)(1u << 31)) {
			*multiplier = (int32_t)m;
			*shift = s;
			return 0;
		}
	}
	return -ERANGE;
}

/* ADD: Ma, Mb < ENPU_ADD_MULTIPLIER_LIMIT at the largest shift allowed. */
static int device_add_params(double ra, double rb, int32_t *ma, int32_t *mb,
			     int32_t *shift)
{
	for (int s = ENPU_ADD_SHIFT_MAX; s >= ENPU_ADD_SHIFT_MIN; s--) {
		long long a = llround(ldexp(ra, s)), b = llround(ldexp(rb, s));

		if (a < ENPU_ADD_MULTIPLIER_LIMIT &&
		    b < ENPU_ADD_MULTIPLIER_LIMIT) {
			*ma = (int32_t)a;
			*mb = (int32_t)b;
			*shift = s;
			return 0;
		}
	}
	return -ERANGE;
}

static const struct toy_tensor *input(const struct toy_graph *graph,
				      const struct toy_node *node, int i)
{
	return &graph->tensors[node->inputs[i]];
}

static int delegate_claim(void *state, const struct toy_graph *graph,
			  const struct toy_node *node, const char **reason)
{
	const struct toy_tensor *y = &graph->tensors[node->output];
	int32_t m, s, m2;

	(void)state;
	if (node->op == TOY_OP_SOFTMAX) {
		*reason = "softmax needs exp(); the NPU has integer layers only";
		return -EOPNOTSUPP;
	}
	if (input(graph, node, 0)->type != TOY_INT8 || y->type != TOY_INT8) {
		*reason = "only int8 activations";
		return -EOPNOTSUPP;
	}
	if (node->op == TOY_OP_ADD) {
		if (memcmp(input(graph, node, 0)->shape,
			   input(graph, node, 1)->shape, sizeof(y->shape))) {
			*reason = "add of different shapes";
			return -EOPNOTSUPP;
		}
		if (device_add_params((double)input(graph, node, 0)->scale /
				      y->scale,
				      (double)input(graph, node, 1)->scale /
				      y->scale, &m, &m2, &s)) {
			*reason = "add scale ratio above 2^20";
			return -ERANGE;
		}
		return 0;
	}
	if (device_requant((double)input(graph, node, 0)->scale *
			   input(graph, node, 1)->scale / y->scale, &m, &s)) {
		*reason = "requantization scale outside [2^-32, 1)";
		return -ERANGE;
	}
	if (node->op == TOY_OP_CONV2D &&
	    (input(graph, node, 1)->shape[1] != input(graph, node, 0)->shape[3] ||
	     input(graph, node, 1)->shape[2] > ENPU_CONV_KERNEL_MAX ||
	     input(graph, node, 1)->shape[3] > ENPU_CONV_KERNEL_MAX ||
	     node->pad > ENPU_CONV_PAD_MAX || node->stride < 1 ||
	     node->stride > ENPU_LAYER_STRIDE_MAX)) {
		*reason = "grouped conv, or kernel/pad/stride past the device's limits";
		return -EOPNOTSUPP;
	}
	if (node->op == TOY_OP_FULLY_CONNECTED &&
	    input(graph, node, 0)->shape[3] > ENPU_FC_K_MAX) {
		*reason = "fully connected with K above ENPU_FC_K_MAX";
		return -EOPNOTSUPP;
	}
	return 0;
}

static size_t element_size(const struct toy_tensor *tensor)
{
	return tensor->type == TOY_INT32 ? 4 : 1;
}

static struct arena_slot *slot_of(struct delegate_kernel *kernel, int tensor)
{
	for (size_t i = 0; i < kernel->slot_count; i++)
		if (kernel->slots[i].tensor == tensor)
			return &kernel->slots[i];
	return NULL;
}

/* Is tensor read by a node outside the partition (or a graph output)? */
static int used_outside(const struct toy_graph *graph, const int *nodes,
			size_t count, int tensor)
{
	int read_anywhere = 0;

	for (size_t n = 0; n < graph->node_count; n++) {
		int inside = 0;

		for (size_t i = 0; i < count; i++)
			inside |= nodes[i] == (int)n;
		for (int i = 0; i < TOY_MAX_INPUTS; i++) {
			if (graph->nodes[n].inputs[i] != tensor)
				continue;
			read_anywhere = 1;
			if (!inside)
				return 1;
		}
	}
	return !read_anywhere;
}

static uint64_t place(struct delegate_kernel *kernel,
		      const struct toy_graph *graph, int tensor,
		      uint64_t *arena_size)
{
	struct arena_slot *slot = slot_of(kernel, tensor);

	if (!slot) {
		slot = &kernel->slots[kernel->slot_count++];
		slot->tensor = tensor;
		slot->offset = *arena_size;
		slot->size = toy_tensor_elements(&graph->tensors[tensor]) *
			     element_size(&graph->tensors[tensor]);
		*arena_size += (slot->size + DELEGATE_ALIGN - 1) /
			       DELEGATE_ALIGN * DELEGATE_ALIGN;
	}
	return slot->offset;
}

static struct enpu_layer_tensor layer_tensor(struct delegate_kernel *kernel,
					     const struct toy_graph *graph,
					     int tensor)
{
	const struct toy_tensor *t = &graph->tensors[tensor];
	struct enpu_layer_tensor out = {
		.buf = { .bo_index = 0, .offset = slot_of(kernel, tensor)->offset },
		.batch = t->shape[0], .height = t->shape[1],
		.width = t->shape[2], .channels = t->shape[3],
		.dtype = ENPU_DTYPE_INT8, .zero_point = t->zero_point,
	};

	return out;
}

static struct enpu_layer_requant layer_requant(const struct toy_graph *graph,
					       const struct toy_node *node)
{
	const struct toy_tensor *y = &graph->tensors[node->output];
	struct enpu_layer_requant q = {
		.per_channel = { .bo_index = ENPU_BUF_NONE },
		.min = node->relu ? y->zero_point : -128, .max = 127,
	};

	/* Claimed, so representable. */
	device_requant((double)input(graph, node, 0)->scale *
		       input(graph, node, 1)->scale / y->scale,
		       &q.multiplier, &q.shift);
	return q;
}

static int append_node(struct delegate_kernel *kernel,
		       const struct toy_graph *graph,
		       const struct toy_node *node)
{
	const struct toy_tensor *y = &graph->tensors[node->output];

	if (node->op == TOY_OP_CONV2D) {
		const struct toy_tensor *w = input(graph, node, 1);
		struct enpu_conv2d_layer layer = {
			.input = layer_tensor(kernel, graph, node->inputs[0]),
			.output = layer_tensor(kernel, graph, node->output),
			.weights = { 0, 0, slot_of(kernel, node->inputs[1])->offset },
			.bias = { 0, 0, slot_of(kernel, node->inputs[2])->offset },
			.requant = layer_requant(graph, node),
			.kernel_height = w->shape[2], .kernel_width = w->shape[3],
			.stride_height = node->stride,
			.stride_width = node->stride,
			.dilation_height = 1, .dilation_width = 1,
			.pad_top = node->pad, .pad_left = node->pad,
			.pad_bottom = node->pad, .pad_right = node->pad,
			.groups = 1,
		};

		return enpu_cmdbuf_conv2d(kernel->cmdbuf, &layer);
	}
	if (node->op == TOY_OP_FULLY_CONNECTED) {
		const struct toy_tensor *x = input(graph, node, 0);
		uint32_t rows = (uint32_t)(toy_tensor_elements(x) / x->shape[3]);
		struct enpu_fc_layer layer = {
			.input = layer_tensor(kernel, graph, node->inputs[0]),
			.output = layer_tensor(kernel, graph, node->output),
			.weights = { 0, 0, slot_of(kernel, node->inputs[1])->offset },
			.bias = { 0, 0, slot_of(kernel, node->inputs[2])->offset },
			.requant = layer_requant(graph, node),
		};

		/* The device's FC takes M rows as the width of one image. */
		layer.input.batch = layer.input.height = 1;
		layer.input.width = rows;
		layer.output.batch = layer.output.height = 1;
		layer.output.width = rows;
		return enpu_cmdbuf_fully_connected(kernel->cmdbuf, &layer);
	}
	if (node->op == TOY_OP_ADD) {
		struct enpu_add_layer layer = {
			.a = layer_tensor(kernel, graph, node->inputs[0]),
			.b = layer_tensor(kernel, graph, node->inputs[1]),
			.output = layer_tensor(kernel, graph, node->output),
			.min = node->relu ? y->zero_point : -128, .max = 127,
		};

		device_add_params((double)input(graph, node, 0)->scale /
				  y->scale,
				  (double)input(graph, node, 1)->scale / y->scale,
				  &layer.a_multiplier, &layer.b_multiplier,
				  &layer.shift);
		return enpu_cmdbuf_add(kernel->cmdbuf, &layer);
	}
	return -EOPNOTSUPP;
}

static void delegate_release(void *opaque)
{
	struct delegate_kernel *kernel = opaque;

	if (!kernel)
		return;
	if (kernel->syncobj)
		enpu_syncobj_destroy(kernel->device, kernel->syncobj);
	enpu_cmdbuf_destroy(kernel->cmdbuf);
	enpu_bo_destroy(kernel->arena);
	free(kernel);
}

static int delegate_compile(void *opaque, const struct toy_graph *graph,
			    const int *nodes, size_t count, void **out)
{
	struct delegate_state *state = opaque;
	struct delegate_kernel *kernel = calloc(1, sizeof(*kernel));
	uint64_t arena_size = 0;
	int status;

	if (!kernel)
		return -ENOMEM;
	kernel->device = state->device;
	/* Inputs first, then what each node writes, in order. */
	for (size_t n = 0; n < count; n++) {
		const struct toy_node *node = &graph->nodes[nodes[n]];

		for (int i = 0; i < (node->op == TOY_OP_ADD ? 2 : 3); i++) {
			int t = node->inputs[i];
			int fresh = !slot_of(kernel, t);

			place(kernel, graph, t, &arena_size);
			/* Not written by an earlier node here: from outside. */
			if (fresh && !graph->tensors[t].constant)
				slot_of(kernel, t)->copy_in = 1;
		}
		place(kernel, graph, node->output, &arena_size);
		slot_of(kernel, node->output)->copy_out =
			used_outside(graph, nodes, count, node->output);
	}
	status = enpu_bo_create(state->device, arena_size, 0, &kernel->arena);
	if (!status)
		status = enpu_bo_map(kernel->arena, (void **)&kernel->map);
	for (size_t i = 0; !status && i < kernel->slot_count; i++) {
		const struct toy_tensor *t = &graph->tensors[kernel->slots[i].tensor];

		if (t->constant)
			memcpy(kernel->map + kernel->slots[i].offset, t->data,
			       kernel->slots[i].size);
	}
	if (!status)
		status = enpu_cmdbuf_create(&kernel->cmdbuf);
	for (size_t n = 0; !status && n < count; n++)
		status = append_node(kernel, graph, &graph->nodes[nodes[n]]);
	if (!status)
		status = enpu_syncobj_create(state->device, &kernel->syncobj);
	if (status) {
		delegate_release(kernel);
		return status;
	}
	*out = kernel;
	return 0;
}

static int delegate_run(void *opaque, struct toy_graph *graph)
{
	struct delegate_kernel *kernel = opaque;
	struct enpu_submit_bo bo = {
		kernel->arena, DRM_ENPU_SUBMIT_BO_READ | DRM_ENPU_SUBMIT_BO_WRITE, 0
	};
	struct enpu_submit_desc desc = { 0 };
	uint64_t seqno;
	int status, job_status = 0;

	for (size_t i = 0; i < kernel->slot_count; i++)
		if (kernel->slots[i].copy_in)
			memcpy(kernel->map + kernel->slots[i].offset,
			       graph->tensors[kernel->slots[i].tensor].data,
			       kernel->slots[i].size);
	status = enpu_cmdbuf_data(kernel->cmdbuf, &desc.commands,
				  &desc.commands_size);
	desc.bos = &bo;
	desc.bo_count = 1;
	desc.out_syncobj = kernel->syncobj;
	if (!status)
		status = enpu_submit(kernel->device, &desc, &seqno);
	if (!status)
		status = enpu_job_wait(kernel->device, kernel->syncobj,
				       DELEGATE_TIMEOUT_NS, 0, &job_status);
	if (!status && job_status)
		status = job_status;
	for (size_t i = 0; !status && i < kernel->slot_count; i++)
		if (kernel->slots[i].copy_out)
			memcpy(graph->tensors[kernel->slots[i].tensor].data,
			       kernel->map + kernel->slots[i].offset,
			       kernel->slots[i].size);
	return status;
}

int enpu_delegate_create(size_t device_index, struct toy_delegate *delegate,
			 size_t why_size, char *why)
{
	struct delegate_state *state = calloc(1, sizeof(*state));
	struct enpu_error error = { "" };

	if (!state) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	if (enpu_device_open_index(device_index, &state->device, &error)) {
		snprintf(why, why_size, "%s", error.message);
		free(state);
		return -ENODEV;
	}
	*delegate = (struct toy_delegate){
		.state = state,
		.claim = delegate_claim,
		.compile = delegate_compile,
		.run = delegate_run,
		.release = delegate_release,
	};
	return 0;
}

int enpu_delegate_claim_only(struct toy_delegate *delegate)
{
	*delegate = (struct toy_delegate){ .claim = delegate_claim };
	return 0;
}

void enpu_delegate_destroy(struct toy_delegate *delegate)
{
	struct delegate_state *state = delegate->state;

	if (state) {
		enpu_device_close(state->device);
		free(state);
	}
	memset(delegate, 0, sizeof(*delegate));
}
