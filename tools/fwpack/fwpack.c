// SPDX-License-Identifier: GPL-2.0
/*
 * enpu-fwpack: builds ENPU firmware images and checks existing ones.
 *
 *   enpu-fwpack --fw-version X.Y.Z [--api-version N] PAYLOAD OUT
 *   enpu-fwpack --inspect IMAGE        (--check is the same)
 *
 * --inspect runs the driver's own parser (firmware-loader/enpu_fw_image.c),
 * so it accepts exactly what the kernel and the vnpu accept.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enpu_fw_image.h"
#include "fw_build.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: enpu-fwpack --fw-version X.Y.Z [--api-version N] PAYLOAD OUT\n"
		"       enpu-fwpack --inspect IMAGE   (or --check IMAGE)\n");
}

/* Reads a whole file; the caller frees *data. */
static int read_file(const char *path, uint8_t **data, size_t *size,
		     size_t limit)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t used = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "enpu-fwpack: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t n;

		if (used == cap) {
			uint8_t *bigger;

			cap = cap ? cap * 2 : 65536;
			bigger = realloc(buf, cap);
			if (!bigger) {
				fprintf(stderr, "enpu-fwpack: %s: out of memory\n", path);
				goto fail;
			}
			buf = bigger;
		}
		n = fread(buf + used, 1, cap - used, f);
		used += n;
		if (used > limit) {
			fprintf(stderr, "enpu-fwpack: %s: larger than %zu bytes\n",
				path, limit);
			goto fail;
		}
		if (n == 0) {
			if (ferror(f)) {
				fprintf(stderr, "enpu-fwpack: %s: read error\n", path);
				goto fail;
			}
			break;
		}
	}
	fclose(f);
	*data = buf;
	*size = used;
	return 0;
fail:
	free(buf);
	fclose(f);
	return -1;
}

static int parse_u32(const char *s, unsigned long max, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || s[0] == '-')
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* "X.Y.Z" -> X << 16 | Y << 8 | Z, each part within its field. */
static int parse_fw_version(const char *s, uint32_t *out)
{
	unsigned int major, minor, patch;
	char tail;

	if (sscanf(s, "%u.%u.%u%c", &major, &minor, &patch, &tail) != 3 ||
	    major > 255 || minor > 255 || patch > 255 || s[0] == '-')
		return -1;
	*out = major << 16 | minor << 8 | patch;
	return 0;
}

static int pack(uint32_t fw_version, uint32_t api_version,
		const char *payload_path, const char *out_path)
{
	struct enpu_fw_header header;
	uint8_t encoded[ENPU_FW_HEADER_SIZE];
	uint8_t *payload = NULL;
	size_t payload_size;
	char why[160];
	char *tmp = NULL;
	FILE *out = NULL;
	int ret = 1;

	if (read_file(payload_path, &payload, &payload_size,
		      ENPU_FW_MAX_PAYLOAD))
		return 1;
	if (enpu_fw_header_build(&header, payload, payload_size, api_version,
				 fw_version, why, sizeof(why))) {
		fprintf(stderr, "enpu-fwpack: %s: %s\n", payload_path, why);
		goto out;
	}
	enpu_fw_header_encode(&header, encoded);
	/* Write beside the target and rename, so OUT is never half written. */
	if (asprintf(&tmp, "%s.tmp.%ld", out_path, (long)getpid()) < 0) {
		tmp = NULL;
		fprintf(stderr, "enpu-fwpack: out of memory\n");
		goto out;
	}
	out = fopen(tmp, "wb");
	if (!out) {
		fprintf(stderr, "enpu-fwpack: %s: %s\n", tmp, strerror(errno));
		goto out;
	}
	if (fwrite(encoded, 1, sizeof(encoded), out) != sizeof(encoded) ||
	    fwrite(payload, 1, payload_size, out) != payload_size) {
		fprintf(stderr, "enpu-fwpack: %s: write error\n", tmp);
		goto out_unlink;
	}
	if (fclose(out)) {
		out = NULL;
		fprintf(stderr, "enpu-fwpack: %s: %s\n", tmp, strerror(errno));
		goto out_unlink;
	}
	out = NULL;
	if (rename(tmp, out_path)) {
		fprintf(stderr, "enpu-fwpack: %s: %s\n", out_path, strerror(errno));
		goto out_unlink;
	}
	ret = 0;
	goto out;
out_unlink:
	if (out)
		fclose(out);
	out = NULL;
	unlink(tmp);
out:
	if (out)
		fclose(out);
	free(tmp);
	free(payload);
	return ret;
}

/*
 * Prints the header and the parser's verdict. An image for another firmware
 * API is well formed (the parser checks the API last), so it is reported
 * but not refused: which API is acceptable is the reader's business.
 */
static int inspect(const char *path)
{
	struct enpu_fw_image_info info;
	const struct enpu_fw_header *h = &info.header;
	const char *reason;
	uint8_t *image;
	size_t size;
	unsigned int i;
	int ret;

	/* One byte more than the largest valid image, so that is refused too. */
	if (read_file(path, &image, &size,
		      (size_t)ENPU_FW_HEADER_SIZE + ENPU_FW_MAX_PAYLOAD + 1))
		return 1;
	ret = enpu_fw_image_parse(image, size, &info, &reason);
	free(image);
	printf("file:           %s (%zu bytes)\n", path, size);
	printf("magic:          0x%08x\n", h->magic);
	printf("format_version: %u\n", h->format_version);
	printf("header_size:    %u\n", h->header_size);
	printf("api_version:    %u\n", h->api_version);
	printf("fw_version:     %u.%u.%u (0x%08x)\n", h->fw_version >> 16,
	       (h->fw_version >> 8) & 0xff, h->fw_version & 0xff, h->fw_version);
	printf("payload_size:   %u\n", h->payload_size);
	printf("sha256:         ");
	for (i = 0; i < sizeof(h->sha256); i++)
		printf("%02x", h->sha256[i]);
	printf("\n");
	if (ret && info.rule != ENPU_FW_RULE_API_VERSION) {
		fprintf(stderr, "enpu-fwpack: %s: invalid image: %s\n", path, reason);
		return 1;
	}
	if (ret)
		printf("result:         valid, but firmware API %u is not this driver's (%u)\n",
		       h->api_version, ENPU_FW_API_VERSION);
	else
		printf("result:         valid\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "fw-version", required_argument, NULL, 'f' },
		{ "api-version", required_argument, NULL, 'a' },
		{ "inspect", required_argument, NULL, 'c' },
		{ "check", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *check_path = NULL;
	uint32_t fw_version = 0, api_version = ENPU_FW_API_VERSION;
	bool have_version = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (parse_fw_version(optarg, &fw_version)) {
				fprintf(stderr, "enpu-fwpack: --fw-version '%s' is not X.Y.Z with parts 0..255\n",
					optarg);
				return 2;
			}
			have_version = true;
			break;
		case 'a':
			if (parse_u32(optarg, UINT32_MAX, &api_version)) {
				fprintf(stderr, "enpu-fwpack: --api-version '%s' is not a 32-bit number\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			check_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (check_path) {
		if (optind != argc || have_version) {
			usage(stderr);
			return 2;
		}
		return inspect(check_path);
	}
	if (!have_version || argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	return pack(fw_version, api_version, argv[optind], argv[optind + 1]);
}
