/* SPDX-License-Identifier: MIT */
/* Shared between the loader's files; needs the generated onnx.pb-c.h. */
#ifndef ENPU_RT_ONNX_INTERNAL_H
#define ENPU_RT_ONNX_INTERNAL_H

#include "ir.h"
#include "onnx.pb-c.h"

/* @what names the tensor in messages ("initializer 'w'"). */
int rt_onnx_convert_tensor(const Onnx__TensorProto *tp, const char *what,
			   const char *base_dir, struct rt_arena *arena,
			   struct rt_tensor *out, struct rt_error_sink *errors);

#endif /* ENPU_RT_ONNX_INTERNAL_H */
