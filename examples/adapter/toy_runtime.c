// SPDX-License-Identifier: MIT
/*
 * The toy runtime's reference kernels and graph executor (toy_runtime.h).
 * Its integer rules are written here from the published arithmetic of
 * docs/quantization.md (round half up requantization, QLinearAdd with
 * 21-bit multipliers), not taken from ENPU's code: this file is the CPU
 * reference the adapter is compared against.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "toy_runtime.h"

#define TOY_ADD_MULTIPLIER_LIMIT (1 << 21)

size_t toy_tensor_elements(const struct toy_tensor *tensor)
{
	return (size_t)tensor->shape[0] * tensor->shape[1] * tensor->shape[2] *
	       tensor->shape[3];
}

int toy_quantize_multiplier(double real, int32_t *multiplier, int32_t *shift)
{
	int exponent;
	double fraction;
	long long m;

	if (!(real > 0) || !isfinite(real))
		return -ERANGE;
	fraction = frexp(real, &exponent);	/* real = fraction * 2^exponent */
	m = llround(ldexp(fraction, 31));
	if (m == 1LL << 31) {
		m >>= 1;
		exponent++;
	}
	if (31 - exponent < 31 || 31 - exponent > 62)
		return -ERANGE;
	*multiplier = (int32_t)m;
	*shift = 31 - exponent;
	return 0;
}

/* floor(value / 2^shift) without relying on >> of a negative number. */
static int64_t floor_shift(int64_t value, int shift)
{
	int64_t divisor = (int64_t)1 << shift;
	int64_t quotient = value / divisor;

	if (value % divisor && value < 0)
		quotient--;
	return quotient;
}

static int8_t clamp_int8(int64_t value, int relu, int32_t zero_point)
{
	int64_t low = relu ? zero_point : -128;

	if (value < low)
		value = low;
	if (value > 127)
		value = 127;
	return (int8_t)value;
}

static int8_t requantize(int32_t acc, int32_t multiplier, int32_t shift,
			 int32_t zero_point, int relu)
{
	int64_t product = (int64_t)acc * multiplier;
	int64_t scaled = floor_shift(product + ((int64_t)1 << (shift - 1)),
				     shift);

	return clamp_int8(scaled + zero_point, relu, zero_point);
}

/* A conv or fully connected node: x, weights, bias, y and requant. */
struct linear {
	const struct toy_tensor *x, *w;
	struct toy_tensor *y;
	const int8_t *xd, *wd;
	const int32_t *bd;
	int8_t *yd;
	int32_t m, s;
};

static int linear_of(struct toy_graph *graph, const struct toy_node *node,
		     struct linear *l)
{
	l->x = &graph->tensors[node->inputs[0]];
	l->w = &graph->tensors[node->inputs[1]];
	l->y = &graph->tensors[node->output];
	l->xd = l->x->data;
	l->wd = l->w->data;
	l->bd = graph->tensors[node->inputs[2]].data;
	l->yd = l->y->data;
	return toy_quantize_multiplier((double)l->x->scale * l->w->scale /
				       l->y->scale, &l->m, &l->s);
}

static int conv2d(struct toy_graph *graph, const struct toy_node *node)
{
	struct linear l;
	const struct toy_tensor *x, *y;
	uint32_t kh, kw, c;

	if (linear_of(graph, node, &l))
		return -ERANGE;
	x = l.x;
	y = l.y;
	kh = l.w->shape[2];
	kw = l.w->shape[3];
	c = x->shape[3];
	for (uint32_t n = 0; n < y->shape[0]; n++)
	for (uint32_t oy = 0; oy < y->shape[1]; oy++)
	for (uint32_t ox = 0; ox < y->shape[2]; ox++)
	for (uint32_t o = 0; o < y->shape[3]; o++) {
		int32_t acc = l.bd[o];

		for (uint32_t ky = 0; ky < kh; ky++)
		for (uint32_t kx = 0; kx < kw; kx++) {
			long iy = (long)(oy * node->stride + ky) - node->pad;
			long ix = (long)(ox * node->stride + kx) - node->pad;

			if (iy < 0 || ix < 0 || iy >= (long)x->shape[1] ||
			    ix >= (long)x->shape[2])
				continue;	/* padding: the zero point */
			for (uint32_t i = 0; i < c; i++) {
				size_t xi = (((size_t)n * x->shape[1] + iy) *
					     x->shape[2] + ix) * c + i;
				size_t wi = (((size_t)o * c + i) * kh + ky) *
					    kw + kx;

				acc += (l.xd[xi] - x->zero_point) * l.wd[wi];
			}
		}
		l.yd[(((size_t)n * y->shape[1] + oy) * y->shape[2] + ox) *
		     y->shape[3] + o] = requantize(acc, l.m, l.s, y->zero_point,
						   node->relu);
	}
	return 0;
}

