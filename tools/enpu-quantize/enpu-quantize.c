// SPDX-License-Identifier: MIT
/*
 * enpu-quantize model.onnx calib/ out.onnx [--method minmax|percentile[=P]]
 *               [--per-channel|--per-tensor] [--activation-type uint8|int8]
 *               [--threads N] [--quiet]
 *
 * Post-training quantization to a QDQ model (docs/quantization.md,
 * "Post-training quantization"). Prints the notes (ops left in float,
 * opset changes) and a one-line summary; exit status 1 on any error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_quantize.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: enpu-quantize MODEL.onnx CALIB_DIR OUT.onnx "
		"[--method minmax|percentile[=P]] [--per-channel|--per-tensor]"
		"\n       [--activation-type uint8|int8] [--threads N] "
		"[--quiet]\n"
		"CALIB_DIR holds one subdirectory per sample with input_<i>.pb "
		"TensorProto files\n(the ONNX test-data layout).\n");
}

static int parse_double(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return !*s || *end;
}

int main(int argc, char **argv)
{
	struct enpu_quantize_options options;
	struct enpu_quantize_report report;
	const char *paths[3];
	int npaths = 0, quiet = 0;
	int status;

	enpu_quantize_options_init(&options);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--method") && i + 1 < argc) {
			a = argv[++i];
			if (!strcmp(a, "minmax")) {
				options.method = ENPU_QUANTIZE_MINMAX;
			} else if (!strncmp(a, "percentile", 10) &&
				   (!a[10] || a[10] == '=')) {
				options.method = ENPU_QUANTIZE_PERCENTILE;
				if (a[10] && parse_double(a + 11,
							  &options.percentile)) {
					fprintf(stderr, "enpu-quantize: bad "
						"percentile '%s'\n", a + 11);
					return 1;
				}
			} else {
				fprintf(stderr, "enpu-quantize: unknown method "
					"'%s' (minmax, percentile[=P])\n", a);
				return 1;
			}
		} else if (!strcmp(a, "--per-channel")) {
			options.per_channel = 1;
		} else if (!strcmp(a, "--per-tensor")) {
			options.per_channel = 0;
		} else if (!strcmp(a, "--activation-type") && i + 1 < argc) {
			a = argv[++i];
			if (!strcmp(a, "uint8")) {
				options.activation_type = ENPU_RT_UINT8;
			} else if (!strcmp(a, "int8")) {
				options.activation_type = ENPU_RT_INT8;
			} else {
				fprintf(stderr, "enpu-quantize: activation type "
					"'%s' is not uint8 or int8\n", a);
				return 1;
			}
		} else if (!strcmp(a, "--threads") && i + 1 < argc) {
			double t;

			if (parse_double(argv[++i], &t) || t < 1 || t > 1024 ||
			    t != (unsigned int)t) {
				fprintf(stderr, "enpu-quantize: bad thread "
					"count '%s'\n", argv[i]);
				return 1;
			}
			options.threads = (unsigned int)t;
		} else if (!strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "enpu-quantize: unknown or incomplete "
				"option '%s'\n", a);
			usage(stderr);
			return 1;
		} else if (npaths < 3) {
			paths[npaths++] = a;
		} else {
			usage(stderr);
			return 1;
		}
	}
	if (npaths != 3) {
		usage(stderr);
		return 1;
	}
	status = enpu_quantize_file(paths[0], paths[1], paths[2], &options,
				    &report);
	if (report.notes && !quiet)
		fputs(report.notes, stdout);
	if (status) {
		fprintf(stderr, "enpu-quantize: %s: %s\n", paths[0],
			report.error);
		enpu_quantize_report_free(&report);
		return 1;
	}
	if (!quiet)
		printf("%s: %zu samples, %zu ops quantized, %zu Relu/Clip "
		       "folded, %zu ops left in float, opset %lld -> %lld\n",
		       paths[2], report.samples, report.quantized_nodes,
		       report.folded_activations, report.float_nodes,
		       (long long)report.opset_in,
		       (long long)report.opset_out);
	enpu_quantize_report_free(&report);
	return 0;
}
