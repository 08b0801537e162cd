// SPDX-License-Identifier: MIT
/* Float depthwise convolution (fdwconv_impl.h), avx512 build. */
#define FDWCONV_NAME enpu_fdwconv_avx512
#include "fdwconv_impl.h"
