// SPDX-License-Identifier: MIT
/* Names and sizes of statuses and element types. */
#include "enpu/enpu_rt.h"

const char *enpu_rt_status_name(enum enpu_rt_status status)
{
	switch (status) {
	case ENPU_RT_OK: return "ok";
	case ENPU_RT_INVALID_ARGUMENT: return "invalid argument";
	case ENPU_RT_INVALID_MODEL: return "invalid model";
	case ENPU_RT_UNSUPPORTED: return "unsupported";
	case ENPU_RT_OUT_OF_MEMORY: return "out of memory";
	case ENPU_RT_IO_ERROR: return "I/O error";
	case ENPU_RT_RUNTIME_ERROR: return "runtime error";
	case ENPU_RT_NOT_READY: return "not ready";
	}
	return "unknown status";
}

const char *enpu_rt_dtype_name(int32_t dtype)
{
	switch (dtype) {
	case ENPU_RT_FLOAT: return "float";
	case ENPU_RT_UINT8: return "uint8";
	case ENPU_RT_INT8: return "int8";
	case ENPU_RT_UINT16: return "uint16";
	case ENPU_RT_INT16: return "int16";
	case ENPU_RT_INT32: return "int32";
	case ENPU_RT_INT64: return "int64";
	case ENPU_RT_STRING: return "string";
	case ENPU_RT_BOOL: return "bool";
	case ENPU_RT_FLOAT16: return "float16";
	case ENPU_RT_DOUBLE: return "double";
	case ENPU_RT_UINT32: return "uint32";
	case ENPU_RT_UINT64: return "uint64";
	case ENPU_RT_COMPLEX64: return "complex64";
	case ENPU_RT_COMPLEX128: return "complex128";
	case ENPU_RT_BFLOAT16: return "bfloat16";
	case ENPU_RT_SEQUENCE: return "sequence";
	case ENPU_RT_OPTIONAL: return "optional";
	default: return "unknown";
	}
}

size_t enpu_rt_dtype_size(int32_t dtype)
{
	switch (dtype) {
	case ENPU_RT_UINT8: case ENPU_RT_INT8: case ENPU_RT_BOOL:
	/* Packed sequence/optional values: a byte buffer. */
	case ENPU_RT_SEQUENCE: case ENPU_RT_OPTIONAL:
		return 1;
	case ENPU_RT_UINT16: case ENPU_RT_INT16: case ENPU_RT_FLOAT16:
	case ENPU_RT_BFLOAT16:
		return 2;
	case ENPU_RT_FLOAT: case ENPU_RT_INT32: case ENPU_RT_UINT32:
		return 4;
	case ENPU_RT_INT64: case ENPU_RT_DOUBLE: case ENPU_RT_UINT64:
	case ENPU_RT_COMPLEX64:
		return 8;
	case ENPU_RT_COMPLEX128:
		return 16;
	default:
		return 0;
	}
}
