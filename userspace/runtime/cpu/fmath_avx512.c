// SPDX-License-Identifier: MIT
/* Float row kernels, 16 lanes (fmath_impl.h). */
#define VMATH_WIDTH 16
#define FMATH_TABLE enpu_fmath_avx512
#include "fmath_impl.h"
