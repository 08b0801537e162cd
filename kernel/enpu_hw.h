/* SPDX-License-Identifier: GPL-2.0 */
/* Register access, identification and reset of the NPU. */
#ifndef ENPU_HW_H
#define ENPU_HW_H

#include <linux/io.h>
#include <linux/types.h>

#include "enpu_device.h"

/*
 * readl() orders every later memory read after it and writel() orders every
 * earlier write before it, on all architectures. That is exactly the
 * acquire (index, then data) and release (data, then index) pairing the
 * hardware specification asks for, so no extra barriers are needed.
 */
static inline u32 enpu_read(struct enpu_device *edev, u32 reg)
{
	return readl(edev->regs + reg);
}

static inline void enpu_write(struct enpu_device *edev, u32 reg, u32 value)
{
	writel(value, edev->regs + reg);
}

int enpu_hw_check_signature(struct device *dev, void __iomem *regs);
int enpu_hw_identify(struct enpu_device *edev);
void enpu_hw_ring_doorbell(struct enpu_device *edev, u32 doorbell);
u32 enpu_hw_heartbeat_period_us(struct enpu_device *edev);
void enpu_hw_clear_ring_indices(struct enpu_device *edev);
void enpu_hw_set_queue_priorities(struct enpu_device *edev);
int enpu_hw_get_param(struct enpu_device *edev, u32 param, u64 *value);
u64 enpu_hw_clock_khz(struct enpu_device *edev, u32 param);
u64 enpu_hw_cycles_to_ns(struct enpu_device *edev, u64 cycles);
u64 enpu_hw_read_counter(struct enpu_device *edev, u32 lo);

#endif /* ENPU_HW_H */
