// SPDX-License-Identifier: MIT
/*
 * Conv + BatchNormalization (inference form, constant float parameters):
 * the normalization is folded into new Conv weights and bias,
 *   W' = W * s[c],  B' = (B - mean) * s + beta,  s = scale / sqrt(var + eps),
 * and the BatchNormalization node goes away. Backend-neutral: every
 * backend sees the plain Conv.
 */
#include <math.h>
#include <string.h>

#include "passes.h"
#include "rewrite.h"

static int float_vector(const struct rt_tensor *t, int64_t n)
{
	return t && t->dtype == ENPU_RT_FLOAT && t->rank == 1 &&
	       t->dims[0] == n;
}

static int fuse_conv_batchnorm(struct rt_graph *g, size_t n)
{
	struct rt_node *conv = &g->nodes[n], *bn;
	const struct rt_tensor *w, *b, *scale, *beta, *mean, *var;
	int reader, new_w, new_b;
	float epsilon;
	int64_t m;

	if (!rt_node_is_onnx(conv, "Conv") || conv->output_count != 1 ||
	    !rt_value_single_reader(g, conv->outputs[0], &reader))
		return 0;
	bn = &g->nodes[reader];
	if (!rt_node_is_onnx(bn, "BatchNormalization") || bn->input_count != 5 ||
	    bn->output_count != 1 || bn->inputs[0] != conv->outputs[0] ||
	    rt_node_attr_int(bn, "training_mode", 0) ||
	    !rt_node_attr_int(bn, "spatial", 1))
		return 0;
	w = rt_node_constant(g, conv, 1);
	b = conv->input_count > 2 && conv->inputs[2] >= 0 ?
	    rt_node_constant(g, conv, 2) : NULL;
	if (!w || w->dtype != ENPU_RT_FLOAT || w->rank < 3 ||
	    (conv->input_count > 2 && conv->inputs[2] >= 0 && !b))
		return 0;
	m = w->dims[0];
	scale = rt_node_constant(g, bn, 1);
	beta = rt_node_constant(g, bn, 2);
	mean = rt_node_constant(g, bn, 3);
	var = rt_node_constant(g, bn, 4);
	if (!float_vector(scale, m) || !float_vector(beta, m) ||
	    !float_vector(mean, m) || !float_vector(var, m) ||
	    (b && !float_vector(b, m)))
		return 0;
	epsilon = rt_node_attr_float(bn, "epsilon", 1e-5f);
	new_w = rt_graph_add_constant(g, g->values[conv->inputs[1]].name,
				      "bnfold", ENPU_RT_FLOAT, w->rank,
				      w->dims);
	if (new_w < 0)
		return -1;
	new_b = rt_graph_add_constant(g, g->values[conv->inputs[1]].name,
				      "bnbias", ENPU_RT_FLOAT, 1, &m);
	if (new_b < 0)
		return -1;
	/* Re-fetch: adding values may have moved the array. */
	w = &g->values[conv->inputs[1]].tensor;
	b = conv->input_count > 2 && conv->inputs[2] >= 0 ?
	    &g->values[conv->inputs[2]].tensor : NULL;
	scale = &g->values[bn->inputs[1]].tensor;
	beta = &g->values[bn->inputs[2]].tensor;
	mean = &g->values[bn->inputs[3]].tensor;
	var = &g->values[bn->inputs[4]].tensor;
	{
		const float *wd = w->data, *sd = scale->data, *bd = beta->data;
		const float *md = mean->data, *vd = var->data;
		float *nw = g->values[new_w].tensor.data;
		float *nb = g->values[new_b].tensor.data;
		size_t per = rt_tensor_elements(w) / (size_t)(m ? m : 1);

		for (int64_t c = 0; c < m; c++) {
			float s = sd[c] / sqrtf(vd[c] + epsilon);
			float bias = b ? ((const float *)b->data)[c] : 0.0f;

			for (size_t i = 0; i < per; i++)
				nw[(size_t)c * per + i] = wd[(size_t)c * per + i] * s;
			nb[c] = (bias - md[c]) * s + bd[c];
		}
	}
	conv->inputs[1] = new_w;
	if (conv->input_count < 3)
		conv->input_count = 3;	/* load_node left a spare slot */
	conv->inputs[2] = new_b;
	rt_node_absorb(g, conv, bn);
	return 1;
}

int rt_pass_fold_batchnorm(struct rt_graph *g)
{
	for (size_t n = 0; n < g->node_count; n++)
		if (fuse_conv_batchnorm(g, n) < 0)
			return g->errors->status;
	return 0;
}
