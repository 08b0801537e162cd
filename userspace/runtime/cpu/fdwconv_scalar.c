// SPDX-License-Identifier: MIT
/* Float depthwise convolution (fdwconv_impl.h), scalar build. */
#define FDWCONV_NAME enpu_fdwconv_scalar
#include "fdwconv_impl.h"
