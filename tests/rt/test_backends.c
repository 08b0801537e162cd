// SPDX-License-Identifier: MIT
/*
 * Sessions and their backends through the public API: the backend list
 * option, placement and partition reports, MAC counts. The partitioner's
 * rules themselves are tests/partition's; the NPU backend's, the VM
 * tests' (tests/e2e).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/test_harness.h"
#include "enpu/enpu_rt.h"
#include "mobilenet_model.h"
#include "model_builder.h"

static void test_backend_list_is_checked(struct test_state *t)
{
	enpu_rt_options *o;

	CHECK(t, enpu_rt_options_create(&o) == ENPU_RT_OK, "options");
	CHECK(t, enpu_rt_options_set_backends(o, "cpu") == ENPU_RT_OK,
	      "cpu is known");
	CHECK(t, enpu_rt_options_set_backends(o, "cpu,tpu") ==
	      ENPU_RT_INVALID_ARGUMENT &&
	      strstr(enpu_rt_options_error(o), "unknown backend 'tpu'"),
	      "%s", enpu_rt_options_error(o));
	CHECK(t, enpu_rt_options_set_backends(o, "") ==
	      ENPU_RT_INVALID_ARGUMENT, "empty list");
	enpu_rt_options_destroy(o);
}

static enpu_rt_session *mobilenet_session(struct test_state *t,
					  const char *backends, char *error,
					  size_t error_size)
{
	struct mobilenet_config cfg = { 32, 0.35, 64, 10, 3, 0 };
	struct model_builder mb;
	enpu_rt_options *o;
	enpu_rt_session *s = NULL;
	uint8_t *bytes;
	size_t size;

	mb_init(&mb, 13);
	mobilenet_build(&mb, &cfg);
	bytes = mb_pack(&mb, &size);
	CHECK(t, enpu_rt_options_create(&o) == ENPU_RT_OK, "options");
	if (backends)
		enpu_rt_options_set_backends(o, backends);
	enpu_rt_session_create_from_memory(bytes, size, NULL, o, &s);
	snprintf(error, error_size, "%s", enpu_rt_options_error(o));
	enpu_rt_options_destroy(o);
	mb_free(&mb);
	return s;
}

static void test_backend_listed_twice_is_refused(struct test_state *t)
{
	char error[4096];
	enpu_rt_session *s = mobilenet_session(t, "cpu,cpu", error,
					       sizeof(error));

	CHECK(t, !s && strstr(error, "backend 'cpu' listed twice"), "%s",
	      error);
	enpu_rt_session_destroy(s);
}

/* On the CPU alone: one partition, every node on it, no reasons. */
static void test_cpu_only_plan_reports_every_node(struct test_state *t)
{
	char error[4096];
	enpu_rt_session *s = mobilenet_session(t, "cpu", error, sizeof(error));
	struct enpu_rt_partition_info p;
	struct enpu_rt_backend_info b;
	uint64_t macs = 0;

	CHECK(t, s != NULL, "%s", error);
	if (!s)
		return;
	CHECK(t, enpu_rt_session_backend_count(s) == 1 &&
	      enpu_rt_session_backend(s, 0, &b) == ENPU_RT_OK &&
	      !strcmp(b.name, "cpu") && b.active && !b.note[0], "backends");
	CHECK(t, enpu_rt_session_partition_count(s) == 1, "%zu partitions",
	      enpu_rt_session_partition_count(s));
	CHECK(t, enpu_rt_session_partition(s, 0, &p) == ENPU_RT_OK &&
	      !strcmp(p.backend, "cpu") &&
	      p.node_count == enpu_rt_session_node_count(s), "partition 0");
	for (size_t n = 0; n < enpu_rt_session_node_count(s); n++) {
		struct enpu_rt_node_placement np;

		CHECK(t, enpu_rt_session_node_placement(s, n, &np) ==
		      ENPU_RT_OK && !strcmp(np.backend, "cpu") &&
		      !np.reason[0] && np.partition == 0, "node %zu", n);
		macs += np.macs;
	}
	/* The 1x1 convs alone make this model well above a million. */
	CHECK(t, macs == p.macs && macs > 1000000, "MACs %llu vs %llu",
	      (unsigned long long)macs, (unsigned long long)p.macs);
	CHECK(t, enpu_rt_session_node_placement(s, 1u << 30, NULL) ==
	      ENPU_RT_INVALID_ARGUMENT, "bad index");
	enpu_rt_session_destroy(s);
}

const struct test_case backend_tests[] = {
	{ "backend_list_is_checked", test_backend_list_is_checked },
	{ "backend_listed_twice_is_refused",
	  test_backend_listed_twice_is_refused },
	{ "cpu_only_plan_reports_every_node",
	  test_cpu_only_plan_reports_every_node },
	{ NULL, NULL },
};
