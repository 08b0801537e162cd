// SPDX-License-Identifier: GPL-2.0
/* See differential_fuzz.h. */
#include <stdio.h>
#include <stdlib.h>

#include "checkers.h"
#include "differential_fuzz.h"
#include "enpu_cmd_rule.h"
#include "validate_fuzz.h"

static void disagreement(const char *what, const struct verdict *kernel,
			 const struct verdict *device)
{
	fprintf(stderr, "differential_fuzz: %s: kernel %s at %u (rule %s), "
		"device %s at %u (rule %s, status %u)\n", what,
		kernel->rejected ? "rejects" : "accepts", kernel->offset,
		enpu_cmd_rule_name(kernel->rule),
		device->rejected ? "rejects" : "accepts", device->offset,
		enpu_cmd_rule_name(device->rule), device->status);
	abort();
}

/* The rules both checkers test first, in the same order (enpu_cmd_rule.h). */
static bool framing_rule(uint32_t rule)
{
	return rule >= ENPU_RULE_STREAM_SIZE && rule <= ENPU_RULE_COMMAND_SIZE;
}

/* Rules of uapi/enpu_cmd.h that the device documents it does not check. */
static bool device_ignores(uint32_t rule)
{
	return rule == ENPU_RULE_REF_NONE_OFFSET;
}

int differential_fuzz_one(const uint8_t *data, size_t size)
{
	struct validate_fuzz_input in;
	struct verdict kernel, device;

	if (validate_fuzz_decode(data, size, &in))
		return -1;
	check_with_kernel(in.stream, in.stream_size, in.bos, in.bo_count,
			  &kernel);
	if (!check_with_device(in.stream, in.stream_size, in.bos, in.bo_count,
			       &device))
		abort();
	validate_fuzz_input_free(&in);
	if (device.rejected &&
	    device.status != device_status_for_rule(device.rule))
		disagreement("device status is not its rule's", &kernel,
			     &device);
	if (!kernel.rejected) {
		if (device.rejected)
			disagreement("the device rejects what the kernel accepts",
				     &kernel, &device);
		return 1;
	}
	if (device.rejected && device.offset < kernel.offset)
		disagreement("the device rejects a command the kernel accepts",
			     &kernel, &device);
	if (device_ignores(kernel.rule))
		return 0;
	if (!device.rejected || device.offset != kernel.offset)
		disagreement("the device accepts a command the kernel rejects",
			     &kernel, &device);
	if ((framing_rule(kernel.rule) || framing_rule(device.rule)) &&
	    device.rule != kernel.rule)
		disagreement("the checkers blame different framing rules",
			     &kernel, &device);
	return 0;
}
