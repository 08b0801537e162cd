// SPDX-License-Identifier: MIT
/*
 * The loader's files: a model read from a path (regular files only, with
 * descriptor 0 free as in a daemon with stdin closed) and external data
 * (offsets from both sides of the file's end, malformed offsets, path
 * components next to the "..", the one component that leaves the model's
 * directory). Each refusal asserts its status and the rule's message.
 */
#include <fcntl.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cpu/test_harness.h"
#include "enpu/enpu_rt.h"
#include "model_builder.h"
#include "model_io.h"
#include "onnx_loader.h"
#include "rt_open.h"

static const float identity[4] = { 1, 0, 0, 1 };
static const float x_data[4] = { 5, 6, 7, 8 };
static const int64_t dims22[] = { 2, 2 };

/* Runs y = x @ w on @s and checks y == x (w is the identity). */
static void check_identity(struct test_state *t, enpu_rt_session *s,
			   const char *what)
{
	struct enpu_rt_output out;

	CHECK(t, enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 2, dims22,
					    x_data, sizeof(x_data)) == 0 &&
	      enpu_rt_session_run(s) == 0 &&
	      enpu_rt_session_output(s, 0, &out) == 0 &&
	      out.byte_size == sizeof(x_data) &&
	      !memcmp(out.data, x_data, sizeof(x_data)),
	      "%s: the weights read are not the identity", what);
}

/* x -> MatMul(w) -> y with w external: @keys/@values, @count entries. */
static void external_model(struct model_builder *mb, const char *const *keys,
			   const char *const *values, size_t count)
{
	Onnx__TensorProto *tp;
	Onnx__StringStringEntryProto **entries;

	mb_init(mb, 13);
	mb_input(mb, "x", ENPU_RT_FLOAT, 2, dims22);
	tp = mb_initializer(mb, "w", ENPU_RT_FLOAT, 2, dims22, identity, 0);
	entries = rt_arena_alloc(&mb->arena, (count + 1) * sizeof(*entries));
	for (size_t i = 0; i < count; i++) {
		entries[i] = rt_arena_alloc(&mb->arena, sizeof(**entries));
		onnx__string_string_entry_proto__init(entries[i]);
		entries[i]->key = rt_arena_strdup(&mb->arena, keys[i]);
		entries[i]->value = rt_arena_strdup(&mb->arena, values[i]);
	}
	tp->n_external_data = count;
	tp->external_data = entries;
	tp->has_raw_data = 0;
	tp->has_data_location = 1;
	tp->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	mb_node(mb, "MatMul", "x,w", "y");
	mb_output(mb, "y");
}

/* Opens @mb from memory with @dir; a refusal must carry @message. */
static void expect_external(struct test_state *t, struct model_builder *mb,
			    const char *dir, enum enpu_rt_status status,
			    const char *message, const char *what)
{
	enpu_rt_session *s = NULL;
	char error[1024];
	enum enpu_rt_status got = mb_open(mb, 1, dir, &s, error,
					  sizeof(error));

	CHECK(t, got == status, "%s: status %d, want %d (%s)", what, got,
	      status, error);
	if (status != ENPU_RT_OK)
		CHECK(t, strstr(error, message) && strstr(error, "'w'"),
		      "%s: '%s' lacks '%s'", what, error, message);
	if (s)
		check_identity(t, s, what);
	enpu_rt_session_destroy(s);
	mb_free(mb);
}

/*
 * weights.bin: 16 bytes of junk, then the identity at offset 16, then 4
 * bytes of junk (24 + 16 = 36 bytes in all).
 */
static int write_offset_file(const char *dir)
{
	unsigned char bytes[36];
	char path[256];

	memset(bytes, 0xa5, sizeof(bytes));
	memcpy(bytes + 16, identity, sizeof(identity));
	snprintf(path, sizeof(path), "%s/weights.bin", dir);
	return mio_write_file(path, bytes, sizeof(bytes));
}

