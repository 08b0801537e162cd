// SPDX-License-Identifier: MIT
/*
 * ONNX conformance runner over Debian's libonnx-testdata: for each test
 * directory (model.onnx + test_data_set_N/{input,output}_M.pb) it loads
 * the model, runs every data set and compares outputs.
 *
 * A test is *claimed* when every node's op has a registered def for the
 * model's opset; unclaimed tests are skipped as "unsupported op X". A
 * claimed test whose session reports ENPU_RT_UNSUPPORTED (a type or
 * attribute variant the op refuses at load) is skipped with that reason.
 * Everything else that goes wrong with a claimed test is a failure, and
 * any failure makes the exit status non-zero.
 *
 * Usage: conformance [--ops-md FILE] [--verbose] [--filter SUBSTR] DIR...
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enpu/enpu_rt.h"
#include "onnx_loader.h"

/* onnx/backend/test defaults (loader: rtol=1e-3, atol=1e-7). */
#define RTOL 1e-3
#define ATOL 1e-7

/*
 * Ops whose integer outputs go through a requantization that rounds half
 * up in fixed point where ONNX's reference rounds half to even in float:
 * their 8-bit outputs may differ by one (docs/runtime.md).
 */
static const char *const plus_minus_one_ops[] = {
	"QLinearMatMul", "QLinearConv", "QLinearAdd", "QLinearMul",
	"QLinearAveragePool", "QLinearGlobalAveragePool", NULL,
};

struct reason {
	char text[160];
	int count;
};

struct op_stats {
	char op_type[64];
	int passed, failed, skipped;
};

struct runner {
	int passed, failed, skipped;
	int verbose;
	const char *filter;
	struct reason reasons[512];
	int reason_count;
	struct op_stats ops[256];
	int op_count;
};

static void add_reason(struct runner *r, const char *text)
{
	for (int i = 0; i < r->reason_count; i++)
		if (!strcmp(r->reasons[i].text, text)) {
			r->reasons[i].count++;
			return;
		}
	if (r->reason_count < 512) {
		snprintf(r->reasons[r->reason_count].text,
			 sizeof(r->reasons[0].text), "%s", text);
		r->reasons[r->reason_count++].count = 1;
	}
}

static struct op_stats *op_stats(struct runner *r, const char *op_type)
{
	for (int i = 0; i < r->op_count; i++)
		if (!strcmp(r->ops[i].op_type, op_type))
			return &r->ops[i];
	if (r->op_count == 256)
		return NULL;
	snprintf(r->ops[r->op_count].op_type, sizeof(r->ops[0].op_type),
		 "%s", op_type);
	return &r->ops[r->op_count++];
}

/* Result of one test for every distinct op type in it. */
static void count_ops(struct runner *r, const struct rt_graph *g, int result)
{
	for (size_t n = 0; n < g->node_count; n++) {
		int seen = 0;

		for (size_t m = 0; m < n; m++)
			seen |= !strcmp(g->nodes[m].op_type,
					g->nodes[n].op_type);
		if (seen)
			continue;
		struct op_stats *s = op_stats(r, g->nodes[n].op_type);

		if (!s)
			continue;
		if (result > 0)
			s->passed++;
		else if (result < 0)
			s->failed++;
		else
			s->skipped++;
	}
}

static int compare(const struct rt_tensor *want,
		   const struct enpu_rt_output *got, int int_slack,
		   char *why, size_t why_size)
{
	size_t n = rt_tensor_elements(want);
	struct rt_tensor have = {
		.dtype = got->dtype, .rank = (int32_t)got->rank,
		.data = (void *)got->data, .byte_size = got->byte_size,
	};

	memcpy(have.dims, got->dims, sizeof(have.dims));
	if (want->dtype == ENPU_RT_UINT16 && got->dtype == ENPU_RT_BFLOAT16) {
		/*
		 * See bfloat16_quirk(). onnx 1.12's reference also truncated
		 * float to bfloat16, where the later spec's tests and ONNX
		 * Runtime round to nearest even, as we do: one unit in the
		 * last place apart at most.
		 */
		have.dtype = ENPU_RT_UINT16;
		int_slack = int_slack > 1 ? int_slack : 1;
	}
	if (want->dtype != have.dtype) {
		snprintf(why, why_size, "type %s, expected %s",
			 enpu_rt_dtype_name(got->dtype),
			 enpu_rt_dtype_name(want->dtype));
		return 0;
	}
	if (want->rank != have.rank ||
	    memcmp(want->dims, have.dims,
		   (size_t)want->rank * sizeof(want->dims[0]))) {
		char a[128], b[128];

		snprintf(why, why_size, "shape %s, expected %s",
			 rt_shape_string(&have, a, sizeof(a)),
			 rt_shape_string(want, b, sizeof(b)));
		return 0;
	}
	if (want->dtype == ENPU_RT_FLOAT16 || want->dtype == ENPU_RT_BFLOAT16) {
		if (memcmp(want->data, have.data, want->byte_size)) {
			snprintf(why, why_size, "16-bit float data differs");
			return 0;
		}
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		double w = rt_tensor_get_double(want, i);
		double h = rt_tensor_get_double(&have, i);
		int ok;

		if (want->dtype == ENPU_RT_FLOAT || want->dtype == ENPU_RT_DOUBLE)
			ok = (isnan(w) && isnan(h)) || w == h ||
			     fabs(h - w) <= ATOL + RTOL * fabs(w);
		else if (want->dtype == ENPU_RT_INT64 ||
			 want->dtype == ENPU_RT_UINT64)
			ok = !memcmp((const char *)want->data + i * 8,
				     (const char *)have.data + i * 8, 8);
		else
			ok = fabs(h - w) <= int_slack;
		if (!ok) {
			snprintf(why, why_size, "element %zu is %.9g, expected "
				 "%.9g", i, h, w);
			return 0;
		}
	}
	return 1;
}

