// SPDX-License-Identifier: MIT
/*
 * Edges of the quantizer's rules, each on a model whose answer is known
 * without the code: non-finite calibration values, the percentile's low
 * end, a held-out sample that does not load, which constants count as
 * weights (a computed one, a Constant node, integer ones), a graph output
 * read only by a Relu, MaxPool sharing parameters that differ from its
 * own, the IR version written, the node input limit from both sides,
 * Gemm's bias with transB = 0 and its constant A, an external-data
 * weight.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "enpu/enpu_rt.h"
#include "qtest_model.h"
#include "quantize_internal.h"
#include "test_quantize.h"

/* Calibration rows in [-1, 1] with both ends and 0 in each. */
static const float mixed_rows[4][8] = {
	{ -1, 0, 1, 0.5f, -0.5f, 0.25f, 0, 1 },
	{ 1, -1, 0, 0.5f, 0.5f, -0.25f, 0, 0 },
	{ 0, 0.75f, -0.75f, 1, -1, 0.5f, 0.5f, 0 },
	{ 0.25f, 0, 0, -1, 1, 0, 0, 0 },
};

/* x[1,8] -> MatMul(w[8,4]) -> y, w = (i % 5 - 2) / 4. */
static void matmul_weight(float *w)
{
	for (int i = 0; i < 32; i++)
		w[i] = (float)(i % 5 - 2) / 4;
}

/* Opset 13, input x[1,8] and, when @w is given, initializer w[8,4]. */
static void begin_row_model(struct qt_model *m, const float *w)
{
	const int64_t wd[] = { 8, 4 };

	qt_init(m, 13);
	qt_input(m, "x", ENPU_RT_FLOAT, 2, row_dims);
	if (w)
		qt_init_float(m, "w", 2, wd, w);
}

static Onnx__TensorProto *new_tensor(struct qt_model *m, const char *name,
				     int32_t dtype, int rank,
				     const int64_t *dims, const void *raw,
				     size_t bytes)
{
	Onnx__TensorProto *t = rt_arena_alloc(&m->arena, sizeof(*t));

	onnx__tensor_proto__init(t);
	t->name = rt_arena_strndup(&m->arena, name, strlen(name));
	t->has_data_type = 1;
	t->data_type = dtype;
	t->n_dims = (size_t)rank;
	t->dims = rt_arena_alloc(&m->arena, (size_t)(rank + 1) * 8);
	memcpy(t->dims, dims, (size_t)rank * 8);
	t->has_raw_data = 1;
	t->raw_data.len = bytes;
	t->raw_data.data = rt_arena_alloc(&m->arena, bytes + 1);
	memcpy(t->raw_data.data, raw, bytes);
	return t;
}

/* A Constant node (the graph's next node) whose `value` is @t. */
static void constant_node(struct qt_model *m, Onnx__TensorProto *t)
{
	Onnx__NodeProto *n = qt_node(m, "Constant", "", t->name);
	Onnx__AttributeProto *a = rt_arena_alloc(&m->arena, sizeof(*a));

	onnx__attribute_proto__init(a);
	a->name = "value";
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
	a->t = t;
	n->attribute = rt_arena_alloc(&m->arena, sizeof(*n->attribute));
	n->attribute[0] = a;
	n->n_attribute = 1;
}

static int quantize_with(const char *model, const char *calib,
			 enum enpu_quantize_method method,
			 struct enpu_quantize_report *r)
{
	struct enpu_quantize_options o;

	enpu_quantize_options_init(&o);
	o.method = method;
	return enpu_quantize_file(path_of("%s", model), path_of("%s", calib),
				  path_of("edges_q.onnx"), &o, r);
}

/*
 * Saves @m as <name>.onnx (freeing it) and quantizes it with min/max
 * calibrated on the first @rows of mixed_rows as x[1,8]: the steps most
 * single-node cases below share. Nonzero when saving or quantizing failed
 * (a save failure leaves @r empty, its error NULL).
 */
static int save_and_quantize(struct qt_model *m, const char *name, int rows,
			     struct enpu_quantize_report *r)
{
	char model[64], calib[64];
	int status;

