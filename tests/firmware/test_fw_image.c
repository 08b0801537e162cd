// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of the firmware image parser (firmware-loader/enpu_fw_image.c,
 * the kernel's file built for userspace), with ASan and UBSan:
 *
 *   test-fw-image                    every case of fw_image_cases.h (the
 *                                    rule and errno each must get), plus
 *                                    the checks below; "N passed, N failed"
 *   test-fw-image --write-corpus DIR the cases' images as fuzzing seeds
 *   test-fw-image --replay PATH...   files, or every file of directories,
 *                                    through the fuzzing entry point
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "enpu_fw_image.h"
#include "fw_image_cases.h"
#include "fw_image_fuzz.h"

static int passed, failed;

#define EXPECT(name, cond, ...)                                         \
	do {                                                            \
		if (cond) {                                             \
			passed++;                                       \
			printf("ok   %s\n", name);                      \
		} else {                                                \
			failed++;                                       \
			printf("FAIL %s: ", name);                      \
			printf(__VA_ARGS__);                            \
			printf("\n");                                   \
		}                                                       \
	} while (0)

/* Each case on an exactly sized heap copy, so ASan sees any overread. */
static void run_case(const struct fw_image_case *c)
{
	size_t cap = fw_case_capacity(c), size;
	uint8_t *build = malloc(cap), *image;
	struct enpu_fw_image_info info;
	const char *reason = NULL;
	int ret;

	if (!build) {
		EXPECT(c->name, 0, "out of memory");
		return;
	}
	size = fw_case_build(c, build);
	image = malloc(size ? size : 1);
	memcpy(image, build, size);
	free(build);
	ret = enpu_fw_image_parse(image, size, &info, &reason);
	EXPECT(c->name, ret == c->error && info.rule == c->rule &&
	       reason == enpu_fw_rule_reason(c->rule),
	       "returned %d rule %d (%s), want %d rule %d (%s)", ret, info.rule,
	       reason, c->error, c->rule, enpu_fw_rule_reason(c->rule));
	free(image);
}

static void decodes_the_header_fields(void)
{
	static uint8_t image[FW_HDR_SIZE + 32];
	struct enpu_fw_image_info info;
	const char *reason;
	int ret;

	fw_case_valid_image(image, 32, 0x0a0b0c);
	ret = enpu_fw_image_parse(image, sizeof(image), &info, &reason);
	EXPECT("decodes_the_header_fields", ret == 0 &&
	       info.fw_version == 0x0a0b0c && info.api_version == ENPU_FW_API_VERSION &&
	       info.payload_size == 32 && info.header.magic == ENPU_FW_MAGIC &&
	       info.header.header_size == FW_HDR_SIZE &&
	       !memcmp(info.header.sha256, image + FW_OFF(sha256), 32),
	       "ret %d fw 0x%x api %u payload %u", ret, info.fw_version,
	       info.api_version, info.payload_size);
}

/* fwpack prints what it read even of an image it refuses. */
static void rejected_image_keeps_its_decoded_header(void)
{
	static uint8_t image[FW_HDR_SIZE + 8];
	struct enpu_fw_image_info info;
	const char *reason;
	int ret;

	fw_case_valid_image(image, 8, 0x010000);
	fw_case_put_le32(image, FW_OFF(magic), 0x12345678);
	ret = enpu_fw_image_parse(image, sizeof(image), &info, &reason);
	EXPECT("rejected_image_keeps_its_decoded_header", ret == -EINVAL &&
	       info.header.magic == 0x12345678 && info.header.payload_size == 8 &&
	       info.fw_version == 0 && info.payload_size == 0,
	       "ret %d magic 0x%x payload %u fw 0x%x", ret, info.header.magic,
	       info.header.payload_size, info.fw_version);
}

static void truncated_image_decodes_nothing(void)
{
	static uint8_t image[FW_HDR_SIZE];
	struct enpu_fw_image_info info;
	const char *reason;

	fw_case_valid_image(image, 0, 1);
	memset(&info, 0xa5, sizeof(info));
	enpu_fw_image_parse(image, FW_HDR_SIZE - 1, &info, &reason);
	EXPECT("truncated_image_decodes_nothing",
	       info.header.magic == 0 && info.header.payload_size == 0 &&
	       info.rule == ENPU_FW_RULE_TRUNCATED,
	       "magic 0x%x rule %d", info.header.magic, info.rule);
}

