// SPDX-License-Identifier: MIT
/*
 * Calibration: the float model runs on every sample with the runtime, as a
 * copy whose graph outputs also list every activation a quantized op
 * touches, and each such tensor keeps its min/max (and, for the percentile,
 * entropy and MSE methods, a histogram over that range filled in a second
 * pass, so the bins never move, from which the method picks the range).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_loader.h"
#include "quantize_internal.h"

struct calib_run {
	enpu_rt_session *session;
	int *output_tensor;	/* session output index -> tensor, -1 */
	size_t output_count;
	int *input_tensor;	/* session input index -> tensor, -1 */
	size_t input_count;
};

static void observe(struct q_tensor *t, const float *x, size_t n,
		    int histogram)
{
	if (!histogram) {
		for (size_t i = 0; i < n; i++) {
			if (!isfinite(x[i]))
				continue;
			if (!t->seen || x[i] < t->min)
				t->min = x[i];
			if (!t->seen || x[i] > t->max)
				t->max = x[i];
			t->seen = 1;
		}
		return;
	}
	if (!t->hist)
		return;
	double width = t->max - t->min;

	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		double pos = width > 0 ? (x[i] - t->min) / width * Q_HIST_BINS :
			0;
		size_t bin = pos <= 0 ? 0 : pos >= Q_HIST_BINS ?
			Q_HIST_BINS - 1 : (size_t)pos;

		t->hist[bin]++;
	}
}

/* Percentile: clip (100 - p)% of the values off each end. */
static void percentile_range(const struct q_model *m,
			     const struct q_tensor *t, uint64_t total,
			     double *lo, double *hi)
{
	double tail = (100.0 - m->options->percentile) / 100.0 *
		(double)total;
	double width = (t->max - t->min) / Q_HIST_BINS;
	uint64_t seen = 0;
	size_t b;

	for (b = 0; b < Q_HIST_BINS; b++) {
		seen += t->hist[b];
		if ((double)seen > tail)
			break;
	}
	*lo = t->min + width * (double)b;
	seen = 0;
	for (b = Q_HIST_BINS; b-- > 0;) {
		seen += t->hist[b];
		if ((double)seen > tail)
			break;
	}
	*hi = t->min + width * (double)(b + 1);
	if (*hi > t->max)
		*hi = t->max;
}

/*
 * MSE: the expected squared error of quantize-dequantize over the
 * histogram (every bin's values at its centre), with the parameters the
 * writer would compute from [lo, hi].
 */
static double mse_cost(const struct q_model *m, const struct q_tensor *t,
		       double lo, double hi)
{
	int32_t type = m->options->activation_type, qmin, qmax, zp;
	double width = (t->max - t->min) / Q_HIST_BINS, err = 0;
	float scale;

	q_act_range(type, &qmin, &qmax);
	q_asymmetric_params(lo, hi, type, &scale, &zp);
	for (size_t b = 0; b < Q_HIST_BINS; b++) {
		double v, d;

		if (!t->hist[b])
			continue;
		v = t->min + width * ((double)b + 0.5);
		d = v - ((double)q_quantize_one((float)v, scale, zp, qmin,
						qmax) - zp) * scale;
		err += (double)t->hist[b] * d * d;
	}
	return err;
}

/*
 * Entropy: KL(P || Q) between the histogram clipped to the candidate's
 * bins (values outside added to the end bins) and its image through as
 * many levels as the type has (each level's count spread evenly over the
 * level's non-empty bins), the TensorRT-style calibration. Candidates
 * narrower than one bin per level are not judged (HUGE_VAL).
 */
