// SPDX-License-Identifier: MIT
/* Float depthwise convolution (fdwconv_impl.h), avx2 build. */
#define FDWCONV_NAME enpu_fdwconv_avx2
#include "fdwconv_impl.h"