static int has_slack_op(const struct rt_graph *g)
{
	for (size_t n = 0; n < g->node_count; n++)
		for (int i = 0; plus_minus_one_ops[i]; i++)
			if (!strcmp(g->nodes[n].op_type, plus_minus_one_ops[i]))
				return 1;
	return 0;
}

/*
 * onnx 1.12 wrote the bfloat16 tensors of its Cast tests as uint16
 * TensorProtos holding the same bits; read them as the model's bfloat16.
 */
static void bfloat16_quirk(enpu_rt_session *session, size_t index,
			   struct rt_tensor *t)
{
	struct enpu_rt_tensor_info info;

	if (t->dtype == ENPU_RT_UINT16 &&
	    !enpu_rt_session_input_info(session, index, &info) &&
	    info.dtype == ENPU_RT_BFLOAT16)
		t->dtype = ENPU_RT_BFLOAT16;
}

/* Runs one data set; 1 pass, 0 fail (message in why). */
static int run_data_set(enpu_rt_session *session, const char *dir,
			int slack, char *why, size_t why_size)
{
	struct rt_arena arena = { 0 };
	struct rt_error_sink errors = { .status = 0 };
	size_t inputs = enpu_rt_session_input_count(session);
	size_t outputs = enpu_rt_session_output_count(session);
	int ok = 0;

	arena.limit = (size_t)1 << 31;
	for (size_t i = 0; i < inputs; i++) {
		char path[4096];
		void *data;
		size_t size, index = i;
		struct rt_tensor t;

		snprintf(path, sizeof(path), "%s/input_%zu.pb", dir, i);
		if (rt_read_file(path, (size_t)1 << 31, &data, &size,
				 &errors)) {
			snprintf(why, why_size, "%s", errors.message);
			goto out;
		}
		int status = rt_onnx_parse_tensor(data, size, &arena, &t,
						  &errors);

		free(data);
		if (status) {
			snprintf(why, why_size, "input_%zu.pb: %s", i,
				 errors.message);
			goto out;
		}
		if (t.name && *t.name)
			enpu_rt_session_find_input(session, t.name, &index);
		bfloat16_quirk(session, index, &t);
		if (enpu_rt_session_bind_input(session, index, t.dtype,
					       (size_t)t.rank, t.dims, t.data,
					       t.byte_size)) {
			snprintf(why, why_size, "bind: %s",
				 enpu_rt_session_error(session));
			goto out;
		}
	}
	if (enpu_rt_session_run(session)) {
		snprintf(why, why_size, "run: %s",
			 enpu_rt_session_error(session));
		goto out;
	}
	for (size_t o = 0; o < outputs; o++) {
		char path[4096];
		void *data;
		size_t size, index = o;
		struct rt_tensor want;
		struct enpu_rt_output got;
		char detail[512];

		snprintf(path, sizeof(path), "%s/output_%zu.pb", dir, o);
		if (rt_read_file(path, (size_t)1 << 31, &data, &size,
				 &errors)) {
			snprintf(why, why_size, "%s", errors.message);
			goto out;
		}
		int status = rt_onnx_parse_tensor(data, size, &arena, &want,
						  &errors);

		free(data);
		if (status) {
			snprintf(why, why_size, "output_%zu.pb: %s", o,
				 errors.message);
			goto out;
		}
		if (want.name && *want.name)
			enpu_rt_session_find_output(session, want.name, &index);
		if (enpu_rt_session_output(session, index, &got)) {
			snprintf(why, why_size, "output %zu missing", o);
			goto out;
		}
		if (!compare(&want, &got, slack, detail, sizeof(detail))) {
			snprintf(why, why_size, "output %zu ('%s'): %s", o,
				 want.name ? want.name : "", detail);
			goto out;
		}
	}
	ok = 1;
out:
	rt_arena_free_all(&arena);
	return ok;
}

