// SPDX-License-Identifier: MIT
/*
 * Post-training quantization tests: build small float models, write a
 * calibration set, quantize, check the QDQ structure and the parameters
 * against their definitions, and run float and quantized models with the
 * runtime. Usage: test-quantize WORKDIR. Ends with "N passed, N failed".
 *
 * Accuracy rule: every quantized output element is within
 * QT_TOLERANCE * (max - min of the float output over the test inputs) of
 * the float result (about 5 steps of an 8-bit output) for models of two
 * or three quantized layers, on inputs drawn from 90% of the calibration
 * range (min/max calibration saturates beyond what it saw, by design).
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "enpu/enpu_rt.h"
#include "enpu_quantize.h"
#include "qtest_model.h"
#include "test_quantize.h"
#include "quantize_internal.h"

static int passed, failed;
const char *workdir;

static uint32_t rng_state = 12345;

static float uniform(float lo, float hi)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return lo + (hi - lo) * (float)(rng_state >> 8) / (float)(1u << 24);
}

static void fill(float *x, size_t n, float lo, float hi)
{
	for (size_t i = 0; i < n; i++)
		x[i] = uniform(lo, hi);
}

char *path_of(const char *fmt, ...)
{
	static char buf[4][1024];	/* tests run on one thread */
	static int next;
	char *p = buf[next++ % 4];
	va_list ap;
	int n = snprintf(p, 1024, "%s/", workdir);

	va_start(ap, fmt);
	vsnprintf(p + n, (size_t)(1024 - n), fmt, ap);
	va_end(ap);
	return p;
}

/* @count samples of one input, each uniform in [lo, hi]. */
void write_calib(const char *dir, int rank, const int64_t *dims,
			int count, float lo, float hi, float outlier)
{
	size_t n = 1;

	for (int i = 0; i < rank; i++)
		n *= (size_t)dims[i];
	float *x = malloc(n * sizeof(float));

	mkdir(path_of("%s", dir), 0755);
	for (int s = 0; s < count; s++) {
		fill(x, n, lo, hi);
		if (outlier != 0 && s == 0)
			x[n / 2] = outlier;
		mkdir(path_of("%s/sample_%03d", dir, s), 0755);
		qt_write_tensor(path_of("%s/sample_%03d/input_0.pb", dir, s),
				"", rank, dims, x);
	}
	free(x);
}

int quantize(const char *model, const char *calib, const char *out,
		    const struct enpu_quantize_options *o,
		    struct enpu_quantize_report *r)
{
	int status = enpu_quantize_file(path_of("%s", model),
					path_of("%s", calib),
					path_of("%s", out), o, r);

	if (status)
		printf("  quantize %s: %s\n", model, r->error);
	return status;
}

/* Runs a one-input, one-output model; *y is malloc'd. */
int run_model(const char *model, int rank, const int64_t *dims,
		     const float *x, size_t n, float **y, size_t *ny)
{
	enpu_rt_options *opt = NULL;
	enpu_rt_session *s = NULL;
	struct enpu_rt_output out;
	int status;

	enpu_rt_options_create(&opt);
	status = enpu_rt_session_create_from_file(path_of("%s", model), opt,
						  &s);
	if (status) {
		printf("  load %s: %s\n", model, enpu_rt_options_error(opt));
		enpu_rt_options_destroy(opt);
		return status;
	}
	enpu_rt_options_destroy(opt);
	status = enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, (size_t)rank,
					    dims, x, n * sizeof(float));
	if (!status)
		status = enpu_rt_session_run(s);
	if (!status)
		status = enpu_rt_session_output(s, 0, &out);
	if (status) {
		printf("  run %s: %s\n", model, enpu_rt_session_error(s));
	} else {
		*ny = out.byte_size / sizeof(float);
		*y = malloc(out.byte_size);
		memcpy(*y, out.data, out.byte_size);
	}
	enpu_rt_session_destroy(s);
	return status;
}

/* Worst |q - f| over @tests inputs, relative to the float output range. */
double relative_error(const char *fmodel, const char *qmodel,
			     int rank, const int64_t *dims, int tests,
			     float lo, float hi)
{
	size_t n = 1;
	double worst = 0, omin = INFINITY, omax = -INFINITY;

	for (int i = 0; i < rank; i++)
		n *= (size_t)dims[i];
	float *x = malloc(n * sizeof(float));

	for (int t = 0; t < tests; t++) {
		float *yf = NULL, *yq = NULL;
		size_t nf = 0, nq = 0;

		/*
		 * 90% of the calibration range: min/max calibration
		 * saturates values beyond what it saw, by design, and that
		 * should not decide this check.
		 */
		fill(x, n, 0.9f * lo, 0.9f * hi);
		if (run_model(fmodel, rank, dims, x, n, &yf, &nf) ||
		    run_model(qmodel, rank, dims, x, n, &yq, &nq) ||
		    nf != nq) {
			free(yf);
			free(yq);
			free(x);
			return INFINITY;
		}
		for (size_t i = 0; i < nf; i++) {
			double d = fabs((double)yf[i] - yq[i]);

			worst = d > worst ? d : worst;
			omin = yf[i] < omin ? yf[i] : omin;
			omax = yf[i] > omax ? yf[i] : omax;
		}
		free(yf);
		free(yq);
	}
	free(x);
	return omax > omin ? worst / (omax - omin) : worst;
}

float init_scalar(const Onnx__GraphProto *g, const char *name)
{
	const Onnx__TensorProto *t = qt_initializer(g, name);

	return t && t->raw_data.len == 4 ? *(const float *)t->raw_data.data :
		NAN;
}

/* The Q->DQ pair that feeds @name; NULL if it is not one. */
const Onnx__NodeProto *activation_dq(const Onnx__GraphProto *g,
					    const char *name)
{
	const Onnx__NodeProto *dq = qt_producer(g, name), *q;

	if (!dq || strcmp(dq->op_type, "DequantizeLinear"))
		return NULL;
	q = qt_producer(g, dq->input[0]);
	return q && !strcmp(q->op_type, "QuantizeLinear") ? dq : NULL;
}

/* A DQ over a constant initializer; NULL otherwise. */
const Onnx__NodeProto *constant_dq(const Onnx__GraphProto *g,
					  const char *name)
{
	const Onnx__NodeProto *dq = qt_producer(g, name);

	if (!dq || strcmp(dq->op_type, "DequantizeLinear") ||
	    !qt_initializer(g, dq->input[0]))
		return NULL;
	return dq;
}

/* ---- models ---- */

static const int64_t conv_in_dims[] = { 1, 3, 8, 8 };
static float conv_w[4 * 3 * 3 * 3], conv_b[4], fc_w[10 * 64], fc_b[10];

