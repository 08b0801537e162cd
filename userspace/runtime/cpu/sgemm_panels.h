/* SPDX-License-Identifier: MIT */
/*
 * A B operand built panel by panel (convolution's unfolded input): the
 * driver asks for columns [col0, col0 + cols) as one panel of k rows of
 * @nr floats (row kk at panel + kk * nr, columns past cols zero), in the
 * task that uses them, so the whole unfolded matrix never exists at once.
 */
#ifndef ENPU_CPU_SGEMM_PANELS_H
#define ENPU_CPU_SGEMM_PANELS_H

#include "enpu_cpu_float.h"

struct enpu_sgemm_source {
	void (*pack)(void *argument, size_t col0, size_t cols, size_t nr,
		     float *panel);
	void *argument;
};

/* enpu_cpu_sgemm() with B from @source (args->b/weights unused) if set. */
int enpu_sgemm_run(enpu_cpu_context *context,
		   const struct enpu_cpu_sgemm_args *args,
		   const struct enpu_sgemm_source *source);

#endif /* ENPU_CPU_SGEMM_PANELS_H */
