// SPDX-License-Identifier: MIT
/*
 * TensorProto -> struct rt_tensor: dims, the typed repeated fields, raw_data
 * and external data files. Every count is checked against the dims before a
 * byte is copied.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx.pb-c.h"
#include "onnx_internal.h"
#include "onnx_loader.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "raw_data is little-endian; a big-endian host needs byte swapping"
#endif

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* Only relative paths that stay below the model's directory. */
static int external_path_ok(const char *location)
{
	const char *p = location;

	if (!*location || location[0] == '/')
		return 0;
	while (*p) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		if (memchr(p, '\\', len))
			return 0;
		p += len;
		if (*p == '/')
			p++;
	}
	return 1;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);

	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int read_external(const Onnx__TensorProto *tp, const char *what,
			 const char *base_dir, void *dst, size_t bytes,
			 struct rt_error_sink *errors)
{
	const char *location = NULL;
	uint64_t offset = 0, length = UINT64_MAX;
	char *path = NULL;
	int fd = -1, status = 0;
	struct stat st;

	for (size_t i = 0; i < tp->n_external_data; i++) {
		const char *key = or_empty(tp->external_data[i]->key);
		const char *value = tp->external_data[i]->value;

		if (!strcmp(key, "location")) {
			location = value;
		} else if (!strcmp(key, "offset")) {
			if (parse_u64(value, &offset))
				return rt_error_set(errors,
					ENPU_RT_INVALID_MODEL,
					"%s: bad external data offset", what);
		} else if (!strcmp(key, "length")) {
			if (parse_u64(value, &length))
				return rt_error_set(errors,
					ENPU_RT_INVALID_MODEL,
					"%s: bad external data length", what);
		}
	}
	if (!location)
		return rt_error_set(errors, ENPU_RT_INVALID_MODEL,
				    "%s: external data without a location",
				    what);
	if (!base_dir)
		return rt_error_set(errors, ENPU_RT_INVALID_MODEL,
				    "%s: external data '%s' but the model was "
				    "loaded from memory without a directory",
				    what, location);
	if (!external_path_ok(location))
		return rt_error_set(errors, ENPU_RT_INVALID_MODEL,
				    "%s: external data path '%s' leaves the "
				    "model directory", what, location);
	if (length != UINT64_MAX && length != bytes)
		return rt_error_set(errors, ENPU_RT_INVALID_MODEL,
				    "%s: external data length %" PRIu64
				    " does not match the %zu bytes of its dims",
				    what, length, bytes);
	if (asprintf(&path, "%s/%s", base_dir, location) < 0)
		return rt_error_set(errors, ENPU_RT_OUT_OF_MEMORY,
				    "%s: out of memory", what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		status = rt_error_set(errors, ENPU_RT_IO_ERROR,
				      "%s: cannot open external data '%s': %s",
				      what, path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		status = rt_error_set(errors, ENPU_RT_IO_ERROR,
				      "%s: external data '%s' is not a file",
				      what, path);
		goto out;
	}
	if (offset > (uint64_t)st.st_size ||
	    bytes > (uint64_t)st.st_size - offset) {
		status = rt_error_set(errors, ENPU_RT_INVALID_MODEL,
				      "%s: external data '%s' holds %lld bytes, "
				      "%zu needed at offset %" PRIu64, what,
				      path, (long long)st.st_size, bytes, offset);
		goto out;
	}
	for (size_t done = 0; done < bytes;) {
		ssize_t got = pread(fd, (char *)dst + done, bytes - done,
				    (off_t)(offset + done));

		if (got <= 0) {
			status = rt_error_set(errors, ENPU_RT_IO_ERROR,
					      "%s: reading '%s' failed", what,
					      path);
			goto out;
		}
		done += (size_t)got;
	}
out:
	if (fd >= 0)
		close(fd);
	free(path);
	return status;
}

/* Copies @n typed-field elements into dst with the tensor's element type. */
static void copy_int32_field(const int32_t *src, size_t n, int32_t dtype,
			     void *dst)
{
	for (size_t i = 0; i < n; i++) {
		switch (dtype) {
		case ENPU_RT_INT32:
			((int32_t *)dst)[i] = src[i];
			break;
		case ENPU_RT_INT16:
			((int16_t *)dst)[i] = (int16_t)src[i];
			break;
		case ENPU_RT_UINT16:
		case ENPU_RT_FLOAT16:
		case ENPU_RT_BFLOAT16:
			((uint16_t *)dst)[i] = (uint16_t)src[i];
			break;
		case ENPU_RT_INT8:
			((int8_t *)dst)[i] = (int8_t)src[i];
			break;
		case ENPU_RT_UINT8:
			((uint8_t *)dst)[i] = (uint8_t)src[i];
			break;
		case ENPU_RT_BOOL:
			((uint8_t *)dst)[i] = src[i] != 0;
			break;
		}
	}
}

int rt_onnx_convert_tensor(const Onnx__TensorProto *tp, const char *what,
			   const char *base_dir, struct rt_arena *arena,
			   struct rt_tensor *out, struct rt_error_sink *errors)
{
	int32_t dtype = tp->has_data_type ? tp->data_type : 0;
	size_t element = enpu_rt_dtype_size(dtype), count = 1, bytes;
	size_t typed_count = 0;
	const void *typed = NULL;
	int typed_kind = 0;	/* 1 float, 2 int32, 3 int64, 4 double, 5 u64 */

