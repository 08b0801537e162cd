// SPDX-License-Identifier: MIT
/*
 * Unit tests of the runtime core: loader, graph passes, executor and the
 * public API, on models built in memory (model_builder.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cpu/test_harness.h"
#include "enpu/enpu_rt.h"
#include "model_builder.h"
#include "rt_open.h"

static void test_add_broadcast_runs(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	int64_t a_dims[] = { 2, 3 }, b_dims[] = { 3 };
	float a[6] = { 1, 2, 3, 4, 5, 6 }, b[3] = { 10, 20, 30 };
	struct enpu_rt_output out;
	char error[1024];

	mb_init(&mb, 13);
	mb_input(&mb, "a", ENPU_RT_FLOAT, 2, a_dims);
	mb_input(&mb, "b", ENPU_RT_FLOAT, 1, b_dims);
	mb_node(&mb, "Add", "a,b", "y");
	mb_output(&mb, "y");
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) == 0,
	      "%s", error);
	if (!s)
		goto out;
	CHECK(t, enpu_rt_session_input_count(s) == 2, "inputs");
	CHECK(t, enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 2, a_dims, a,
					    sizeof(a)) == 0, "bind a");
	CHECK(t, enpu_rt_session_run(s) == ENPU_RT_NOT_READY,
	      "run with b unbound must say not ready");
	CHECK(t, strstr(enpu_rt_session_error(s), "'b'") != NULL, "%s",
	      enpu_rt_session_error(s));
	CHECK(t, enpu_rt_session_bind_input(s, 1, ENPU_RT_FLOAT, 1, b_dims, b,
					    sizeof(b)) == 0, "bind b");
	CHECK(t, enpu_rt_session_run(s) == 0, "%s", enpu_rt_session_error(s));
	CHECK(t, enpu_rt_session_output(s, 0, &out) == 0, "output");
	CHECK(t, out.rank == 2 && out.dims[0] == 2 && out.dims[1] == 3,
	      "shape");
	for (int i = 0; i < 6; i++)
		CHECK(t, ((const float *)out.data)[i] == a[i] + b[i % 3],
		      "element %d", i);
out:
	enpu_rt_session_destroy(s);
	mb_free(&mb);
}

static void test_bind_rejects_wrong_type_and_shape(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	int64_t dims[] = { 2, 2 }, bad[] = { 2, 3 };
	float x[6] = { 0 };

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 2, dims);
	mb_node(&mb, "Relu", "x", "y");
	mb_output(&mb, "y");
	CHECK(t, mb_open(&mb, 1, NULL, &s, NULL, 0) == 0, "open");
	if (!s)
		goto out;
	CHECK(t, enpu_rt_session_bind_input(s, 0, ENPU_RT_INT32, 2, dims, x,
					    16) == ENPU_RT_INVALID_ARGUMENT,
	      "wrong type accepted");
	CHECK(t, enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 2, bad, x,
					    24) == ENPU_RT_INVALID_ARGUMENT,
	      "wrong shape accepted");
	CHECK(t, strstr(enpu_rt_session_error(s), "dimension 1") != NULL,
	      "%s", enpu_rt_session_error(s));
	CHECK(t, enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 2, dims, x,
					    15) == ENPU_RT_INVALID_ARGUMENT,
	      "wrong byte size accepted");
	CHECK(t, enpu_rt_session_bind_input(s, 5, ENPU_RT_FLOAT, 2, dims, x,
					    16) == ENPU_RT_INVALID_ARGUMENT,
	      "bad index accepted");
out:
	enpu_rt_session_destroy(s);
	mb_free(&mb);
}

static void test_symbolic_batch_reshapes_per_run(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	int64_t declared[] = { -1, 2 }, two[] = { 2, 2 }, three[] = { 3, 2 };
	float x[6] = { -1, 2, -3, 4, -5, 6 };
	struct enpu_rt_output out;
	struct enpu_rt_tensor_info info;

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 2, declared);
	mb_node(&mb, "Relu", "x", "r");
	mb_node(&mb, "Flatten", "r", "y");
	mb_output(&mb, "y");
	CHECK(t, mb_open(&mb, 1, NULL, &s, NULL, 0) == 0, "open");
	if (!s)
		goto out;
	CHECK(t, enpu_rt_session_input_info(s, 0, &info) == 0 &&
	      info.dims[0] == -1 && info.dim_names[0] &&
	      !strcmp(info.dim_names[0], "N"), "symbolic dim reported");
	enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 2, two, x, 16);
	CHECK(t, enpu_rt_session_run(s) == 0, "%s", enpu_rt_session_error(s));
	enpu_rt_session_output(s, 0, &out);
	CHECK(t, out.dims[0] == 2 && out.byte_size == 16, "N=2 shape");
	enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 2, three, x, 24);
	CHECK(t, enpu_rt_session_run(s) == 0, "%s", enpu_rt_session_error(s));
	enpu_rt_session_output(s, 0, &out);
	CHECK(t, out.dims[0] == 3 && out.byte_size == 24, "N=3 shape");
	CHECK(t, ((const float *)out.data)[4] == 0 &&
	      ((const float *)out.data)[5] == 6, "N=3 values");
out:
	enpu_rt_session_destroy(s);
	mb_free(&mb);
}

/*
 * A run that fails halfway leaves the CPU partition's buffer bookkeeping
 * of the values it reached (readers left, blocks held); the next run
 * starts it afresh. Here the Reshape fails after Neg read 'a', which Mul
 * reads again: were 'a''s reader count left as the failed run left it,
 * the next run would give its block back after Neg, Add would write 'm'
 * over it, and Mul would square 'm' (4a^2 for -2a^2).
 */
