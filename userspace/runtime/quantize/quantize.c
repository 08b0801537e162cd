// SPDX-License-Identifier: MIT
/*
 * enpu_quantize_*: the driver. Index the model, refuse what is not a
 * float model, plan, calibrate with the runtime, finish the plan with the
 * types calibration saw, compute parameters, write the QDQ model.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "onnx_loader.h"
#include "quantize_internal.h"

void enpu_quantize_options_init(struct enpu_quantize_options *options)
{
	memset(options, 0, sizeof(*options));
	options->method = ENPU_QUANTIZE_MINMAX;
	options->percentile = 99.99;
	options->per_channel = 1;
	options->activation_type = ENPU_RT_UINT8;
	options->threads = 1;
}

void enpu_quantize_report_free(struct enpu_quantize_report *report)
{
	if (!report)
		return;
	free(report->notes);
	report->notes = NULL;
	report->notes_len = 0;
	q_free_accuracy(report->outputs, report->output_count);
	q_free_accuracy(report->layers, report->layer_count);
	q_free_accuracy(report->outputs_all_int8,
			report->outputs_all_int8_count);
	for (size_t i = 0; i < report->kept_float_count; i++)
		free(report->kept_float[i]);
	free(report->kept_float);
	report->outputs = report->layers = report->outputs_all_int8 = NULL;
	report->kept_float = NULL;
	report->output_count = report->layer_count = 0;
	report->outputs_all_int8_count = report->kept_float_count = 0;
}

static const char *const quantized_ops[] = {
	"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
	"QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger",
	"QLinearAdd", "QLinearMul", "QLinearAveragePool",
	"QLinearGlobalAveragePool", "QLinearConcat", "QGemm", NULL,
};

static int check_float_model(struct q_model *m)
{
	for (size_t n = 0; n < m->graph->n_node; n++) {
		const Onnx__NodeProto *node = m->graph->node[n];

		for (size_t i = 0; quantized_ops[i]; i++)
			if (node->op_type &&
			    !strcmp(node->op_type, quantized_ops[i]))
				return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
					      "node '%s' (%s): the model is "
					      "already quantized; "
					      "enpu-quantize needs a float "
					      "model", q_node_label(node),
					      node->op_type);
	}
	return 0;
}

static int check_options(struct q_model *m,
			 const struct enpu_quantize_options *o)
{
	if (o->method != ENPU_QUANTIZE_MINMAX &&
	    o->method != ENPU_QUANTIZE_PERCENTILE &&
	    o->method != ENPU_QUANTIZE_ENTROPY &&
	    o->method != ENPU_QUANTIZE_MSE)
		return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
			      "unknown calibration method %d", o->method);
	if (o->method == ENPU_QUANTIZE_PERCENTILE &&
	    !(o->percentile > 50.0 && o->percentile <= 100.0))
		return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
			      "percentile %g is outside (50, 100]",
			      o->percentile);
	if (o->activation_type != ENPU_RT_UINT8 &&
	    o->activation_type != ENPU_RT_INT8)
		return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
			      "activation type %s is not uint8 or int8",
			      enpu_rt_dtype_name(o->activation_type));
	if (o->float_node_count && !o->float_nodes)
		return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
			      "%zu float nodes given without their names",
			      o->float_node_count);
	return 0;
}

/* The samples kept out of calibration for the evaluation. */
static int split_samples(struct q_model *m, const struct q_sample_list *all,
			 struct q_sample_list *calib,
			 struct q_sample_list *eval)
{
	const struct enpu_quantize_options *o = m->options;
	size_t held = 0;

	if (o->evaluate || o->keep_float)
		held = o->holdout ? o->holdout :
			all->count >= 2 ? (all->count + 3) / 4 : 0;
	if (held >= all->count && held)
		return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
			      "holding out %zu of %zu calibration samples "
			      "leaves none to calibrate on", held, all->count);
	calib->dirs = all->dirs;
	calib->count = all->count - held;
	/* Nothing held out (one sample): the evaluation reuses them all. */
	eval->dirs = held ? all->dirs + calib->count : all->dirs;
	eval->count = held ? held : all->count;
	m->report->held_out = held > 0;
	m->report->calibration_samples = calib->count;
	return 0;
}

/* Every name of @names must be a node of the graph. */
static int check_float_nodes(struct q_model *m, const char *const *names,
			     size_t count)
{
	for (size_t i = 0; i < count; i++) {
		size_t n;

		for (n = 0; n < m->graph->n_node; n++)
			if (!strcmp(q_node_label(m->graph->node[n]), names[i]))
				break;
		if (n == m->graph->n_node)
			return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
				      "float node '%s': the model has no node "
				      "of that name", names[i]);
	}
	return 0;
}

