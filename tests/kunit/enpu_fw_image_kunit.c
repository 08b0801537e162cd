// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the firmware image parser (firmware-loader/enpu_fw_image.c)
 * in its kernel build: the case table the host test runs
 * (tests/firmware/fw_image_cases.h), here against lib/crypto's sha256()
 * and the kernel's own string functions, plus what the kernel build alone
 * can show (the loader's calling convention on vmalloc'ed, unaligned data).
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <crypto/sha2.h>

#include "enpu_fw_image.h"
#include "fw_image_cases.h"

static void fw_image_case_desc(const struct fw_image_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fw_image, fw_image_cases, fw_image_case_desc);

/* Each case on an exactly sized vmalloc copy, as request_firmware gives. */
static void enpu_fw_image_case_test(struct kunit *test)
{
	const struct fw_image_case *c = test->param_value;
	struct enpu_fw_image_info info;
	const char *reason = NULL;
	u8 *build, *image;
	size_t size;
	int ret;

	build = vmalloc(fw_case_capacity(c));
	KUNIT_ASSERT_NOT_NULL(test, build);
	size = fw_case_build(c, build);
	image = vmalloc(size ? size : 1);
	if (!image)
		vfree(build);
	KUNIT_ASSERT_NOT_NULL(test, image);
	memcpy(image, build, size);
	vfree(build);

	ret = enpu_fw_image_parse(image, size, &info, &reason);
	vfree(image);
	KUNIT_EXPECT_EQ(test, ret, c->error);
	KUNIT_EXPECT_EQ(test, (int)info.rule, (int)c->rule);
	KUNIT_EXPECT_PTR_EQ(test, reason, enpu_fw_rule_reason(c->rule));
	if (!c->error) {
		KUNIT_EXPECT_EQ(test, info.payload_size, c->payload_size);
		KUNIT_EXPECT_EQ(test, info.api_version, (u32)ENPU_FW_API_VERSION);
	}
}

static void enpu_fw_image_decodes_an_unaligned_header(struct kunit *test)
{
	struct enpu_fw_image_info info;
	const char *reason;
	u8 *buf;
	int ret;

	buf = kunit_kzalloc(test, FW_HDR_SIZE + 40 + 3, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	fw_case_valid_image(buf + 3, 40, 0x030201);
	ret = enpu_fw_image_parse(buf + 3, FW_HDR_SIZE + 40, &info, &reason);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, info.fw_version, 0x030201u);
	KUNIT_EXPECT_EQ(test, info.header.header_size, (u32)FW_HDR_SIZE);
	KUNIT_EXPECT_EQ(test, info.header.magic, (u32)ENPU_FW_MAGIC);
}

static void enpu_fw_image_rejected_keeps_its_header(struct kunit *test)
{
	struct enpu_fw_image_info info;
	const char *reason;
	u8 *buf;

	buf = kunit_kzalloc(test, FW_HDR_SIZE + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	fw_case_valid_image(buf, 8, 0x010000);
	fw_case_put_le32(buf, FW_OFF_RESERVED(4), 7);
	KUNIT_EXPECT_EQ(test, enpu_fw_image_parse(buf, FW_HDR_SIZE + 8, &info,
						  &reason), -EINVAL);
	KUNIT_EXPECT_EQ(test, (int)info.rule, (int)ENPU_FW_RULE_RESERVED);
	KUNIT_EXPECT_EQ(test, info.header.reserved[4], 7u);
	KUNIT_EXPECT_EQ(test, info.fw_version, 0u);
}

static void enpu_fw_image_every_rule_has_a_reason(struct kunit *test)
{
	int i, j;

	for (i = 0; i < ENPU_FW_RULE_COUNT; i++) {
		KUNIT_EXPECT_STRNEQ(test, enpu_fw_rule_reason(i), "unknown rule");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, enpu_fw_rule_reason(i),
					    enpu_fw_rule_reason(j));
	}
	KUNIT_EXPECT_STREQ(test, enpu_fw_rule_reason(ENPU_FW_RULE_COUNT),
			   "unknown rule");
}

static struct kunit_case enpu_fw_image_test_cases[] = {
	KUNIT_CASE_PARAM(enpu_fw_image_case_test, fw_image_gen_params),
	KUNIT_CASE(enpu_fw_image_decodes_an_unaligned_header),
	KUNIT_CASE(enpu_fw_image_rejected_keeps_its_header),
	KUNIT_CASE(enpu_fw_image_every_rule_has_a_reason),
	{}
};

static struct kunit_suite enpu_fw_image_test_suite = {
	.name = "enpu_fw_image",
	.test_cases = enpu_fw_image_test_cases,
};

kunit_test_suite(enpu_fw_image_test_suite);