/* x -> Conv(3x3, pad 1) -> Relu -> MaxPool(2) -> Flatten -> Gemm -> y */
static int make_cnn(const char *path)
{
	struct qt_model m;
	const int64_t wd[] = { 4, 3, 3, 3 }, bd[] = { 4 },
		fwd[] = { 10, 64 }, fbd[] = { 10 };
	const int64_t k3[] = { 3, 3 }, p1[] = { 1, 1, 1, 1 }, k2[] = { 2, 2 };
	Onnx__NodeProto *n;
	int status;

	fill(conv_w, 108, -0.5f, 0.5f);
	conv_w[5] = 0.9f;	/* channel 0 has a larger max than the rest */
	fill(conv_b, 4, -0.2f, 0.2f);
	fill(fc_w, 640, -0.3f, 0.3f);
	fill(fc_b, 10, -0.1f, 0.1f);
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 4, conv_in_dims);
	qt_init_float(&m, "w", 4, wd, conv_w);
	qt_init_float(&m, "b", 1, bd, conv_b);
	qt_init_float(&m, "fw", 2, fwd, fc_w);
	qt_init_float(&m, "fb", 1, fbd, fc_b);
	n = qt_node(&m, "Conv", "x,w,b", "c");
	qt_attr_ints(&m, n, "kernel_shape", k3, 2);
	qt_attr_ints(&m, n, "pads", p1, 4);
	qt_node(&m, "Relu", "c", "r");
	n = qt_node(&m, "MaxPool", "r", "p");
	qt_attr_ints(&m, n, "kernel_shape", k2, 2);
	qt_attr_ints(&m, n, "strides", k2, 2);
	qt_node(&m, "Flatten", "p", "f");
	n = qt_node(&m, "Gemm", "f,fw,fb", "y");
	qt_attr_int(&m, n, "transB", 1);
	qt_output(&m, "y");
	status = qt_save(&m, path);
	qt_free(&m);
	return status;
}

static int test_cnn_structure_and_accuracy(void)
{
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;
	Onnx__ModelProto *model;
	const Onnx__GraphProto *g;
	const Onnx__NodeProto *conv, *dq, *pool, *gemm, *bias_dq;

	CHECK(!make_cnn(path_of("cnn.onnx")), "write model");
	write_calib("cnn_calib", 4, conv_in_dims, 32, -1, 1, 0);
	enpu_quantize_options_init(&o);
	CHECK(!quantize("cnn.onnx", "cnn_calib", "cnn_q.onnx", &o, &r),
	      "quantize");
	CHECK(r.samples == 32 && r.folded_activations == 1,
	      "samples %zu folded %zu", r.samples, r.folded_activations);
	CHECK(r.notes && strstr(r.notes, "left in float: Flatten x1"),
	      "notes: %s", r.notes ? r.notes : "(none)");
	enpu_quantize_report_free(&r);

	model = qt_load(path_of("cnn_q.onnx"));
	CHECK(model, "output does not parse");
	g = model->graph;
	CHECK(model->opset_import[0]->version == 13, "opset changed");
	CHECK(qt_count_op(g, "Relu") == 0, "Relu not folded");
	conv = qt_find_op(g, "Conv", 0);
	CHECK(conv && conv->n_input == 3, "no Conv");
	dq = activation_dq(g, conv->input[0]);
	CHECK(dq, "Conv input is not Q/DQ");
	float x_scale = init_scalar(g, dq->input[1]);
	const Onnx__TensorProto *xzp = qt_initializer(g, dq->input[2]);

	CHECK(xzp && xzp->data_type == ENPU_RT_UINT8, "input zero point type");
	/* Calibrated on U(-1, 1): scale about 2/255, zero point about 128. */
	CHECK(x_scale > 1.8f / 255 && x_scale < 2.0f / 255 &&
	      abs(xzp->raw_data.data[0] - 128) <= 2, "x scale %g zp %d",
	      x_scale, xzp->raw_data.data[0]);

	dq = constant_dq(g, conv->input[1]);
	CHECK(dq && qt_node_int(dq, "axis", 1) == 0, "weight DQ axis 0");
	const Onnx__TensorProto *wq = qt_initializer(g, dq->input[0]);
	const Onnx__TensorProto *ws = qt_initializer(g, dq->input[1]);
	const Onnx__TensorProto *wzp = qt_initializer(g, dq->input[2]);

	CHECK(wq->data_type == ENPU_RT_INT8 && ws->n_dims == 1 &&
	      ws->dims[0] == 4 && wzp->data_type == ENPU_RT_INT8,
	      "weight types/shapes");
	const float *scales = (const float *)ws->raw_data.data;

	for (int c = 0; c < 4; c++) {
		float mx = 0;

		for (int i = 0; i < 27; i++)
			mx = fmaxf(mx, fabsf(conv_w[c * 27 + i]));
		CHECK(scales[c] == mx / 127.0f, "channel %d scale %g vs %g", c,
		      scales[c], mx / 127.0f);
		CHECK(wzp->raw_data.data[c] == 0, "weight zero point");
		for (int i = 0; i < 27; i++) {
			int8_t q = ((const int8_t *)wq->raw_data.data)
				[c * 27 + i];

			CHECK(q == (int8_t)nearbyintf(conv_w[c * 27 + i] /
						      scales[c]),
			      "weight %d rounding", c * 27 + i);
		}
	}
	bias_dq = constant_dq(g, conv->input[2]);
	CHECK(bias_dq && qt_node_int(bias_dq, "axis", 1) == 0, "bias DQ");
	const Onnx__TensorProto *bq = qt_initializer(g, bias_dq->input[0]);
	const Onnx__TensorProto *bs = qt_initializer(g, bias_dq->input[1]);

	CHECK(bq->data_type == ENPU_RT_INT32 && bs->dims[0] == 4, "bias type");
	for (int c = 0; c < 4; c++) {
		float s = ((const float *)bs->raw_data.data)[c];

		CHECK(s == x_scale * scales[c], "bias scale %d", c);
		CHECK(((const int32_t *)bq->raw_data.data)[c] ==
		      (int32_t)nearbyint((double)conv_b[c] / s),
		      "bias value %d", c);
	}
	/* Conv's output (the folded Relu's) is Q/DQ'd with zero point 0. */
	pool = qt_find_op(g, "MaxPool", 0);
	CHECK(pool, "no MaxPool");
	dq = activation_dq(g, pool->input[0]);
	CHECK(dq, "MaxPool input is not Q/DQ");
	const Onnx__NodeProto *q = qt_producer(g, dq->input[0]);

	CHECK(q && !strcmp(q->input[0], conv->output[0]), "Conv -> Q");
	CHECK(qt_initializer(g, dq->input[2])->raw_data.data[0] == 0,
	      "folded Relu range must start at 0");
	float relu_scale = init_scalar(g, dq->input[1]);
	const Onnx__NodeProto *pdq = qt_producer(g, qt_find_op(g, "Flatten",
							   0)->input[0]);

	CHECK(pdq && !strcmp(pdq->op_type, "DequantizeLinear") &&
	      init_scalar(g, pdq->input[1]) == relu_scale,
	      "MaxPool output must share its input's scale");
	gemm = qt_find_op(g, "Gemm", 0);
	CHECK(gemm && activation_dq(g, gemm->input[0]), "Gemm input Q/DQ");
	dq = constant_dq(g, gemm->input[1]);
	CHECK(dq && qt_node_int(dq, "axis", 1) == 0 &&
	      qt_initializer(g, dq->input[1])->dims[0] == 10,
	      "Gemm transB weight: per-channel axis 0");
	bias_dq = constant_dq(g, gemm->input[2]);
	CHECK(bias_dq && qt_initializer(g, bias_dq->input[0])->data_type ==
	      ENPU_RT_INT32, "Gemm bias int32");
	/* The graph output keeps its name, now a DequantizeLinear output. */
	CHECK(activation_dq(g, "y"), "output y is not Q/DQ");
	onnx__model_proto__free_unpacked(model, NULL);

	double err = relative_error("cnn.onnx", "cnn_q.onnx", 4, conv_in_dims,
				    8, -1, 1);

	printf("  cnn: worst error %.4f of the output range\n", err);
	CHECK(err <= QT_TOLERANCE, "error %g", err);
	return 0;
}

