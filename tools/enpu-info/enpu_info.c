// SPDX-License-Identifier: MIT
/*
 * enpu-info: lists ENPU devices and prints what the driver reports about
 * each. Exit status: 0 every selected device was printed, 1 no device
 * found or a device could not be opened or queried, 2 bad command line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enpu/enpu.h>

#include "enpu_info_format.h"

#define EXIT_DEVICE_ERROR 1
#define EXIT_USAGE 2

static void print_usage(FILE *stream)
{
	fprintf(stream,
		"usage: enpu-info [-d INDEX | PATH]\n"
		"\n"
		"Lists ENPU devices and prints their parameters: versions,\n"
		"queues, clocks, capabilities, SRAM, temperature.\n"
		"\n"
		"  -d, --device INDEX  only the INDEX-th device (0 is the first)\n"
		"  PATH                only the device node at PATH\n"
		"  -h, --help          show this help\n"
		"\n"
		"Exit status: 0 all selected devices printed; 1 no device found,\n"
		"or a device could not be opened or queried; 2 bad usage.\n");
}

static int print_device(size_t index, enpu_device *device)
{
	struct enpu_device_params params;
	const char *path, *version, *message, *node_type;
	char hw[32], fw[32], caps[128], clock_min[32], clock_max[32];
	char clock_cur[32], sram[64], temperature[32];
	int status;

	enpu_device_path(device, &path);
	enpu_device_node_type(device, &node_type);
	enpu_device_driver_version(device, &version);
	status = enpu_device_query_params(device, sizeof(params), &params);
	if (status) {
		enpu_device_last_error(device, &message);
		fprintf(stderr, "enpu-info: %s\n", message);
		return status;
	}
	/* Buffers are sized for the widest value; truncation just shortens. */
	enpu_format_hw_version(params.hw_version, sizeof(hw), hw);
	enpu_format_fw_version(params.fw_version, sizeof(fw), fw);
	enpu_format_capabilities(params.capabilities, sizeof(caps), caps);
	enpu_info_format_clock(params.clock_min_khz, sizeof(clock_min),
			       clock_min);
	enpu_info_format_clock(params.clock_max_khz, sizeof(clock_max),
			       clock_max);
	enpu_info_format_clock(params.clock_cur_khz, sizeof(clock_cur),
			       clock_cur);
	enpu_info_format_bytes(params.sram_size, sizeof(sram), sram);
	enpu_info_format_temperature(params.temperature_mc,
				     sizeof(temperature), temperature);

	printf("device %zu: %s\n", index, path);
	printf("  node:            %s\n", node_type);
	printf("  driver:          %s\n", version);
	printf("  device id:       0x%04" PRIx64 "\n", params.device_id);
	printf("  hardware:        %s\n", hw);
	printf("  firmware:        %s\n", fw);
	printf("  firmware API:    %" PRIu64 "\n", params.fw_api_version);
	printf("  queues:          %" PRIu64 "\n", params.num_queues);
	printf("  clock min:       %s\n", clock_min);
	printf("  clock max:       %s\n", clock_max);
	printf("  clock current:   %s\n", clock_cur);
	printf("  capabilities:    %s (0x%" PRIx64 ")\n", caps,
	       params.capabilities);
	printf("  SRAM:            %s\n", sram);
	printf("  MACs per cycle:  %" PRIu64 "\n", params.macs_per_cycle);
	printf("  temperature:     %s\n", temperature);
	return 0;
}

static int show_path(size_t index, const char *path)
{
	struct enpu_error error = { "" };
	enpu_device *device;
	int status;

	status = enpu_device_open_path(path, &device, &error);
	if (status) {
		fprintf(stderr, "enpu-info: %s\n", error.message);
		return EXIT_DEVICE_ERROR;
	}
	status = print_device(index, device);
	enpu_device_close(device);
	return status ? EXIT_DEVICE_ERROR : 0;
}

static int parse_index(const char *text, size_t *index)
{
	unsigned long long value;
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return -EINVAL;
	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno || *end || value > SIZE_MAX)
		return -EINVAL;
	*index = (size_t)value;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct enpu_error error = { "" };
	enpu_device_list *list;
	bool has_index = false;
	size_t index = 0, count;
	int option, result = 0;

	while ((option = getopt_long(argc, argv, "d:h", options, NULL)) != -1) {
		switch (option) {
		case 'd':
			if (parse_index(optarg, &index)) {
				fprintf(stderr,
					"enpu-info: -d needs a device index (0, 1, ...), not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			has_index = true;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind > 1 || (has_index && optind < argc)) {
		fprintf(stderr, "enpu-info: give either -d INDEX or one PATH\n");
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (optind < argc)
		return show_path(0, argv[optind]);

	if (enpu_device_list_create(&list, &error)) {
		fprintf(stderr, "enpu-info: %s\n", error.message);
		return EXIT_DEVICE_ERROR;
	}
	enpu_device_list_count(list, &count);
	if (count == 0) {
		fprintf(stderr,
			"enpu-info: no ENPU device found (is the enpu module loaded?)\n");
		enpu_device_list_destroy(list);
		return EXIT_DEVICE_ERROR;
	}
	if (has_index && index >= count) {
		fprintf(stderr,
			"enpu-info: no ENPU device with index %zu (%zu found)\n",
			index, count);
		enpu_device_list_destroy(list);
		return EXIT_DEVICE_ERROR;
	}
	for (size_t i = 0; i < count; i++) {
		const char *path;

		if (has_index && i != index)
			continue;
		enpu_device_list_path(list, i, &path);
		if (i > 0 && !has_index)
			printf("\n");
		/* Report every device, even after one fails. */
		if (show_path(i, path))
			result = EXIT_DEVICE_ERROR;
	}
	enpu_device_list_destroy(list);
	return result;
}