static void test_run_after_failed_run(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	int64_t four[] = { 4 }, one[] = { 1 };
	float x[4] = { -1, 2, 3, -4 };
	int64_t bad_shape[1] = { 5 }, shape[1] = { 4 };
	struct enpu_rt_output out;

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, four);
	mb_input(&mb, "s", ENPU_RT_INT64, 1, one);
	mb_node(&mb, "Relu", "x", "a");
	mb_node(&mb, "Neg", "a", "n");
	mb_node(&mb, "Reshape", "n,s", "r");
	mb_node(&mb, "Add", "r,r", "m");
	mb_node(&mb, "Mul", "m,a", "y");
	mb_output(&mb, "y");
	CHECK(t, mb_open(&mb, 1, NULL, &s, NULL, 0) == 0, "open");
	if (!s)
		goto out;
	enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 1, four, x, sizeof(x));
	enpu_rt_session_bind_input(s, 1, ENPU_RT_INT64, 1, one, bad_shape,
				   sizeof(bad_shape));
	CHECK(t, enpu_rt_session_run(s) != 0 &&
	      strstr(enpu_rt_session_error(s), "Reshape"), "%s",
	      enpu_rt_session_error(s));
	enpu_rt_session_bind_input(s, 1, ENPU_RT_INT64, 1, one, shape,
				   sizeof(shape));
	for (int run = 0; run < 2; run++) {
		CHECK(t, enpu_rt_session_run(s) == 0, "%s",
		      enpu_rt_session_error(s));
		CHECK(t, enpu_rt_session_output(s, 0, &out) == 0 &&
		      out.byte_size == sizeof(x), "output");
		for (int i = 0; i < 4; i++) {
			float a = x[i] > 0 ? x[i] : 0;

			CHECK(t, ((const float *)out.data)[i] == -2 * a * a,
			      "run %d element %d: %g", run, i,
			      ((const float *)out.data)[i]);
		}
	}
out:
	enpu_rt_session_destroy(s);
	mb_free(&mb);
}

static void test_garbage_is_invalid_model(struct test_state *t)
{
	static const uint8_t garbage[] = { 0xff, 0xff, 0xff, 0xff, 0x0f, 1 };
	enpu_rt_options *options;
	enpu_rt_session *s = (enpu_rt_session *)1;

	enpu_rt_options_create(&options);
	CHECK(t, enpu_rt_session_create_from_memory(garbage, sizeof(garbage),
						    NULL, options, &s) ==
	      ENPU_RT_INVALID_MODEL, "garbage accepted");
	CHECK(t, s == NULL, "session not NULL on failure");
	CHECK(t, strstr(enpu_rt_options_error(options), "ModelProto"), "%s",
	      enpu_rt_options_error(options));
	CHECK(t, enpu_rt_session_create_from_file("/nonexistent/m.onnx",
						  options, &s) ==
	      ENPU_RT_IO_ERROR, "missing file");
	enpu_rt_options_destroy(options);
}

static void test_every_truncation_fails_cleanly(struct test_state *t)
{
	struct model_builder mb;
	int64_t dims[] = { 2, 2 };
	float w[4] = { 1, 2, 3, 4 };
	size_t size, failures = 0;
	uint8_t *bytes;

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 2, dims);
	mb_initializer(&mb, "w", ENPU_RT_FLOAT, 2, dims, w, sizeof(w));
	mb_node(&mb, "MatMul", "x,w", "y");
	mb_output(&mb, "y");
	bytes = mb_pack(&mb, &size);
	/* Every strict prefix is either rejected or a valid smaller model. */
	for (size_t cut = 0; cut < size; cut++) {
		enpu_rt_session *s = NULL;

		if (enpu_rt_session_create_from_memory(bytes, cut, NULL, NULL,
						       &s))
			failures++;
		enpu_rt_session_destroy(s);
	}
	CHECK(t, failures >= size / 2, "only %zu of %zu prefixes rejected",
	      failures, size);
	mb_free(&mb);
}