static const int64_t res_dims[] = { 1, 4, 6, 6 };

/* x -> Conv -> Relu -> Add(x) -> Relu -> y */
static int test_residual_add(void)
{
	struct qt_model m;
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;
	const int64_t wd[] = { 4, 4, 3, 3 }, k3[] = { 3, 3 },
		p1[] = { 1, 1, 1, 1 };
	float w[144];
	Onnx__NodeProto *n;

	fill(w, 144, -0.3f, 0.3f);
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 4, res_dims);
	qt_init_float(&m, "w", 4, wd, w);
	n = qt_node(&m, "Conv", "x,w", "c");
	qt_attr_ints(&m, n, "kernel_shape", k3, 2);
	qt_attr_ints(&m, n, "pads", p1, 4);
	qt_node(&m, "Relu", "c", "r");
	qt_node(&m, "Add", "r,x", "s");
	qt_node(&m, "Relu", "s", "y");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("res.onnx")), "save");
	qt_free(&m);
	write_calib("res_calib", 4, res_dims, 12, -1, 1, 0);
	enpu_quantize_options_init(&o);
	o.activation_type = ENPU_RT_INT8;
	CHECK(!quantize("res.onnx", "res_calib", "res_q.onnx", &o, &r),
	      "quantize");
	CHECK(r.folded_activations == 2, "folded %zu", r.folded_activations);
	enpu_quantize_report_free(&r);

	Onnx__ModelProto *model = qt_load(path_of("res_q.onnx"));
	const Onnx__GraphProto *g = model->graph;
	const Onnx__NodeProto *add = qt_find_op(g, "Add", 0);

	CHECK(add && activation_dq(g, add->input[0]) &&
	      activation_dq(g, add->input[1]), "Add inputs Q/DQ");
	CHECK(qt_count_op(g, "Relu") == 0, "Relu left");
	const Onnx__NodeProto *dq = activation_dq(g, "y");

	CHECK(dq, "y not Q/DQ");
	const Onnx__TensorProto *zp = qt_initializer(g, dq->input[2]);

	CHECK(zp->data_type == ENPU_RT_INT8 &&
	      (int8_t)zp->raw_data.data[0] == -128,
	      "int8 Relu-folded zero point must be -128");
	/* x feeds Conv and Add through one Q/DQ pair. */
	CHECK(qt_count_op(g, "QuantizeLinear") == 3, "%d Q nodes",
	      qt_count_op(g, "QuantizeLinear"));
	onnx__model_proto__free_unpacked(model, NULL);
	double err = relative_error("res.onnx", "res_q.onnx", 4, res_dims, 8,
				    -1, 1);

	printf("  residual: worst error %.4f of the output range\n", err);
	CHECK(err <= QT_TOLERANCE, "error %g", err);
	return 0;
}

static const int64_t mm_dims[] = { 4, 16 };
static float mm_w[16 * 8];

static int make_matmul(const char *path, int64_t opset, const char *extra)
{
	const int64_t wd[] = { 16, 8 };

	fill(mm_w, 128, -1, 1);
	return qt_save_matmul(path, opset, mm_dims, wd, mm_w, extra);
}

static int test_matmul_per_channel_and_tensor(void)
{
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;

	CHECK(!make_matmul(path_of("mm.onnx"), 13, NULL), "save");
	write_calib("mm_calib", 2, mm_dims, 64, -2, 2, 0);
	enpu_quantize_options_init(&o);
	CHECK(!quantize("mm.onnx", "mm_calib", "mm_q.onnx", &o, &r), "q");
	enpu_quantize_report_free(&r);
	Onnx__ModelProto *model = qt_load(path_of("mm_q.onnx"));
	const Onnx__NodeProto *mm = qt_find_op(model->graph, "MatMul", 0);
	const Onnx__NodeProto *dq = constant_dq(model->graph, mm->input[1]);

	CHECK(dq && qt_node_int(dq, "axis", -1) == 1, "MatMul weight axis 1");
	const Onnx__TensorProto *s = qt_initializer(model->graph,
						    dq->input[1]);

	CHECK(s->n_dims == 1 && s->dims[0] == 8, "8 column scales");
	for (int c = 0; c < 8; c++) {
		float mx = 0;

		for (int k = 0; k < 16; k++)
			mx = fmaxf(mx, fabsf(mm_w[k * 8 + c]));
		CHECK(((const float *)s->raw_data.data)[c] == mx / 127.0f,
		      "column %d", c);
	}
	onnx__model_proto__free_unpacked(model, NULL);
	double err = relative_error("mm.onnx", "mm_q.onnx", 2, mm_dims, 8, -2,
				    2);

	printf("  matmul per-channel: worst error %.4f\n", err);
	CHECK(err <= QT_TOLERANCE, "error %g", err);

	o.per_channel = 0;
	CHECK(!quantize("mm.onnx", "mm_calib", "mm_qt.onnx", &o, &r), "q");
	enpu_quantize_report_free(&r);
	model = qt_load(path_of("mm_qt.onnx"));
	mm = qt_find_op(model->graph, "MatMul", 0);
	dq = constant_dq(model->graph, mm->input[1]);
	float mx = 0;

	for (int i = 0; i < 128; i++)
		mx = fmaxf(mx, fabsf(mm_w[i]));
	CHECK(dq && qt_node_int(dq, "axis", -1) == -1 &&
	      init_scalar(model->graph, dq->input[1]) == mx / 127.0f,
	      "per-tensor weight scale");
	onnx__model_proto__free_unpacked(model, NULL);
	err = relative_error("mm.onnx", "mm_qt.onnx", 2, mm_dims, 8, -2, 2);
	printf("  matmul per-tensor: worst error %.4f\n", err);
	CHECK(err <= QT_TOLERANCE, "error %g", err);
	return 0;
}

