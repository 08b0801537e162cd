// SPDX-License-Identifier: MIT
/* Float row kernels, 4 lanes (fmath_impl.h). */
#define VMATH_WIDTH 4
#define FMATH_TABLE enpu_fmath_scalar
#include "fmath_impl.h"