/* One quantization; @forced: node names left in float. */
static int quantize_once(const void *model, size_t size,
			 const char *base_dir, const char *calib_dir,
			 const struct enpu_quantize_options *options,
			 const char *const *forced, size_t forced_count,
			 void **out, size_t *out_size,
			 struct enpu_quantize_report *report)
{
	struct q_sample_list samples = { 0 }, calib, eval;
	struct q_model m = { 0 };
	int status;

	m.options = options;
	m.report = report;
	m.base_dir = base_dir;
	m.forced = forced;
	m.forced_count = forced_count;
	if (size > RT_ONNX_MAX_MODEL_BYTES)
		return q_fail(&m, ENPU_RT_INVALID_MODEL,
			      "model is %zu bytes, more than the %zu allowed",
			      size, RT_ONNX_MAX_MODEL_BYTES);
	m.model = onnx__model_proto__unpack(NULL, size, model);
	if (!m.model)
		return q_fail(&m, ENPU_RT_INVALID_MODEL,
			      "not a valid ONNX ModelProto (%zu bytes)", size);
	m.graph = m.model->graph;
	if (!m.graph) {
		status = q_fail(&m, ENPU_RT_INVALID_MODEL,
				"model has no graph");
		goto out;
	}
	status = q_index_model(&m);
	if (!status)
		status = check_float_model(&m);
	if (!status)
		status = check_float_nodes(&m, forced, forced_count);
	if (!status)
		status = q_check_opset(&m);
	if (!status)
		status = q_plan_candidates(&m);
	if (!status)
		status = q_list_samples(&m, calib_dir, &samples);
	if (!status)
		status = split_samples(&m, &samples, &calib, &eval);
	if (!status)
		status = q_calibrate(&m, &calib);
	if (!status)
		status = q_plan_finish(&m);
	if (!status)
		status = q_compute_params(&m);
	if (!status)
		status = q_write_model(&m, out, out_size);
	if (!status && (options->evaluate || options->keep_float))
		status = q_evaluate(&m, *out, *out_size, &eval);
	if (status) {
		free(*out);
		*out = NULL;
		*out_size = 0;
	}
	report->opset_in = m.opset;
	report->opset_out = m.out_opset;
out:
	q_free_samples(&samples);
	free(m.tensors);
	rt_arena_free_all(&m.arena);
	onnx__model_proto__free_unpacked(m.model, NULL);
	return status;
}

/* Indices of the @n layers that add the most error, largest first. */
static size_t worst_layers(const struct enpu_quantize_report *r, size_t n,
			   size_t *pick)
{
	size_t count = 0;

	while (count < n) {
		size_t best = r->layer_count;

		for (size_t i = 0; i < r->layer_count; i++) {
			size_t k = 0;

			while (k < count && pick[k] != i)
				k++;
			if (k == count && (best == r->layer_count ||
					   r->layers[i].added_inside >
					   r->layers[best].added_inside))
				best = i;
		}
		if (best == r->layer_count)
			break;
		pick[count++] = best;
	}
	return count;
}

/*
 * Mixed precision: the first pass (evaluated) names the layers that add
 * the most error; the second quantizes again with them in float. The
 * report is the second pass's, with the first pass's output accuracy.
 */
static int keep_worst_float(const void *model, size_t size,
			    const char *base_dir, const char *calib_dir,
			    const struct enpu_quantize_options *options,
			    void **out, size_t *out_size,
			    struct enpu_quantize_report *report)
{
	struct enpu_quantize_report second;
	size_t n = options->keep_float, *pick;
	size_t total = options->float_node_count + n;
	const char **names;
	char **kept;
	size_t picked;
	int status;

