// SPDX-License-Identifier: MIT
/* Float depthwise convolution (fdwconv_impl.h), neon build. */
#define FDWCONV_NAME enpu_fdwconv_neon
#include "fdwconv_impl.h"
