// SPDX-License-Identifier: MIT
/*
 * The quantizer's rules one by one, on inputs whose answer is known
 * exactly: activation scales and zero points from calibration sets with
 * a known min and max (both activation types, ranges on either side of
 * 0, all zeros), the opset table's boundaries, which Clips fold, scalar
 * constants, every Conv of a model (not only the first), initializers
 * listed as graph inputs, a model without initializers, long notes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "enpu/enpu_rt.h"
#include "qtest_model.h"
#include "quantize_internal.h"
#include "test_quantize.h"

const int64_t row_dims[2] = { 1, 8 }, image_dims[4] = { 1, 1, 2, 4 };

/* One sample per row of @rows (8 floats each) in @dir, shaped @rank. */
void write_shaped_rows(const char *dir, const float (*rows)[8], int count,
		       int rank)
{
	mkdir(path_of("%s", dir), 0755);
	for (int s = 0; s < count; s++) {
		mkdir(path_of("%s/sample_%03d", dir, s), 0755);
		qt_write_tensor(path_of("%s/sample_%03d/input_0.pb", dir, s), "",
				rank, rank == 2 ? row_dims : image_dims,
				rows[s]);
	}
}

static void write_rows(const char *dir, const float (*rows)[8], int count)
{
	write_shaped_rows(dir, rows, count, 2);
}

/* x[1,8] -> MatMul(w[8,4]) -> y, opset @opset, @extra op after it. */
static int save_matmul(const char *path, int64_t opset, const char *extra)
{
	const int64_t wd[] = { 8, 4 };
	float w[32];

	for (int i = 0; i < 32; i++)
		w[i] = (float)((i * 7) % 11 - 5) / 8;
	return qt_save_matmul(path, opset, row_dims, wd, w, extra);
}

/* The scale and zero point of the Q/DQ pair that feeds @name. */
int act_params(const char *model_path, const char *op, float *scale,
	       int32_t *zp, int32_t *zp_type)
{
	Onnx__ModelProto *model = qt_load(path_of("%s", model_path));
	const Onnx__NodeProto *node, *dq;
	const Onnx__TensorProto *z;
	int status = -1;

	if (!model)
		return -1;
	node = qt_find_op(model->graph, op, 0);
	dq = node ? activation_dq(model->graph, node->input[0]) : NULL;
	z = dq ? qt_initializer(model->graph, dq->input[2]) : NULL;
	if (z && z->raw_data.len == 1) {
		*scale = init_scalar(model->graph, dq->input[1]);
		*zp_type = z->data_type;
		*zp = z->data_type == ENPU_RT_INT8 ?
			(int32_t)(int8_t)z->raw_data.data[0] :
			(int32_t)z->raw_data.data[0];
		status = 0;
	}
	onnx__model_proto__free_unpacked(model, NULL);
	return status;
}

/*
 * Min/max calibration on samples whose extremes are known: the range is
 * widened to hold 0, scale = (max - min) / 255 in float, zero point =
 * round(qmin - min / scale) (ONNX's asymmetric quantization), for uint8
 * and int8 activations; all zeros give scale 1 and zero point qmin.
 */