	memset(r, 0, sizeof(*r));
	snprintf(model, sizeof(model), "%s.onnx", name);
	snprintf(calib, sizeof(calib), "%s_calib", name);
	status = qt_save(m, path_of("%s", model));
	qt_free(m);
	if (status)
		return status;
	write_shaped_rows(calib, mixed_rows, rows, 2);
	return quantize_with(model, calib, ENPU_QUANTIZE_MINMAX, r);
}

static int has(const char *text, const char *part)
{
	return text && strstr(text, part);
}

/*
 * Calibration keeps finite values only: NaN and +-Inf among samples whose
 * finite extremes are -1 and 3 give min/max's 4/255 and zero point 64
 * (one sample is all finite, so that the MatMul's output has a range);
 * an input with no finite value at all is refused by name, with the
 * histogram methods too (whose second pass has no bins for it).
 */
static int test_non_finite_calibration(void)
{
	const float rows[3][8] = {
		{ NAN, -1, 3, INFINITY, 0, 1, 2, -INFINITY },
		{ 0.5f, NAN, -0.5f, INFINITY, -1, 3, NAN, 0 },
		{ 2, 1, 0, -0.25f, 0.5f, -0.5f, 1.5f, 0 },
	};
	const float nans[2][8] = {
		{ NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN },
		{ NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN },
	};
	const enum enpu_quantize_method methods[] = {
		ENPU_QUANTIZE_MINMAX, ENPU_QUANTIZE_PERCENTILE,
		ENPU_QUANTIZE_ENTROPY, ENPU_QUANTIZE_MSE,
	};
	struct enpu_quantize_report r;
	float w[32], scale;
	int32_t zp, zp_type;
	const int64_t wd[] = { 8, 4 };

	matmul_weight(w);
	CHECK(!qt_save_matmul(path_of("nf.onnx"), 13, row_dims, wd, w, NULL),
	      "save");
	write_shaped_rows("nf_calib", rows, 3, 2);
	write_shaped_rows("nan_calib", nans, 2, 2);
	CHECK(!quantize_with("nf.onnx", "nf_calib", ENPU_QUANTIZE_MINMAX, &r),
	      "quantize: %s", r.error);
	enpu_quantize_report_free(&r);
	CHECK(!act_params("edges_q.onnx", "MatMul", &scale, &zp, &zp_type) &&
	      scale == 4.0f / 255 && zp == 64,
	      "finite range [-1, 3]: scale %.9g zp %d", scale, zp);
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		int status = quantize_with("nf.onnx", "nan_calib", methods[i],
					   &r);

		CHECK(status == ENPU_RT_RUNTIME_ERROR &&
		      has(r.error, "calibration saw no finite value of 'x'"),
		      "method %d, all NaN: status %d, %s", methods[i], status,
		      r.error);
		enpu_quantize_report_free(&r);
	}
	return 0;
}

/*
 * Percentile 99.99 on one outlier at -100 below 96000 values in the top
 * 96 bins of [-100, 1]: the tail is 9.6 values, so the range starts at
 * the lower edge of bin 4000, the first whose running count passes it,
 * and ends at the maximum.
 */
static int test_percentile_low_tail(void)
{
	static uint64_t hist[Q_HIST_BINS];
	const double width = 101.0 / Q_HIST_BINS;
	double lo, hi;

	memset(hist, 0, sizeof(hist));
	hist[0] = 1;
	for (size_t b = 4000; b < Q_HIST_BINS; b++)
		hist[b] = 1000;
	method_range(ENPU_QUANTIZE_PERCENTILE, -100, 1, hist, &lo, &hi);
	CHECK(lo == -100 + width * 4000 && hi == 1,
	      "[%.17g, %.17g], want [%.17g, 1]", lo, hi, -100 + width * 4000);
	return 0;
}

/*
 * A held-out sample that does not parse fails the evaluation (after
 * calibration and writing succeeded) with its path named, and
 * enpu_quantize_memory() then returns no model: NULL and size 0.
 */
