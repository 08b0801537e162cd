// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware bring-up: recognise an ENPU register block, read what it
 * reports about itself, and answer GET_PARAM from its registers. The
 * bottom layer: it calls nothing of the driver's above it (RESET is a
 * mailbox command, enpu_mailbox_reset()).
 */
#include <linux/bits.h>
#include <linux/device.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/time64.h>

#include "enpu_accel.h"
#include "enpu_hw.h"

/* The oldest interface the driver drives (its register map is newer). */
#define ENPU_HW_MINOR_REQUIRED	2

/**
 * enpu_hw_check_signature() - is this register window an ENPU we support?
 * @dev: device, for debug messages only.
 * @regs: the mapped register window.
 *
 * Called by the bus glue before it claims anything, so that unrelated
 * devices sharing the bus identity (any ivshmem device) are left alone
 * without noise in the log.
 *
 * Return: 0 for an ENPU with our major interface version, -ENODEV otherwise.
 */
int enpu_hw_check_signature(struct device *dev, void __iomem *regs)
{
	u32 signature = readl(regs + ENPU_REG_SIGNATURE);
	u32 version = readl(regs + ENPU_REG_HW_VERSION);

	if (signature != ENPU_SIGNATURE) {
		dev_dbg(dev, "signature 0x%08x is not ENPU, not claiming\n",
			signature);
		return -ENODEV;
	}
	if ((version >> 16) != ENPU_HW_VERSION_MAJOR) {
		dev_info(dev, "ENPU interface %u.%u, driver speaks %u.x only\n",
			 version >> 16, version & 0xffff,
			 ENPU_HW_VERSION_MAJOR);
		return -ENODEV;
	}
	return 0;
}

/* Ring geometry comes from the device; it must fit the windows we map. */
static int enpu_hw_check_geometry(struct enpu_device *edev)
{
	const struct enpu_identity *id = &edev->id;
	u32 sq_room = (ENPU_SQ_OFFSET(1) - ENPU_SQ_OFFSET(0)) /
		      ENPU_JOB_DESC_SIZE;
	u32 cq_room = (ENPU_FW_LOG_OFFSET - ENPU_CQ_OFFSET) / ENPU_CQE_SIZE;

	if (id->num_queues == 0 || id->num_queues > ENPU_MAX_QUEUES) {
		dev_err(edev->dev, "device reports %u queues, expected 1..%u\n",
			id->num_queues, ENPU_MAX_QUEUES);
		return -ENODEV;
	}
	if (!is_power_of_2(id->sq_entries) || id->sq_entries > sq_room) {
		dev_err(edev->dev, "bad submission ring size %u\n",
			id->sq_entries);
		return -ENODEV;
	}
	if (!is_power_of_2(id->cq_entries) || id->cq_entries > cq_room) {
		dev_err(edev->dev, "bad completion ring size %u\n",
			id->cq_entries);
		return -ENODEV;
	}
	return 0;
}

/**
 * enpu_hw_identify() - read and check the identification registers
 * @edev: the device; @edev->regs must be mapped.
 *
 * Return: 0, or -ENODEV if the device is not one this driver can drive.
 */
int enpu_hw_identify(struct enpu_device *edev)
{
	struct enpu_identity *id = &edev->id;
	int ret;

	ret = enpu_hw_check_signature(edev->dev, edev->regs);
	if (ret)
		return ret;

	id->hw_version = enpu_read(edev, ENPU_REG_HW_VERSION);
	id->device_id = enpu_read(edev, ENPU_REG_DEVICE_ID);
	id->caps = enpu_read(edev, ENPU_REG_CAPS);
	id->num_queues = enpu_read(edev, ENPU_REG_NUM_QUEUES);
	id->sram_kb = enpu_read(edev, ENPU_REG_SRAM_KB);
	id->macs_per_cycle = enpu_read(edev, ENPU_REG_MACS_PER_CYCLE);
	id->sq_entries = enpu_read(edev, ENPU_REG_SQ_ENTRIES);
	id->cq_entries = enpu_read(edev, ENPU_REG_CQ_ENTRIES);
	/* Preemption registers exist from 1.4 on, with the capability. */
	if ((id->caps & ENPU_CAP_PREEMPT) &&
	    id->hw_version >= ENPU_HW_VERSION(ENPU_HW_VERSION_MAJOR, 4)) {
		id->ctx_save_size = enpu_read(edev, ENPU_REG_CTX_SAVE_SIZE);
		id->preempt_bound_ns = enpu_read(edev,
						 ENPU_REG_PREEMPT_BOUND_NS);
		/* A save area is one DMA allocation per context. */
		if (id->ctx_save_size < ENPU_SAVE_HEADER_SIZE ||
		    id->ctx_save_size > SZ_1M) {
			dev_warn(edev->dev, "save area of %u bytes: not preempting\n",
				 id->ctx_save_size);
			id->ctx_save_size = 0;
		}
	}

	/*
	 * Jobs carry 1.2 layer commands and address BOs through 1.1 tables;
	 * 1.3 adds HEARTBEAT_PERIOD_US, which a 1.2 device does without
	 * (enpu_hw_heartbeat_period_us()); preemption (1.4) is used only
	 * where CAPS advertises it.
	 */
	if (id->hw_version < ENPU_HW_VERSION(ENPU_HW_VERSION_MAJOR,
					     ENPU_HW_MINOR_REQUIRED)) {
		dev_err(edev->dev, "ENPU interface %u.%u, driver needs %u.%u\n",
			id->hw_version >> 16, id->hw_version & 0xffff,
			ENPU_HW_VERSION_MAJOR, ENPU_HW_MINOR_REQUIRED);
		return -ENODEV;
	}
	ret = enpu_hw_check_geometry(edev);
	if (ret)
		return ret;

	dev_info(edev->dev,
		 "ENPU interface %u.%u, device 0x%04x, %u queues, %u KiB SRAM, caps 0x%x\n",
		 id->hw_version >> 16, id->hw_version & 0xffff, id->device_id,
		 id->num_queues, id->sram_kb, id->caps);
	return 0;
}