static int test_exact_activation_params(void)
{
	static const struct {
		float lo, hi;		/* the samples' min and max */
		float want_lo, want_hi;	/* the range holding 0 */
	} ranges[] = {
		{ -1.0f, 3.0f, -1.0f, 3.0f },
		{ 0.5f, 2.0f, 0.0f, 2.0f },
		{ -2.0f, -0.5f, -2.0f, 0.0f },
		{ -0.75f, 0.0f, -0.75f, 0.0f },
		{ 0.0f, 0.0f, 0.0f, 0.0f },
	};
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;

	CHECK(!save_matmul(path_of("exact.onnx"), 13, NULL), "save");
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		const float lo = ranges[i].lo, hi = ranges[i].hi;
		/* Extremes in different samples, values between elsewhere. */
		const float rows[3][8] = {
			{ lo, (lo + hi) / 2, hi, lo, lo, lo, lo, lo },
			{ hi, hi, (3 * lo + hi) / 4, hi, hi, hi, hi, hi },
			{ (lo + 3 * hi) / 4, lo, hi, lo, hi, lo, hi, lo },
		};
		char calib[32];

		snprintf(calib, sizeof(calib), "exact_calib_%zu", i);
		write_rows(calib, rows, 3);
		for (int type = 0; type < 2; type++) {
			int32_t qmin = type ? -128 : 0, zp = 0, zp_type = 0;
			double span = ranges[i].want_hi - ranges[i].want_lo;
			float want_scale = span > 0 ? (float)(span / 255) : 1.0f;
			int32_t want_zp = (int32_t)nearbyint(qmin -
				ranges[i].want_lo / want_scale);
			float scale = 0;

			enpu_quantize_options_init(&o);
			o.activation_type = type ? ENPU_RT_INT8 : ENPU_RT_UINT8;
			CHECK(!quantize("exact.onnx", calib, "exact_q.onnx", &o,
					&r), "quantize [%g, %g]", lo, hi);
			enpu_quantize_report_free(&r);
			CHECK(!act_params("exact_q.onnx", "MatMul", &scale, &zp,
					  &zp_type), "no Q/DQ on x");
			CHECK(zp_type == (type ? ENPU_RT_INT8 : ENPU_RT_UINT8),
			      "zero point type %d", zp_type);
			CHECK(scale == want_scale && zp == want_zp,
			      "[%g, %g] %s: scale %.9g zp %d, want %.9g and %d",
			      lo, hi, type ? "int8" : "uint8", scale, zp,
			      want_scale, want_zp);
		}
	}
	/* The two ranges with 0 at an end, written out: no formula. */
	{
		float scale;
		int32_t zp, zp_type;

		enpu_quantize_options_init(&o);
		CHECK(!quantize("exact.onnx", "exact_calib_1", "exact_q.onnx",
				&o, &r), "quantize");
		enpu_quantize_report_free(&r);
		CHECK(!act_params("exact_q.onnx", "MatMul", &scale, &zp,
				  &zp_type) && scale == 2.0f / 255 && zp == 0,
		      "[0.5, 2] uint8: %g %d", scale, zp);
		CHECK(!quantize("exact.onnx", "exact_calib_2", "exact_q.onnx",
				&o, &r), "quantize");
		enpu_quantize_report_free(&r);
		CHECK(!act_params("exact_q.onnx", "MatMul", &scale, &zp,
				  &zp_type) && scale == 2.0f / 255 && zp == 255,
		      "[-2, -0.5] uint8: %g %d", scale, zp);
		CHECK(!quantize("exact.onnx", "exact_calib_0", "exact_q.onnx",
				&o, &r), "quantize");
		enpu_quantize_report_free(&r);
		/* -1/(4/255) = -63.75: the zero point rounds to 64. */
		CHECK(!act_params("exact_q.onnx", "MatMul", &scale, &zp,
				  &zp_type) && scale == 4.0f / 255 && zp == 64,
		      "[-1, 3] uint8: %g %d", scale, zp);
	}
	return 0;
}

static const float ramp_rows[2][8] = {
	{ -1, -0.5f, 0, 0.5f, 1, 0.25f, -0.25f, 0.75f },
	{ 0.9f, -0.9f, 0.1f, -0.1f, 0.6f, -0.6f, 0.3f, -0.3f },
};

/*
 * Quantizes @model with default options on the ramp samples, shaped
 * [1, 8] or (@image) [1, 1, 2, 4].
 */
static int quantize_ramp_as(const char *model, const char *out, int image,
			    struct enpu_quantize_report *r)
{
	const char *calib = image ? "ramp_image_calib" : "ramp_calib";
	struct enpu_quantize_options o;
	struct stat st;

	if (stat(path_of("%s", calib), &st))
		write_shaped_rows(calib, ramp_rows, 2, image ? 4 : 2);
	enpu_quantize_options_init(&o);
	return quantize(model, calib, out, &o, r);
}

static int quantize_ramp(const char *model, const char *out,
			 struct enpu_quantize_report *r)
{
	return quantize_ramp_as(model, out, 0, r);
}

/*
 * The opset table's boundaries: an op blocks the move to 13 below its
 * entry (MaxPool 8, Min 8 and Gemm 7: the first versions whose models
 * mean the same at 13; Transpose 1), and from opset 10 up the opset is kept rather than
 * raised (10 is where QuantizeLinear exists).
 */