static int test_bad_heldout_sample(void)
{
	const int64_t wd[] = { 8, 4 };
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;
	float w[32];
	void *model = NULL, *out = (void *)&o;
	size_t size = 0, out_size = 12345;
	FILE *f;
	int status;

	matmul_weight(w);
	CHECK(!qt_save_matmul(path_of("ho.onnx"), 13, row_dims, wd, w, NULL),
	      "save");
	write_shaped_rows("ho_calib", mixed_rows, 4, 2);
	f = fopen(path_of("ho_calib/sample_003/input_0.pb"), "wb");
	CHECK(f && fwrite("\xff\xff\xff\xff", 1, 4, f) == 4 && !fclose(f),
	      "corrupt the held-out sample");
	f = fopen(path_of("ho.onnx"), "rb");
	CHECK(f, "open model");
	model = malloc(1 << 16);
	size = fread(model, 1, 1 << 16, f);
	fclose(f);
	enpu_quantize_options_init(&o);
	o.evaluate = 1;
	o.holdout = 1;
	status = enpu_quantize_memory(model, size, workdir,
				      path_of("ho_calib"), &o, &out, &out_size,
				      &r);
	free(model);
	CHECK(status != ENPU_RT_OK && has(r.error, "sample_003"),
	      "status %d, error: %s", status, r.error);
	CHECK(out == NULL && out_size == 0, "a failed run returned %p, %zu",
	      out, out_size);
	CHECK(r.calibration_samples == 3, "calibrated on %zu",
	      r.calibration_samples);
	enpu_quantize_report_free(&r);
	return 0;
}

/*
 * Which constants are weights. A MatMul weight computed from an
 * initializer (Identity) is a constant the writer cannot read: the op
 * stays float, with a note, and nothing is left to quantize. One held by
 * the graph's first node (a Constant) is a weight like an initializer.
 * Integer weights, as initializer 0 or a Constant's value, stay float
 * with "is not float" (the float model does not run then either).
 */
static int test_weight_sources(void)
{
	const int64_t wd[] = { 8, 4 };
	struct enpu_quantize_report r;
	struct qt_model m;
	float w[32];
	int32_t wi[32];
	int status;

	matmul_weight(w);
	for (int i = 0; i < 32; i++)
		wi[i] = i % 3;
	write_shaped_rows("ws_calib", (const float (*)[8])w, 2, 2);

	begin_row_model(&m, w);
	qt_node(&m, "Identity", "w", "w2");
	qt_node(&m, "MatMul", "x,w2", "y");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("ws_computed.onnx")), "save");
	qt_free(&m);
	status = quantize_with("ws_computed.onnx", "ws_calib",
			       ENPU_QUANTIZE_MINMAX, &r);
	CHECK(status == ENPU_RT_UNSUPPORTED &&
	      has(r.error, "nothing to quantize") &&
	      has(r.notes, "node 'MatMul_1' (MatMul): input 'w2' is a "
		  "computed constant, not an initializer; the op stays float"),
	      "computed weight: status %d, %s, notes: %s", status, r.error,
	      r.notes ? r.notes : "(none)");
	enpu_quantize_report_free(&r);

	begin_row_model(&m, NULL);
	constant_node(&m, new_tensor(&m, "w", ENPU_RT_FLOAT, 2, wd, w,
				     sizeof(w)));
	qt_node(&m, "MatMul", "x,w", "y");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("ws_constant.onnx")), "save");
	qt_free(&m);
	CHECK(!quantize_with("ws_constant.onnx", "ws_calib",
			     ENPU_QUANTIZE_MINMAX, &r), "Constant weight: %s",
	      r.error);
	CHECK(r.quantized_nodes == 1, "Constant weight: %zu quantized",
	      r.quantized_nodes);
	enpu_quantize_report_free(&r);
	{
		Onnx__ModelProto *q = qt_load(path_of("edges_q.onnx"));
		const Onnx__NodeProto *mm = q ? qt_find_op(q->graph, "MatMul",
							   0) : NULL;
		const Onnx__NodeProto *dq = mm ? constant_dq(q->graph,
							     mm->input[1]) :
			NULL;
		const Onnx__TensorProto *wq = dq ?
			qt_initializer(q->graph, dq->input[0]) : NULL;

		CHECK(wq && wq->data_type == ENPU_RT_INT8 &&
		      qt_count_op(q->graph, "Constant") == 0,
		      "Constant weight: no int8 DQ, or the Constant kept");
		onnx__model_proto__free_unpacked(q, NULL);
	}

	for (int as_node = 0; as_node < 2; as_node++) {
		begin_row_model(&m, NULL);
		Onnx__TensorProto *t = new_tensor(&m, "w", ENPU_RT_INT32, 2,
						  wd, wi, sizeof(wi));

		if (as_node) {
			constant_node(&m, t);
		} else {
			m.graph.initializer = rt_arena_alloc(
				&m.arena, sizeof(*m.graph.initializer));
			m.graph.initializer[0] = t;
			m.graph.n_initializer = 1;
		}
		qt_node(&m, "MatMul", "x,w", "y");
		qt_output(&m, "y");
		CHECK(!qt_save(&m, path_of("ws_int.onnx")), "save");
		qt_free(&m);
		status = quantize_with("ws_int.onnx", "ws_calib",
				       ENPU_QUANTIZE_MINMAX, &r);
		CHECK(status != ENPU_RT_OK &&
		      has(r.notes, "input 'w' is not float; the op stays "
			  "float"),
		      "int32 weight (%s): status %d, notes: %s",
		      as_node ? "Constant" : "initializer 0", status,
		      r.notes ? r.notes : "(none)");
		enpu_quantize_report_free(&r);
	}
	return 0;
}

