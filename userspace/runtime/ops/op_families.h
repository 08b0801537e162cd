/* SPDX-License-Identifier: MIT */
/*
 * One line per op family file: RT_OP_FAMILY(name) names the array
 * `const struct rt_op_def rt_ops_name[]` (ending in an all-zero entry)
 * defined in ops/name.c. Included twice by ops/registry.c; no include guard
 * on purpose. Earlier families win when two define the same op and opset.
 */
RT_OP_FAMILY(core)
RT_OP_FAMILY(basic_math)
RT_OP_FAMILY(matmul)
RT_OP_FAMILY(quantize)
RT_OP_FAMILY(elementwise)
RT_OP_FAMILY(activation)
RT_OP_FAMILY(softmax)
RT_OP_FAMILY(normalization)
RT_OP_FAMILY(reduce)
RT_OP_FAMILY(dynamic_quantize)
RT_OP_FAMILY(qconv)
RT_OP_FAMILY(qpool)
RT_OP_FAMILY(qeltwise)
RT_OP_FAMILY(layout)
RT_OP_FAMILY(qpatches)
RT_OP_FAMILY(conv)
RT_OP_FAMILY(conv_integer)
RT_OP_FAMILY(pool)
RT_OP_FAMILY(shape_ops)
RT_OP_FAMILY(pad)
RT_OP_FAMILY(resize)
RT_OP_FAMILY(math_unary)
RT_OP_FAMILY(math_binary)
RT_OP_FAMILY(cast)
RT_OP_FAMILY(tensor_ops)
RT_OP_FAMILY(indexing)