static int test_opset_boundaries(void)
{
	static const struct {
		int64_t opset;
		const char *op;
		int64_t want_out;
		const char *note;
	} cases[] = {
		{ 8, "MaxPool", 13, "opset raised from 8 to 13" },
		{ 7, "MaxPool", 10, "opset raised from 7 to 10" },
		{ 8, "Min", 13, "opset raised from 8 to 13" },
		{ 7, "Min", 10, "node 'Min_1' (Min) changes meaning at "
		  "opset 13" },
		{ 7, "Gemm", 13, "opset raised from 7 to 13" },
		{ 6, "Gemm", 10, "node 'Gemm_0' (Gemm) changes meaning at "
		  "opset 13" },
		{ 1, "Transpose", 13, "opset raised from 1 to 13" },
		{ 1, "Flatten", 13, "opset raised from 1 to 13" },
		{ 10, "Softmax", 10, "opset 10 kept: node 'Softmax_1' "
		  "(Softmax) is not known to keep its meaning" },
		{ 12, "Softmax", 12, "opset 12 kept" },
	};
	struct enpu_quantize_report r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[64];
		Onnx__ModelProto *model;

		snprintf(name, sizeof(name), "opset_%zu.onnx", i);
		if (!strcmp(cases[i].op, "MaxPool")) {
			/* x[1,1,2,4] -> MaxPool(1x2) -> Conv(1x1) -> y */
			struct qt_model m;
			const int64_t wd[] = { 1, 1, 1, 1 }, k[] = { 1, 2 };
			const float w[] = { 0.5f };
			Onnx__NodeProto *n;

			qt_init(&m, cases[i].opset);
			qt_input(&m, "x", ENPU_RT_FLOAT, 4, image_dims);
			qt_init_float(&m, "w", 4, wd, w);
			n = qt_node(&m, "MaxPool", "x", "p");
			qt_attr_ints(&m, n, "kernel_shape", k, 2);
			qt_node(&m, "Conv", "p,w", "y");
			qt_output(&m, "y");
			CHECK(!qt_save(&m, path_of("%s", name)), "save");
			qt_free(&m);
		} else if (!strcmp(cases[i].op, "Gemm")) {
			/* x -> Gemm(w, c) -> y (C is required before 11). */
			struct qt_model m;
			const int64_t wd[] = { 8, 4 }, cd[] = { 1, 4 };
			float w[32];
			const float c[4] = { 0.5f, -0.5f, 0.25f, 0 };

			for (int j = 0; j < 32; j++)
				w[j] = (float)(j % 5 - 2) / 4;
			qt_init(&m, cases[i].opset);
			qt_input(&m, "x", ENPU_RT_FLOAT, 2, row_dims);
			qt_init_float(&m, "w", 2, wd, w);
			qt_init_float(&m, "c", 2, cd, c);
			qt_node(&m, "Gemm", "x,w,c", "y");
			qt_output(&m, "y");
			CHECK(!qt_save(&m, path_of("%s", name)), "save");
			qt_free(&m);
		} else {
			CHECK(!save_matmul(path_of("%s", name), cases[i].opset,
					   cases[i].op), "save");
		}
		CHECK(!quantize_ramp_as(name, "opset_q.onnx",
					!strcmp(cases[i].op, "MaxPool"), &r),
		      "%s opset %lld",
		      cases[i].op, (long long)cases[i].opset);
		CHECK(r.opset_in == cases[i].opset &&
		      r.opset_out == cases[i].want_out && r.notes &&
		      strstr(r.notes, cases[i].note),
		      "%s at opset %lld: out %lld, notes: %s", cases[i].op,
		      (long long)cases[i].opset, (long long)r.opset_out,
		      r.notes ? r.notes : "(none)");
		/* Raised to 13: weights per channel; else per tensor. */
		CHECK(cases[i].want_out == 13 ?
		      !strstr(r.notes, "per tensor") :
		      strstr(r.notes, "per tensor") != NULL,
		      "weights: %s", r.notes);
		enpu_quantize_report_free(&r);
		model = qt_load(path_of("opset_q.onnx"));
		CHECK(model && model->opset_import[0]->version ==
		      cases[i].want_out, "written opset");
		onnx__model_proto__free_unpacked(model, NULL);
	}
	return 0;
}

/* x -> Conv(1x1) -> Clip(lo, hi) -> y at opset 13 (bounds as inputs). */
static int save_conv_clip(const char *path, float lo, float hi)
{
	const int64_t xd[] = { 1, 1, 2, 4 }, wd[] = { 1, 1, 1, 1 };
	const float w[] = { 2.0f };
	struct qt_model m;
	int status;

	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 4, xd);
	qt_init_float(&m, "w", 4, wd, w);
	qt_init_float(&m, "lo", 0, NULL, &lo);
	qt_init_float(&m, "hi", 0, NULL, &hi);
	qt_node(&m, "Conv", "x,w", "c");
	qt_node(&m, "Clip", "c,lo,hi", "y");
	qt_output(&m, "y");
	status = qt_save(&m, path);
	qt_free(&m);
	return status;
}

