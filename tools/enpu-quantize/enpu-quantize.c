// SPDX-License-Identifier: MIT
/*
 * enpu-quantize model.onnx calib/ out.onnx
 *               [--method minmax|percentile[=P]|entropy|mse]
 *               [--per-channel|--per-tensor] [--activation-type uint8|int8]
 *               [--report] [--holdout N] [--keep-float N]
 *               [--float NODE[,NODE...]] [--threads N] [--quiet]
 *
 * Post-training quantization to a QDQ model (docs/quantization.md,
 * "Post-training quantization"). Prints the notes (ops left in float,
 * opset changes), with --report the accuracy tables, and a one-line
 * summary; exit status 1 on any error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_quantize.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: enpu-quantize MODEL.onnx CALIB_DIR OUT.onnx\n"
		"       [--method minmax|percentile[=P]|entropy|mse] "
		"[--per-channel|--per-tensor]\n"
		"       [--activation-type uint8|int8] [--report] "
		"[--holdout N] [--keep-float N]\n"
		"       [--float NODE[,NODE...]] [--threads N] [--quiet]\n"
		"CALIB_DIR holds one subdirectory per sample with input_<i>.pb "
		"TensorProto files\n(the ONNX test-data layout). --report "
		"compares the int8 model with the float model\non held-out "
		"samples, per output and per layer; --keep-float N leaves the "
		"N layers\nthat add the most error in float.\n");
}

static int parse_double(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return !*s || *end;
}

static int parse_count(const char *s, const char *what, size_t max,
		       size_t *v)
{
	double d;

	if (parse_double(s, &d) || d < 0 || d > (double)max ||
	    d != (double)(size_t)d) {
		fprintf(stderr, "enpu-quantize: bad %s '%s'\n", what, s);
		return 1;
	}
	*v = (size_t)d;
	return 0;
}

static void print_accuracy(const char *title,
			   const struct enpu_quantize_accuracy *a, size_t n,
			   int layers)
{
	printf("%-32s %10s %12s %12s%s\n", title, "cosine", "max error",
	       "max |float|", layers ? "     added    inside" : "");
	for (size_t i = 0; i < n; i++) {
		char name[256];

		snprintf(name, sizeof(name), "%s%s%s%s", a[i].name,
			 a[i].op ? " (" : "", a[i].op ? a[i].op : "",
			 a[i].op ? ")" : "");
		printf("%-32s %10.6f %12.5g %12.5g", name, a[i].cosine,
		       a[i].max_error, a[i].max_float);
		if (layers)
			printf(" %+9.2e %+9.2e", a[i].added, a[i].added_inside);
		printf("\n");
	}
}

static void print_report(const struct enpu_quantize_report *r)
{
	size_t worst[3], count = 0;

	if (r->held_out)
		printf("evaluation on %zu held-out sample(s); calibrated on "
		       "the other %zu\n", r->evaluation_samples,
		       r->calibration_samples);
	else
		printf("evaluation on the %zu calibration sample(s) "
		       "(too few to hold any out)\n", r->evaluation_samples);
	if (r->outputs_all_int8)
		print_accuracy("output, every layer int8", r->outputs_all_int8,
			       r->outputs_all_int8_count, 0);
	print_accuracy(r->kept_float_count ? "output, mixed precision" :
		       "output", r->outputs, r->output_count, 0);
	print_accuracy("layer (op)", r->layers, r->layer_count, 1);
	/* The three that add the most. */
	for (size_t i = 0; i < r->layer_count; i++) {
		size_t at = count < 3 ? count++ : 3;

		while (at > 0 && r->layers[worst[at - 1]].added <
		       r->layers[i].added) {
			if (at < 3)
				worst[at] = worst[at - 1];
			at--;
		}
		if (at < 3)
			worst[at] = i;
	}
	if (count) {
		printf("layers losing the most:");
		for (size_t i = 0; i < count; i++)
			printf("%s '%s' (%s, +%.2e)", i ? "," : "",
			       r->layers[worst[i]].name, r->layers[worst[i]].op,
			       r->layers[worst[i]].added);
		printf("\n");
	}
	if (r->kept_float_count) {
		printf("kept in float:");
		for (size_t i = 0; i < r->kept_float_count; i++)
			printf("%s '%s'", i ? "," : "", r->kept_float[i]);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	struct enpu_quantize_options options;
	struct enpu_quantize_report report;
	const char *paths[3];
	const char *float_nodes[256];
	char *float_list = NULL;
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
			} else if (!strcmp(a, "entropy")) {
				options.method = ENPU_QUANTIZE_ENTROPY;
			} else if (!strcmp(a, "mse")) {
				options.method = ENPU_QUANTIZE_MSE;
			} else {
				fprintf(stderr, "enpu-quantize: unknown method "
					"'%s' (minmax, percentile[=P], entropy, "
					"mse)\n", a);
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
		} else if (!strcmp(a, "--report")) {
			options.evaluate = 1;
		} else if (!strcmp(a, "--holdout") && i + 1 < argc) {
			if (parse_count(argv[++i], "holdout count", 1 << 20,
					&options.holdout))
				return 1;
			options.evaluate = 1;
		} else if (!strcmp(a, "--keep-float") && i + 1 < argc) {
			if (parse_count(argv[++i], "layer count", 1 << 20,
					&options.keep_float))
				return 1;
		} else if (!strcmp(a, "--float") && i + 1 < argc) {
			free(float_list);
			float_list = strdup(argv[++i]);
			options.float_node_count = 0;
			for (char *t = float_list ? strtok(float_list, ",") :
			     NULL; t; t = strtok(NULL, ",")) {
				if (options.float_node_count == 256) {
					fprintf(stderr, "enpu-quantize: more "
						"than 256 float nodes\n");
					free(float_list);
					return 1;
				}
				float_nodes[options.float_node_count++] = t;
			}
			options.float_nodes = float_nodes;
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
		free(float_list);
		usage(stderr);
		return 1;
	}
	status = enpu_quantize_file(paths[0], paths[1], paths[2], &options,
				    &report);
	free(float_list);
	if (report.notes && !quiet)
		fputs(report.notes, stdout);
	if (status) {
		fprintf(stderr, "enpu-quantize: %s: %s\n", paths[0],
			report.error);
		enpu_quantize_report_free(&report);
		return 1;
	}
	if (options.evaluate || options.keep_float)
		print_report(&report);
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
