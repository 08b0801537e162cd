/* SPDX-License-Identifier: MIT */
/* Helpers shared by the thermal hook files. */
#ifndef TH_INTERNAL_H
#define TH_INTERNAL_H

#include <stddef.h>

int th_read_text(const char *path, char *buf, size_t size);

#endif /* TH_INTERNAL_H */