static void test_unsupported_op_names_node_and_op(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	int64_t dims[] = { 2 };
	char error[1024];

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "FrobnicateTensor", "x", "y");
	mb_output(&mb, "y");
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) ==
	      ENPU_RT_UNSUPPORTED, "unsupported op accepted");
	CHECK(t, strstr(error, "node 'FrobnicateTensor'") &&
	      strstr(error, "unsupported op FrobnicateTensor"), "%s", error);
	mb_free(&mb);
}

static void test_missing_input_names_value(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	int64_t dims[] = { 2 };
	char error[1024];

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "Add", "x,ghost", "y");
	mb_output(&mb, "y");
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) ==
	      ENPU_RT_INVALID_MODEL, "dangling input accepted");
	CHECK(t, strstr(error, "(Add)") && strstr(error, "'ghost'"), "%s",
	      error);
	mb_free(&mb);
}

/* A malformed body (here: no outputs) is refused naming node and attribute. */
static void test_subgraph_attribute_checked(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	int64_t dims[] = { 1 };
	char error[1024];
	Onnx__NodeProto *node;

	mb_init(&mb, 13);
	mb_input(&mb, "c", ENPU_RT_BOOL, 1, dims);
	node = mb_node(&mb, "If", "c", "y");
	mb_attr_graph(&mb, node, "then_branch");
	mb_output(&mb, "y");
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) ==
	      ENPU_RT_INVALID_MODEL, "empty subgraph accepted");
	CHECK(t, strstr(error, "(If): attribute 'then_branch': graph has no "
			"outputs"), "%s", error);
	mb_free(&mb);
}

static void test_cycle_rejected(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	int64_t dims[] = { 1 };
	char error[1024];

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "Add", "x,b", "a");
	mb_node(&mb, "Relu", "a", "b");
	mb_output(&mb, "b");
	CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) ==
	      ENPU_RT_INVALID_MODEL, "cycle accepted");
	CHECK(t, strstr(error, "cycle"), "%s", error);
	mb_free(&mb);
}

static void test_bad_initializers_rejected(struct test_state *t)
{
	static const struct {
		int64_t dims[2];
		size_t bytes;
		const char *message;
	} cases[] = {
		{ { 2, 2 }, 12, "raw_data holds 12 bytes" },
		{ { -1, 2 }, 8, "negative" },
		{ { INT64_MAX, 4 }, 16, "larger than" },
	};
	float w[4] = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct model_builder mb;
		enpu_rt_session *s = NULL;
		int64_t dims[] = { 2, 2 };
		char error[1024];

		mb_init(&mb, 13);
		mb_input(&mb, "x", ENPU_RT_FLOAT, 2, dims);
		mb_initializer(&mb, "w", ENPU_RT_FLOAT, 2, cases[i].dims, w,
			       cases[i].bytes);
		mb_node(&mb, "MatMul", "x,w", "y");
		mb_output(&mb, "y");
		CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) ==
		      ENPU_RT_INVALID_MODEL, "case %zu accepted", i);
		CHECK(t, strstr(error, "'w'") &&
		      strstr(error, cases[i].message), "case %zu: %s", i,
		      error);
		enpu_rt_session_destroy(s);
		mb_free(&mb);
	}
}

static void add_external(struct model_builder *mb, Onnx__TensorProto *tp,
			 const char *location, const char *length)
{
	Onnx__StringStringEntryProto **entries =
		rt_arena_alloc(&mb->arena, 2 * sizeof(*entries));

	for (int i = 0; i < 2; i++) {
		entries[i] = rt_arena_alloc(&mb->arena, sizeof(**entries));
		onnx__string_string_entry_proto__init(entries[i]);
	}
	entries[0]->key = rt_arena_strdup(&mb->arena, "location");
	entries[0]->value = rt_arena_strdup(&mb->arena, location);
	entries[1]->key = rt_arena_strdup(&mb->arena, "length");
	entries[1]->value = rt_arena_strdup(&mb->arena, length);
	tp->n_external_data = 2;
	tp->external_data = entries;
	tp->has_raw_data = 0;
	tp->has_data_location = 1;
	tp->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
}

