// SPDX-License-Identifier: GPL-2.0
/*
 * sha256() with the kernel's signature (crypto/sha2.h) for the userspace
 * builds of firmware-loader/enpu_fw_image.c: enpu-fwpack, the vnpu, the
 * host tests and the fuzzer. libcrypto does the hashing.
 */
#include <stdio.h>
#include <stdlib.h>

#include <openssl/evp.h>

#include "enpu_fw_image.h"

void sha256(const u8 *data, unsigned int len, u8 *out)
{
	unsigned int out_len = 0;

	/*
	 * Only an allocation failure inside libcrypto can get here; a wrong
	 * digest would make a valid image look corrupt, so stop instead.
	 */
	if (EVP_Digest(data, len, out, &out_len, EVP_sha256(), NULL) != 1 ||
	    out_len != 32) {
		fprintf(stderr, "sha256: libcrypto failed\n");
		abort();
	}
}