/*
 * A Relu whose input is also a graph output does not fold: the graph
 * output must stay the value before the Relu, so the MatMul's result
 * gets its own Q/DQ and the Relu stays.
 */
static int test_graph_output_not_folded(void)
{
	struct enpu_quantize_report r;
	struct qt_model m;
	Onnx__ModelProto *q;
	float w[32];

	matmul_weight(w);
	begin_row_model(&m, w);
	qt_node(&m, "MatMul", "x,w", "c");
	qt_node(&m, "Relu", "c", "y");
	qt_output(&m, "c");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("go.onnx")), "save");
	qt_free(&m);
	write_shaped_rows("go_calib", (const float (*)[8])w, 2, 2);
	CHECK(!quantize_with("go.onnx", "go_calib", ENPU_QUANTIZE_MINMAX, &r),
	      "quantize: %s", r.error);
	CHECK(r.folded_activations == 0, "%zu folded", r.folded_activations);
	enpu_quantize_report_free(&r);
	q = qt_load(path_of("edges_q.onnx"));
	CHECK(q && qt_count_op(q->graph, "Relu") == 1 &&
	      activation_dq(q->graph, "c"), "Relu kept, c behind Q/DQ");
	onnx__model_proto__free_unpacked(q, NULL);
	return 0;
}

/*
 * MaxPool's output takes its input's parameters even where its own range
 * differs: 1x2 windows over the ramp samples give outputs in [-0.5, 1]
 * from inputs in [-1, 1], so the Conv reads scale 2/255 and zero point
 * round(1 / scale) = 127 (1 / (float)(2/255) is 127.499996), not its
 * own 1.5/255 and 85.
 */
static int test_maxpool_shares_params(void)
{
	static const float rows[2][8] = {
		{ -1, -0.5f, 0, 0.5f, 1, 0.25f, -0.25f, 0.75f },
		{ 0.9f, -0.9f, 0.1f, -0.1f, 0.6f, -0.6f, 0.3f, -0.3f },
	};
	const int64_t wd[] = { 1, 1, 1, 1 }, k[] = { 1, 2 };
	const float w[] = { 0.5f };
	const float want_scale = (float)(2.0 / 255);
	const int32_t want_zp = (int32_t)nearbyint(1 / want_scale);
	struct enpu_quantize_report r;
	struct qt_model m;
	Onnx__NodeProto *n;
	float in_scale, out_scale;
	int32_t in_zp, out_zp, type;

	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 4, image_dims);
	qt_init_float(&m, "w", 4, wd, w);
	n = qt_node(&m, "MaxPool", "x", "p");
	qt_attr_ints(&m, n, "kernel_shape", k, 2);
	qt_node(&m, "Conv", "p,w", "y");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("maxpool_share.onnx")), "save");
	qt_free(&m);
	write_shaped_rows("maxpool_share_calib", rows, 2, 4);
	CHECK(!quantize_with("maxpool_share.onnx",
			     "maxpool_share_calib", ENPU_QUANTIZE_MINMAX, &r),
	      "quantize: %s", r.error);
	enpu_quantize_report_free(&r);
	CHECK(want_zp == 127, "reference zero point %d", want_zp);
	CHECK(!act_params("edges_q.onnx", "MaxPool", &in_scale, &in_zp,
			  &type) &&
	      !act_params("edges_q.onnx", "Conv", &out_scale, &out_zp, &type),
	      "no Q/DQ around the MaxPool");
	CHECK(in_scale == want_scale && in_zp == want_zp &&
	      out_scale == want_scale && out_zp == want_zp,
	      "MaxPool in %.9g/%d, out %.9g/%d, want %.9g/%d", in_scale,
	      in_zp, out_scale, out_zp, want_scale, want_zp);
	return 0;
}

