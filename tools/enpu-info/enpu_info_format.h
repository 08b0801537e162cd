/* SPDX-License-Identifier: MIT */
/* Units enpu-info prints; kept apart from main() so unit tests reach them. */
#ifndef ENPU_INFO_FORMAT_H
#define ENPU_INFO_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* 200000 -> "200 MHz", 266667 -> "266.667 MHz". */
int enpu_info_format_clock(uint64_t khz, size_t size, char *buffer);
/* 41500 -> "41.5 °C", -2250 -> "-2.3 °C" (one decimal, rounded). */
int enpu_info_format_temperature(int64_t millicelsius, size_t size,
				 char *buffer);
/* 2097152 -> "2 MiB (2097152 bytes)"; exact binary units only. */
int enpu_info_format_bytes(uint64_t bytes, size_t size, char *buffer);

#endif /* ENPU_INFO_FORMAT_H */
