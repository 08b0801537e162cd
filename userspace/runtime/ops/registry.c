// SPDX-License-Identifier: MIT
/*
 * The op registry: a read-only table of every family's defs, built at
 * compile time from op_families.h, so there is no registration call and no
 * global mutable state.
 */
#include <string.h>

#include "rt_op.h"

#define RT_OP_FAMILY(family) extern const struct rt_op_def rt_ops_##family[];
#include "op_families.h"
#undef RT_OP_FAMILY

static const struct rt_op_def *const rt_op_families[] = {
#define RT_OP_FAMILY(family) rt_ops_##family,
#include "op_families.h"
#undef RT_OP_FAMILY
};

#define RT_OP_FAMILY_COUNT \
	(sizeof(rt_op_families) / sizeof(rt_op_families[0]))

static int same_domain(const char *a, const char *b)
{
	/* "ai.onnx" and "" are the same domain in ONNX. */
	if (!a || !strcmp(a, "ai.onnx"))
		a = "";
	if (!b || !strcmp(b, "ai.onnx"))
		b = "";
	return !strcmp(a, b);
}

const struct rt_op_def *rt_op_at(size_t index)
{
	for (size_t f = 0; f < RT_OP_FAMILY_COUNT; f++) {
		const struct rt_op_def *def = rt_op_families[f];

		for (; def->op_type; def++) {
			if (index == 0)
				return def;
			index--;
		}
	}
	return NULL;
}

const struct rt_op_def *rt_op_find(const char *domain, const char *op_type,
				   int64_t opset)
{
	const struct rt_op_def *def;

	for (size_t i = 0; (def = rt_op_at(i)); i++) {
		if (strcmp(def->op_type, op_type) ||
		    !same_domain(def->domain, domain))
			continue;
		if (opset >= def->opset_min && opset <= def->opset_max)
			return def;
	}
	return NULL;
}

int rt_op_known(const char *domain, const char *op_type)
{
	const struct rt_op_def *def;

	for (size_t i = 0; (def = rt_op_at(i)); i++)
		if (!strcmp(def->op_type, op_type) &&
		    same_domain(def->domain, domain))
			return 1;
	return 0;
}