/* Rewrites the IR version of a saved model. */
static int set_ir_version(const char *path, int64_t ir)
{
	Onnx__ModelProto *model = qt_load(path);
	size_t size;
	uint8_t *buf;
	FILE *f;
	int ok;

	if (!model)
		return -1;
	model->has_ir_version = 1;
	model->ir_version = ir;
	size = onnx__model_proto__get_packed_size(model);
	buf = malloc(size + 1);
	onnx__model_proto__pack(model, buf);
	onnx__model_proto__free_unpacked(model, NULL);
	f = fopen(path, "wb");
	ok = f && fwrite(buf, 1, size, f) == size;
	if (f && fclose(f))
		ok = 0;
	free(buf);
	return ok ? 0 : -1;
}

/*
 * The IR version written: at least 7 when the opset is 13 or more, at
 * least 5 when it is 10 or more, and a newer one kept (IR 8 stays 8).
 */
static int test_ir_versions(void)
{
	static const struct {
		int64_t opset, ir;
		const char *extra;
		int64_t want_opset, want_ir;
	} cases[] = {
		{ 13, 8, NULL, 13, 8 },
		{ 11, 6, NULL, 13, 7 },	/* raised to 13 */
		{ 12, 4, "Softmax", 12, 5 },	/* kept at 12 */
		{ 12, 6, "Softmax", 12, 6 },
	};
	const int64_t wd[] = { 8, 4 };
	struct enpu_quantize_report r;
	float w[32];

	matmul_weight(w);
	write_shaped_rows("ir_calib", mixed_rows, 2, 2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		Onnx__ModelProto *q;

		CHECK(!qt_save_matmul(path_of("ir.onnx"), cases[i].opset,
				      row_dims, wd, w, cases[i].extra) &&
		      !set_ir_version(path_of("ir.onnx"), cases[i].ir),
		      "save");
		CHECK(!quantize_with("ir.onnx", "ir_calib",
				     ENPU_QUANTIZE_MINMAX, &r),
		      "opset %lld IR %lld: %s", (long long)cases[i].opset,
		      (long long)cases[i].ir, r.error);
		enpu_quantize_report_free(&r);
		q = qt_load(path_of("edges_q.onnx"));
		CHECK(q && q->opset_import[0]->version == cases[i].want_opset &&
		      q->has_ir_version && q->ir_version == cases[i].want_ir,
		      "opset %lld IR %lld: wrote opset %lld IR %lld",
		      (long long)cases[i].opset, (long long)cases[i].ir,
		      q ? (long long)q->opset_import[0]->version : -1LL,
		      q ? (long long)q->ir_version : -1LL);
		onnx__model_proto__free_unpacked(q, NULL);
	}
	return 0;
}

/*
 * Q_MAX_NODE_INPUTS from both sides: a Concat of x with itself
 * Q_MAX_NODE_INPUTS times is quantized, one input more stays float by
 * that rule's message (and nothing else is left to quantize).
 */