/*
 * A Clip folds into its producer's output range only when its bounds
 * hold 0 (the folded range always does): Clip(0, 6) and Clip(-1, 1)
 * fold, Clip(0.25, 6) and Clip(-6, -0.25) stay.
 */
static int test_clip_folding(void)
{
	static const struct {
		float lo, hi;
		int folds;
	} cases[] = {
		{ 0.0f, 6.0f, 1 }, { -1.0f, 1.0f, 1 },
		{ 0.25f, 6.0f, 0 }, { -6.0f, -0.25f, 0 },
	};
	const int64_t xd[] = { 1, 1, 2, 4 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct enpu_quantize_options o;
		struct enpu_quantize_report r;
		Onnx__ModelProto *model;
		const float rows[1][8] = {
			{ -1, -0.5f, 0, 0.5f, 1, 2, 3, -3 },
		};

		CHECK(!save_conv_clip(path_of("clip.onnx"), cases[i].lo,
				      cases[i].hi), "save");
		mkdir(path_of("clip_calib"), 0755);
		mkdir(path_of("clip_calib/s0"), 0755);
		qt_write_tensor(path_of("clip_calib/s0/input_0.pb"), "", 4, xd,
				rows[0]);
		enpu_quantize_options_init(&o);
		CHECK(!quantize("clip.onnx", "clip_calib", "clip_q.onnx", &o,
				&r), "quantize");
		CHECK(r.folded_activations == (size_t)cases[i].folds,
		      "Clip(%g, %g): %zu folded, want %d", cases[i].lo,
		      cases[i].hi, r.folded_activations, cases[i].folds);
		enpu_quantize_report_free(&r);
		model = qt_load(path_of("clip_q.onnx"));
		CHECK(model && qt_count_op(model->graph, "Clip") ==
		      !cases[i].folds, "Clip(%g, %g) in the output: %d",
		      cases[i].lo, cases[i].hi,
		      model ? qt_count_op(model->graph, "Clip") : -1);
		if (cases[i].folds) {
			/* Conv's output Q holds the Clip's calibrated range:
			 * 2x clipped to [lo, hi] over the sample. */
			const Onnx__NodeProto *dq = activation_dq(model->graph,
								  "y");
			double lo = fmax(cases[i].lo, -6), hi = fmin(cases[i].hi,
								     6);
			float want = (float)((fmax(hi, 0) - fmin(lo, 0)) / 255);

			CHECK(dq && init_scalar(model->graph, dq->input[1]) ==
			      want, "Clip(%g, %g): output scale %g, want %g",
			      cases[i].lo, cases[i].hi,
			      dq ? init_scalar(model->graph, dq->input[1]) : 0,
			      want);
		}
		onnx__model_proto__free_unpacked(model, NULL);
		double err = relative_error("clip.onnx", "clip_q.onnx", 4, xd, 4,
					    -1, 1);

		CHECK(err <= QT_TOLERANCE, "Clip(%g, %g): error %g",
		      cases[i].lo, cases[i].hi, err);
	}
	return 0;
}

/*
 * Structure rules on small models: a scalar constant operand of Add
 * quantizes like an activation; the second Conv of a model is quantized
 * like the first; an initializer the model also lists as a graph input
 * (IR < 4 exporters) is no input of the quantized model; a model with no
 * initializer at all gets Q/DQ on its first input too.
 */