static double entropy_cost(const struct q_model *m, const struct q_tensor *t,
			   double lo, double hi, uint64_t total)
{
	int32_t qmin, qmax;
	double width = (t->max - t->min) / Q_HIST_BINS, kl = 0, inside = 0;
	ptrdiff_t b0 = (ptrdiff_t)floor((lo - t->min) / width);
	ptrdiff_t b1 = (ptrdiff_t)ceil((hi - t->min) / width);
	uint64_t below = 0, above = 0;
	size_t levels, bins;

	q_act_range(m->options->activation_type, &qmin, &qmax);
	levels = (size_t)(qmax - qmin + 1);
	b0 = b0 < 0 ? 0 : b0;
	b1 = b1 > Q_HIST_BINS ? Q_HIST_BINS : b1;
	if (b1 <= b0 || (size_t)(b1 - b0) < levels)
		return HUGE_VAL;
	bins = (size_t)(b1 - b0);
	for (ptrdiff_t b = 0; b < b0; b++)
		below += t->hist[b];
	for (ptrdiff_t b = b1; b < Q_HIST_BINS; b++)
		above += t->hist[b];
	for (ptrdiff_t b = b0; b < b1; b++)
		inside += (double)t->hist[b];
	if (inside <= 0)
		return HUGE_VAL;
	for (size_t j = 0; j < levels; j++) {
		size_t s = (size_t)b0 + j * bins / levels;
		size_t e = (size_t)b0 + (j + 1) * bins / levels;
		double mass = 0, nonzero = 0;

		for (size_t b = s; b < e; b++) {
			mass += (double)t->hist[b];
			nonzero += t->hist[b] != 0;
		}
		for (size_t b = s; b < e; b++) {
			double p = (double)t->hist[b], q;

			if (b == (size_t)b0)
				p += (double)below;
			if (b + 1 == (size_t)b1)
				p += (double)above;
			if (p <= 0)
				continue;
			q = t->hist[b] ? mass / nonzero / inside : 0;
			/* An outlier end bin the level left empty. */
			q = q > 1e-12 ? q : 1e-12;
			p /= (double)total;
			kl += p * log(p / q);
		}
	}
	return kl;
}

/*
 * Candidate ranges: a threshold T on |x| clips both ends, [max(lo, -T),
 * min(hi, T)] of the observed range extended to 0; T runs from the
 * largest magnitude down to 1/256 of it in steps of 2^(1/16).
 */
#define Q_SEARCH_STEPS 128
#define Q_SEARCH_PER_OCTAVE 16
void q_tensor_range(const struct q_model *m, const struct q_tensor *t,
		    double *lo, double *hi)
{
	enum enpu_quantize_method method = m->options->method;
	double best = HUGE_VAL, lo0, hi0, top;
	uint64_t total = 0;

	*lo = t->seen ? t->min : 0;
	*hi = t->seen ? t->max : 0;
	if (method == ENPU_QUANTIZE_MINMAX || !t->hist || !(t->max > t->min))
		return;
	for (size_t b = 0; b < Q_HIST_BINS; b++)
		total += t->hist[b];
	if (!total)
		return;
	if (method == ENPU_QUANTIZE_PERCENTILE) {
		percentile_range(m, t, total, lo, hi);
		return;
	}
	lo0 = t->min < 0 ? t->min : 0;
	hi0 = t->max > 0 ? t->max : 0;
	top = -lo0 > hi0 ? -lo0 : hi0;
	/* Largest first: a tie keeps the wider range. */
	for (int k = 0; k <= Q_SEARCH_STEPS; k++) {
		double th = top * exp2(-(double)k / Q_SEARCH_PER_OCTAVE);
		double a = lo0 > -th ? lo0 : -th, b = hi0 < th ? hi0 : th;
		double cost = method == ENPU_QUANTIZE_MSE ?
			mse_cost(m, t, a, b) : entropy_cost(m, t, a, b, total);

		if (cost < best) {
			best = cost;
			*lo = a;
			*hi = b;
		}
	}
}