/**
 * enpu_hw_heartbeat_period_us() - wall time of one HEARTBEAT increment
 * @edev: the device.
 *
 * A 1.3 device says how fast its heartbeat ticks now (the vnpu's depends
 * on its speed factor, silicon's is 1 ms); a 1.2 device ticks once per
 * millisecond as its specification says. A period of 0 is read as 1 ms.
 *
 * Return: microseconds.
 */
u32 enpu_hw_heartbeat_period_us(struct enpu_device *edev)
{
	u32 period = 0;

	if (edev->id.hw_version >= ENPU_HW_VERSION(ENPU_HW_VERSION_MAJOR, 3))
		period = enpu_read(edev, ENPU_REG_HEARTBEAT_PERIOD_US);
	return period ?: USEC_PER_MSEC;
}

/**
 * enpu_hw_ring_doorbell() - tell the device that something is pending
 * @edev: the device.
 * @doorbell: ENPU_DB_QUEUE or ENPU_DB_CONTROL.
 *
 * The write is ordered after every earlier register and ring write (see
 * enpu_write()), so the device sees the request before the doorbell.
 */
void enpu_hw_ring_doorbell(struct enpu_device *edev, u32 doorbell)
{
	if (edev->doorbell)
		writel(ENPU_IVSHMEM_DOORBELL_VAL(ENPU_VNPU_PEER_ID, doorbell),
		       edev->doorbell);
	else
		enpu_write(edev, ENPU_REG_DOORBELL, doorbell);
}

/**
 * enpu_hw_clear_ring_indices() - restart the driver-owned ring indices
 * @edev: the device, in WAIT_FW.
 *
 * RESET zeroes the device-owned indices (SQ_HEAD, CQ_TAIL); the driver
 * owns SQ_TAIL and CQ_HEAD and must zero them before the next BOOT, or the
 * device would see stale descriptors as pending.
 */
void enpu_hw_clear_ring_indices(struct enpu_device *edev)
{
	unsigned int q;

	for (q = 0; q < ENPU_MAX_QUEUES; q++)
		enpu_write(edev, ENPU_REG_SQ_TAIL(q), 0);
	enpu_write(edev, ENPU_REG_CQ_HEAD, 0);
}

/**
 * enpu_hw_set_queue_priorities() - SQ_PRIORITY(q) = q for every queue
 * @edev: the device, after each firmware boot.
 *
 * Contexts map LOW..REALTIME to queues 0..3 (enpu_context.c), so the
 * device's arbitration (higher first, at job boundaries) serves higher
 * priorities first.
 */
void enpu_hw_set_queue_priorities(struct enpu_device *edev)
{
	unsigned int q;

	for (q = 0; q < edev->id.num_queues; q++)
		enpu_write(edev, ENPU_REG_SQ_PRIORITY(q), q);
}

static const struct {
	u32 hw;
	u64 uapi;
} enpu_caps_map[] = {
	{ ENPU_CAP_PREEMPT, DRM_ENPU_CAP_PREEMPT },
	{ ENPU_CAP_DMA_COPY, DRM_ENPU_CAP_DMA_COPY },
	{ ENPU_CAP_PERF_COUNTERS, DRM_ENPU_CAP_PERF_COUNTERS },
	{ ENPU_CAP_THERMAL, DRM_ENPU_CAP_THERMAL },
	{ ENPU_CAP_DVFS, DRM_ENPU_CAP_DVFS },
};

/* Hardware capability bits unknown to the uapi are not reported. */
static u64 enpu_hw_caps_to_uapi(u32 caps)
{
	u64 uapi = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(enpu_caps_map); i++)
		if (caps & enpu_caps_map[i].hw)
			uapi |= enpu_caps_map[i].uapi;
	return uapi;
}