static int fully_connected(struct toy_graph *graph,
			   const struct toy_node *node)
{
	struct linear l;
	uint32_t k, outs;
	size_t rows;

	if (linear_of(graph, node, &l))
		return -ERANGE;
	/* Every pixel of x is a row of K = its channels. */
	k = l.x->shape[3];
	outs = l.w->shape[0];
	rows = toy_tensor_elements(l.x) / k;
	for (size_t r = 0; r < rows; r++)
		for (uint32_t o = 0; o < outs; o++) {
			int32_t acc = l.bd[o];

			for (uint32_t i = 0; i < k; i++)
				acc += (l.xd[(size_t)r * k + i] -
					l.x->zero_point) *
				       l.wd[(size_t)o * k + i];
			l.yd[(size_t)r * outs + o] =
				requantize(acc, l.m, l.s, l.y->zero_point,
					   node->relu);
		}
	return 0;
}

static int add(struct toy_graph *graph, const struct toy_node *node)
{
	const struct toy_tensor *a = &graph->tensors[node->inputs[0]];
	const struct toy_tensor *b = &graph->tensors[node->inputs[1]];
	struct toy_tensor *y = &graph->tensors[node->output];
	double ra = (double)a->scale / y->scale, rb = (double)b->scale / y->scale;
	const int8_t *ad = a->data, *bd = b->data;
	int8_t *yd = y->data;
	long long ma = 0, mb = 0;
	int s;

	for (s = 31; s >= 1; s--) {
		ma = llround(ldexp(ra, s));
		mb = llround(ldexp(rb, s));
		if (ma < TOY_ADD_MULTIPLIER_LIMIT &&
		    mb < TOY_ADD_MULTIPLIER_LIMIT)
			break;
	}
	if (s < 1)
		return -ERANGE;
	for (size_t i = 0; i < toy_tensor_elements(y); i++) {
		int64_t acc = (int64_t)(ad[i] - a->zero_point) * ma +
			      (int64_t)(bd[i] - b->zero_point) * mb;

		yd[i] = clamp_int8(floor_shift(acc + ((int64_t)1 << (s - 1)),
					       s) + y->zero_point,
				   node->relu, y->zero_point);
	}
	return 0;
}

/* Float softmax over the last axis, requantized to the output's scale. */
static int softmax(struct toy_graph *graph, const struct toy_node *node)
{
	const struct toy_tensor *x = &graph->tensors[node->inputs[0]];
	struct toy_tensor *y = &graph->tensors[node->output];
	const int8_t *xd = x->data;
	int8_t *yd = y->data;
	size_t c = x->shape[3], rows = toy_tensor_elements(x) / c;

	for (size_t r = 0; r < rows; r++) {
		double sum = 0, max = -INFINITY;

		for (size_t i = 0; i < c; i++)
			max = fmax(max, (xd[r * c + i] - x->zero_point) *
					(double)x->scale);
		for (size_t i = 0; i < c; i++)
			sum += exp((xd[r * c + i] - x->zero_point) *
				   (double)x->scale - max);
		for (size_t i = 0; i < c; i++) {
			double p = exp((xd[r * c + i] - x->zero_point) *
				       (double)x->scale - max) / sum;

			yd[r * c + i] = clamp_int8(lround(p / y->scale) +
						   y->zero_point, 0, 0);
		}
	}
	return 0;
}

int toy_run_node_cpu(struct toy_graph *graph, const struct toy_node *node)
{
	switch (node->op) {
	case TOY_OP_CONV2D:
		return conv2d(graph, node);
	case TOY_OP_FULLY_CONNECTED:
		return fully_connected(graph, node);
	case TOY_OP_ADD:
		return add(graph, node);
	case TOY_OP_SOFTMAX:
		return softmax(graph, node);
	}
	return -EINVAL;
}

int toy_graph_run(struct toy_graph *graph, const struct toy_delegate *delegate,
		  int verbose, size_t *delegated)
{
	int claimed[TOY_MAX_NODES] = { 0 };
	size_t ran = 0;

	for (size_t i = 0; delegate && i < graph->node_count; i++) {
		const char *reason = "no reason given";

		claimed[i] = !delegate->claim(delegate->state, graph,
					      &graph->nodes[i], &reason);
		if (!claimed[i] && verbose)
			fprintf(stderr, "toy runtime: node %zu stays on the CPU: %s\n",
				i, reason);
	}
	for (size_t i = 0; i < graph->node_count;) {
		int partition[TOY_MAX_NODES];
		size_t count = 0;
		void *kernel;
		int status;

		if (!claimed[i]) {
			graph->nodes[i].delegated = 0;
			status = toy_run_node_cpu(graph, &graph->nodes[i]);
			if (status)
				return status;
			i++;
			continue;
		}
		while (i < graph->node_count && claimed[i]) {
			graph->nodes[i].delegated = 1;
			partition[count++] = (int)i++;
		}
		status = delegate->compile(delegate->state, graph, partition,
					   count, &kernel);
		if (status)
			return status;
		status = delegate->run(kernel, graph);
		delegate->release(kernel);
		if (status)
			return status;
		ran += count;
	}
	if (delegated)
		*delegated = ran;
	return 0;
}