static int build_calibration_model(struct q_model *m, void **bytes,
				   size_t *size)
{
	Onnx__ModelProto model = *m->model;
	Onnx__GraphProto graph = *m->graph;
	size_t extra = 0;

	for (size_t t = 0; t < m->tensor_count; t++)
		if (m->tensors[t].wanted && !m->tensors[t].graph_input &&
		    !m->tensors[t].graph_output)
			extra++;
	graph.output = rt_arena_alloc(&m->arena, (graph.n_output + extra) *
				      sizeof(*graph.output));
	if (!graph.output)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	memcpy(graph.output, m->graph->output,
	       m->graph->n_output * sizeof(*graph.output));
	for (size_t t = 0; t < m->tensor_count; t++) {
		Onnx__ValueInfoProto *vi;

		if (!m->tensors[t].wanted || m->tensors[t].graph_input ||
		    m->tensors[t].graph_output)
			continue;
		vi = rt_arena_alloc(&m->arena, sizeof(*vi));
		if (!vi)
			return q_fail(m, ENPU_RT_OUT_OF_MEMORY,
				      "out of memory");
		onnx__value_info_proto__init(vi);
		vi->name = (char *)m->tensors[t].name;
		graph.output[graph.n_output++] = vi;
	}
	model.graph = &graph;
	*size = onnx__model_proto__get_packed_size(&model);
	*bytes = malloc(*size ? *size : 1);
	if (!*bytes)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	onnx__model_proto__pack(&model, *bytes);
	return 0;
}

static int open_session(struct q_model *m, struct calib_run *run)
{
	enpu_rt_options *options = NULL;
	void *bytes = NULL;
	size_t size = 0;
	int status;

	status = build_calibration_model(m, &bytes, &size);
	if (status)
		return status;
	status = enpu_rt_options_create(&options);
	if (!status && m->options->threads)
		status = enpu_rt_options_set_threads(options,
						     m->options->threads);
	if (status) {
		free(bytes);
		enpu_rt_options_destroy(options);
		return q_fail(m, status, "runtime options: %s",
			      enpu_rt_status_name(status));
	}
	status = enpu_rt_session_create_from_memory(bytes, size, m->base_dir,
						    options, &run->session);
	free(bytes);
	if (status) {
		q_fail(m, status, "the float model does not run for "
		       "calibration: %s", enpu_rt_options_error(options));
		enpu_rt_options_destroy(options);
		return status;
	}
	enpu_rt_options_destroy(options);
	run->output_count = enpu_rt_session_output_count(run->session);
	run->input_count = enpu_rt_session_input_count(run->session);
	run->output_tensor = rt_arena_alloc(&m->arena, (run->output_count +
					    1) * sizeof(int));
	run->input_tensor = rt_arena_alloc(&m->arena, (run->input_count + 1) *
					   sizeof(int));
	if (!run->output_tensor || !run->input_tensor)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t i = 0; i < run->output_count; i++) {
		struct enpu_rt_tensor_info info;
		int t = -1;

		if (!enpu_rt_session_output_info(run->session, i, &info))
			t = q_find_tensor(m, info.name);
		run->output_tensor[i] = t >= 0 && m->tensors[t].wanted ? t : -1;
	}
	for (size_t i = 0; i < run->input_count; i++) {
		struct enpu_rt_tensor_info info;
		int t = -1;

		if (!enpu_rt_session_input_info(run->session, i, &info))
			t = q_find_tensor(m, info.name);
		run->input_tensor[i] = t;
	}
	return 0;
}

int q_bind_sample(struct q_model *m, enpu_rt_session *session,
		  const char *dir, struct rt_arena *arena,
		  struct rt_tensor *bound)
{
	size_t input_count = enpu_rt_session_input_count(session);

