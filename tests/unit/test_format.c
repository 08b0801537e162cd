// SPDX-License-Identifier: MIT
/* The libenpu formatting helpers enpu-info and other tools print with. */
#include <errno.h>
#include <string.h>

#include <enpu/enpu.h>

#include "unit_test.h"

static int hw_version_prints_major_dot_minor(void)
{
	char text[16];

	CHECK(enpu_format_hw_version(1 << 16, sizeof(text), text) == 0);
	CHECK(strcmp(text, "1.0") == 0);
	CHECK(enpu_format_hw_version(2 << 16 | 13, sizeof(text), text) == 0);
	CHECK(strcmp(text, "2.13") == 0);
	return 0;
}

static int fw_version_prints_major_minor_patch(void)
{
	char text[16];

	CHECK(enpu_format_fw_version(1 << 16 | 2 << 8 | 3, sizeof(text),
				     text) == 0);
	CHECK(strcmp(text, "1.2.3") == 0);
	CHECK(enpu_format_fw_version(0, sizeof(text), text) == 0);
	CHECK(strcmp(text, "0.0.0") == 0);
	return 0;
}

static int version_too_long_for_buffer_is_enospc_and_terminated(void)
{
	char text[4];

	CHECK(enpu_format_fw_version(10 << 16 | 20 << 8 | 30, sizeof(text),
				     text) == -ENOSPC);
	CHECK(strlen(text) == sizeof(text) - 1);
	return 0;
}

static int format_rejects_null_or_empty_buffer(void)
{
	char text[8];

	CHECK(enpu_format_hw_version(0, sizeof(text), NULL) == -EINVAL);
	CHECK(enpu_format_fw_version(0, 0, text) == -EINVAL);
	CHECK(enpu_format_capabilities(0, 0, text) == -EINVAL);
	return 0;
}

static int no_capabilities_print_as_none(void)
{
	char text[32];

	CHECK(enpu_format_capabilities(0, sizeof(text), text) == 0);
	CHECK(strcmp(text, "none") == 0);
	return 0;
}

static int every_capability_has_a_name(void)
{
	char text[128];

	CHECK(enpu_format_capabilities(DRM_ENPU_CAP_PREEMPT |
				       DRM_ENPU_CAP_DMA_COPY |
				       DRM_ENPU_CAP_PERF_COUNTERS |
				       DRM_ENPU_CAP_THERMAL | DRM_ENPU_CAP_DVFS,
				       sizeof(text), text) == 0);
	CHECK(strcmp(text, "preempt,dma-copy,perf-counters,thermal,dvfs") == 0);
	CHECK(enpu_format_capabilities(DRM_ENPU_CAP_THERMAL, sizeof(text),
				       text) == 0);
	CHECK(strcmp(text, "thermal") == 0);
	return 0;
}

static int unknown_capability_bits_are_shown_in_hex(void)
{
	char text[64];

	CHECK(enpu_format_capabilities(DRM_ENPU_CAP_PREEMPT | 1ull << 40 |
				       1ull << 5, sizeof(text), text) == 0);
	CHECK(strcmp(text, "preempt,0x10000000020") == 0);
	CHECK(enpu_format_capabilities(1ull << 63, sizeof(text), text) == 0);
	CHECK(strcmp(text, "0x8000000000000000") == 0);
	return 0;
}

static int capabilities_too_long_for_buffer_is_enospc(void)
{
	char text[12];

	CHECK(enpu_format_capabilities(DRM_ENPU_CAP_PREEMPT |
				       DRM_ENPU_CAP_DMA_COPY, sizeof(text),
				       text) == -ENOSPC);
	CHECK(strlen(text) < sizeof(text));
	return 0;
}

static int every_param_has_a_distinct_name(void)
{
	const char *names[DRM_ENPU_PARAM_TEMPERATURE_MC + 1];

	for (unsigned int i = 0; i <= DRM_ENPU_PARAM_TEMPERATURE_MC; i++) {
		CHECK(enpu_param_name(i, &names[i]) == 0);
		CHECK(names[i][0] != '\0');
		for (unsigned int j = 0; j < i; j++)
			CHECK(strcmp(names[i], names[j]) != 0);
	}
	CHECK(strcmp(names[DRM_ENPU_PARAM_FW_API_VERSION],
		     "fw_api_version") == 0);
	return 0;
}

static int unknown_param_has_no_name(void)
{
	const char *name = "untouched";

	CHECK(enpu_param_name(DRM_ENPU_PARAM_TEMPERATURE_MC + 1, &name) ==
	      -EINVAL);
	CHECK(enpu_param_name(0xffffffff, &name) == -EINVAL);
	CHECK(strcmp(name, "untouched") == 0);
	CHECK(enpu_param_name(0, NULL) == -EINVAL);
	return 0;
}

UNIT_TEST_SUITE(format,
	UNIT_TEST(hw_version_prints_major_dot_minor),
	UNIT_TEST(fw_version_prints_major_minor_patch),
	UNIT_TEST(version_too_long_for_buffer_is_enospc_and_terminated),
	UNIT_TEST(format_rejects_null_or_empty_buffer),
	UNIT_TEST(no_capabilities_print_as_none),
	UNIT_TEST(every_capability_has_a_name),
	UNIT_TEST(unknown_capability_bits_are_shown_in_hex),
	UNIT_TEST(capabilities_too_long_for_buffer_is_enospc),
	UNIT_TEST(every_param_has_a_distinct_name),
	UNIT_TEST(unknown_param_has_no_name));