static void test_external_data(struct test_state *t)
{
	char dir[] = "/tmp/enpu-rt-test-XXXXXX", path[256];
	float w[4] = { 1, 0, 0, 1 }, x[4] = { 5, 6, 7, 8 };
	int64_t dims[] = { 2, 2 };
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(t, 0, "mkdtemp failed");
		return;
	}
	snprintf(path, sizeof(path), "%s/weights.bin", dir);
	f = fopen(path, "wb");
	fwrite(w, sizeof(w), 1, f);
	fclose(f);
	static const struct {
		const char *location, *length;
		enum enpu_rt_status status;
		const char *message;
	} cases[] = {
		{ "weights.bin", "16", ENPU_RT_OK, "" },
		{ "../weights.bin", "16", ENPU_RT_INVALID_MODEL,
		  "leaves the model directory" },
		{ "/etc/passwd", "16", ENPU_RT_INVALID_MODEL,
		  "leaves the model directory" },
		{ "weights.bin", "32", ENPU_RT_INVALID_MODEL,
		  "does not match" },
		{ "missing.bin", "16", ENPU_RT_IO_ERROR, "cannot open" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct model_builder mb;
		enpu_rt_session *s = NULL;
		char error[1024];
		struct enpu_rt_output out;
		enum enpu_rt_status status;

		mb_init(&mb, 13);
		mb_input(&mb, "x", ENPU_RT_FLOAT, 2, dims);
		add_external(&mb, mb_initializer(&mb, "w", ENPU_RT_FLOAT, 2,
						 dims, w, 0),
			     cases[i].location, cases[i].length);
		mb_node(&mb, "MatMul", "x,w", "y");
		mb_output(&mb, "y");
		status = mb_open(&mb, 1, dir, &s, error, sizeof(error));
		CHECK(t, status == cases[i].status, "case %zu: %d %s", i,
		      status, error);
		CHECK(t, strstr(error, cases[i].message), "case %zu: %s", i,
		      error);
		if (s) {
			enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 2,
						   dims, x, sizeof(x));
			CHECK(t, enpu_rt_session_run(s) == 0 &&
			      enpu_rt_session_output(s, 0, &out) == 0 &&
			      !memcmp(out.data, x, sizeof(x)),
			      "identity weights from the file");
		}
		enpu_rt_session_destroy(s);
		mb_free(&mb);
	}
	/* Without a directory (from memory) external data is refused. */
	{
		struct model_builder mb;
		enpu_rt_session *s = NULL;
		char error[1024];

		mb_init(&mb, 13);
		mb_input(&mb, "x", ENPU_RT_FLOAT, 2, dims);
		add_external(&mb, mb_initializer(&mb, "w", ENPU_RT_FLOAT, 2,
						 dims, w, 0),
			     "weights.bin", "16");
		mb_node(&mb, "MatMul", "x,w", "y");
		mb_output(&mb, "y");
		CHECK(t, mb_open(&mb, 1, NULL, &s, error, sizeof(error)) ==
		      ENPU_RT_INVALID_MODEL && strstr(error, "from memory"),
		      "%s", error);
		mb_free(&mb);
	}
	unlink(path);
	rmdir(dir);
}

/*
 * An LSTM whose sequence_lens holds fewer lengths than the batch has rows
 * is refused with a message (it was read past its end: ASan, fuzz-replay
 * of test_lstm_with_seq_lens mutations).
 */
static void test_lstm_short_sequence_lens_rejected(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	int64_t xd[] = { 2, 3, 1 }, wd[] = { 1, 4, 1 }, rd[] = { 1, 4, 1 };
	int64_t ld[] = { 2 };
	float x[6] = { 1, 2, 3, 4, 5, 6 }, w[4] = { 1, 1, 1, 1 };
	float r[4] = { 0.5f, 0.5f, 0.5f, 0.5f };
	int32_t lens[2] = { 2, 2 };
	enum enpu_rt_status status;
	char error[1024];

	mb_init(&mb, 14);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 3, xd);
	mb_initializer(&mb, "w", ENPU_RT_FLOAT, 3, wd, w, sizeof(w));
	mb_initializer(&mb, "r", ENPU_RT_FLOAT, 3, rd, r, sizeof(r));
	mb_initializer(&mb, "lens", ENPU_RT_INT32, 1, ld, lens, sizeof(lens));
	mb_attr_int(&mb, mb_node(&mb, "LSTM", "x,w,r,,lens", "y"),
		    "hidden_size", 1);
	mb_output(&mb, "y");
	status = mb_open(&mb, 0, NULL, &s, error, sizeof(error));
	if (!status && s) {
		enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 3, xd, x,
					   sizeof(x));
		status = enpu_rt_session_run(s);
		snprintf(error, sizeof(error), "%s", enpu_rt_session_error(s));
	}
	CHECK(t, status == ENPU_RT_INVALID_MODEL, "status %d: %s", status,
	      error);
	CHECK(t, strstr(error, "sequence_lens") != NULL, "%s", error);
	enpu_rt_session_destroy(s);
	mb_free(&mb);
}