static float input_scale(const char *model_path)
{
	Onnx__ModelProto *model = qt_load(path_of("%s", model_path));
	const Onnx__NodeProto *mm = qt_find_op(model->graph, "MatMul", 0);
	const Onnx__NodeProto *dq = activation_dq(model->graph, mm->input[0]);
	float s = dq ? init_scalar(model->graph, dq->input[1]) : NAN;

	onnx__model_proto__free_unpacked(model, NULL);
	return s;
}

static int test_percentile_vs_minmax(void)
{
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;

	/* 64 samples of U(-1, 1) and one value of 100 in the first. */
	write_calib("outlier_calib", 2, mm_dims, 64, -1, 1, 100);
	enpu_quantize_options_init(&o);
	CHECK(!quantize("mm.onnx", "outlier_calib", "mm_minmax.onnx", &o, &r),
	      "minmax");
	enpu_quantize_report_free(&r);
	o.method = ENPU_QUANTIZE_PERCENTILE;
	o.percentile = 99.9;
	CHECK(!quantize("mm.onnx", "outlier_calib", "mm_pct.onnx", &o, &r),
	      "percentile");
	enpu_quantize_report_free(&r);
	float smm = input_scale("mm_minmax.onnx");
	float spc = input_scale("mm_pct.onnx");

	printf("  input scale: minmax %g, percentile 99.9 %g\n", smm, spc);
	CHECK(smm > 101.0f / 255 * 0.99f, "minmax must cover the outlier");
	CHECK(spc < 2.1f / 255, "percentile must clip the outlier");
	double emm = relative_error("mm.onnx", "mm_minmax.onnx", 2, mm_dims, 8,
				    -1, 1);
	double epc = relative_error("mm.onnx", "mm_pct.onnx", 2, mm_dims, 8,
				    -1, 1);

	printf("  error on outlier-free data: minmax %.4f, percentile %.4f\n",
	       emm, epc);
	CHECK(epc < emm / 4, "percentile should be far more accurate here");
	return 0;
}

/* The range q_tensor_range() picks for histogram @hist over [min, max]. */
void method_range(enum enpu_quantize_method method, double min, double max,
		  uint64_t *hist, double *lo, double *hi)
{
	struct enpu_quantize_options o;
	struct q_model m = { 0 };
	struct q_tensor t = { 0 };

	enpu_quantize_options_init(&o);
	o.method = method;
	o.percentile = 99.99;
	m.options = &o;
	t.seen = 1;
	t.min = min;
	t.max = max;
	t.hist = hist;
	q_tensor_range(&m, &t, lo, hi);
}

/*
 * Entropy's handling of the candidate's end bins, on histograms whose
 * choice is known by hand (bins of 1 over 4096 values, levels of 256).
 * Core a = 750 in one bin and b = 244 in the next: the full range puts
 * them in one level of 16 bins, T * KL = a ln(2a/(a+b)) + b ln(2b/(a+b))
 * = 135.01 (an outlier bin alone in its level is exact). A candidate of
 * fewer than 512 bins gives them a level each; k outliers clipped into
 * its empty end bin cost T * KL = (a+b) ln((a+b)/T) + k ln(k/(T * 1e-12))
 * (the floor for a bin the level gave nothing): 129.11 at k = 6, below
 * the full range, so the first such candidate, 2^(-49/16) of the range,
 * wins; 151.70 at k = 7, above it. A floor of 1e-13 costs k ln 10 more
 * (142.93 at k = 6: the full range would win). Mirrored (the outliers
 * below the core), the clipped values go to the first bin; only the
 * narrowest candidate, 256 bins, gives the core bins a level each. A
 * single outlier (T = 1000) against a nearly even core (550, 449:
 * 5.12) keeps the full range, the clipped candidate costing 19.72; a
 * rule that skipped bins of one value would drop its penalty and clip.
 * When the narrowest candidate's end bin holds 20 values of its own,
 * the 10 clipped there are no surprise to its level and it wins; sent
 * to the empty bin before it, they would cost the floor.
 */
static int test_entropy_end_bins(void)
{
	_Static_assert(Q_HIST_BINS == 4096,
		       "the costs above are worked out for 4096 bins");
	static const struct {
		const char *what;
		double min, max;
		uint32_t bin[4], count[4];
		double lo, hi;
	} cases[] = {
		{ "6 outliers above", 0, 4096, { 0, 1, 4095, 0 },
		  { 750, 244, 6, 0 }, 0, 490.29287971766973 },
		{ "7 outliers above", 0, 4096, { 0, 1, 4095, 0 },
		  { 750, 244, 7, 0 }, 0, 4096 },
		{ "6 outliers below", -4096, 0, { 4095, 4094, 0, 0 },
		  { 750, 244, 6, 0 }, -256, 0 },
		{ "7 outliers below", -4096, 0, { 4095, 4094, 0, 0 },
		  { 750, 244, 7, 0 }, -4096, 0 },
		{ "one outlier", 0, 4096, { 0, 1, 4095, 0 },
		  { 550, 449, 1, 0 }, 0, 4096 },
		{ "an end bin of its own", 0, 4096, { 0, 1, 255, 4095 },
		  { 750, 244, 20, 10 }, 0, 256 },
	};
	static uint64_t hist[Q_HIST_BINS];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double lo, hi;

		memset(hist, 0, sizeof(hist));
		for (int b = 0; b < 4; b++)
			hist[cases[i].bin[b]] += cases[i].count[b];
		method_range(ENPU_QUANTIZE_ENTROPY, cases[i].min, cases[i].max,
			     hist, &lo, &hi);
		CHECK(fabs(lo - cases[i].lo) < 1e-9 &&
		      fabs(hi - cases[i].hi) < 1e-9,
		      "%s: [%.9g, %.9g], want [%.9g, %.9g]", cases[i].what, lo,
		      hi, cases[i].lo, cases[i].hi);
	}
	return 0;
}

/*
 * Entropy and MSE on histograms with known answers: a bell-shaped core
 * in [-1, 1] (sigma 0.35, about 10^7 values) and one outlier at 100,
 * where a range that keeps the outlier leaves the core 5 of the 256
 * levels, so both must clip it but keep the core; and a flat histogram,
 * where any clipping only loses, so both must keep the full range. Then
 * through the library on a real model, a triangular core and the same
 * outlier: entropy clips it, MSE (4096 values: clipping the outlier
 * costs more than the levels it frees) may only narrow the range.
 */
