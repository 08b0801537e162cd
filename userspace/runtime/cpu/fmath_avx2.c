// SPDX-License-Identifier: MIT
/* Float row kernels, 8 lanes (fmath_impl.h). */
#define VMATH_WIDTH 8
#define FMATH_TABLE enpu_fmath_avx2
#include "fmath_impl.h"
