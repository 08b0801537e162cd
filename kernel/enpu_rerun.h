/* SPDX-License-Identifier: GPL-2.0 */
/* Whether a job interrupted by a reset may run again from the start. */
#ifndef ENPU_RERUN_H
#define ENPU_RERUN_H

#include <linux/types.h>

#include "enpu_validate.h"

/* Buffer ranges a stream may have and still be analysed. */
#define ENPU_RERUN_MAX_REFS	1024

bool enpu_rerun_safe(const void *stream, u32 size,
		     const struct enpu_validate_bo *bos, u32 bo_count);

#endif /* ENPU_RERUN_H */