static int test_node_input_limit(void)
{
	struct enpu_quantize_report r;

	write_shaped_rows("cat_calib", mixed_rows, 2, 2);
	for (int extra = 0; extra < 2; extra++) {
		int inputs = Q_MAX_NODE_INPUTS + extra, status;
		char list[4 * (Q_MAX_NODE_INPUTS + 1) + 1] = "";
		struct qt_model m;
		Onnx__NodeProto *n;

		for (int i = 0; i < inputs; i++)
			strcat(list, i ? ",x" : "x");
		begin_row_model(&m, NULL);
		n = qt_node(&m, "Concat", list, "y");
		qt_attr_int(&m, n, "axis", 1);
		qt_output(&m, "y");
		CHECK(!qt_save(&m, path_of("cat.onnx")), "save");
		qt_free(&m);
		status = quantize_with("cat.onnx", "cat_calib",
				       ENPU_QUANTIZE_MINMAX, &r);
		if (!extra)
			CHECK(!status && r.quantized_nodes == 1,
			      "%d inputs: status %d (%s), %zu quantized",
			      inputs, status, r.error, r.quantized_nodes);
		else
			CHECK(status == ENPU_RT_UNSUPPORTED &&
			      has(r.notes, "node 'Concat_0' (Concat): has too "
				  "many inputs; the op stays float"),
			      "%d inputs: status %d, notes: %s", inputs,
			      status, r.notes ? r.notes : "(none)");
		enpu_quantize_report_free(&r);
	}
	return 0;
}

/*
 * Gemm with transB = 0 (B is [K, N], channels along axis 1) and a 1-D C
 * of N: C folds into an int32 bias with one scale per output channel.
 */
static int test_gemm_bias_untransposed(void)
{
	const int64_t cd[] = { 4 };
	const float c[4] = { 0.5f, -0.5f, 0.25f, 0 };
	struct enpu_quantize_report r;
	struct qt_model m;
	Onnx__ModelProto *q;
	const Onnx__NodeProto *gemm, *dq;
	const Onnx__TensorProto *bq, *bs;
	float w[32];

	matmul_weight(w);
	begin_row_model(&m, w);
	qt_init_float(&m, "c", 1, cd, c);
	qt_node(&m, "Gemm", "x,w,c", "y");
	qt_output(&m, "y");
	CHECK(!save_and_quantize(&m, "gemm_b", 2, &r), "quantize: %s",
	      r.error);
	enpu_quantize_report_free(&r);
	q = qt_load(path_of("edges_q.onnx"));
	gemm = q ? qt_find_op(q->graph, "Gemm", 0) : NULL;
	dq = gemm && gemm->n_input == 3 ? constant_dq(q->graph,
						      gemm->input[2]) : NULL;
	bq = dq ? qt_initializer(q->graph, dq->input[0]) : NULL;
	bs = dq ? qt_initializer(q->graph, dq->input[1]) : NULL;
	CHECK(bq && bq->data_type == ENPU_RT_INT32 && bs && bs->n_dims == 1 &&
	      bs->dims[0] == 4, "C is not an int32 bias per channel");
	onnx__model_proto__free_unpacked(q, NULL);
	return 0;
}

/* The int8 weight behind input @input of the first @op of @q. */
static const Onnx__TensorProto *weight_q(const Onnx__ModelProto *q,
					 const char *op, size_t input)
{
	const Onnx__NodeProto *n = q ? qt_find_op(q->graph, op, 0) : NULL;
	const Onnx__NodeProto *dq = n && n->n_input > input ?
		constant_dq(q->graph, n->input[input]) : NULL;

	return dq ? qt_initializer(q->graph, dq->input[0]) : NULL;
}

/*
 * A weight held in an external file beside the model (ONNX external
 * data, "location" relative to the model's directory) quantizes to the
 * same int8 bytes as the same weight inline.
 */