/* 1 pass, -1 fail, 0 skip. */
static int run_test(struct runner *r, const char *suite, const char *dir,
		    const char *name)
{
	char model[4096], why[1024] = "", reason[256];
	struct rt_error_sink errors = { .status = 0 };
	struct rt_graph graph;
	enpu_rt_options *options = NULL;
	enpu_rt_session *session = NULL;
	void *data = NULL;
	size_t size;
	int result = 0, status, slack, sets = 0;

	snprintf(model, sizeof(model), "%s/model.onnx", dir);
	rt_graph_init(&graph, &errors);
	status = rt_read_file(model, (size_t)1 << 31, &data, &size, &errors);
	if (!status)
		status = rt_onnx_load(&graph, data, size, dir);
	free(data);
	if (status) {
		if (status == ENPU_RT_UNSUPPORTED) {
			/* Keep the reason short: its text after "): ". */
			const char *text = strstr(errors.message, "): ");

			snprintf(reason, sizeof(reason), "loader: %s",
				 text ? text + 3 : errors.message);
			add_reason(r, reason);
			result = 0;
		} else {
			snprintf(why, sizeof(why), "load: %s", errors.message);
			result = -1;
		}
		goto done;
	}
	for (size_t n = 0; n < graph.node_count; n++) {
		const struct rt_node *node = &graph.nodes[n];

		if (!rt_op_find(node->domain, node->op_type, node->opset)) {
			snprintf(reason, sizeof(reason), "unsupported op %s%s%s",
				 node->domain[0] ? node->domain : "",
				 node->domain[0] ? "." : "", node->op_type);
			add_reason(r, reason);
			goto done;
		}
	}
	slack = has_slack_op(&graph);
	enpu_rt_options_create(&options);
	status = enpu_rt_session_create_from_file(model, options, &session);
	if (status == ENPU_RT_UNSUPPORTED) {
		const char *msg = enpu_rt_options_error(options);
		const char *op = strstr(msg, "(");
		char opname[64] = "?";

		if (op)
			sscanf(op + 1, "%63[^)]", opname);
		snprintf(reason, sizeof(reason), "unsupported variant of %s",
			 opname);
		add_reason(r, reason);
		if (r->verbose)
			printf("SKIP %s/%s: %s\n", suite, name, msg);
		goto done;
	}
	if (status) {
		snprintf(why, sizeof(why), "session: %s",
			 enpu_rt_options_error(options));
		result = -1;
		goto done;
	}
	result = 1;
	for (int set = 0; set < 64 && result > 0; set++) {
		char set_dir[4096], probe[4200];
		FILE *f;

		snprintf(set_dir, sizeof(set_dir), "%s/test_data_set_%d", dir,
			 set);
		snprintf(probe, sizeof(probe), "%s/output_0.pb", set_dir);
		f = fopen(probe, "rb");
		if (!f)
			break;
		fclose(f);
		sets++;
		if (!run_data_set(session, set_dir, slack, why, sizeof(why)))
			result = -1;
	}
	if (!sets && result > 0) {
		snprintf(why, sizeof(why), "no test data sets");
		result = -1;
	}
done:
	if (result < 0)
		printf("FAIL %s/%s: %s\n", suite, name, why);
	else if (result > 0 && r->verbose)
		printf("PASS %s/%s\n", suite, name);
	if (graph.names)
		count_ops(r, &graph, result);
	enpu_rt_session_destroy(session);
	enpu_rt_options_destroy(options);
	rt_graph_destroy(&graph);
	return result;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_suite(struct runner *r, const char *root)
{
	DIR *d = opendir(root);
	struct dirent *e;
	char **names = NULL;
	size_t count = 0;
	const char *suite = strrchr(root, '/') ? strrchr(root, '/') + 1 : root;

	if (!d) {
		printf("FAIL %s: cannot open the suite directory\n", root);
		r->failed++;
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char **grown = realloc(names, (count + 1) * sizeof(*names));

		if (!grown)
			break;
		names = grown;
		names[count] = strdup(e->d_name);
		if (names[count])
			count++;
	}
	closedir(d);
	qsort(names, count, sizeof(*names), compare_names);
	for (size_t i = 0; i < count; i++) {
		char dir[4096];
		int result;

		if (r->filter && !strstr(names[i], r->filter)) {
			free(names[i]);
			continue;
		}
		snprintf(dir, sizeof(dir), "%s/%s", root, names[i]);
		result = run_test(r, suite, dir, names[i]);
		if (result > 0)
			r->passed++;
		else if (result < 0)
			r->failed++;
		else
			r->skipped++;
		free(names[i]);
	}
	free(names);
}

static int compare_defs(const void *a, const void *b)
{
	const struct rt_op_def *x = *(const struct rt_op_def *const *)a;
	const struct rt_op_def *y = *(const struct rt_op_def *const *)b;
	int c = strcmp(x->domain, y->domain);

	if (!c)
		c = strcmp(x->op_type, y->op_type);
	return c ? c : x->opset_min - y->opset_min;
}

static int write_ops_md(struct runner *r, const char *path)
{
	const struct rt_op_def *defs[1024];
	size_t count = 0;
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		return -1;
	}
	while (count < 1024 && (defs[count] = rt_op_at(count)))
		count++;
	qsort(defs, count, sizeof(defs[0]), compare_defs);
	fprintf(f, "# Supported ONNX operators\n\n"
		"Generated by `make docs-ops` (tests/conformance) from the op "
		"registry\n(userspace/runtime/ops/op_families.h) and a "
		"conformance run over\nDebian's libonnx-testdata "
		"(node, pytorch-converted, pytorch-operator,\nsimple). Do not "
		"edit by hand.\n\n"
		"Counts are test models containing the op: passed / failed / "
		"skipped\n(a skip is a variant the op refuses at load, e.g. "
		"an unsupported type,\nor another op of the model missing). "
		"Opsets are the model's opset import\nfor the op's domain.\n\n"
		"| op | domain | opsets | passed | failed | skipped |\n"
		"|----|--------|--------|-------:|-------:|--------:|\n");
	for (size_t i = 0; i < count; i++) {
		const struct op_stats *s = NULL;

		if (i && !strcmp(defs[i]->op_type, defs[i - 1]->op_type) &&
		    !strcmp(defs[i]->domain, defs[i - 1]->domain))
			continue;
		for (int j = 0; j < r->op_count; j++)
			if (!strcmp(r->ops[j].op_type, defs[i]->op_type))
				s = &r->ops[j];
		int lo = defs[i]->opset_min, hi = defs[i]->opset_max;

		for (size_t j = i + 1; j < count &&
		     !strcmp(defs[j]->op_type, defs[i]->op_type) &&
		     !strcmp(defs[j]->domain, defs[i]->domain); j++) {
			if (defs[j]->opset_min < lo)
				lo = defs[j]->opset_min;
			if (defs[j]->opset_max > hi)
				hi = defs[j]->opset_max;
		}
		fprintf(f, "| %s | %s | %d-%d | %d | %d | %d |\n",
			defs[i]->op_type,
			defs[i]->domain[0] ? defs[i]->domain : "ai.onnx", lo,
			hi, s ? s->passed : 0, s ? s->failed : 0,
			s ? s->skipped : 0);
	}
	fprintf(f, "\nTotals of the run: %d passed, %d failed, %d skipped.\n",
		r->passed, r->failed, r->skipped);
	fclose(f);
	return 0;
}

