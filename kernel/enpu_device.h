/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct enpu_device: one NPU, whatever bus it sits on.
 *
 * The driver's lock order is written once, at the top of
 * scheduler/enpu_sched.c; every file that takes a lock refers there.
 */
#ifndef ENPU_DEVICE_H
#define ENPU_DEVICE_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <drm/drm_device.h>

#include "enpu_debugfs.h"
#include "enpu_devfreq.h"
#include "enpu_irq.h"
#include "enpu_job.h"
#include "enpu_limits.h"
#include "enpu_mailbox.h"
#include "enpu_pm.h"
#include "enpu_queue.h"
#include "enpu_recovery.h"
#include "enpu_regs.h"
#include "enpu_sched.h"
#include "enpu_thermal.h"

struct device;

/**
 * struct enpu_bus_resources - what a bus glue hands the core
 * @dev: the device used for DMA, firmware requests and logging.
 * @regs: the register window (ivshmem BAR2 or the DT "reg" window), at
 *	least ENPU_BAR2_SIZE bytes with the layout of kernel/enpu_regs.h.
 * @doorbell: the ivshmem BAR0 doorbell register, or NULL when the doorbell
 *	is ENPU_REG_DOORBELL inside @regs (SoC integration).
 * @irqs: Linux IRQ numbers of the ENPU_VEC_* causes, in vector order.
 * @set_bus_master: lets the device reach memory (true) or stops it from
 *	issuing any memory request (false; PCI: Bus Master Enable), or NULL
 *	where the bus has no such switch. Sleeps.
 */
struct enpu_bus_resources {
	struct device *dev;
	void __iomem *regs;
	void __iomem *doorbell;
	int irqs[ENPU_NUM_VECTORS];
	void (*set_bus_master)(struct device *dev, bool on);
};

/**
 * struct enpu_identity - constant identification registers, read at probe
 * @hw_version: ENPU_REG_HW_VERSION, major << 16 | minor.
 * @device_id: ENPU_REG_DEVICE_ID.
 * @caps: ENPU_CAP_* bits.
 * @num_queues: hardware submission queues, 1..ENPU_MAX_QUEUES.
 * @sram_kb: on-chip SRAM in KiB.
 * @macs_per_cycle: int8 MACs per clock.
 * @sq_entries: descriptors per submission ring, a power of two.
 * @cq_entries: entries in the completion ring, a power of two.
 * @ctx_save_size: bytes of a context-save area (ENPU_REG_CTX_SAVE_SIZE),
 *	0 without ENPU_CAP_PREEMPT.
 * @preempt_bound_ns: the device's bound between two preemption points
 *	(ENPU_REG_PREEMPT_BOUND_NS), 0 without ENPU_CAP_PREEMPT.
 */
struct enpu_identity {
	u32 hw_version;
	u32 device_id;
	u32 caps;
	u32 num_queues;
	u32 sram_kb;
	u32 macs_per_cycle;
	u32 sq_entries;
	u32 cq_entries;
	u32 ctx_save_size;
	u32 preempt_bound_ns;
};

/**
 * struct enpu_device - driver state of one NPU
 * @drm: the DRM device; the structure is allocated with it.
 * @dev: bus device, for DMA and logging.
 * @regs: register window.
 * @doorbell: where doorbells are written (see struct enpu_bus_resources).
 * @irqs: Linux IRQ numbers per ENPU_VEC_* cause.
 * @set_bus_master: see struct enpu_bus_resources.
 * @id: identification registers.
 * @fw_version: version of the running firmware.
 * @fw_api_version: API version of the running firmware.
 * @mbox: mailbox channel (enpu_mailbox.c).
 * @rings: submission and completion ring state (enpu_queue.c).
 * @irq: interrupt counters and the last error (enpu_irq.c).
 * @nop: the debugfs NOP job (enpu_debugfs.c).
 * @sched: the scheduler: contexts' FIFOs, dispatch, preemption
 *	(scheduler/enpu_sched.c).
 * @job: the job side's device-wide state (enpu_job.c).
 * @recovery: watchdog and hang recovery (enpu_recovery.c).
 * @jobs: jobs whose fence has not signalled, against ENPU_LIMIT_JOBS.
 * @contexts: created contexts not yet freed, against ENPU_LIMIT_CONTEXTS.
 * @import_moves: move_notify calls of imported buffers' exporters.
 * @dvfs: devfreq of the NPU clock (enpu_devfreq.c).
 * @thermal: thermal zone and safe state (enpu_thermal.c).
 * @pm: runtime and system PM (enpu_pm.c).
 */
struct enpu_device {
	struct drm_device drm;
	struct device *dev;
	void __iomem *regs;
	void __iomem *doorbell;
	int irqs[ENPU_NUM_VECTORS];
	void (*set_bus_master)(struct device *dev, bool on);

	struct enpu_identity id;
	u32 fw_version;
	u32 fw_api_version;

	struct enpu_mailbox mbox;
	struct enpu_rings rings;
	struct enpu_irq irq;
	struct enpu_nop nop;

	struct enpu_sched sched;
	struct enpu_job_dev job;
	struct enpu_recovery recovery;
	struct enpu_quota jobs;
	struct enpu_quota contexts;
	atomic64_t import_moves;
	struct enpu_dvfs dvfs;
	struct enpu_thermal thermal;
	struct enpu_pm pm;
};

static inline struct enpu_device *to_enpu_device(struct drm_device *drm)
{
	return container_of(drm, struct enpu_device, drm);
}

struct enpu_device *enpu_device_probe(const struct enpu_bus_resources *res);
void enpu_device_remove(struct enpu_device *edev);

#endif /* ENPU_DEVICE_H */