	pick = calloc(n + 1, sizeof(*pick));
	names = calloc(total + 1, sizeof(*names));
	kept = calloc(n + 1, sizeof(*kept));
	if (!pick || !names || !kept) {
		free(pick);
		free(names);
		free(kept);
		snprintf(report->error, sizeof(report->error),
			 "out of memory");
		return ENPU_RT_OUT_OF_MEMORY;
	}
	picked = worst_layers(report, n, pick);
	for (size_t i = 0; i < options->float_node_count; i++)
		names[i] = options->float_nodes[i];
	for (size_t i = 0; i < picked; i++) {
		kept[i] = strdup(report->layers[pick[i]].name);
		names[options->float_node_count + i] = kept[i];
	}
	free(*out);
	*out = NULL;
	memset(&second, 0, sizeof(second));
	status = quantize_once(model, size, base_dir, calib_dir, options,
			       names, options->float_node_count + picked,
			       out, out_size, &second);
	for (size_t i = 0; !status && i < picked; i++)
		if (!kept[i])
			status = ENPU_RT_OUT_OF_MEMORY;
	second.outputs_all_int8 = report->outputs;
	second.outputs_all_int8_count = report->output_count;
	report->outputs = NULL;
	report->output_count = 0;
	second.kept_float = kept;
	second.kept_float_count = picked;
	enpu_quantize_report_free(report);
	*report = second;
	free(pick);
	free(names);
	return status;
}

enum enpu_rt_status enpu_quantize_memory(
	const void *model, size_t size, const char *base_dir,
	const char *calib_dir, const struct enpu_quantize_options *options,
	void **out, size_t *out_size, struct enpu_quantize_report *report)
{
	struct enpu_quantize_options defaults;
	struct q_model m = { 0 };
	int status;

	if (!report)
		return ENPU_RT_INVALID_ARGUMENT;
	memset(report, 0, sizeof(*report));
	if (!options) {
		enpu_quantize_options_init(&defaults);
		options = &defaults;
	}
	m.options = options;
	m.report = report;
	if (!model || !out || !out_size)
		return q_fail(&m, ENPU_RT_INVALID_ARGUMENT,
			      "model, out and out_size are required");
	*out = NULL;
	*out_size = 0;
	status = check_options(&m, options);
	if (status)
		return status;
	status = quantize_once(model, size, base_dir, calib_dir, options,
			       options->float_nodes, options->float_node_count,
			       out, out_size, report);
	if (!status && options->keep_float)
		status = keep_worst_float(model, size, base_dir, calib_dir,
					  options, out, out_size, report);
	return status;
}

static int write_file(const char *path, const void *data, size_t size,
		      struct enpu_quantize_report *report)
{
	char *tmp = NULL;
	FILE *f;

	/* Write beside and rename, so a failure never leaves half a model. */
	if (asprintf(&tmp, "%s.tmp", path) < 0) {
		snprintf(report->error, sizeof(report->error),
			 "out of memory");
		return ENPU_RT_OUT_OF_MEMORY;
	}
	f = fopen(tmp, "wb");
	int ok = f && fwrite(data, 1, size, f) == size;

	if (f && fclose(f))
		ok = 0;
	if (!ok) {
		snprintf(report->error, sizeof(report->error),
			 "cannot write '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		free(tmp);
		return ENPU_RT_IO_ERROR;
	}
	if (rename(tmp, path)) {
		snprintf(report->error, sizeof(report->error),
			 "cannot rename '%s' to '%s': %s", tmp, path,
			 strerror(errno));
		unlink(tmp);
		free(tmp);
		return ENPU_RT_IO_ERROR;
	}
	free(tmp);
	return 0;
}

enum enpu_rt_status enpu_quantize_file(
	const char *model_path, const char *calib_dir, const char *out_path,
	const struct enpu_quantize_options *options,
	struct enpu_quantize_report *report)
{
	struct rt_error_sink errors = { .status = 0 };
	void *data = NULL, *out = NULL;
	size_t size, out_size;
	char *dir_copy;
	int status;

	if (!report)
		return ENPU_RT_INVALID_ARGUMENT;
	memset(report, 0, sizeof(*report));
	if (!model_path || !out_path) {
		snprintf(report->error, sizeof(report->error),
			 "model and output paths are required");
		return ENPU_RT_INVALID_ARGUMENT;
	}
	if (rt_read_file(model_path, RT_ONNX_MAX_MODEL_BYTES, &data, &size,
			 &errors)) {
		snprintf(report->error, sizeof(report->error), "%s",
			 errors.message);
		return errors.status ? errors.status : ENPU_RT_IO_ERROR;
	}
	dir_copy = strdup(model_path);
	if (!dir_copy) {
		free(data);
		snprintf(report->error, sizeof(report->error),
			 "out of memory");
		return ENPU_RT_OUT_OF_MEMORY;
	}
	status = enpu_quantize_memory(data, size, dirname(dir_copy),
				      calib_dir, options, &out, &out_size,
				      report);
	free(dir_copy);
	free(data);
	if (!status)
		status = write_file(out_path, out, out_size, report);
	free(out);
	return status;
}