static void test_external_offsets(struct test_state *t)
{
	static const char *const keys[] = { "location", "offset", "length" };
	static const struct {
		const char *offset;
		enum enpu_rt_status status;
		const char *message;
	} cases[] = {
		{ "16", ENPU_RT_OK, "" },
		/* The data may end exactly at the end of the file... */
		{ "20", ENPU_RT_OK, "" },	/* (junk there: checked below) */
		/* ...but not one byte beyond it, nor start past it. */
		{ "21", ENPU_RT_INVALID_MODEL, "holds 36 bytes, 16 needed at "
		  "offset 21" },
		{ "37", ENPU_RT_INVALID_MODEL, "holds 36 bytes, 16 needed at "
		  "offset 37" },
		{ "18446744073709551615", ENPU_RT_INVALID_MODEL,
		  "holds 36 bytes" },
		{ "-16", ENPU_RT_INVALID_MODEL, "bad external data offset" },
		{ "16x", ENPU_RT_INVALID_MODEL, "bad external data offset" },
		{ "", ENPU_RT_INVALID_MODEL, "bad external data offset" },
		{ "99999999999999999999", ENPU_RT_INVALID_MODEL,
		  "bad external data offset" },
	};
	char dir[] = "/tmp/enpu-rt-offsets-XXXXXX", path[256];

	if (!mkdtemp(dir) || write_offset_file(dir)) {
		CHECK(t, 0, "cannot write the external data file");
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *values[] = { "weights.bin", cases[i].offset, "16" };
		struct model_builder mb;
		char what[64];

		snprintf(what, sizeof(what), "offset '%s'", cases[i].offset);
		external_model(&mb, keys, values, 3);
		if (i == 1) {
			/* Offset 20 reads 12 identity bytes and 4 of junk. */
			enpu_rt_session *s = NULL;
			struct enpu_rt_output out;
			const unsigned char *y;

			CHECK(t, mb_open(&mb, 1, dir, &s, NULL, 0) == ENPU_RT_OK &&
			      enpu_rt_session_bind_input(s, 0, ENPU_RT_FLOAT, 2,
					dims22, identity, sizeof(identity)) == 0 &&
			      enpu_rt_session_run(s) == 0 &&
			      enpu_rt_session_output(s, 0, &out) == 0,
			      "%s: does not run", what);
			y = s ? out.data : NULL;
			CHECK(t, y && !memcmp(y, (const unsigned char *)identity +
					      4, 12) &&
			      y[12] == 0xa5 && y[15] == 0xa5,
			      "%s: the last 16 bytes of the file not read", what);
			enpu_rt_session_destroy(s);
			mb_free(&mb);
			continue;
		}
		expect_external(t, &mb, dir, cases[i].status, cases[i].message,
				what);
	}
	/* The length must be what the dims say. */
	{
		static const char *const lkeys[] = { "location", "length" };
		const char *values[] = { "weights.bin", "32" };
		struct model_builder mb;

		external_model(&mb, lkeys, values, 2);
		expect_external(t, &mb, dir, ENPU_RT_INVALID_MODEL,
				"external data length 32 does not match the "
				"16 bytes", "length 32");
	}
	{
		const char *values[] = { "16" };
		struct model_builder mb;

		external_model(&mb, keys + 1, values, 1);
		expect_external(t, &mb, dir, ENPU_RT_INVALID_MODEL,
				"external data without a location",
				"no location");
	}
	snprintf(path, sizeof(path), "%s/weights.bin", dir);
	unlink(path);
	rmdir(dir);
}

/*
 * Only a component that is exactly ".." leaves the directory: "x.",
 * ".x" and "..." are names like any other; ".." anywhere in the path, a
 * backslash or an absolute path is refused.
 */
static void test_external_path_components(struct test_state *t)
{
	static const char *const keys[] = { "location", "length" };
	static const struct {
		const char *location;
		enum enpu_rt_status status;
	} cases[] = {
		{ "x./w.bin", ENPU_RT_OK },
		{ ".x/w.bin", ENPU_RT_OK },
		{ ".../w.bin", ENPU_RT_OK },
		{ "./x./w.bin", ENPU_RT_OK },
		{ "x.//w.bin", ENPU_RT_OK },
		{ "x./../x./w.bin", ENPU_RT_INVALID_MODEL },
		{ "x./..", ENPU_RT_INVALID_MODEL },
		{ "..", ENPU_RT_INVALID_MODEL },
		{ "x.\\w.bin", ENPU_RT_INVALID_MODEL },
		{ "/x./w.bin", ENPU_RT_INVALID_MODEL },
		{ "", ENPU_RT_INVALID_MODEL },
	};
	static const char *const subdirs[] = { "x.", ".x", "..." };
	char dir[] = "/tmp/enpu-rt-paths-XXXXXX", path[256];

	if (!mkdtemp(dir)) {
		CHECK(t, 0, "mkdtemp failed");
		return;
	}
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, subdirs[i]);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%s/w.bin", dir, subdirs[i]);
		if (mio_write_file(path, identity, sizeof(identity)))
			CHECK(t, 0, "cannot write %s", path);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *values[] = { cases[i].location, "16" };
		struct model_builder mb;
		char what[64];

		snprintf(what, sizeof(what), "location '%s'",
			 cases[i].location);
		external_model(&mb, keys, values, 2);
		expect_external(t, &mb, dir, cases[i].status,
				"leaves the model directory", what);
	}
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s/w.bin", dir, subdirs[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", dir, subdirs[i]);
		rmdir(path);
	}
	rmdir(dir);
}

/*
 * With descriptor 0 closed (a daemon's stdin), open() hands out 0: the
 * model file and its external data must still load. A directory is not
 * a model file.
 */