static int test_structure_rules(void)
{
	struct enpu_quantize_report r;
	Onnx__ModelProto *model;
	const Onnx__GraphProto *g;
	struct qt_model m;
	const float half = 0.5f;

	/* x + 0.5 (a rank-0 initializer). */
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 2, row_dims);
	qt_init_float(&m, "c", 0, NULL, &half);
	qt_node(&m, "Add", "x,c", "y");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("scalar_add.onnx")), "save");
	qt_free(&m);
	CHECK(!quantize_ramp("scalar_add.onnx", "scalar_add_q.onnx", &r),
	      "quantize");
	CHECK(r.quantized_nodes == 1 && r.float_nodes == 0 &&
	      !(r.notes && strstr(r.notes, "stays float")),
	      "Add with a scalar: %zu quantized, notes %s", r.quantized_nodes,
	      r.notes ? r.notes : "(none)");
	enpu_quantize_report_free(&r);
	model = qt_load(path_of("scalar_add_q.onnx"));
	g = model->graph;
	{
		const Onnx__NodeProto *add = qt_find_op(g, "Add", 0);
		const Onnx__NodeProto *dq = add ? constant_dq(g, add->input[1]) :
			NULL;

		CHECK(add && activation_dq(g, add->input[0]) && dq,
		      "Add inputs: x Q/DQ and the scalar DQ'd");
		/* A one-value range [0, 0.5] (0 included): 0.5 / 255. */
		CHECK(init_scalar(g, dq->input[1]) == (float)(0.5 / 255),
		      "scalar's scale %g", init_scalar(g, dq->input[1]));
	}
	onnx__model_proto__free_unpacked(model, NULL);

	/* x -> Conv -> Conv -> y: both weights per channel, both Q/DQ. */
	{
		const int64_t xd[] = { 1, 1, 2, 4 }, wd[] = { 2, 1, 1, 1 },
			w2d[] = { 1, 2, 1, 1 };
		const float w1[] = { 0.5f, -1 }, w2[] = { 0.25f, 0.75f };

		qt_init(&m, 13);
		qt_input(&m, "x", ENPU_RT_FLOAT, 4, xd);
		qt_init_float(&m, "w1", 4, wd, w1);
		qt_init_float(&m, "w2", 4, w2d, w2);
		qt_node(&m, "Conv", "x,w1", "h");
		qt_node(&m, "Conv", "h,w2", "y");
		qt_output(&m, "y");
		CHECK(!qt_save(&m, path_of("two_conv.onnx")), "save");
		qt_free(&m);
		CHECK(!quantize_ramp_as("two_conv.onnx", "two_conv_q.onnx", 1,
					&r),
		      "quantize");
		CHECK(r.quantized_nodes == 2, "%zu Convs quantized",
		      r.quantized_nodes);
		enpu_quantize_report_free(&r);
		model = qt_load(path_of("two_conv_q.onnx"));
		g = model->graph;
		for (int c = 0; c < 2; c++) {
			const Onnx__NodeProto *conv = qt_find_op(g, "Conv", c);
			const Onnx__NodeProto *dq = conv ?
				constant_dq(g, conv->input[1]) : NULL;
			const float want = c ? 0.75f / 127 : 1.0f / 127;

			CHECK(conv && activation_dq(g, conv->input[0]) && dq,
			      "Conv %d not quantized", c);
			CHECK(((const float *)qt_initializer(g, dq->input[1])
			       ->raw_data.data)[c ? 0 : 1] == want,
			      "Conv %d weight scale", c);
		}
		onnx__model_proto__free_unpacked(model, NULL);
	}

	/*
	 * w and b are initializers and graph inputs too (after x), as IR 3
	 * exporters wrote them: both are replaced, so neither stays an
	 * input of the quantized model.
	 */
	{
		const int64_t wd[] = { 8, 4 }, bd[] = { 4 };
		float w[32] = { 0 };
		const float b[4] = { 0.5f, -0.25f, 0, 1 };

		w[0] = 1;
		qt_init(&m, 13);
		qt_input(&m, "x", ENPU_RT_FLOAT, 2, row_dims);
		qt_input(&m, "w", ENPU_RT_FLOAT, 2, wd);
		qt_input(&m, "b", ENPU_RT_FLOAT, 1, bd);
		qt_init_float(&m, "w", 2, wd, w);
		qt_init_float(&m, "b", 1, bd, b);
		qt_node(&m, "MatMul", "x,w", "h");
		qt_node(&m, "Add", "h,b", "y");
		qt_output(&m, "y");
		CHECK(!qt_save(&m, path_of("w_input.onnx")), "save");
		qt_free(&m);
		CHECK(!quantize_ramp("w_input.onnx", "w_input_q.onnx", &r),
		      "quantize");
		enpu_quantize_report_free(&r);
		model = qt_load(path_of("w_input_q.onnx"));
		CHECK(model->graph->n_input == 1 &&
		      !strcmp(model->graph->input[0]->name, "x"),
		      "%zu inputs, the last '%s'", model->graph->n_input,
		      model->graph->input[model->graph->n_input - 1]->name);
		onnx__model_proto__free_unpacked(model, NULL);
		double err = relative_error("w_input.onnx", "w_input_q.onnx", 2,
					    row_dims, 2, -1, 1);

		CHECK(err <= QT_TOLERANCE, "error %g", err);
	}

	/* No initializer: Add(x, x2) with x2 = Relu(x), both Q/DQ. */
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 2, row_dims);
	qt_node(&m, "Neg", "x", "x2");
	qt_node(&m, "Add", "x,x2", "y");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("no_init.onnx")), "save");
	qt_free(&m);
	CHECK(!quantize_ramp("no_init.onnx", "no_init_q.onnx", &r),
	      "quantize");
	enpu_quantize_report_free(&r);
	model = qt_load(path_of("no_init_q.onnx"));
	{
		const Onnx__NodeProto *add = qt_find_op(model->graph, "Add", 0);

		CHECK(add && activation_dq(model->graph, add->input[0]) &&
		      activation_dq(model->graph, add->input[1]),
		      "both Add inputs Q/DQ");
	}
	onnx__model_proto__free_unpacked(model, NULL);
	double err = relative_error("no_init.onnx", "no_init_q.onnx", 2,
				    row_dims, 2, -1, 1);

	CHECK(err <= QT_TOLERANCE, "no initializer: error %g", err);
	return 0;
}

