// SPDX-License-Identifier: MIT
/*
 * The report: one block per device, then one line per process and
 * device. Utilization is the device's busy time (PERF_BUSY_NS, debugfs)
 * over the span between the samples when readable, else the sum of the
 * clients' fdinfo device time over it; the span is the device's own time
 * (PERF_DEVICE_NS) where debugfs lists it, else wall-clock time. A
 * process's share uses the same span.
 */
#include <inttypes.h>
#include <string.h>

#include "enpu_top_report.h"

static const char *const priority_names[TOP_PRIORITIES] = {
	"low", "normal", "high", "realtime",
};

static const struct top_device *find_device(const struct top_sample *sample,
					    const char *pdev)
{
	if (!sample)
		return NULL;
	for (size_t i = 0; i < sample->device_count; i++)
		if (!strcmp(sample->devices[i].pdev, pdev))
			return &sample->devices[i];
	return NULL;
}

static const struct top_client *find_client(const struct top_sample *sample,
					    const struct top_client *client)
{
	if (!sample)
		return NULL;
	for (size_t i = 0; i < sample->client_count; i++)
		if (sample->clients[i].client_id == client->client_id &&
		    !strcmp(sample->clients[i].pdev, client->pdev))
			return &sample->clients[i];
	return NULL;
}

/* A client without drm-pdev belongs to the only device, if there is one. */
static int client_on(const struct top_sample *sample,
		     const struct top_client *client,
		     const struct top_device *device)
{
	if (client->pdev[0])
		return !strcmp(client->pdev, device->pdev);
	return sample->device_count == 1;
}

/*
 * The span the rates of device are over, in ns: its own device time if
 * both samples have it, else wall time; 0 if there is no previous sample.
 */
static uint64_t span_ns(const struct top_sample *previous,
			const struct top_sample *current,
			const struct top_device *device, int *device_time)
{
	const struct top_device *before = find_device(previous, device->pdev);

	*device_time = 0;
	if (!before)
		return 0;
	if (device->has_device_time && before->has_device_time &&
	    device->device_ns > before->device_ns) {
		*device_time = 1;
		return device->device_ns - before->device_ns;
	}
	return current->time_ns > previous->time_ns ?
	       current->time_ns - previous->time_ns : 0;
}

static uint64_t client_delta(const struct top_sample *previous,
			     const struct top_client *client)
{
	const struct top_client *before = find_client(previous, client);

	if (!before || client->engine_ns < before->engine_ns)
		return 0;
	return client->engine_ns - before->engine_ns;
}

static void print_percent(FILE *out, int known, double share)
{
	if (known)
		fprintf(out, "%5.1f %%", share * 100.0);
	else
		fprintf(out, "  n/a  ");
}

static void print_bytes(FILE *out, uint64_t bytes)
{
	if (bytes >= 1ull << 30)
		fprintf(out, "%7.1f GiB", (double)bytes / (1ull << 30));
	else if (bytes >= 1ull << 20)
		fprintf(out, "%7.1f MiB", (double)bytes / (1ull << 20));
	else
		fprintf(out, "%7.1f KiB", (double)bytes / (1ull << 10));
}