static int test_entropy_and_mse(void)
{
	static uint64_t hist[Q_HIST_BINS];
	const double width = 101.0 / Q_HIST_BINS;
	const int methods[] = { ENPU_QUANTIZE_ENTROPY, ENPU_QUANTIZE_MSE };
	const char *names[] = { "entropy", "mse" };
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;
	double lo, hi;

	memset(hist, 0, sizeof(hist));
	for (size_t b = 0; b < Q_HIST_BINS; b++) {
		double v = -1 + width * ((double)b + 0.5);

		if (v <= 1.0)
			hist[b] = (uint64_t)(250000 * exp(-v * v / 0.245));
	}
	hist[Q_HIST_BINS - 1] = 1;
	method_range(ENPU_QUANTIZE_MINMAX, -1, 100, hist, &lo, &hi);
	CHECK(lo == -1 && hi == 100, "minmax [%g, %g]", lo, hi);
	for (int i = 0; i < 2; i++) {
		method_range(methods[i], -1, 100, hist, &lo, &hi);
		printf("  %s on core + outlier: [%g, %g]\n", names[i], lo, hi);
		CHECK(lo <= -0.9 && hi >= 0.9, "%s must keep the core: "
		      "[%g, %g]", names[i], lo, hi);
		CHECK(hi < 100.0 / 4, "%s must clip the outlier: hi %g",
		      names[i], hi);
	}
	for (size_t b = 0; b < Q_HIST_BINS; b++)
		hist[b] = 1000;
	for (int i = 0; i < 2; i++) {
		method_range(methods[i], -1, 100, hist, &lo, &hi);
		printf("  %s on a flat histogram: [%g, %g]\n", names[i], lo,
		       hi);
		CHECK(lo == -1 && hi == 100, "%s must keep a flat range, got "
		      "[%g, %g]", names[i], lo, hi);
	}

	{
		float x[64];

		mkdir(path_of("outlier_calib_e"), 0755);
		for (int n = 0; n < 64; n++) {
			for (int i = 0; i < 64; i++)
				x[i] = uniform(-0.5f, 0.5f) +
				       uniform(-0.5f, 0.5f);
			if (!n)
				x[32] = 100;
			mkdir(path_of("outlier_calib_e/sample_%03d", n), 0755);
			qt_write_tensor(path_of("outlier_calib_e/sample_%03d/"
						"input_0.pb", n), "", 2,
					mm_dims, x);
		}
	}
	enpu_quantize_options_init(&o);
	CHECK(!quantize("mm.onnx", "outlier_calib_e", "mm_mm.onnx", &o, &r),
	      "minmax");
	enpu_quantize_report_free(&r);
	o.method = ENPU_QUANTIZE_ENTROPY;
	CHECK(!quantize("mm.onnx", "outlier_calib_e", "mm_ent.onnx", &o, &r),
	      "entropy");
	enpu_quantize_report_free(&r);
	o.method = ENPU_QUANTIZE_MSE;
	CHECK(!quantize("mm.onnx", "outlier_calib_e", "mm_mse.onnx", &o, &r),
	      "mse");
	enpu_quantize_report_free(&r);
	float smm = input_scale("mm_mm.onnx"), sen = input_scale("mm_ent.onnx");
	float sms = input_scale("mm_mse.onnx");
	double emm = relative_error("mm.onnx", "mm_mm.onnx", 2, mm_dims, 8,
				    -1, 1);
	double een = relative_error("mm.onnx", "mm_ent.onnx", 2, mm_dims, 8,
				    -1, 1);
	double ems = relative_error("mm.onnx", "mm_mse.onnx", 2, mm_dims, 8,
				    -1, 1);

	printf("  4096 values + outlier: input scale minmax %g, entropy %g, "
	       "mse %g; error minmax %.4f, entropy %.4f, mse %.4f\n", smm, sen,
	       sms, emm, een, ems);
	CHECK(sen < smm / 8, "entropy must clip the outlier");
	CHECK(een < emm / 2, "entropy should be far more accurate here");
	/* With 4096 values MSE keeps the outlier (its clipping error
	 * outweighs the levels saved); it may only narrow the range. */
	CHECK(sms <= smm * 1.0001f, "mse widened the range");
	return 0;
}

/*
 * The accuracy report and mixed precision. x -> MatMul (W1: per-tensor,
 * one weight of 50 among U(-0.5, 0.5), so its int8 step wipes out the
 * rest) -> Relu -> MatMul (W2, plain) -> y. The report must list both
 * layers in graph order with the first adding the most error, hold out a
 * quarter of the 8 samples, and --keep-float 1 must leave MatMul_0 in
 * float (no DQ on its weight) and bring the output closer to float.
 * Unknown float node names and holding out every sample are refused.
 */
