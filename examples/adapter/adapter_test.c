// SPDX-License-Identifier: MIT
/*
 * Tests of the ENPU delegate through the toy runtime. `--claims-only`
 * (host, no device): which nodes the delegate takes and the reason for
 * each refusal. Default (in the VM): small graphs run once on the
 * runtime's CPU kernels and once with the delegate, which must take the
 * nodes it claims and produce the same bytes. Seeded (ENPU_TEST_SEED);
 * ends with "adapter: N passed, N failed".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enpu_delegate.h"
#include "toy_runtime.h"

static int passed, failed;

#define EXPECT(condition, ...)                                          \
	do {                                                            \
		if (condition) {                                        \
			passed++;                                       \
			printf("ok - " __VA_ARGS__);                    \
		} else {                                                \
			failed++;                                       \
			printf("not ok - " __VA_ARGS__);                \
		}                                                       \
		printf("\n");                                           \
	} while (0)

static uint64_t rng_state;

static uint32_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static int add_tensor(struct toy_graph *g, enum toy_type type, uint32_t n,
		      uint32_t h, uint32_t w, uint32_t c, float scale,
		      int32_t zero_point, int constant)
{
	struct toy_tensor *t = &g->tensors[g->tensor_count];
	size_t count = (size_t)n * h * w * c;

	*t = (struct toy_tensor){ type, { n, h, w, c }, scale, zero_point,
				  calloc(count, type == TOY_INT32 ? 4 : 1),
				  constant };
	if (constant || type == TOY_INT8)
		for (size_t i = 0; i < count; i++) {
			if (type == TOY_INT32)
				((int32_t *)t->data)[i] =
					(int32_t)(rng() % 4001) - 2000;
			else if (constant)
				((int8_t *)t->data)[i] =
					(int8_t)((int)(rng() % 255) - 127);
			else
				((int8_t *)t->data)[i] =
					(int8_t)((int)(rng() % 256) - 128);
		}
	return (int)g->tensor_count++;
}

static void add_node(struct toy_graph *g, enum toy_op op, int a, int b, int c,
		     int output, uint32_t stride, uint32_t pad, int relu)
{
	g->nodes[g->node_count++] = (struct toy_node){
		op, { a, b, c }, output, stride, pad, relu, 0
	};
}

/*
 * x -> conv 3x3 (relu) -> t1 -> conv 1x1 -> t2; add(t1, t2) -> t3;
 * fully connected over t3's pixels -> t4; softmax -> t5. With
 * add_ratio, the add's input scales are that far apart (2^22 is refused
 * by the delegate's claim). With middle_softmax, t2 goes through a
 * softmax (CPU only) before the add: two partitions. compare gets the
 * tensors that leave a partition or follow one, ending with -1.
 */
static void build_graph(struct toy_graph *g, float add_ratio,
			int middle_softmax, int *compare)
{
	int x, w1, b1, t1, w2, b2, t2, s2, t3, w3, b3, t4, t5, n = 0;

	memset(g, 0, sizeof(*g));
	x = add_tensor(g, TOY_INT8, 1, 9, 7, 5, 0.05f, 3, 0);
	w1 = add_tensor(g, TOY_INT8, 8, 5, 3, 3, 0.01f, 0, 1);
	b1 = add_tensor(g, TOY_INT32, 1, 1, 1, 8, 0, 0, 1);
	t1 = add_tensor(g, TOY_INT8, 1, 9, 7, 8, 0.06f, -5, 0);
	w2 = add_tensor(g, TOY_INT8, 8, 8, 1, 1, 0.02f, 0, 1);
	b2 = add_tensor(g, TOY_INT32, 1, 1, 1, 8, 0, 0, 1);
	t2 = add_tensor(g, TOY_INT8, 1, 9, 7, 8, 0.08f * add_ratio, 2, 0);
	s2 = middle_softmax ? add_tensor(g, TOY_INT8, 1, 9, 7, 8,
					 1.0f / 256, -128, 0) : t2;
	t3 = add_tensor(g, TOY_INT8, 1, 9, 7, 8, 0.1f, -1, 0);
	w3 = add_tensor(g, TOY_INT8, 10, 8, 1, 1, 0.015f, 0, 1);
	b3 = add_tensor(g, TOY_INT32, 1, 1, 1, 10, 0, 0, 1);
	t4 = add_tensor(g, TOY_INT8, 1, 1, 63, 10, 0.12f, 4, 0);
	t5 = add_tensor(g, TOY_INT8, 1, 1, 63, 10, 1.0f / 256, -128, 0);
	add_node(g, TOY_OP_CONV2D, x, w1, b1, t1, 1, 1, 1);
	add_node(g, TOY_OP_CONV2D, t1, w2, b2, t2, 1, 0, 0);
	if (middle_softmax) {
		add_node(g, TOY_OP_SOFTMAX, t2, -1, -1, s2, 0, 0, 0);
		compare[n++] = t1;
		compare[n++] = t2;
		compare[n++] = s2;
	}
	add_node(g, TOY_OP_ADD, t1, s2, -1, t3, 0, 0, 0);
	add_node(g, TOY_OP_FULLY_CONNECTED, t3, w3, b3, t4, 0, 0, 0);
	add_node(g, TOY_OP_SOFTMAX, t4, -1, -1, t5, 0, 0, 0);
	compare[n++] = t4;
	compare[n++] = t5;
	compare[n] = -1;
}

static void free_graph(struct toy_graph *g)
{
	for (size_t i = 0; i < g->tensor_count; i++)
		free(g->tensors[i].data);
}