/*
 * A note naming a node with a 700-character name is cut at 511
 * characters (one line of the report), never longer.
 */
static int test_long_note(void)
{
	struct enpu_quantize_report r;
	struct qt_model m;
	const int64_t wd[] = { 8, 4 };
	float w[32] = { 0 };
	char name[701], want[800];
	const char *line;
	Onnx__NodeProto *n;

	memset(name, 'n', 700);
	name[700] = 0;
	qt_init(&m, 11);
	qt_input(&m, "x", ENPU_RT_FLOAT, 2, row_dims);
	qt_init_float(&m, "w", 2, wd, w);
	qt_node(&m, "MatMul", "x,w", "h");
	n = qt_node(&m, "Softmax", "h", "y");
	n->name = name;
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("long_name.onnx")), "save");
	qt_free(&m);
	CHECK(!quantize_ramp("long_name.onnx", "long_name_q.onnx", &r),
	      "quantize");
	strcpy(want, "opset 11 kept: node '");
	strcat(want, name);
	line = r.notes ? strstr(r.notes, "opset 11 kept") : NULL;
	CHECK(line && strlen(r.notes) == r.notes_len, "notes %zu bytes, "
	      "length %zu", r.notes ? strlen(r.notes) : 0, r.notes_len);
	CHECK(strchr(line, '\n') && strchr(line, '\n') - line == 511 &&
	      !strncmp(line, want, 511), "the note is %zd characters",
	      strchr(line, '\n') ? strchr(line, '\n') - line : -1);
	enpu_quantize_report_free(&r);
	return 0;
}

/*
 * A node without outputs (malformed: every op has at least one) is
 * refused with a message naming it, not a crash, whatever the planner
 * looks at first.
 */
static int test_node_without_outputs(void)
{
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;
	struct qt_model m;
	const int64_t wd[] = { 8, 4 };
	float w[32] = { 0 };
	struct stat st;
	int status;

	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 2, row_dims);
	qt_init_float(&m, "w", 2, wd, w);
	qt_node(&m, "Relu", "x", "");
	qt_node(&m, "MatMul", "x,w", "y");
	qt_output(&m, "y");
	m.graph.node[0]->n_output = 0;
	m.graph.node[0]->output = NULL;
	CHECK(!qt_save(&m, path_of("no_output.onnx")), "save");
	qt_free(&m);
	if (stat(path_of("ramp_calib"), &st))
		write_rows("ramp_calib", ramp_rows, 2);
	enpu_quantize_options_init(&o);
	status = enpu_quantize_file(path_of("no_output.onnx"),
				    path_of("ramp_calib"),
				    path_of("no_output_q.onnx"), &o, &r);
	enpu_quantize_report_free(&r);
	CHECK(status == ENPU_RT_INVALID_MODEL &&
	      strstr(r.error, "node 'Relu_0' (Relu): has 0 outputs"),
	      "status %d: %s", status, r.error);
	CHECK(stat(path_of("no_output_q.onnx"), &st), "output written");
	return 0;
}

/*
 * Names that share the low bits of their hash must still index: under
 * FNV-1a (the name map's hash) every name made of even-valued bytes has
 * the same parity, so 130 such names fill every slot of one parity of
 * the first 256-slot table (grown at half load) and a probe that skips
 * slots would never find a free one. Here 130 initializers (unused ones
 * are legal) and x -> MatMul(b) -> z, all named with even bytes.
 */