	for (size_t i = 0; i < input_count; i++)
		bound[i].data = NULL;
	for (size_t i = 0; i < input_count; i++) {
		struct rt_error_sink errors = { .status = 0 };
		struct enpu_rt_tensor_info info;
		char path[4096];
		struct rt_tensor t;
		size_t size, index = i;
		void *data;
		int status;

		enpu_rt_session_input_info(session, i, &info);
		snprintf(path, sizeof(path), "%s/input_%zu.pb", dir, i);
		if (rt_read_file(path, (size_t)1 << 31, &data, &size,
				 &errors))
			return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
				      "calibration sample '%s': no tensor for "
				      "input %zu '%s' (%s)", dir, i, info.name,
				      errors.message);
		status = rt_onnx_parse_tensor(data, size, arena, &t, &errors);
		free(data);
		if (status)
			return q_fail(m, status, "%s: %s", path,
				      errors.message);
		if (t.name && *t.name &&
		    enpu_rt_session_find_input(session, t.name, &index))
			index = i;
		if (bound[index].data)
			return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
				      "%s: input '%s' is given twice", path,
				      t.name);
		if (enpu_rt_session_bind_input(session, index, t.dtype,
					       (size_t)t.rank, t.dims, t.data,
					       t.byte_size))
			return q_fail(m, ENPU_RT_INVALID_ARGUMENT, "%s: %s",
				      path,
				      enpu_rt_session_error(session));
		bound[index] = t;
	}
	return 0;
}

static int run_pass(struct q_model *m, struct calib_run *run,
		    const struct q_sample_list *samples, int histogram)
{
	struct rt_tensor *bound = calloc(run->input_count + 1,
					 sizeof(*bound));
	int status = 0;

	if (!bound)
		return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
	for (size_t s = 0; s < samples->count && !status; s++) {
		struct rt_arena arena = { .limit = (size_t)4 << 30 };

		status = q_bind_sample(m, run->session, samples->dirs[s], &arena,
				       bound);
		if (!status && enpu_rt_session_run(run->session))
			status = q_fail(m, ENPU_RT_RUNTIME_ERROR,
					"calibration sample '%s': %s",
					samples->dirs[s],
					enpu_rt_session_error(run->session));
		for (size_t i = 0; !status && i < run->input_count; i++) {
			int t = run->input_tensor[i];

			if (t < 0)
				continue;
			m->tensors[t].dtype = bound[i].dtype;
			if (m->tensors[t].wanted &&
			    bound[i].dtype == ENPU_RT_FLOAT)
				observe(&m->tensors[t], bound[i].data,
					bound[i].byte_size / sizeof(float),
					histogram);
		}
		for (size_t o = 0; !status && o < run->output_count; o++) {
			struct enpu_rt_output out;
			int t = run->output_tensor[o];

			if (t < 0)
				continue;
			if (enpu_rt_session_output(run->session, o, &out)) {
				status = q_fail(m, ENPU_RT_RUNTIME_ERROR,
						"calibration: no value for "
						"'%s'", m->tensors[t].name);
				break;
			}
			m->tensors[t].dtype = out.dtype;
			if (out.dtype == ENPU_RT_FLOAT)
				observe(&m->tensors[t], out.data,
					out.byte_size / sizeof(float),
					histogram);
		}
		rt_arena_free_all(&arena);
	}
	free(bound);
	return status;
}

int q_calibrate(struct q_model *m, const struct q_sample_list *samples)
{
	struct calib_run run = { 0 };
	int status = open_session(m, &run);

	if (!status)
		status = run_pass(m, &run, samples, 0);
	if (!status && m->options->method != ENPU_QUANTIZE_MINMAX) {
		for (size_t t = 0; t < m->tensor_count && !status; t++) {
			if (!m->tensors[t].wanted || !m->tensors[t].seen)
				continue;
			m->tensors[t].hist = rt_arena_alloc(&m->arena,
				Q_HIST_BINS * sizeof(uint64_t));
			if (!m->tensors[t].hist)
				status = q_fail(m, ENPU_RT_OUT_OF_MEMORY,
						"out of memory");
		}
		if (!status)
			status = run_pass(m, &run, samples, 1);
	}
	enpu_rt_session_destroy(run.session);
	m->report->samples = samples->count;
	return status;
}