static int test_report_and_keep_float(void)
{
	struct qt_model m;
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;
	const int64_t w1d[] = { 16, 16 }, w2d[] = { 16, 8 };
	static float w1[256], w2[128];
	const char *names[] = { "nope" };
	Onnx__ModelProto *model;
	double before;

	fill(w1, 256, -0.5f, 0.5f);
	fill(w2, 128, -0.5f, 0.5f);
	w1[17] = 50;
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 2, mm_dims);
	qt_init_float(&m, "w1", 2, w1d, w1);
	qt_init_float(&m, "w2", 2, w2d, w2);
	qt_node(&m, "MatMul", "x,w1", "h0");
	qt_node(&m, "Relu", "h0", "h");
	qt_node(&m, "MatMul", "h,w2", "y");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("mp.onnx")), "save");
	qt_free(&m);
	write_calib("mp_calib", 2, mm_dims, 8, -1, 1, 0);

	enpu_quantize_options_init(&o);
	o.per_channel = 0;
	o.evaluate = 1;
	CHECK(!quantize("mp.onnx", "mp_calib", "mp_q.onnx", &o, &r), "report");
	CHECK(r.held_out && r.evaluation_samples == 2 &&
	      r.calibration_samples == 6 && r.samples == 6,
	      "samples: held out %d, %zu evaluated, %zu calibrated",
	      r.held_out, r.evaluation_samples, r.calibration_samples);
	CHECK(r.output_count == 1 && !strcmp(r.outputs[0].name, "y"),
	      "outputs");
	CHECK(r.layer_count == 2 && !strcmp(r.layers[0].name, "MatMul_0") &&
	      !strcmp(r.layers[1].name, "MatMul_2") &&
	      !strcmp(r.layers[0].op, "MatMul"), "layers");
	printf("  all int8: output cosine %.6f, max error %.4g; layers "
	       "added %.3g (inside %.3g), %.3g (inside %.3g)\n",
	       r.outputs[0].cosine, r.outputs[0].max_error, r.layers[0].added,
	       r.layers[0].added_inside, r.layers[1].added,
	       r.layers[1].added_inside);
	CHECK(r.outputs[0].cosine > 0 && r.outputs[0].cosine < 1 &&
	      r.outputs[0].max_error > 0, "output accuracy not measured");
	CHECK(r.layers[0].added_inside > r.layers[1].added_inside,
	      "the outlier layer must add the most");
	before = r.outputs[0].cosine;
	enpu_quantize_report_free(&r);

	o.evaluate = 0;
	o.keep_float = 1;
	CHECK(!quantize("mp.onnx", "mp_calib", "mp_mixed.onnx", &o, &r),
	      "keep-float");
	CHECK(r.kept_float_count == 1 &&
	      !strcmp(r.kept_float[0], "MatMul_0"), "kept %zu: %s",
	      r.kept_float_count,
	      r.kept_float_count ? r.kept_float[0] : "-");
	CHECK(r.outputs_all_int8 && r.outputs_all_int8_count == 1 &&
	      fabs(r.outputs_all_int8[0].cosine - before) < 1e-12,
	      "the first pass's accuracy is kept");
	printf("  keep-float 1: output cosine %.6f -> %.6f\n", before,
	       r.outputs[0].cosine);
	CHECK(1 - r.outputs[0].cosine < (1 - before) / 2,
	      "mixed precision must at least halve the output's loss");
	CHECK(r.notes && strstr(r.notes, "'MatMul_0' (MatMul): kept in "
				"float"), "no note for the kept layer");
	enpu_quantize_report_free(&r);
	model = qt_load(path_of("mp_mixed.onnx"));
	CHECK(model, "output does not parse");
	CHECK(!constant_dq(model->graph,
			   qt_find_op(model->graph, "MatMul", 0)->input[1]),
	      "MatMul_0's weight is still quantized");
	CHECK(constant_dq(model->graph,
			  qt_find_op(model->graph, "MatMul", 1)->input[1]),
	      "MatMul_2's weight is no longer quantized");
	onnx__model_proto__free_unpacked(model, NULL);

	o.keep_float = 0;
	o.float_nodes = names;
	o.float_node_count = 1;
	CHECK(quantize("mp.onnx", "mp_calib", "mp_bad.onnx", &o, &r) ==
	      ENPU_RT_INVALID_ARGUMENT && strstr(r.error, "float node 'nope'"),
	      "unknown float node: %s", r.error);
	enpu_quantize_report_free(&r);
	o.float_node_count = 0;
	o.evaluate = 1;
	o.holdout = 8;
	CHECK(quantize("mp.onnx", "mp_calib", "mp_bad.onnx", &o, &r) ==
	      ENPU_RT_INVALID_ARGUMENT && strstr(r.error, "leaves none"),
	      "holdout of every sample: %s", r.error);
	enpu_quantize_report_free(&r);
	return 0;
}

static int test_float_ops_and_opset(void)
{
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;
	int status;

	enpu_quantize_options_init(&o);
	/* Softmax has no quantized form: left float, with a note. */
	CHECK(!make_matmul(path_of("mm_softmax.onnx"), 13, "Softmax"), "save");
	CHECK(!quantize("mm_softmax.onnx", "mm_calib", "mm_softmax_q.onnx",
			&o, &r), "quantize");
	CHECK(r.notes && strstr(r.notes, "left in float: Softmax x1") &&
	      r.float_nodes == 1 && r.quantized_nodes == 1, "notes: %s",
	      r.notes ? r.notes : "");
	enpu_quantize_report_free(&r);
	Onnx__ModelProto *model = qt_load(path_of("mm_softmax_q.onnx"));
	const Onnx__NodeProto *sm = qt_find_op(model->graph, "Softmax", 0);

	CHECK(sm && activation_dq(model->graph, sm->input[0]),
	      "Softmax reads the dequantized MatMul output");
	CHECK(qt_producer(model->graph, "y") == sm, "Softmax writes y");
	onnx__model_proto__free_unpacked(model, NULL);

	/* Opset 11 MatMul+Relu moves to 13 with a note. */
	CHECK(!make_matmul(path_of("mm11.onnx"), 11, "Relu"), "save");
	CHECK(!quantize("mm11.onnx", "mm_calib", "mm11_q.onnx", &o, &r),
	      "quantize");
	CHECK(r.opset_in == 11 && r.opset_out == 13 && r.notes &&
	      strstr(r.notes, "opset raised from 11 to 13"), "opset note");
	enpu_quantize_report_free(&r);
	model = qt_load(path_of("mm11_q.onnx"));
	/* IR 7 (what opset 13 needs) is kept as it is. */
	CHECK(model->opset_import[0]->version == 13 && model->ir_version == 7,
	      "opset %" PRId64 " IR %" PRId64 ", want 13 and 7",
	      model->opset_import[0]->version, model->ir_version);
	onnx__model_proto__free_unpacked(model, NULL);

	/*
	 * Opset 11 Softmax changed meaning at 13: the opset stays, weights
	 * go per tensor (no DequantizeLinear axis), with a note; the model
	 * runs and stays accurate. At opset 9 there is no QuantizeLinear:
	 * refused, naming the op.
	 */
	CHECK(!make_matmul(path_of("mm11_sm.onnx"), 11, "Softmax"), "save");
	status = quantize("mm11_sm.onnx", "mm_calib", "mm11_sm_q.onnx", &o,
			  &r);
	CHECK(!status && r.opset_out == 11 && r.notes &&
	      strstr(r.notes, "opset 11 kept: node 'Softmax_1' (Softmax)") &&
	      strstr(r.notes, "per tensor"), "notes: %s", r.notes);
	enpu_quantize_report_free(&r);
	model = qt_load(path_of("mm11_sm_q.onnx"));
	CHECK(model && model->opset_import[0]->version == 11,
	      "opset not kept");
	{
		const Onnx__NodeProto *dq = constant_dq(model->graph,
			qt_find_op(model->graph, "MatMul", 0)->input[1]);

		CHECK(dq && qt_node_int(dq, "axis", -99) == -99 &&
		      qt_initializer(model->graph, dq->input[1])->n_dims == 0,
		      "weights must be per tensor (scalar scale, no axis)");
	}
	onnx__model_proto__free_unpacked(model, NULL);
	double err = relative_error("mm11_sm.onnx", "mm11_sm_q.onnx", 2,
				    mm_dims, 4, -0.9f, 0.9f);

	printf("  opset 11 + Softmax, per tensor: worst error %.4f\n", err);
	/* The float Softmax sharpens its dequantized input's step. */
	CHECK(err <= 2 * QT_TOLERANCE, "error %g", err);
	/* Opset 9: raised to 10 with per-tensor weights, unless an op
	 * changed meaning at 10 (TopK's k became an input). */
	CHECK(!make_matmul(path_of("mm9_sm.onnx"), 9, "Softmax"), "save");
	status = quantize("mm9_sm.onnx", "mm_calib", "mm9_sm_q.onnx", &o, &r);
	CHECK(!status && r.opset_in == 9 && r.opset_out == 10 && r.notes &&
	      strstr(r.notes, "opset raised from 9 to 10") &&
	      strstr(r.notes, "per tensor"), "notes: %s", r.notes);
	enpu_quantize_report_free(&r);
	model = qt_load(path_of("mm9_sm_q.onnx"));
	CHECK(model && model->opset_import[0]->version == 10 &&
	      model->ir_version == 7, "opset raised to 10, IR 7 kept");
	onnx__model_proto__free_unpacked(model, NULL);
	err = relative_error("mm9_sm.onnx", "mm9_sm_q.onnx", 2, mm_dims, 4,
			     -0.9f, 0.9f);
	printf("  opset 9 -> 10 + Softmax, per tensor: worst error %.4f\n",
	       err);
	CHECK(err <= 2 * QT_TOLERANCE, "error %g", err);
	/* Slice-1's attributes become Slice-10's inputs on the way. */
	{
		struct qt_model sm;
		const int64_t wd[] = { 16, 8 }, starts[] = { 1 },
			ends[] = { 6 }, axes[] = { 1 };
		Onnx__NodeProto *sl;

		qt_init(&sm, 9);
		qt_input(&sm, "x", ENPU_RT_FLOAT, 2, mm_dims);
		qt_init_float(&sm, "w", 2, wd, mm_w);
		qt_node(&sm, "MatMul", "x,w", "h");
		sl = qt_node(&sm, "Slice", "h", "y");
		qt_attr_ints(&sm, sl, "starts", starts, 1);
		qt_attr_ints(&sm, sl, "ends", ends, 1);
		qt_attr_ints(&sm, sl, "axes", axes, 1);
		qt_output(&sm, "y");
		CHECK(!qt_save(&sm, path_of("mm9_slice.onnx")), "save");
		qt_free(&sm);
	}
	status = quantize("mm9_slice.onnx", "mm_calib", "mm9_slice_q.onnx", &o,
			  &r);
	CHECK(!status && r.opset_out == 10, "slice: %d", status);
	enpu_quantize_report_free(&r);
	model = qt_load(path_of("mm9_slice_q.onnx"));
	{
		const Onnx__NodeProto *sl = qt_find_op(model->graph, "Slice", 0);

		CHECK(sl && sl->n_input == 4 && sl->n_attribute == 0 &&
		      qt_initializer(model->graph, sl->input[1]) &&
		      qt_initializer(model->graph, sl->input[3]),
		      "Slice-10 takes starts/ends/axes as constant inputs");
	}
	onnx__model_proto__free_unpacked(model, NULL);
	err = relative_error("mm9_slice.onnx", "mm9_slice_q.onnx", 2, mm_dims,
			     4, -0.9f, 0.9f);
	printf("  opset 9 -> 10 + Slice: worst error %.4f\n", err);
	CHECK(err <= QT_TOLERANCE, "error %g", err);
	CHECK(!make_matmul(path_of("mm9_topk.onnx"), 9, "TopK"), "save");
	status = enpu_quantize_file(path_of("mm9_topk.onnx"),
				    path_of("mm_calib"), path_of("x.onnx"), &o,
				    &r);
	CHECK(status == ENPU_RT_UNSUPPORTED && strstr(r.error, "TopK") &&
	      strstr(r.error, "changed meaning at 10"), "got %d: %s", status,
	      r.error);
	enpu_quantize_report_free(&r);
	return 0;
}