/*
 * QLinearConv with zero scales: 0 x (0 / 0) is NaN, which the op used to
 * convert to uint8 (undefined; UBSan in fuzz-onnx on test_qlinearconv run
 * on zeroed inputs). The output is the zero point.
 */
static void test_qlinearconv_zero_scales_give_zero_point(struct test_state *t)
{
	struct model_builder mb;
	enpu_rt_session *s = NULL;
	int64_t xd[] = { 1, 1, 2, 2 }, wd[] = { 1, 1, 1, 1 };
	uint8_t x[4] = { 1, 2, 3, 4 }, zero = 0, y_zp = 7;
	int8_t w = 1, w_zp = 0;
	float scale0 = 0, scale1 = 1;
	struct enpu_rt_output out;
	char error[1024];

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_UINT8, 4, xd);
	mb_initializer(&mb, "xs", ENPU_RT_FLOAT, 0, NULL, &scale0, 4);
	mb_initializer(&mb, "xz", ENPU_RT_UINT8, 0, NULL, &zero, 1);
	mb_initializer(&mb, "w", ENPU_RT_INT8, 4, wd, &w, 1);
	mb_initializer(&mb, "ws", ENPU_RT_FLOAT, 0, NULL, &scale1, 4);
	mb_initializer(&mb, "wz", ENPU_RT_INT8, 0, NULL, &w_zp, 1);
	mb_initializer(&mb, "ys", ENPU_RT_FLOAT, 0, NULL, &scale0, 4);
	mb_initializer(&mb, "yz", ENPU_RT_UINT8, 0, NULL, &y_zp, 1);
	mb_node(&mb, "QLinearConv", "x,xs,xz,w,ws,wz,ys,yz", "y");
	mb_output(&mb, "y");
	CHECK(t, mb_open(&mb, 0, NULL, &s, error, sizeof(error)) == 0,
	      "%s", error);
	if (s) {
		enpu_rt_session_bind_input(s, 0, ENPU_RT_UINT8, 4, xd, x,
					   sizeof(x));
		CHECK(t, enpu_rt_session_run(s) == 0, "%s",
		      enpu_rt_session_error(s));
		CHECK(t, enpu_rt_session_output(s, 0, &out) == 0 &&
		      out.byte_size == 4, "output");
		for (int i = 0; i < 4 && out.byte_size == 4; i++)
			CHECK(t, ((const uint8_t *)out.data)[i] == y_zp,
			      "element %d is %u", i,
			      ((const uint8_t *)out.data)[i]);
	}
	enpu_rt_session_destroy(s);
	mb_free(&mb);
}

/*
 * A variadic Max with an empty input name: the op read the absent tensor
 * (UBSan in fuzz-onnx, a mutation of test_max_int16). Refused, naming the
 * input.
 */
static void test_variadic_op_with_empty_input_rejected(struct test_state *t)
{
	static const char *const inputs[] = { "x,", ",x", "x,x," };
	int64_t dims[] = { 3 };
	float x[3] = { 1, 2, 3 };

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct model_builder mb;
		enpu_rt_session *s = NULL;
		enum enpu_rt_status status;
		char error[1024];

		mb_init(&mb, 13);
		mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
		mb_node(&mb, "Max", inputs[i], "y");
		mb_output(&mb, "y");
		status = mb_open(&mb, 0, NULL, &s, error, sizeof(error));
		if (!status && s) {
			enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 1, dims,
						   x, sizeof(x));
			status = enpu_rt_session_run(s);
			snprintf(error, sizeof(error), "%s",
				 enpu_rt_session_error(s));
		}
		CHECK(t, status == ENPU_RT_INVALID_MODEL, "Max(%s): %d %s",
		      inputs[i], status, error);
		CHECK(t, strstr(error, "empty") != NULL, "Max(%s): %s",
		      inputs[i], error);
		enpu_rt_session_destroy(s);
		mb_free(&mb);
	}
}

