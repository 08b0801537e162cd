/* SPDX-License-Identifier: MIT */
/*
 * Opening a builder's model as a session, shared by the runtime tests
 * (test_rt.c, test_loader.c, tests/ops/test_ops.c).
 */
#ifndef ENPU_TEST_RT_OPEN_H
#define ENPU_TEST_RT_OPEN_H

#include <stdio.h>

#include "enpu/enpu_rt.h"
#include "model_builder.h"

/* Creates a session from the builder's model; returns the status. */
static inline enum enpu_rt_status mb_open(struct model_builder *mb,
					  int optimize, const char *base_dir,
					  enpu_rt_session **session, char *error,
					  size_t error_size)
{
	enpu_rt_options *options;
	size_t size;
	uint8_t *bytes = mb_pack(mb, &size);
	enum enpu_rt_status status;

	if (enpu_rt_options_create(&options))
		return ENPU_RT_OUT_OF_MEMORY;
	enpu_rt_options_set_optimize(options, optimize);
	status = enpu_rt_session_create_from_memory(bytes, size, base_dir,
						    options, session);
	if (error)
		snprintf(error, error_size, "%s",
			 enpu_rt_options_error(options));
	enpu_rt_options_destroy(options);
	return status;
}

#endif /* ENPU_TEST_RT_OPEN_H */