/* request_firmware() data and guest RAM copies need not be aligned. */
static void parses_an_unaligned_buffer(void)
{
	static uint8_t buffer[FW_HDR_SIZE + 100 + 1];
	struct enpu_fw_image_info info;
	const char *reason;
	int ret;

	fw_case_valid_image(buffer + 1, 100, 0x020000);
	ret = enpu_fw_image_parse(buffer + 1, FW_HDR_SIZE + 100, &info, &reason);
	EXPECT("parses_an_unaligned_buffer", ret == 0 && info.fw_version == 0x020000,
	       "ret %d", ret);
}

static void every_rule_has_its_own_reason(void)
{
	int i, j, ok = 1;

	for (i = 0; i < ENPU_FW_RULE_COUNT; i++) {
		const char *r = enpu_fw_rule_reason(i);

		if (!r || !*r || !strcmp(r, "unknown rule"))
			ok = 0;
		for (j = 0; j < i; j++)
			if (!strcmp(r, enpu_fw_rule_reason(j)))
				ok = 0;
	}
	EXPECT("every_rule_has_its_own_reason", ok &&
	       !strcmp(enpu_fw_rule_reason(ENPU_FW_RULE_COUNT), "unknown rule") &&
	       !strcmp(enpu_fw_rule_reason((enum enpu_fw_rule)-1), "unknown rule"),
	       "a reason is missing, empty or shared");
}

/* Each rule of the format is exercised by at least one rejecting case. */
static void every_rule_is_tested(void)
{
	int seen[ENPU_FW_RULE_COUNT] = { 0 }, missing = -1;
	size_t i;
	int r;

	for (i = 0; i < FW_IMAGE_CASE_COUNT; i++)
		seen[fw_image_cases[i].rule]++;
	for (r = 0; r < ENPU_FW_RULE_COUNT; r++)
		if (!seen[r])
			missing = r;
	EXPECT("every_rule_is_tested", missing < 0, "no case for rule %d", missing);
}

static int write_file(const char *dir, const char *name, const uint8_t *data,
		      size_t size)
{
	char path[4096];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "test-fw-image: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = fwrite(data, 1, size, f) == size;
	if (fclose(f) || !ok) {
		fprintf(stderr, "test-fw-image: %s: write error\n", path);
		return -1;
	}
	return 0;
}

/* The seeds skip the 16 MiB case: the fuzzer's inputs stay small. */
static int write_corpus(const char *dir)
{
	size_t i;

	mkdir(dir, 0755);
	for (i = 0; i < FW_IMAGE_CASE_COUNT; i++) {
		const struct fw_image_case *c = &fw_image_cases[i];
		uint8_t *image;
		size_t size;
		int ret;

		if (c->payload_size > 65536)
			continue;
		image = malloc(fw_case_capacity(c));
		if (!image)
			return 1;
		size = fw_case_build(c, image);
		ret = write_file(dir, c->name, image, size);
		free(image);
		if (ret)
			return 1;
	}
	return 0;
}

static int replay_file(const char *path)
{
	uint8_t *data = NULL;
	long size;
	FILE *f = fopen(path, "rb");

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "test-fw-image: %s: cannot read\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	data = malloc(size ? size : 1);
	if (!data || fread(data, 1, size, f) != (size_t)size) {
		fprintf(stderr, "test-fw-image: %s: read error\n", path);
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	fw_image_fuzz_one(data, size);
	free(data);
	return 0;
}

static int replay(int argc, char **argv)
{
	int i, files = 0, errors = 0;

	for (i = 0; i < argc; i++) {
		struct stat st;
		struct dirent *e;
		DIR *d;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "test-fw-image: %s: %s\n", argv[i],
				strerror(errno));
			errors++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			errors += replay_file(argv[i]) != 0;
			files++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			errors += replay_file(path) != 0;
			files++;
		}
		if (d)
			closedir(d);
	}
	/* Each input that broke no invariant is one passed test. */
	printf("fw-image-replay: %d passed, %d failed\n", files - errors, errors);
	return errors != 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "--write-corpus"))
		return write_corpus(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "--replay"))
		return replay(argc - 2, argv + 2);
	if (argc != 1) {
		fprintf(stderr, "usage: test-fw-image [--write-corpus DIR | --replay PATH...]\n");
		return 2;
	}
	for (i = 0; i < FW_IMAGE_CASE_COUNT; i++)
		run_case(&fw_image_cases[i]);
	decodes_the_header_fields();
	rejected_image_keeps_its_decoded_header();
	truncated_image_decodes_nothing();
	parses_an_unaligned_buffer();
	every_rule_has_its_own_reason();
	every_rule_is_tested();
	printf("fw-image: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
