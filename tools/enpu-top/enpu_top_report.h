/* SPDX-License-Identifier: MIT */
/*
 * What enpu-top prints for a sample, with rates against the previous one
 * (NULL: the first sample, rates are "n/a").
 */
#ifndef ENPU_TOP_REPORT_H
#define ENPU_TOP_REPORT_H

#include <stdio.h>

#include "enpu_top_sample.h"

void top_report(FILE *out, const struct top_sample *previous,
		const struct top_sample *current);

#endif /* ENPU_TOP_REPORT_H */