static int expect_error(const char *model, const char *calib,
			const char *want, const struct enpu_quantize_options *o)
{
	struct enpu_quantize_report r;
	struct stat st;
	int status = enpu_quantize_file(path_of("%s", model),
					path_of("%s", calib),
					path_of("bad_out.onnx"), o, &r);

	enpu_quantize_report_free(&r);
	CHECK(status != 0, "%s/%s: expected an error", model, calib);
	CHECK(strstr(r.error, want), "%s/%s: message '%s' lacks '%s'", model,
	      calib, r.error, want);
	CHECK(stat(path_of("bad_out.onnx"), &st), "output written on error");
	return 0;
}

static int test_bad_inputs(void)
{
	struct enpu_quantize_options o;
	struct qt_model m;
	const int64_t d[] = { 4 };
	float zero_scale[] = { 0.5f };
	FILE *f;
	int bad = 0;

	enpu_quantize_options_init(&o);
	bad |= expect_error("mm.onnx", "no_such_dir", "no_such_dir", &o);
	mkdir(path_of("empty_calib"), 0755);
	bad |= expect_error("mm.onnx", "empty_calib", "holds no samples", &o);
	mkdir(path_of("broken_calib"), 0755);
	mkdir(path_of("broken_calib/s0"), 0755);
	f = fopen(path_of("broken_calib/s0/input_0.pb"), "wb");
	fputs("not a tensor \xff\xff\xff", f);
	fclose(f);
	bad |= expect_error("mm.onnx", "broken_calib", "input_0.pb", &o);
	/* Two inputs, samples with one: names the missing input. */
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 2, mm_dims);
	qt_input(&m, "x2", ENPU_RT_FLOAT, 2, mm_dims);
	qt_node(&m, "Add", "x,x2", "y");
	qt_output(&m, "y");
	qt_save(&m, path_of("add2.onnx"));
	qt_free(&m);
	bad |= expect_error("add2.onnx", "mm_calib", "no tensor for input 1 "
			    "'x2'", &o);
	/* Samples of the wrong shape: the bind error names the file. */
	write_calib("wrong_calib", 2, (const int64_t[]){ 2, 3 }, 1, 0, 1, 0);
	bad |= expect_error("mm.onnx", "wrong_calib", "wrong_calib/sample_000"
			    "/input_0.pb", &o);
	bad |= expect_error("no_such_model.onnx", "mm_calib",
			    "no_such_model.onnx", &o);
	f = fopen(path_of("garbage.onnx"), "wb");
	fputs("\x0a\xff\xff\xff garbage", f);
	fclose(f);
	bad |= expect_error("garbage.onnx", "mm_calib", "not a valid ONNX", &o);
	/* Already quantized: a QDQ model. */
	bad |= expect_error("mm_q.onnx", "mm_calib", "already quantized", &o);
	/* Integer-only model: nothing to quantize. */
	qt_init(&m, 13);
	qt_input(&m, "a", ENPU_RT_INT32, 1, d);
	qt_node(&m, "Add", "a,a", "y");
	qt_output(&m, "y");
	qt_save(&m, path_of("int.onnx"));
	qt_free(&m);
	mkdir(path_of("int_calib"), 0755);
	{
		/* An int32 tensor file, written by hand. */
		Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
		int32_t v[4] = { 1, 2, 3, 4 };
		int64_t dims[1] = { 4 };
		uint8_t buf[128];

		t.has_data_type = 1;
		t.data_type = ENPU_RT_INT32;
		t.n_dims = 1;
		t.dims = dims;
		t.has_raw_data = 1;
		t.raw_data.data = (uint8_t *)v;
		t.raw_data.len = sizeof(v);
		size_t len = onnx__tensor_proto__pack(&t, buf);

		mkdir(path_of("int_calib/s0"), 0755);
		f = fopen(path_of("int_calib/s0/input_0.pb"), "wb");
		fwrite(buf, 1, len, f);
		fclose(f);
	}
	bad |= expect_error("int.onnx", "int_calib", "nothing to quantize",
			    &o);
	/* An op the runtime cannot run: calibration names it. */
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 2, mm_dims);
	qt_init_float(&m, "s", 1, (const int64_t[]){ 1 }, zero_scale);
	qt_node(&m, "Mul", "x,s", "h");
	qt_node(&m, "NoSuchOp", "h", "y");
	qt_output(&m, "y");
	qt_save(&m, path_of("unknown_op.onnx"));
	qt_free(&m);
	bad |= expect_error("unknown_op.onnx", "mm_calib", "NoSuchOp", &o);
	o.percentile = 20;
	o.method = ENPU_QUANTIZE_PERCENTILE;
	bad |= expect_error("mm.onnx", "mm_calib", "percentile", &o);
	return bad;
}