	memset(out, 0, sizeof(*out));
	if (dtype == ENPU_RT_STRING)
		return rt_error_set(errors, ENPU_RT_UNSUPPORTED,
				    "%s: string tensors are not supported",
				    what);
	if (!element || dtype == ENPU_RT_COMPLEX64 ||
	    dtype == ENPU_RT_COMPLEX128)
		return rt_error_set(errors, ENPU_RT_UNSUPPORTED,
				    "%s: element type %d is not supported",
				    what, dtype);
	if (tp->segment)
		return rt_error_set(errors, ENPU_RT_UNSUPPORTED,
				    "%s: segmented tensors are not supported",
				    what);
	if (tp->n_dims > RT_MAX_RANK)
		return rt_error_set(errors, ENPU_RT_UNSUPPORTED,
				    "%s: rank %zu exceeds %d", what, tp->n_dims,
				    RT_MAX_RANK);
	for (size_t i = 0; i < tp->n_dims; i++) {
		if (tp->dims[i] < 0)
			return rt_error_set(errors, ENPU_RT_INVALID_MODEL,
					    "%s: dimension %zu is negative", what,
					    i);
		if (tp->dims[i] &&
		    count > RT_ONNX_MAX_TENSOR_BYTES / element /
			    (uint64_t)tp->dims[i])
			return rt_error_set(errors, ENPU_RT_INVALID_MODEL,
					    "%s: larger than %zu bytes", what,
					    RT_ONNX_MAX_TENSOR_BYTES);
		count *= (size_t)tp->dims[i];
		out->dims[i] = tp->dims[i];
	}
	out->rank = (int32_t)tp->n_dims;
	out->dtype = dtype;
	bytes = count * element;
	out->byte_size = bytes;
	out->name = rt_arena_strdup(arena, or_empty(tp->name));
	/* Keep a non-NULL pointer even for empty tensors: data known. */
	out->data = rt_arena_alloc(arena, bytes ? bytes : 1);
	if (!out->name || !out->data)
		return rt_error_set(errors, ENPU_RT_OUT_OF_MEMORY,
				    "%s: out of memory (or over the %zu byte "
				    "constant limit)", what,
				    RT_ONNX_MAX_CONSTANT_BYTES);

	if (tp->has_data_location &&
	    tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		return read_external(tp, what, base_dir, out->data, bytes,
				     errors);
	if (tp->has_raw_data) {
		if (tp->raw_data.len != bytes)
			return rt_error_set(errors, ENPU_RT_INVALID_MODEL,
					    "%s: raw_data holds %zu bytes, dims "
					    "need %zu", what, tp->raw_data.len,
					    bytes);
		if (bytes)
			memcpy(out->data, tp->raw_data.data, bytes);
		return 0;
	}
	switch (dtype) {
	case ENPU_RT_FLOAT:
		typed = tp->float_data, typed_count = tp->n_float_data;
		typed_kind = 1;
		break;
	case ENPU_RT_INT32: case ENPU_RT_INT16: case ENPU_RT_INT8:
	case ENPU_RT_UINT16: case ENPU_RT_UINT8: case ENPU_RT_BOOL:
	case ENPU_RT_FLOAT16: case ENPU_RT_BFLOAT16:
		typed = tp->int32_data, typed_count = tp->n_int32_data;
		typed_kind = 2;
		break;
	case ENPU_RT_INT64:
		typed = tp->int64_data, typed_count = tp->n_int64_data;
		typed_kind = 3;
		break;
	case ENPU_RT_DOUBLE:
		typed = tp->double_data, typed_count = tp->n_double_data;
		typed_kind = 4;
		break;
	case ENPU_RT_UINT32: case ENPU_RT_UINT64:
		typed = tp->uint64_data, typed_count = tp->n_uint64_data;
		typed_kind = 5;
		break;
	}
	if (typed_count != count)
		return rt_error_set(errors, ENPU_RT_INVALID_MODEL,
				    "%s: holds %zu values, dims need %zu", what,
				    typed_count, count);
	if (!count)
		return 0;
	switch (typed_kind) {
	case 1:
	case 3:
	case 4:
		memcpy(out->data, typed, bytes);
		break;
	case 2:
		copy_int32_field(typed, count, dtype, out->data);
		break;
	case 5:
		for (size_t i = 0; i < count; i++) {
			uint64_t v = ((const uint64_t *)typed)[i];

			if (dtype == ENPU_RT_UINT32)
				((uint32_t *)out->data)[i] = (uint32_t)v;
			else
				((uint64_t *)out->data)[i] = v;
		}
		break;
	}
	return 0;
}

int rt_onnx_parse_tensor(const void *data, size_t size, struct rt_arena *arena,
			 struct rt_tensor *tensor,
			 struct rt_error_sink *errors)
{
	Onnx__TensorProto *tp;
	int status;

	tp = onnx__tensor_proto__unpack(NULL, size, data);
	if (!tp)
		return rt_error_set(errors, ENPU_RT_INVALID_MODEL,
				    "not a valid TensorProto (%zu bytes)", size);
	status = rt_onnx_convert_tensor(tp, "tensor", NULL, arena, tensor,
					errors);
	onnx__tensor_proto__free_unpacked(tp, NULL);
	return status;
}