static int test_colliding_names(void)
{
	static const char digits[] = "02468";
	struct enpu_quantize_report r;
	struct qt_model m;
	const int64_t wd[] = { 8, 4 };
	float w[32] = { 0 };
	char names[130][8];
	Onnx__ModelProto *model;

	w[0] = 1;
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 2, row_dims);
	qt_init_float(&m, "b", 2, wd, w);
	for (int i = 0; i < 130; i++) {
		snprintf(names[i], sizeof(names[i]), "d%c%c%c%c",
			 digits[i / 125 % 5], digits[i / 25 % 5],
			 digits[i / 5 % 5], digits[i % 5]);
		qt_init_float(&m, names[i], 2, wd, w);
	}
	qt_node(&m, "MatMul", "x,b", "z");
	qt_output(&m, "z");
	CHECK(!qt_save(&m, path_of("colliding.onnx")), "save");
	qt_free(&m);
	CHECK(!quantize_ramp("colliding.onnx", "colliding_q.onnx", &r),
	      "quantize");
	CHECK(r.quantized_nodes == 1, "%zu quantized", r.quantized_nodes);
	enpu_quantize_report_free(&r);
	model = qt_load(path_of("colliding_q.onnx"));
	CHECK(model && constant_dq(model->graph,
				   qt_find_op(model->graph, "MatMul", 0)
				   ->input[1]), "MatMul weight not quantized");
	onnx__model_proto__free_unpacked(model, NULL);
	return 0;
}

/*
 * x -> MatMul(w1) -> h -> MatMul(w2) -> y where x's sample and w1 sit
 * exactly on their quantization grids (x: multiples of 1/128 from -1 to
 * 127/128, so scale 1/128 and zero point 128; w1: multiples of 1/64 with
 * 127/64 in every column, so scale 1/64): the first layer's own result
 * is exact and all it adds is h's Q/DQ, so its added_inside is 0 while
 * its added is not; most of w2 rounds to 0, so the second layer adds
 * error inside and is the one keep_float = 1 leaves in float.
 */
static int test_error_attribution(void)
{
	static const float x[1][8] = {
		{ -1, 127.0f / 128, 0.5f, -0.25f, 3.0f / 128, -37.0f / 128,
		  0, 101.0f / 128 },
	};
	const int64_t w1d[] = { 8, 8 }, w2d[] = { 8, 4 };
	float w1[64], w2[32];
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;
	struct qt_model m;

	for (int k = 0; k < 8; k++)
		for (int c = 0; c < 8; c++)
			w1[k * 8 + c] = k == c ? ((c & 1) ? -127.0f : 127.0f) / 64 :
				(float)((k * 5 + c * 3) % 41 - 20) / 64;
	/* w2: 1 atop each column, the rest below half its step (1/254). */
	for (int i = 0; i < 32; i++)
		w2[i] = i < 4 ? 1.0f : 0.0035f * (1 + (float)(i % 4) / 10);
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 2, row_dims);
	qt_init_float(&m, "w1", 2, w1d, w1);
	qt_init_float(&m, "w2", 2, w2d, w2);
	qt_node(&m, "MatMul", "x,w1", "h");
	qt_node(&m, "MatMul", "h,w2", "y");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("attrib.onnx")), "save");
	qt_free(&m);
	write_rows("attrib_calib", x, 1);
	enpu_quantize_options_init(&o);
	o.evaluate = 1;
	CHECK(!quantize("attrib.onnx", "attrib_calib", "attrib_q.onnx", &o, &r),
	      "quantize");
	CHECK(r.layer_count == 2 && !strcmp(r.layers[0].name, "MatMul_0") &&
	      !strcmp(r.layers[1].name, "MatMul_1"), "layers");
	printf("  layer 0 added %.3g (inside %.3g), layer 1 added %.3g "
	       "(inside %.3g)\n", r.layers[0].added, r.layers[0].added_inside,
	       r.layers[1].added, r.layers[1].added_inside);
	CHECK(fabs(r.layers[0].added_inside) < 1e-9 &&
	      r.layers[0].added > 1e-7,
	      "exact layer: added %g, inside %g", r.layers[0].added,
	      r.layers[0].added_inside);
	CHECK(r.layers[1].added_inside > 1e-7, "off-grid layer: inside %g",
	      r.layers[1].added_inside);
	enpu_quantize_report_free(&r);
	o.keep_float = 1;
	CHECK(!quantize("attrib.onnx", "attrib_calib", "attrib_q.onnx", &o, &r),
	      "quantize, keep 1 float");
	CHECK(r.kept_float_count == 1 && !strcmp(r.kept_float[0], "MatMul_1"),
	      "kept in float: %s", r.kept_float_count ? r.kept_float[0] :
	      "(none)");
	enpu_quantize_report_free(&r);
	return 0;
}