/* Runs on the ONNX test data layout: test_data_set_N directories. */
static int test_onnx_test_data_layout(void)
{
	const char *dir = "/usr/share/libonnx-testdata/data/node/test_matmul_2d";
	struct enpu_quantize_report r;
	struct stat st;
	int status;

	if (stat(dir, &st)) {
		printf("  (skipped: %s missing)\n", dir);
		return 0;
	}
	char model[512];

	snprintf(model, sizeof(model), "%s/model.onnx", dir);
	status = enpu_quantize_file(model, dir, path_of("td_q.onnx"), NULL,
				    &r);
	/* Both inputs are activations; a plain MatMul of two Q/DQ inputs. */
	CHECK(!status, "%s", r.error);
	CHECK(r.samples >= 1 && r.quantized_nodes == 1, "report");
	enpu_quantize_report_free(&r);
	return 0;
}

/*
 * Regression (issue 11): a squeeze-excite block at 40x40. The quantized
 * GlobalAveragePool averages 1600 pixels, which the int8 kernel refused at
 * run time ("kernel 1x1600 outside 1..1024") on the model the quantizer
 * had just written.
 *   x -> Conv 1x1 -> Relu -> c; c -> GlobalAveragePool -> Conv 1x1 ->
 *   Relu -> Conv 1x1 -> Sigmoid -> s; Mul(c, s) -> y
 */
static const int64_t se_dims[] = { 1, 4, 40, 40 };

static int test_squeeze_excite_40x40(void)
{
	struct qt_model m;
	struct enpu_quantize_options o;
	struct enpu_quantize_report r;
	const int64_t w1d[] = { 8, 4, 1, 1 }, w2d[] = { 2, 8, 1, 1 },
		w3d[] = { 8, 2, 1, 1 };
	float w1[32], w2[16], w3[16];
	Onnx__ModelProto *model;

	fill(w1, 32, -0.5f, 0.5f);
	fill(w2, 16, -0.5f, 0.5f);
	fill(w3, 16, -0.5f, 0.5f);
	qt_init(&m, 13);
	qt_input(&m, "x", ENPU_RT_FLOAT, 4, se_dims);
	qt_init_float(&m, "w1", 4, w1d, w1);
	qt_init_float(&m, "w2", 4, w2d, w2);
	qt_init_float(&m, "w3", 4, w3d, w3);
	qt_node(&m, "Conv", "x,w1", "c0");
	qt_node(&m, "Relu", "c0", "c");
	qt_node(&m, "GlobalAveragePool", "c", "g");
	qt_node(&m, "Conv", "g,w2", "e0");
	qt_node(&m, "Relu", "e0", "e");
	qt_node(&m, "Conv", "e,w3", "e1");
	qt_node(&m, "Sigmoid", "e1", "sg");
	qt_node(&m, "Mul", "c,sg", "y");
	qt_output(&m, "y");
	CHECK(!qt_save(&m, path_of("se.onnx")), "save");
	qt_free(&m);
	write_calib("se_calib", 4, se_dims, 8, -1, 1, 0);
	enpu_quantize_options_init(&o);
	CHECK(!quantize("se.onnx", "se_calib", "se_q.onnx", &o, &r),
	      "quantize");
	enpu_quantize_report_free(&r);
	model = qt_load(path_of("se_q.onnx"));
	CHECK(model, "output does not parse");
	CHECK(activation_dq(model->graph,
			    qt_find_op(model->graph, "GlobalAveragePool",
				       0)->input[0]),
	      "GlobalAveragePool input is not Q/DQ");
	onnx__model_proto__free_unpacked(model, NULL);

	double err = relative_error("se.onnx", "se_q.onnx", 4, se_dims, 2,
				    -1, 1);

	printf("  squeeze-excite 40x40: worst error %.4f of the output "
	       "range\n", err);
	CHECK(err <= QT_TOLERANCE, "error %g", err);
	return 0;
}

static void run_test(const struct test *test)
{
	printf("%s\n", test->name);
	if (test->fn()) {
		failed++;
		printf("FAIL %s\n", test->name);
	} else {
		passed++;
		printf("ok %s\n", test->name);
	}
}

int main(int argc, char **argv)
{
	static const struct test tests[] = {
		{ "cnn_structure_and_accuracy",
		  test_cnn_structure_and_accuracy },
		{ "residual_add", test_residual_add },
		{ "matmul_per_channel_and_tensor",
		  test_matmul_per_channel_and_tensor },
		{ "percentile_vs_minmax", test_percentile_vs_minmax },
		{ "entropy_and_mse", test_entropy_and_mse },
		{ "entropy_end_bins", test_entropy_end_bins },
		{ "report_and_keep_float", test_report_and_keep_float },
		{ "float_ops_and_opset", test_float_ops_and_opset },
		{ "bad_inputs", test_bad_inputs },
		{ "onnx_test_data_layout", test_onnx_test_data_layout },
		{ "squeeze_excite_40x40", test_squeeze_excite_40x40 },
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test-quantize WORKDIR\n");
		return 2;
	}
	workdir = argv[1];
	mkdir(workdir, 0755);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		run_test(&tests[i]);
	for (size_t i = 0; rule_tests[i].name; i++)
		run_test(&rule_tests[i]);
	for (size_t i = 0; edge_tests[i].name; i++)
		run_test(&edge_tests[i]);
	printf("test-quantize: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