static void report_device(FILE *out, const struct top_sample *previous,
			  const struct top_sample *current,
			  const struct top_device *device)
{
	const struct top_device *before = find_device(previous, device->pdev);
	int device_time;
	uint64_t span = span_ns(previous, current, device, &device_time);
	unsigned int on_device = 0;

	fprintf(out, "%s  %s\n", device->node, device->pdev);
	fprintf(out, "  utilization ");
	if (span && device->has_busy && before->has_busy &&
	    device->busy_ns >= before->busy_ns) {
		print_percent(out, 1, (double)(device->busy_ns -
					       before->busy_ns) / (double)span);
		fprintf(out, device_time ? " (device busy time)" :
			" (device busy time / wall time)");
	} else if (span) {
		uint64_t busy = 0;

		for (size_t i = 0; i < current->client_count; i++)
			if (client_on(current, &current->clients[i], device))
				busy += client_delta(previous,
						     &current->clients[i]);
		print_percent(out, 1, (double)busy / (double)span);
		fprintf(out, " (fdinfo)");
	} else {
		print_percent(out, 0, 0);
	}
	if (device->has_clock)
		fprintf(out, "   clock %" PRIu64 " MHz (max %" PRIu64 " MHz)",
			device->clock_hz / 1000000,
			device->max_clock_hz / 1000000);
	else
		fprintf(out, "   clock n/a");
	if (device->has_temperature)
		fprintf(out, "   temperature %.1f C\n",
			(double)device->temperature_mc / 1000.0);
	else
		fprintf(out, "   temperature n/a\n");
	fprintf(out, "  queued ");
	for (int p = TOP_PRIORITIES - 1; p >= 0; p--) {
		if (device->has_queues)
			fprintf(out, " %s %u", priority_names[p],
				device->queued[p]);
		else
			fprintf(out, " %s n/a", priority_names[p]);
		on_device += device->on_device[p];
	}
	if (device->has_queues)
		fprintf(out, "   on device %u\n", on_device);
	else
		fprintf(out, "   on device n/a\n");
}

/* One line per process and device: its clients of that device summed. */
static void report_processes(FILE *out, const struct top_sample *previous,
			     const struct top_sample *current)
{
	fprintf(out, "%-8s %-16s %-14s %7s %16s %11s %11s\n", "PID",
		"COMMAND", "DEVICE", "NPU%", "DEVICE-TIME", "MEMORY",
		"RESIDENT");
	for (size_t d = 0; d < current->device_count; d++) {
		const struct top_device *device = &current->devices[d];
		int device_time;
		uint64_t span = span_ns(previous, current, device,
					&device_time);

		for (size_t i = 0; i < current->client_count; i++) {
			const struct top_client *first = &current->clients[i];
			uint64_t engine = 0, delta = 0, total = 0, resident = 0;
			int seen_before = 0;

			if (!client_on(current, first, device))
				continue;
			for (size_t j = 0; j < i && !seen_before; j++)
				seen_before = current->clients[j].pid ==
					      first->pid &&
					      client_on(current,
							&current->clients[j],
							device);
			if (seen_before)
				continue;
			for (size_t j = i; j < current->client_count; j++) {
				const struct top_client *c =
					&current->clients[j];

				if (c->pid != first->pid ||
				    !client_on(current, c, device))
					continue;
				engine += c->engine_ns;
				delta += client_delta(previous, c);
				total += c->total_bytes;
				resident += c->resident_bytes;
			}
			fprintf(out, "%-8d %-16.16s %-14.14s ", (int)first->pid,
				first->command, device->pdev);
			print_percent(out, span != 0,
				      span ? (double)delta / (double)span : 0);
			fprintf(out, " %14.6f s ", (double)engine / 1e9);
			print_bytes(out, total);
			fprintf(out, " ");
			print_bytes(out, resident);
			fprintf(out, "\n");
		}
	}
}

void top_report(FILE *out, const struct top_sample *previous,
		const struct top_sample *current)
{
	fprintf(out, "enpu-top: %zu device%s, %zu client%s", current->device_count,
		current->device_count == 1 ? "" : "s", current->client_count,
		current->client_count == 1 ? "" : "s");
	if (previous && current->time_ns > previous->time_ns)
		fprintf(out, ", rates over %.2f s\n",
			(double)(current->time_ns - previous->time_ns) / 1e9);
	else
		fprintf(out, ", no rates (one sample)\n");
	for (size_t d = 0; d < current->device_count; d++)
		report_device(out, previous, current, &current->devices[d]);
	if (!current->device_count)
		fprintf(out, "no ENPU device found\n");
	report_processes(out, previous, current);
}
