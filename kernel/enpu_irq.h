/* SPDX-License-Identifier: GPL-2.0 */
/* Interrupt handlers, one per ENPU_VEC_* cause. */
#ifndef ENPU_IRQ_H
#define ENPU_IRQ_H

#include <linux/bits.h>

#include "enpu_regs.h"

struct enpu_device;

#define ENPU_IRQ_MASK_ALL	GENMASK(ENPU_NUM_VECTORS - 1, 0)

int enpu_irq_install(struct enpu_device *edev);

#endif /* ENPU_IRQ_H */