static int test_external_weight(void)
{
	const int64_t wd[] = { 8, 4 };
	struct enpu_quantize_report r;
	Onnx__ModelProto *inline_q, *external_q;
	const Onnx__TensorProto *a, *b;
	struct qt_model m;
	float w[32];
	FILE *f;

	matmul_weight(w);
	write_shaped_rows("ext_calib", mixed_rows, 2, 2);
	CHECK(!qt_save_matmul(path_of("ext_inline.onnx"), 13, row_dims, wd, w,
			      NULL), "save");
	CHECK(!quantize_with("ext_inline.onnx", "ext_calib",
			     ENPU_QUANTIZE_MINMAX, &r), "inline: %s", r.error);
	enpu_quantize_report_free(&r);
	CHECK(!rename(path_of("edges_q.onnx"), path_of("ext_inline_q.onnx")),
	      "rename");
	f = fopen(path_of("ext_w.bin"), "wb");
	CHECK(f && fwrite(w, sizeof(w), 1, f) == 1 && !fclose(f), "ext_w.bin");
	begin_row_model(&m, NULL);
	{
		Onnx__TensorProto *t = new_tensor(&m, "w", ENPU_RT_FLOAT, 2, wd,
						  w, 0);
		Onnx__StringStringEntryProto *e = rt_arena_alloc(&m.arena,
								 sizeof(*e));

		onnx__string_string_entry_proto__init(e);
		e->key = "location";
		e->value = "ext_w.bin";
		t->has_raw_data = 0;
		t->n_external_data = 1;
		t->external_data = rt_arena_alloc(&m.arena,
						  sizeof(*t->external_data));
		t->external_data[0] = e;
		t->has_data_location = 1;
		t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
		m.graph.initializer = rt_arena_alloc(
			&m.arena, sizeof(*m.graph.initializer));
		m.graph.initializer[0] = t;
		m.graph.n_initializer = 1;
	}
	qt_node(&m, "MatMul", "x,w", "y");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("ext.onnx")), "save");
	qt_free(&m);
	CHECK(!quantize_with("ext.onnx", "ext_calib", ENPU_QUANTIZE_MINMAX,
			     &r), "external: %s", r.error);
	enpu_quantize_report_free(&r);
	inline_q = qt_load(path_of("ext_inline_q.onnx"));
	external_q = qt_load(path_of("edges_q.onnx"));
	a = weight_q(inline_q, "MatMul", 1);
	b = weight_q(external_q, "MatMul", 1);
	CHECK(a && b && a->raw_data.len == 32 && b->raw_data.len == 32 &&
	      !memcmp(a->raw_data.data, b->raw_data.data, 32),
	      "external weight: int8 bytes differ from the inline ones");
	onnx__model_proto__free_unpacked(inline_q, NULL);
	onnx__model_proto__free_unpacked(external_q, NULL);
	return 0;
}

/*
 * Gemm whose A is the constant and B the activation: A is the weight
 * (int8, per tensor: its channels are not Gemm's output channels) and the
 * op is quantized; only both constant is refused.
 */
static int test_gemm_constant_a(void)
{
	const int64_t ad[] = { 4, 8 }, xd[] = { 8, 1 };
	struct enpu_quantize_report r;
	struct qt_model m;
	Onnx__ModelProto *q;
	const Onnx__TensorProto *wq;
	float a[32];
	float cols[2][8];

	matmul_weight(a);
	for (int s = 0; s < 2; s++)
		memcpy(cols[s], mixed_rows[s], sizeof(cols[s]));
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 2, xd);
	qt_init_float(&m, "a", 2, ad, a);
	qt_node(&m, "Gemm", "a,x", "y");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("gemm_a.onnx")), "save");
	qt_free(&m);
	mkdir(path_of("gemm_a_calib"), 0755);
	for (int s = 0; s < 2; s++) {
		mkdir(path_of("gemm_a_calib/sample_%03d", s), 0755);
		CHECK(!qt_write_tensor(path_of("gemm_a_calib/sample_%03d/"
					       "input_0.pb", s), "", 2, xd,
				       cols[s]), "sample");
	}
	CHECK(!quantize_with("gemm_a.onnx", "gemm_a_calib",
			     ENPU_QUANTIZE_MINMAX, &r), "quantize: %s",
	      r.error);
	CHECK(r.quantized_nodes == 1, "%zu quantized", r.quantized_nodes);
	enpu_quantize_report_free(&r);
	q = qt_load(path_of("edges_q.onnx"));
	wq = weight_q(q, "Gemm", 0);
	CHECK(wq && wq->data_type == ENPU_RT_INT8 && q &&
	      activation_dq(q->graph, qt_find_op(q->graph, "Gemm",
						  0)->input[1]),
	      "A is not an int8 weight or x has no Q/DQ");
	onnx__model_proto__free_unpacked(q, NULL);
	return 0;
}