static int compare_reasons(const void *a, const void *b)
{
	const struct reason *x = a, *y = b;

	return x->count != y->count ? y->count - x->count :
	       strcmp(x->text, y->text);
}

int main(int argc, char **argv)
{
	static struct runner r;
	const char *ops_md = NULL;
	int suites = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ops-md") && i + 1 < argc)
			ops_md = argv[++i];
		else if (!strcmp(argv[i], "--verbose"))
			r.verbose = 1;
		else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
			r.filter = argv[++i];
		else {
			run_suite(&r, argv[i]);
			suites++;
		}
	}
	if (!suites) {
		fprintf(stderr, "usage: %s [--ops-md FILE] [--verbose] "
			"[--filter SUBSTR] SUITE_DIR...\n", argv[0]);
		return 2;
	}
	qsort(r.reasons, (size_t)r.reason_count, sizeof(r.reasons[0]),
	      compare_reasons);
	printf("skipped, by reason:\n");
	for (int i = 0; i < r.reason_count; i++)
		printf("  %4d  %s\n", r.reasons[i].count, r.reasons[i].text);
	if (ops_md && write_ops_md(&r, ops_md))
		return 1;
	printf("conformance: %d passed, %d failed, %d skipped\n", r.passed,
	       r.failed, r.skipped);
	return r.failed ? 1 : 0;
}