/* Runs the same model optimized and not; returns node counts. */
static void run_both(struct test_state *t, struct model_builder *mb,
		     const int64_t *dims, int rank, int32_t dtype,
		     const void *x, size_t bytes, void *out_opt,
		     void *out_plain, size_t out_bytes, size_t nodes[2])
{
	for (int optimize = 1; optimize >= 0; optimize--) {
		enpu_rt_session *s = NULL;
		struct enpu_rt_output out;
		char error[1024];

		CHECK(t, mb_open(mb, optimize, NULL, &s, error,
				    sizeof(error)) == 0, "%s", error);
		if (!s)
			continue;
		nodes[optimize ? 0 : 1] = enpu_rt_session_node_count(s);
		enpu_rt_session_bind_input(s, 0, dtype, (size_t)rank, dims, x,
					   bytes);
		CHECK(t, enpu_rt_session_run(s) == 0, "%s",
		      enpu_rt_session_error(s));
		if (!enpu_rt_session_output(s, 0, &out)) {
			CHECK(t, out.byte_size == out_bytes, "size %zu",
			      out.byte_size);
			if (out.byte_size == out_bytes)
				memcpy(optimize ? out_opt : out_plain,
				       out.data, out_bytes);
		}
		enpu_rt_session_destroy(s);
	}
}

static void test_matmul_bias_relu_fuse(struct test_state *t)
{
	struct model_builder mb;
	int64_t xd[] = { 2, 3 }, wd[] = { 3, 4 }, bd[] = { 4 };
	float x[6] = { 1, -2, 3, -4, 5, -6 }, w[12], b[4] = { -1, 0, 1, 2 };
	float opt[8], plain[8];
	size_t nodes[2] = { 0, 0 };

	for (int i = 0; i < 12; i++)
		w[i] = (float)(i % 5) - 2.0f;
	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 2, xd);
	mb_initializer(&mb, "w", ENPU_RT_FLOAT, 2, wd, w, sizeof(w));
	mb_initializer(&mb, "b", ENPU_RT_FLOAT, 1, bd, b, sizeof(b));
	mb_node(&mb, "MatMul", "x,w", "m");
	mb_node(&mb, "Add", "b,m", "a");
	mb_node(&mb, "Relu", "a", "y");
	mb_output(&mb, "y");
	run_both(t, &mb, xd, 2, ENPU_RT_FLOAT, x, sizeof(x), opt, plain,
		 sizeof(opt), nodes);
	CHECK(t, nodes[0] == 1 && nodes[1] == 3, "nodes %zu optimized, %zu "
	      "plain", nodes[0], nodes[1]);
	for (int i = 0; i < 8; i++) {
		float want = b[i % 4];

		for (int k = 0; k < 3; k++)
			want += x[(i / 4) * 3 + k] * w[k * 4 + i % 4];
		want = want > 0 ? want : 0;
		CHECK(t, opt[i] == want && plain[i] == want,
		      "element %d: %g %g want %g", i, opt[i], plain[i], want);
	}
	mb_free(&mb);
}

static void test_constant_subgraph_folds(struct test_state *t)
{
	struct model_builder mb;
	int64_t xd[] = { 2, 3 }, sd[] = { 1 };
	int64_t shape[1] = { -1 };
	float x[6] = { 1, 2, 3, 4, 5, 6 }, opt[6], plain[6];
	size_t nodes[2] = { 0, 0 };

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 2, xd);
	mb_initializer(&mb, "s", ENPU_RT_INT64, 1, sd, shape, sizeof(shape));
	/* Identity(s) is constant; Reshape's shape input becomes known. */
	mb_node(&mb, "Identity", "s", "s2");
	mb_node(&mb, "Reshape", "x,s2", "y");
	mb_output(&mb, "y");
	run_both(t, &mb, xd, 2, ENPU_RT_FLOAT, x, sizeof(x), opt, plain,
		 sizeof(opt), nodes);
	CHECK(t, nodes[0] == 1 && nodes[1] == 2, "nodes %zu optimized, %zu "
	      "plain", nodes[0], nodes[1]);
	CHECK(t, !memcmp(opt, x, sizeof(x)) && !memcmp(plain, x, sizeof(x)),
	      "values");
	mb_free(&mb);
}