static void test_model_files(struct test_state *t)
{
	static const char *const keys[] = { "location", "length" };
	static const char *const values[] = { "w.bin", "16" };
	char dir[] = "/tmp/enpu-rt-files-XXXXXX", model[256], data[256];
	struct model_builder mb;
	enpu_rt_options *options;
	enpu_rt_session *s = NULL;
	enum enpu_rt_status status;
	uint8_t *bytes;
	size_t size;
	int saved;

	if (!mkdtemp(dir)) {
		CHECK(t, 0, "mkdtemp failed");
		return;
	}
	snprintf(model, sizeof(model), "%s/m.onnx", dir);
	snprintf(data, sizeof(data), "%s/w.bin", dir);
	external_model(&mb, keys, values, 2);
	bytes = mb_pack(&mb, &size);
	CHECK(t, !mio_write_file(model, bytes, size) &&
	      !mio_write_file(data, identity, sizeof(identity)), "write files");
	mb_free(&mb);
	enpu_rt_options_create(&options);

	saved = dup(0);
	close(0);
	status = enpu_rt_session_create_from_file(model, options, &s);
	/* Both files were read through descriptor 0 and closed again. */
	CHECK(t, fcntl(0, F_GETFD) == -1, "descriptor 0 left open");
	dup2(saved, 0);
	close(saved);
	CHECK(t, status == ENPU_RT_OK, "stdin closed: %d %s", status,
	      enpu_rt_options_error(options));
	if (s)
		check_identity(t, s, "stdin closed");
	enpu_rt_session_destroy(s);
	s = NULL;

	status = enpu_rt_session_create_from_file(dir, options, &s);
	CHECK(t, status == ENPU_RT_IO_ERROR && !s &&
	      strstr(enpu_rt_options_error(options), "is not a regular file"),
	      "a directory: %d %s", status, enpu_rt_options_error(options));
	enpu_rt_session_destroy(s);
	enpu_rt_options_destroy(options);
	unlink(model);
	unlink(data);
	rmdir(dir);
}

/*
 * rt_read_file() (the loader's, the quantizer's and enpu-run's reader):
 * a file of exactly @max bytes is read, one byte more is refused; every
 * failure leaves *data NULL and *size 0 and names the path.
 */
static void test_read_file(struct test_state *t)
{
	char dir[] = "/tmp/enpu-rt-read-XXXXXX", path[256], missing[300];
	struct rt_error_sink errors = { .status = 0 };
	void *data = NULL;
	size_t size = 99;

	if (!mkdtemp(dir)) {
		CHECK(t, 0, "mkdtemp failed");
		return;
	}
	snprintf(path, sizeof(path), "%s/w.bin", dir);
	snprintf(missing, sizeof(missing), "%s/none", dir);
	CHECK(t, !mio_write_file(path, identity, sizeof(identity)), "write");
	CHECK(t, rt_read_file(path, 16, &data, &size, &errors) == 0 &&
	      size == 16 && data && !memcmp(data, identity, 16),
	      "16 bytes at a limit of 16: %s", errors.message);
	free(data);
	size = 99;
	CHECK(t, rt_read_file(path, 15, &data, &size, &errors) ==
	      ENPU_RT_INVALID_MODEL && !data && size == 0 &&
	      strstr(errors.message, "is 16 bytes, more than the 15 allowed"),
	      "16 bytes at a limit of 15: size %zu, %s", size, errors.message);
	size = 99;
	{
		/* open() is what fails, with its errno named. */
		char want[400];

		snprintf(want, sizeof(want), "cannot open '%s': %s", missing,
			 strerror(ENOENT));
		CHECK(t, rt_read_file(missing, 16, &data, &size, &errors) ==
		      ENPU_RT_IO_ERROR && !data && size == 0 &&
		      strstr(errors.message, want), "missing: size %zu, %s",
		      size, errors.message);
	}
	size = 99;
	CHECK(t, rt_read_file(dir, 16, &data, &size, &errors) ==
	      ENPU_RT_IO_ERROR && !data && size == 0 &&
	      strstr(errors.message, "is not a regular file"),
	      "a directory: size %zu, %s", size, errors.message);
	unlink(path);
	rmdir(dir);
}

/*
 * A file shorter than its st_size (every sysfs attribute claims a page):
 * the read of external data meets the end of the file early and fails
 * naming it, instead of retrying for ever.
 */
static void test_external_short_read(struct test_state *t)
{
	static const char *const keys[] = { "location", "length" };
	static const char *const values[] = { "online", "16" };
	const char *dir = "/sys/devices/system/cpu";
	struct model_builder mb;
	struct stat st;
	char path[64];

	snprintf(path, sizeof(path), "%s/online", dir);
	if (stat(path, &st) || st.st_size < 16) {
		printf("  skipped: no sysfs %s claiming 16 bytes or more\n",
		       path);
		return;
	}
	external_model(&mb, keys, values, 2);
	expect_external(t, &mb, dir, ENPU_RT_IO_ERROR, "reading "
			"'/sys/devices/system/cpu/online' failed", "short read");
}

const struct test_case loader_file_tests[] = {
	{ "loader_external_offsets", test_external_offsets },
	{ "loader_external_path_components", test_external_path_components },
	{ "loader_model_files", test_model_files },
	{ "loader_read_file", test_read_file },
	{ "loader_external_short_read", test_external_short_read },
	{ NULL, NULL },
};