/*
 * A graph input that is also a graph output (a pass-through) stays
 * readable: the output is still the input, the MatMul still quantized.
 */
static int test_input_also_output(void)
{
	const int64_t wd[] = { 8, 4 };
	float w[32] = { 0 };
	struct enpu_quantize_report r;
	Onnx__ModelProto *model;
	struct qt_model m;

	w[0] = 1;
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 2, row_dims);
	qt_init_float(&m, "w", 2, wd, w);
	qt_node(&m, "MatMul", "x,w", "y");
	qt_output(&m, "y");
	qt_output(&m, "x");
	CHECK(!qt_save(&m, path_of("pass.onnx")), "save");
	qt_free(&m);
	CHECK(!quantize_ramp("pass.onnx", "pass_q.onnx", &r), "quantize");
	CHECK(r.quantized_nodes == 1, "%zu quantized", r.quantized_nodes);
	enpu_quantize_report_free(&r);
	model = qt_load(path_of("pass_q.onnx"));
	CHECK(model && model->graph->n_output == 2 &&
	      !strcmp(model->graph->output[1]->name, "x") &&
	      !qt_producer(model->graph, "x") &&
	      activation_dq(model->graph,
			    qt_find_op(model->graph, "MatMul", 0)->input[0]),
	      "x is still the input and output, MatMul reads its Q/DQ");
	onnx__model_proto__free_unpacked(model, NULL);
	{
		enpu_rt_options *opt = NULL;
		enpu_rt_session *s = NULL;
		struct enpu_rt_output out;
		int status;

		enpu_rt_options_create(&opt);
		status = enpu_rt_session_create_from_file(path_of("pass_q.onnx"),
							  opt, &s);
		enpu_rt_options_destroy(opt);
		CHECK(!status, "the quantized model does not load");
		status = enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 2,
						    row_dims, ramp_rows[0],
						    sizeof(ramp_rows[0]));
		if (!status)
			status = enpu_rt_session_run(s);
		if (!status)
			status = enpu_rt_session_output(s, 1, &out);
		CHECK(!status && out.byte_size == sizeof(ramp_rows[0]) &&
		      !memcmp(out.data, ramp_rows[0], sizeof(ramp_rows[0])),
		      "output x is not the input");
		enpu_rt_session_destroy(s);
	}
	return 0;
}

/*
 * The name map every index of the quantizer goes through: 20000 keys put
 * one by one (the table doubling from 256 slots many times, rehashing
 * every slot), each found with its value, a key put again updates its
 * value without a new entry, and absent keys give -1.
 */
static int test_name_map(void)
{
	enum { KEYS = 20000 };
	static char names[KEYS][12];
	struct q_model m = { 0 };
	struct q_name_map map = { 0 };
	int status = 0;

	for (int i = 0; i < KEYS; i++) {
		snprintf(names[i], sizeof(names[i]), "t%d", i);
		if (q_map_put(&m, &map, names[i], i)) {
			status = 1;
			break;
		}
	}
	for (int i = 0; !status && i < KEYS; i++)
		if (q_map_get(&map, names[i]) != i) {
			printf("  FAIL key %s: %d\n", names[i],
			       q_map_get(&map, names[i]));
			status = 1;
		}
	if (!status) {
		size_t count = map.count;

		status = q_map_put(&m, &map, names[7], -5) ||
			 q_map_get(&map, "t7") != -5 || map.count != count ||
			 q_map_get(&map, "t20000") != -1 ||
			 q_map_get(&map, "") != -1;
		if (status)
			printf("  FAIL update or absent keys\n");
	}
	rt_arena_free_all(&m.arena);
	return status;
}

const struct test rule_tests[] = {
	{ "exact_activation_params", test_exact_activation_params },
	{ "opset_boundaries", test_opset_boundaries },
	{ "clip_folding", test_clip_folding },
	{ "structure_rules", test_structure_rules },
	{ "long_note", test_long_note },
	{ "node_without_outputs", test_node_without_outputs },
	{ "colliding_names", test_colliding_names },
	{ "error_attribution", test_error_attribution },
	{ "input_also_output", test_input_also_output },
	{ "name_map", test_name_map },
	{ NULL, NULL },
};