/* QDQ MatMul: optimized into one QGemm, within one step of the float path. */
static void test_qdq_matmul_lowers_to_qgemm(struct test_state *t)
{
	struct model_builder mb;
	int64_t xd[] = { 3, 8 }, wd[] = { 8, 5 }, cd[] = { 5 };
	uint8_t x[24], opt[15], plain[15];
	int8_t w[40];
	float one = 0.05f, ws[5] = { 0.01f, 0.02f, 0.03f, 0.015f, 0.025f };
	float ys = 0.1f;
	uint8_t xz = 128, yz = 100;
	int8_t wz[5] = { 0 };
	size_t nodes[2] = { 0, 0 };

	for (int i = 0; i < 24; i++)
		x[i] = (uint8_t)(i * 37 % 256);
	for (int i = 0; i < 40; i++)
		w[i] = (int8_t)((i * 53 % 255) - 127);
	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_UINT8, 2, xd);
	mb_initializer(&mb, "xs", ENPU_RT_FLOAT, 0, NULL, &one, 4);
	mb_initializer(&mb, "xz", ENPU_RT_UINT8, 0, NULL, &xz, 1);
	mb_initializer(&mb, "w", ENPU_RT_INT8, 2, wd, w, sizeof(w));
	mb_initializer(&mb, "ws", ENPU_RT_FLOAT, 1, cd, ws, sizeof(ws));
	mb_initializer(&mb, "wz", ENPU_RT_INT8, 1, cd, wz, sizeof(wz));
	mb_initializer(&mb, "ys", ENPU_RT_FLOAT, 0, NULL, &ys, 4);
	mb_initializer(&mb, "yz", ENPU_RT_UINT8, 0, NULL, &yz, 1);
	mb_node(&mb, "DequantizeLinear", "x,xs,xz", "xf");
	mb_attr_int(&mb, mb_node(&mb, "DequantizeLinear", "w,ws,wz", "wf"),
		    "axis", 1);
	mb_node(&mb, "MatMul", "xf,wf", "mf");
	mb_node(&mb, "Relu", "mf", "rf");
	mb_node(&mb, "QuantizeLinear", "rf,ys,yz", "y");
	mb_output(&mb, "y");
	run_both(t, &mb, xd, 2, ENPU_RT_UINT8, x, sizeof(x), opt, plain,
		 sizeof(opt), nodes);
	CHECK(t, nodes[0] == 1, "optimized graph has %zu nodes", nodes[0]);
	CHECK(t, nodes[1] == 5, "plain graph has %zu nodes (no folding)",
	      nodes[1]);
	for (int i = 0; i < 15; i++) {
		double acc = 0;

		for (int k = 0; k < 8; k++)
			acc += (x[(i / 5) * 8 + k] - 128) * 0.05 *
			       w[k * 5 + i % 5] * ws[i % 5];
		acc = acc > 0 ? acc : 0;
		double q = nearbyint(acc / ys) + yz;

		q = q > 255 ? 255 : q;
		CHECK(t, fabs(opt[i] - q) <= 1 && fabs(plain[i] - q) <= 1,
		      "element %d: %d %d want %g", i, opt[i], plain[i], q);
	}
	mb_free(&mb);
}

/* QLinearMatMul with uint8 weights and a non-zero weight zero point. */
static void test_qlinear_matmul_weight_zero_point(struct test_state *t)
{
	struct model_builder mb;
	int64_t ad[] = { 4, 16 }, bd[] = { 16, 6 };
	uint8_t a[64], b[96], opt[24], plain[24];
	float as = 0.02f, bs = 0.03f, ys = 0.5f;
	uint8_t az = 10, bz = 200, yz = 30;
	size_t nodes[2] = { 0, 0 };

	for (int i = 0; i < 64; i++)
		a[i] = (uint8_t)(i * 29 % 256);
	for (int i = 0; i < 96; i++)
		b[i] = (uint8_t)(i * 71 % 256);
	mb_init(&mb, 13);
	mb_input(&mb, "a", ENPU_RT_UINT8, 2, ad);
	mb_initializer(&mb, "as", ENPU_RT_FLOAT, 0, NULL, &as, 4);
	mb_initializer(&mb, "az", ENPU_RT_UINT8, 0, NULL, &az, 1);
	mb_initializer(&mb, "b", ENPU_RT_UINT8, 2, bd, b, sizeof(b));
	mb_initializer(&mb, "bs", ENPU_RT_FLOAT, 0, NULL, &bs, 4);
	mb_initializer(&mb, "bz", ENPU_RT_UINT8, 0, NULL, &bz, 1);
	mb_initializer(&mb, "ys", ENPU_RT_FLOAT, 0, NULL, &ys, 4);
	mb_initializer(&mb, "yz", ENPU_RT_UINT8, 0, NULL, &yz, 1);
	mb_node(&mb, "QLinearMatMul", "a,as,az,b,bs,bz,ys,yz", "y");
	mb_output(&mb, "y");
	run_both(t, &mb, ad, 2, ENPU_RT_UINT8, a, sizeof(a), opt, plain,
		 sizeof(opt), nodes);
	for (int i = 0; i < 24; i++) {
		int64_t acc = 0;

		for (int k = 0; k < 16; k++)
			acc += (int64_t)(a[(i / 6) * 16 + k] - az) *
			       (b[k * 6 + i % 6] - bz);
		double q = nearbyint((double)acc * as * bs / ys) + yz;

		q = q < 0 ? 0 : q > 255 ? 255 : q;
		CHECK(t, fabs(opt[i] - q) <= 1 && opt[i] == plain[i],
		      "element %d: %d %d want %g", i, opt[i], plain[i], q);
	}
	mb_free(&mb);
}