/*
 * A model without graph inputs or initializers whose MatMul reads a
 * computed activation listed after it (an unsorted graph): that
 * activation is the model's tensor 0 and a calibration output. Its
 * value is the Constant c taken back out of a sequence, so its range is
 * c's, -1 to 3: min/max's 4/255 and zero point 64, as for the finite
 * extremes of non_finite_calibration. Dropping tensor 0 from the outputs
 * would leave it unseen (all zeros: scale 1, zero point 0).
 */
static int test_tensor_zero_calibrated(void)
{
	const float c[8] = { -1, 0, 3, 0.5f, 2, -0.5f, 1, 0 };
	const int64_t wd[] = { 8, 4 }, at = 0;
	struct enpu_quantize_report r;
	struct qt_model m;
	float w[32], scale;
	int32_t zp, zp_type;

	matmul_weight(w);
	qt_init(&m, 13);
	qt_node(&m, "MatMul", "h,w", "y");
	constant_node(&m, new_tensor(&m, "w", ENPU_RT_FLOAT, 2, wd, w,
				     sizeof(w)));
	qt_attr_int(&m, qt_node(&m, "SequenceEmpty", "", "s0"), "dtype",
		    ENPU_RT_FLOAT);
	constant_node(&m, new_tensor(&m, "c", ENPU_RT_FLOAT, 2, row_dims, c,
				     sizeof(c)));
	qt_node(&m, "SequenceInsert", "s0,c", "s1");
	constant_node(&m, new_tensor(&m, "at", ENPU_RT_INT64, 0, wd, &at,
				     sizeof(at)));
	qt_node(&m, "SequenceAt", "s1,at", "h");
	qt_output(&m, "y");
	/* No input to bind: the sample's input_0.pb is only its marker. */
	CHECK(!save_and_quantize(&m, "tensor0", 1, &r), "quantize: %s",
	      r.error);
	CHECK(r.quantized_nodes == 1, "%zu quantized", r.quantized_nodes);
	enpu_quantize_report_free(&r);
	CHECK(!act_params("edges_q.onnx", "MatMul", &scale, &zp, &zp_type) &&
	      scale == 4.0f / 255 && zp == 64,
	      "tensor 0's range [-1, 3]: scale %.9g zp %d", scale, zp);
	return 0;
}

/*
 * A MatMul with a third (constant) input: ONNX's MatMul has two, and
 * the runtime refuses the float model when calibration loads it, before
 * anything reads the role the plan gave the third input.
 */
static int test_matmul_third_input(void)
{
	struct enpu_quantize_report r;
	struct qt_model m;
	float w[32];

	matmul_weight(w);
	begin_row_model(&m, w);
	qt_node(&m, "MatMul", "x,w,w", "y");
	qt_output(&m, "y");
	CHECK(save_and_quantize(&m, "mm3", 2, &r) &&
	      has(r.error, "does not run for calibration"),
	      "three-input MatMul: %s", r.error ? r.error : "accepted");
	enpu_quantize_report_free(&r);
	return 0;
}

/* q_map_get() on a map nothing was put in: -1, its documented absent. */
static int test_empty_map(void)
{
	const struct q_name_map empty = { 0 };

	CHECK(q_map_get(&empty, "x") == -1 && q_map_get(&empty, "") == -1,
	      "empty map: %d", q_map_get(&empty, "x"));
	return 0;
}

const struct test edge_tests[] = {
	{ "non_finite_calibration", test_non_finite_calibration },
	{ "percentile_low_tail", test_percentile_low_tail },
	{ "bad_heldout_sample", test_bad_heldout_sample },
	{ "weight_sources", test_weight_sources },
	{ "graph_output_not_folded", test_graph_output_not_folded },
	{ "maxpool_shares_params", test_maxpool_shares_params },
	{ "ir_versions", test_ir_versions },
	{ "node_input_limit", test_node_input_limit },
	{ "gemm_bias_untransposed", test_gemm_bias_untransposed },
	{ "empty_map", test_empty_map },
	{ "external_weight", test_external_weight },
	{ "gemm_constant_a", test_gemm_constant_a },
	{ "tensor_zero_calibrated", test_tensor_zero_calibrated },
	{ "matmul_third_input", test_matmul_third_input },
	{ NULL, NULL },
};
