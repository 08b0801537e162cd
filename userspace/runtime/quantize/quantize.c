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
	    o->method != ENPU_QUANTIZE_PERCENTILE)
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
	return 0;
}

enum enpu_rt_status enpu_quantize_memory(
	const void *model, size_t size, const char *base_dir,
	const char *calib_dir, const struct enpu_quantize_options *options,
	void **out, size_t *out_size, struct enpu_quantize_report *report)
{
	struct enpu_quantize_options defaults;
	struct q_sample_list samples = { 0 };
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
	m.base_dir = base_dir;
	if (!model || !out || !out_size)
		return q_fail(&m, ENPU_RT_INVALID_ARGUMENT,
			      "model, out and out_size are required");
	*out = NULL;
	*out_size = 0;
	status = check_options(&m, options);
	if (status)
		return status;
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
		status = q_check_opset(&m);
	if (!status)
		status = q_plan_candidates(&m);
	if (!status)
		status = q_list_samples(&m, calib_dir, &samples);
	if (!status)
		status = q_calibrate(&m, &samples);
	if (!status)
		status = q_plan_finish(&m);
	if (!status)
		status = q_compute_params(&m);
	if (!status)
		status = q_write_model(&m, out, out_size);
	report->opset_in = m.opset;
	report->opset_out = m.out_opset;
out:
	q_free_samples(&samples);
	free(m.tensors);
	rt_arena_free_all(&m.arena);
	onnx__model_proto__free_unpacked(m.model, NULL);
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