/* The OPP table is device-written: clamp every index before using it. */
static u32 enpu_hw_opp_count(struct enpu_device *edev)
{
	return min_t(u32, enpu_read(edev, ENPU_REG_OPP_COUNT), ENPU_MAX_OPPS);
}

/**
 * enpu_hw_clock_khz() - a clock of the device's OPP table
 * @edev: the device; its registers are mapped.
 * @param: DRM_ENPU_PARAM_CLOCK_MIN_KHZ, _MAX_KHZ, or anything else for the
 *	clock it runs at now.
 *
 * Return: the clock in kHz, 0 if the device reports no (valid) OPP.
 */
u64 enpu_hw_clock_khz(struct enpu_device *edev, u32 param)
{
	u32 count = enpu_hw_opp_count(edev);
	u32 index;

	if (count == 0)
		return 0;
	switch (param) {
	case DRM_ENPU_PARAM_CLOCK_MIN_KHZ:
		index = 0;
		break;
	case DRM_ENPU_PARAM_CLOCK_MAX_KHZ:
		index = count - 1;
		break;
	default:
		index = enpu_read(edev, ENPU_REG_OPP_CURRENT);
		if (index >= count)
			return 0;
		break;
	}
	return enpu_read(edev, ENPU_REG_OPP_KHZ(index));
}

/**
 * enpu_hw_read_counter() - a 64-bit counter the device updates as it runs
 * @edev: the device; its registers are mapped.
 * @lo: the register of its low half; the high half follows it.
 *
 * The high half is read before and after the low one, so a carry between
 * the two reads is never seen half done.
 *
 * Return: the counter.
 */
u64 enpu_hw_read_counter(struct enpu_device *edev, u32 lo)
{
	u32 hi, low;

	do {
		hi = enpu_read(edev, lo + 4);
		low = enpu_read(edev, lo);
	} while (enpu_read(edev, lo + 4) != hi);
	return (u64)hi << 32 | low;
}

/**
 * enpu_hw_cycles_to_ns() - device cycles in ns at the clock of now
 * @edev: the device; its registers are mapped.
 * @cycles: cycles the device reported (a completion entry's).
 *
 * Any context. The fallback of enpu_queue.c's conversion (no counters
 * yet): a run that spanned a clock change is counted at the clock of now.
 *
 * Return: the time, 0 without a valid clock.
 */
u64 enpu_hw_cycles_to_ns(struct enpu_device *edev, u64 cycles)
{
	u64 khz = enpu_hw_clock_khz(edev, DRM_ENPU_PARAM_CLOCK_CUR_KHZ);

	if (!khz || khz > U32_MAX)
		return 0;
	return mul_u64_u32_div(cycles, USEC_PER_SEC, khz);
}

/**
 * enpu_hw_get_param() - answer DRM_IOCTL_ENPU_GET_PARAM from the registers
 * @edev: the device; the caller holds drm_dev_enter().
 * @param: enum drm_enpu_param.
 * @value: where the value goes.
 *
 * Return: 0, or -EINVAL for a parameter this driver does not know.
 */
int enpu_hw_get_param(struct enpu_device *edev, u32 param, u64 *value)
{
	switch (param) {
	case DRM_ENPU_PARAM_DEVICE_ID:
		*value = enpu_read(edev, ENPU_REG_DEVICE_ID);
		break;
	case DRM_ENPU_PARAM_HW_VERSION:
		*value = enpu_read(edev, ENPU_REG_HW_VERSION);
		break;
	case DRM_ENPU_PARAM_FW_VERSION:
		*value = enpu_read(edev, ENPU_REG_FW_VERSION);
		break;
	case DRM_ENPU_PARAM_FW_API_VERSION:
		*value = enpu_read(edev, ENPU_REG_FW_API_VERSION);
		break;
	case DRM_ENPU_PARAM_NUM_QUEUES:
		*value = enpu_read(edev, ENPU_REG_NUM_QUEUES);
		break;
	case DRM_ENPU_PARAM_CLOCK_MIN_KHZ:
	case DRM_ENPU_PARAM_CLOCK_MAX_KHZ:
	case DRM_ENPU_PARAM_CLOCK_CUR_KHZ:
		*value = enpu_hw_clock_khz(edev, param);
		break;
	case DRM_ENPU_PARAM_CAPABILITIES:
		*value = enpu_hw_caps_to_uapi(enpu_read(edev, ENPU_REG_CAPS));
		break;
	case DRM_ENPU_PARAM_SRAM_SIZE:
		*value = (u64)enpu_read(edev, ENPU_REG_SRAM_KB) * 1024;
		break;
	case DRM_ENPU_PARAM_MACS_PER_CYCLE:
		*value = enpu_read(edev, ENPU_REG_MACS_PER_CYCLE);
		break;
	case DRM_ENPU_PARAM_TEMPERATURE_MC:
		/* Signed: an NPU can be below 0 degrees C. */
		*value = (u64)(s64)(s32)enpu_read(edev, ENPU_REG_TEMP_MC);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}
