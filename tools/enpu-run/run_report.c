// SPDX-License-Identifier: MIT
/* enpu-run: what it prints — backends, plan, outputs, times, comparison. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_op.h"
#include "run.h"

static void human(char *buf, size_t size, double v)
{
	if (v >= 1e9)
		snprintf(buf, size, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, size, "%.2fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, size, "%.1fk", v / 1e3);
	else
		snprintf(buf, size, "%.0f", v);
}

void run_print_backends(const enpu_rt_session *s)
{
	printf("backends:");
	for (size_t i = 0; i < enpu_rt_session_backend_count(s); i++) {
		struct enpu_rt_backend_info b;

		enpu_rt_session_backend(s, i, &b);
		printf(" %s%s", b.name, b.active ? "" : " (not available)");
	}
	printf("\n");
	for (size_t i = 0; i < enpu_rt_session_backend_count(s); i++) {
		struct enpu_rt_backend_info b;

		enpu_rt_session_backend(s, i, &b);
		if (!b.active)
			printf("  %s: %s\n", b.name, b.note);
	}
}

/* Index of @name among the backends that placed nodes, or -1. */
static int backend_slot(const char **names, size_t *count, const char *name)
{
	for (size_t i = 0; i < *count; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	if (*count == 8)
		return -1;
	names[*count] = name;
	return (int)(*count)++;
}

void run_print_plan(const enpu_rt_session *s)
{
	const char *names[8];
	uint64_t macs[8] = { 0 }, total = 0;
	size_t backends = 0, parts = enpu_rt_session_partition_count(s);
	char m[32];

	printf("plan: %zu partition%s\n", parts, parts == 1 ? "" : "s");
	for (size_t p = 0; p < parts; p++) {
		struct enpu_rt_partition_info info;

		enpu_rt_session_partition(s, p, &info);
		human(m, sizeof(m), (double)info.macs);
		printf("  partition %zu: %-4s %4zu nodes %9s MACs, %zu in, "
		       "%zu out\n", p, info.backend, info.node_count, m,
		       info.input_count, info.output_count);
	}
	printf("  %-32s %-20s %-4s %4s %9s  %s\n", "node", "op", "on", "part",
	       "MACs", "why not on the first backend");
	for (size_t n = 0; n < enpu_rt_session_node_count(s); n++) {
		struct enpu_rt_node_placement p;
		int slot;

		if (enpu_rt_session_node_placement(s, n, &p))
			continue;
		human(m, sizeof(m), (double)p.macs);
		printf("  %-32s %-20s %-4s %4zu %9s  %s\n", p.name, p.op_type,
		       p.backend, p.partition, m, p.reason);
		slot = backend_slot(names, &backends, p.backend);
		if (slot >= 0)
			macs[slot] += p.macs;
		total += p.macs;
	}
	human(m, sizeof(m), (double)total);
	printf("MAC share (%s MACs):", m);
	for (size_t b = 0; b < backends; b++)
		printf(" %s %.2f%%", names[b],
		       total ? 100.0 * (double)macs[b] / (double)total : 0.0);
	printf("\n");
}

static double value_at(const struct enpu_rt_output *o, size_t i)
{
	struct rt_tensor t = {
		.dtype = o->dtype, .rank = (int32_t)o->rank,
		.data = (void *)o->data, .byte_size = o->byte_size,
	};

	memcpy(t.dims, o->dims, sizeof(t.dims));
	return rt_tensor_get_double(&t, i);
}

static size_t elements_of(const struct enpu_rt_output *o)
{
	size_t n = 1;

	for (size_t d = 0; d < o->rank; d++)
		n *= (size_t)o->dims[d];
	return n;
}

void run_print_outputs(const enpu_rt_session *s, size_t top_k)
{
	for (size_t o = 0; o < enpu_rt_session_output_count(s); o++) {
		struct enpu_rt_tensor_info info;
		struct enpu_rt_output out;
		size_t n;

		enpu_rt_session_output_info(s, o, &info);
		if (enpu_rt_session_output(s, o, &out))
			continue;
		n = elements_of(&out);
		printf("output '%s': %s [", info.name,
		       enpu_rt_dtype_name(out.dtype));
		for (size_t d = 0; d < out.rank; d++)
			printf("%s%lld", d ? "," : "", (long long)out.dims[d]);
		printf("]\n ");
		if (top_k) {
			unsigned char *used = calloc(n + 1, 1);

			for (size_t k = 0; k < top_k && k < n && used; k++) {
				size_t best = n;

				for (size_t i = 0; i < n; i++)
					if (!used[i] && (best == n ||
					    value_at(&out, i) >
					    value_at(&out, best)))
						best = i;
				used[best] = 1;
				printf(" #%zu=%.6g", best, value_at(&out, best));
			}
			free(used);
		} else {
			for (size_t i = 0; i < n && i < 16; i++)
				printf(" %.6g", value_at(&out, i));
			if (n > 16)
				printf(" ...");
		}
		printf("\n");
	}
}

void run_print_partition_times(const enpu_rt_session *s)
{
	for (size_t p = 0; p < enpu_rt_session_partition_count(s); p++) {
		struct enpu_rt_partition_info info;

		enpu_rt_session_partition(s, p, &info);
		printf("  partition %zu (%s): host %.3f ms", p, info.backend,
		       (double)info.host_ns / 1e6);
		if (info.device_ns)
			printf(", device %.3f ms", (double)info.device_ns / 1e6);
		if (info.commands)
			printf(", %u commands, modeled %.3f ms%s", info.commands,
			       (double)info.modeled_ns / 1e6,
			       info.from_cache ? ", from cache" : "");
		if (!strcmp(info.backend, "npu"))
			printf(", %llu bytes copied at seams",
			       (unsigned long long)info.copied_bytes);
		printf("\n");
	}
}

void run_print_profile(const enpu_rt_session *s)
{
	for (size_t n = 0; n < enpu_rt_session_node_count(s); n++) {
		const char *name, *op;
		uint64_t ns;

		enpu_rt_session_node_timing(s, n, &name, &op, &ns);
		printf("  %10.3f ms  %-20s %s\n", (double)ns / 1e6, op, name);
	}
}

int run_compare(const enpu_rt_session *a, const enpu_rt_session *b,
		const char *b_name)
{
	double worst_all = 0;

	for (size_t o = 0; o < enpu_rt_session_output_count(a); o++) {
		struct enpu_rt_tensor_info info;
		struct enpu_rt_output x, y;
		double worst = 0;
		size_t differ = 0, n;

		enpu_rt_session_output_info(a, o, &info);
		if (enpu_rt_session_output(a, o, &x) ||
		    enpu_rt_session_output(b, o, &y) || x.dtype != y.dtype ||
		    x.byte_size != y.byte_size) {
			printf("compare with %s: output '%s' cannot be "
			       "compared\n", b_name, info.name);
			return -1;
		}
		n = elements_of(&x);
		for (size_t i = 0; i < n; i++) {
			double d = fabs(value_at(&x, i) - value_at(&y, i));

			if (d != 0 || isnan(d))
				differ++;
			if (d > worst || isnan(d))
				worst = isnan(d) ? INFINITY : d;
		}
		printf("compare with %s: output '%s': largest difference %.6g, "
		       "%zu of %zu elements differ%s\n", b_name, info.name,
		       worst, differ, n,
		       !memcmp(x.data, y.data, x.byte_size) ?
		       " (bit-identical)" : "");
		if (worst > worst_all)
			worst_all = worst;
	}
	return worst_all > 0;
}
