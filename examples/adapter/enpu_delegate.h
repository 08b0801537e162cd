/* SPDX-License-Identifier: MIT */
/*
 * The ENPU delegate of the toy runtime (enpu_delegate.c): what a
 * third-party runtime's adapter to ENPU looks like, through libenpu's
 * public API only.
 */
#ifndef ENPU_DELEGATE_H
#define ENPU_DELEGATE_H

#include <stddef.h>

#include "toy_runtime.h"

/*
 * Opens ENPU device_index and fills *delegate; on failure returns a
 * negative errno with why filled (libenpu's message).
 */
int enpu_delegate_create(size_t device_index, struct toy_delegate *delegate,
			 size_t why_size, char *why);
/* A delegate that can only claim (no device): for host tests. */
int enpu_delegate_claim_only(struct toy_delegate *delegate);
void enpu_delegate_destroy(struct toy_delegate *delegate);

#endif /* ENPU_DELEGATE_H */