/* A copy with its own buffers, so that two runs start from one input. */
static void copy_graph(struct toy_graph *to, const struct toy_graph *from)
{
	*to = *from;
	for (size_t i = 0; i < from->tensor_count; i++) {
		size_t bytes = toy_tensor_elements(&from->tensors[i]) *
			       (from->tensors[i].type == TOY_INT32 ? 4 : 1);

		to->tensors[i].data = malloc(bytes);
		memcpy(to->tensors[i].data, from->tensors[i].data, bytes);
	}
}

static void test_claims(void)
{
	struct toy_delegate delegate;
	struct toy_graph g;
	const char *reason;

	int compare[8];

	enpu_delegate_claim_only(&delegate);
	build_graph(&g, 1.0f, 0, compare);
	for (int n = 0; n < 4; n++) {
		reason = NULL;
		EXPECT(delegate.claim(NULL, &g, &g.nodes[n], &reason) == 0,
		       "claims node %d (op %d)", n, g.nodes[n].op);
	}
	reason = NULL;
	EXPECT(delegate.claim(NULL, &g, &g.nodes[4], &reason) ==
	       -EOPNOTSUPP && reason && strstr(reason, "softmax"),
	       "refuses softmax, saying why ('%s')", reason ? reason : "");
	free_graph(&g);

	build_graph(&g, 1 << 22, 0, compare);
	reason = NULL;
	EXPECT(delegate.claim(NULL, &g, &g.nodes[2], &reason) == -ERANGE &&
	       reason && strstr(reason, "2^20"),
	       "refuses an add whose scale ratio is 2^22 ('%s')",
	       reason ? reason : "");
	/* Requantization scale 0.05 * 0.01 / 0.0004 = 1.25: at 1 and above it is refused. */
	g.tensors[g.nodes[0].output].scale = 0.0004f;
	reason = NULL;
	EXPECT(delegate.claim(NULL, &g, &g.nodes[0], &reason) == -ERANGE &&
	       reason && strstr(reason, "requantization"),
	       "refuses a conv whose requantization scale is 1.25 ('%s')",
	       reason ? reason : "");
	g.tensors[g.nodes[0].output].scale = 0.06f;
	g.tensors[g.nodes[0].inputs[1]].shape[1] = 1;	/* a grouped conv */
	reason = NULL;
	EXPECT(delegate.claim(NULL, &g, &g.nodes[0], &reason) ==
	       -EOPNOTSUPP && reason && strstr(reason, "grouped"),
	       "refuses a grouped conv ('%s')", reason ? reason : "");
	free_graph(&g);
}

static int same_tensor(const struct toy_graph *a, const struct toy_graph *b,
		       int t, size_t *first_difference)
{
	const int8_t *x = a->tensors[t].data, *y = b->tensors[t].data;

	for (size_t i = 0; i < toy_tensor_elements(&a->tensors[t]); i++)
		if (x[i] != y[i]) {
			*first_difference = i;
			return 0;
		}
	return 1;
}

/* Runs the graph both ways; the tensors compare names must be equal. */
static void test_run(struct toy_delegate *delegate, int middle_softmax,
		     size_t expect_delegated, const char *what)
{
	struct toy_graph base, cpu, npu;
	size_t delegated = 0, at = 0;
	int status, npu_status, compare[8];

	build_graph(&base, 1.0f, middle_softmax, compare);
	copy_graph(&cpu, &base);
	copy_graph(&npu, &base);
	status = toy_graph_run(&cpu, NULL, 0, NULL);
	EXPECT(status == 0, "%s: CPU reference runs (%d)", what, status);
	npu_status = toy_graph_run(&npu, delegate, 1, &delegated);
	EXPECT(npu_status == 0, "%s: runs with the ENPU delegate (%d)", what,
	       npu_status);
	status |= npu_status;
	EXPECT(delegated == expect_delegated,
	       "%s: the delegate ran %zu nodes (expected %zu)", what,
	       delegated, expect_delegated);
	for (const int *t_at = compare; *t_at >= 0; t_at++) {
		int t = *t_at;
		int same = !status && same_tensor(&cpu, &npu, t, &at);

		EXPECT(same, "%s: tensor %d (%zu bytes) identical to the CPU's%s",
		       what, t, toy_tensor_elements(&cpu.tensors[t]),
		       same ? "" : " (first difference below)");
		if (!same && !status)
			printf("# element %zu: cpu %d, npu %d\n", at,
			       ((int8_t *)cpu.tensors[t].data)[at],
			       ((int8_t *)npu.tensors[t].data)[at]);
	}
	free_graph(&base);
	free_graph(&cpu);
	free_graph(&npu);
}

int main(int argc, char **argv)
{
	const char *seed_text = getenv("ENPU_TEST_SEED");
	int claims_only = argc > 1 && !strcmp(argv[1], "--claims-only");
	struct toy_delegate delegate;
	char why[256];

	rng_state = seed_text ? strtoull(seed_text, NULL, 0) :
				(uint64_t)time(NULL);
	if (!rng_state)
		rng_state = 1;
	printf("# seed %llu (ENPU_TEST_SEED replays)\n",
	       (unsigned long long)rng_state);
	test_claims();
	if (!claims_only) {
		if (enpu_delegate_create(0, &delegate, sizeof(why), why)) {
			EXPECT(0, "opens an ENPU: %s", why);
		} else {
			/* conv, conv, add, fc in one partition; softmax on CPU. */
			test_run(&delegate, 0, 4, "one partition");
			/*
			 * A softmax between conv 1x1 and the add: two
			 * partitions; t1 and t2 leave the first, t1 and the
			 * softmax's output enter the second.
			 */
			test_run(&delegate, 1, 4, "two partitions");
			enpu_delegate_destroy(&delegate);
		}
	}
	printf("adapter: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