static void test_options_validate(struct test_state *t)
{
	enpu_rt_options *options;

	CHECK(t, enpu_rt_options_create(&options) == 0, "create");
	CHECK(t, enpu_rt_options_set_threads(options, 0) ==
	      ENPU_RT_INVALID_ARGUMENT, "0 threads accepted");
	CHECK(t, enpu_rt_options_set_threads(options, 2) == 0, "2 threads");
	CHECK(t, enpu_rt_options_set_isa(options, "mmx") ==
	      ENPU_RT_INVALID_ARGUMENT, "bogus ISA accepted");
	CHECK(t, strstr(enpu_rt_options_error(options), "mmx"), "%s",
	      enpu_rt_options_error(options));
	CHECK(t, enpu_rt_options_set_isa(options, "scalar") == 0, "scalar");
	enpu_rt_options_destroy(options);
	CHECK(t, !strcmp(enpu_rt_status_name(ENPU_RT_UNSUPPORTED),
			 "unsupported"), "status name");
	CHECK(t, enpu_rt_dtype_size(ENPU_RT_INT64) == 8 &&
	      enpu_rt_dtype_size(ENPU_RT_STRING) == 0, "dtype sizes");
}

static const struct test_case tests[] = {
	{ "add_broadcast_runs", test_add_broadcast_runs },
	{ "bind_rejects_wrong_type_and_shape",
	  test_bind_rejects_wrong_type_and_shape },
	{ "symbolic_batch_reshapes_per_run",
	  test_symbolic_batch_reshapes_per_run },
	{ "run_after_failed_run", test_run_after_failed_run },
	{ "garbage_is_invalid_model", test_garbage_is_invalid_model },
	{ "every_truncation_fails_cleanly",
	  test_every_truncation_fails_cleanly },
	{ "unsupported_op_names_node_and_op",
	  test_unsupported_op_names_node_and_op },
	{ "missing_input_names_value", test_missing_input_names_value },
	{ "subgraph_attribute_checked", test_subgraph_attribute_checked },
	{ "cycle_rejected", test_cycle_rejected },
	{ "bad_initializers_rejected", test_bad_initializers_rejected },
	{ "external_data", test_external_data },
	{ "lstm_short_sequence_lens_rejected",
	  test_lstm_short_sequence_lens_rejected },
	{ "qlinearconv_zero_scales_give_zero_point",
	  test_qlinearconv_zero_scales_give_zero_point },
	{ "variadic_op_with_empty_input_rejected",
	  test_variadic_op_with_empty_input_rejected },
	{ "matmul_bias_relu_fuse", test_matmul_bias_relu_fuse },
	{ "constant_subgraph_folds", test_constant_subgraph_folds },
	{ "qdq_matmul_lowers_to_qgemm", test_qdq_matmul_lowers_to_qgemm },
	{ "qlinear_matmul_weight_zero_point",
	  test_qlinear_matmul_weight_zero_point },
	{ "options_validate", test_options_validate },
};

/* test_loader.c: the loader's limits and refusals; ends with { NULL }. */
extern const struct test_case loader_tests[];
/* test_loader_graph.c: the graph the loader builds; { NULL } too. */
extern const struct test_case loader_graph_tests[];
/* test_loader_files.c: model files and external data; { NULL } too. */
extern const struct test_case loader_file_tests[];
/* test_qdq.c: quantized lowering and layout; ends with { NULL }. */
extern const struct test_case qdq_tests[];
/* test_backends.c: backend options, placement reports; { NULL } too. */
extern const struct test_case backend_tests[];

int main(void)
{
	int passed = 0, failed = 0;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		test_run(&tests[i], &passed, &failed);
	for (size_t i = 0; loader_tests[i].name; i++)
		test_run(&loader_tests[i], &passed, &failed);
	for (size_t i = 0; loader_graph_tests[i].name; i++)
		test_run(&loader_graph_tests[i], &passed, &failed);
	for (size_t i = 0; loader_file_tests[i].name; i++)
		test_run(&loader_file_tests[i], &passed, &failed);
	for (size_t i = 0; qdq_tests[i].name; i++)
		test_run(&qdq_tests[i], &passed, &failed);
	for (size_t i = 0; backend_tests[i].name; i++)
		test_run(&backend_tests[i], &passed, &failed);
	printf("test-rt: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
