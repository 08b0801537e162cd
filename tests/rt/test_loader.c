// SPDX-License-Identifier: MIT
/*
 * The ONNX loader's limits and refusals, each from both sides where it is
 * a limit, each asserting the status and the message that names the
 * problem (the gaps mutation testing found: rank above the limit, opset
 * imports, duplicate names, a graph without outputs).
 */
#include <string.h>

#include "../cpu/test_harness.h"
#include "enpu/enpu_rt.h"
#include "model_builder.h"
#include "rt_open.h"

/* Opens @mb; expects @status and, for a refusal, @message in the error. */
static void expect_open(struct test_state *t, struct model_builder *mb,
			enum enpu_rt_status status, const char *message,
			const char *what)
{
	enpu_rt_session *s = NULL;
	char error[1024];
	enum enpu_rt_status got;

	got = mb_open(mb, 1, NULL, &s, error, sizeof(error));
	CHECK(t, got == status, "%s: status %d, want %d (%s)", what, got,
	      status, error);
	if (status == ENPU_RT_OK)
		CHECK(t, s != NULL, "%s: no session", what);
	else
		CHECK(t, strstr(error, message), "%s: '%s' lacks '%s'", what,
		      error, message);
	enpu_rt_session_destroy(s);
	mb_free(mb);
}

/* x -> Relu -> y, x of @rank dimensions of 1. */
static void relu_model(struct model_builder *mb, int rank)
{
	int64_t dims[ENPU_RT_MAX_RANK + 1];

	for (int i = 0; i < rank; i++)
		dims[i] = 1;
	mb_init(mb, 13);
	mb_input(mb, "x", ENPU_RT_FLOAT, rank, dims);
	mb_node(mb, "Relu", "x", "y");
	mb_output(mb, "y");
}

static void test_rank_limit(struct test_state *t)
{
	struct model_builder mb;

	relu_model(&mb, ENPU_RT_MAX_RANK);
	expect_open(t, &mb, ENPU_RT_OK, NULL, "the largest rank");
	relu_model(&mb, ENPU_RT_MAX_RANK + 1);
	expect_open(t, &mb, ENPU_RT_UNSUPPORTED, "graph input 'x': rank 9 "
		    "exceeds 8", "one more");
}

static void test_opset_imports(struct test_state *t)
{
	struct model_builder mb;

	relu_model(&mb, 1);
	mb.model.n_opset_import = 0;
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "model imports no opset",
		    "no opset");
	relu_model(&mb, 1);
	mb.opset.version = 0;
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "opset import of domain "
		    "'' has no valid version", "opset 0");
	relu_model(&mb, 1);
	mb.opset.has_version = 0;
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "has no valid version",
		    "opset without a version");
	/* The smallest version passes the import check (Relu-1 then runs). */
	relu_model(&mb, 1);
	mb.opset.version = 1;
	expect_open(t, &mb, ENPU_RT_OK, NULL, "opset 1");
}

static void test_graph_without_outputs(struct test_state *t)
{
	struct model_builder mb;
	int64_t dims[] = { 2 };

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "Relu", "x", "y");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "graph has no outputs",
		    "no outputs");
}

static void test_duplicate_names(struct test_state *t)
{
	struct model_builder mb;
	int64_t dims[] = { 2 };
	float w[2] = { 1, 2 };

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "Relu", "x", "y");
	mb_output(&mb, "y");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL,
		    "graph input 'x' is declared twice", "input twice");

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_initializer(&mb, "w", ENPU_RT_FLOAT, 1, dims, w, sizeof(w));
	mb_initializer(&mb, "w", ENPU_RT_FLOAT, 1, dims, w, sizeof(w));
	mb_node(&mb, "Add", "x,w", "y");
	mb_output(&mb, "y");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL,
		    "initializer 'w' is defined twice", "initializer twice");

	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "Relu", "x", "y");
	mb_node(&mb, "Neg", "x", "y");
	mb_output(&mb, "y");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "output 'y' is already "
		    "defined", "two nodes write y");

	/* A node may not write a graph input either. */
	mb_init(&mb, 13);
	mb_input(&mb, "x", ENPU_RT_FLOAT, 1, dims);
	mb_node(&mb, "Relu", "x", "x");
	mb_output(&mb, "x");
	expect_open(t, &mb, ENPU_RT_INVALID_MODEL, "output 'x' is already "
		    "defined", "a node writes the input");
}

const struct test_case loader_tests[] = {
	{ "loader_rank_limit", test_rank_limit },
	{ "loader_opset_imports", test_opset_imports },
	{ "loader_graph_without_outputs", test_graph_without_outputs },
	{ "loader_duplicate_names", test_duplicate_names },
	{ NULL, NULL },
};
