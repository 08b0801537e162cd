/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ENPU hardware interface, version 1.7: register block, rings and mailbox
 * as seen in BAR2 of the virtual NPU. The prose specification is
 * docs/hw/vnpu.md; this header is its machine-readable half and is shared
 * by the kernel driver and the device model (tools/vnpu), so the two can
 * never disagree about an offset.
 *
 * Every 32-bit register has exactly one writer: registers marked (drv) are
 * written only by the driver, (dev) only by the device. Nothing is
 * read-modify-written by both sides, so no cross-agent atomics are needed.
 * All values are little endian.
 */
#ifndef ENPU_REGS_H
#define ENPU_REGS_H

#define ENPU_SIGNATURE			0x55504e45u	/* "ENPU" */
#define ENPU_HW_VERSION_MAJOR		1
#define ENPU_HW_VERSION_MINOR		7	/* of this map */
#define ENPU_HW_VERSION(maj, min)	(((maj) << 16) | (min))

/* BAR2 layout (the ivshmem shared-memory region, ENPU_BAR2_SIZE bytes). */
#define ENPU_BAR2_SIZE			0x100000u	/* 1 MiB */
#define ENPU_REGS_OFFSET		0x00000u	/* register block, 4 KiB */
#define ENPU_SQ_OFFSET(q)		(0x10000u + (q) * 0x10000u)
#define ENPU_CQ_OFFSET			0x80000u	/* completion ring */
#define ENPU_FW_LOG_OFFSET		0xf0000u	/* firmware log, 64 KiB */

#define ENPU_MAX_QUEUES			4
#define ENPU_SQ_ENTRIES			256	/* per queue, power of two */
#define ENPU_CQ_ENTRIES			1024	/* shared, power of two */

/* Identification (dev, constant after reset). */
#define ENPU_REG_SIGNATURE		0x000
#define ENPU_REG_HW_VERSION		0x004	/* major << 16 | minor */
#define ENPU_REG_DEVICE_ID		0x008
#define ENPU_REG_CAPS			0x00c	/* ENPU_CAP_* */
#define ENPU_REG_NUM_QUEUES		0x010
#define ENPU_REG_SRAM_KB		0x014
#define ENPU_REG_MACS_PER_CYCLE		0x018
#define ENPU_REG_SQ_ENTRIES		0x01c
#define ENPU_REG_CQ_ENTRIES		0x020
/* Interface 1.4, preemption (valid when CAPS has ENPU_CAP_PREEMPT). */
#define ENPU_REG_CTX_SAVE_SIZE		0x024	/* bytes a save area needs */
#define ENPU_REG_PREEMPT_BOUND_NS	0x028	/* max ns between two points */
#define ENPU_REG_PREEMPT_POINT_CYCLES	0x02c	/* cost of each point */
#define ENPU_REG_PREEMPT_SAVE_CYCLES	0x030	/* cost of writing a save */
#define ENPU_REG_PREEMPT_RESTORE_CYCLES	0x034	/* cost of resuming from one */

#define ENPU_CAP_PREEMPT		(1u << 0)
#define ENPU_CAP_DMA_COPY		(1u << 1)
#define ENPU_CAP_PERF_COUNTERS		(1u << 2)
#define ENPU_CAP_THERMAL		(1u << 3)
#define ENPU_CAP_DVFS			(1u << 4)

/* State (dev). */
#define ENPU_REG_STATUS			0x040	/* ENPU_STATUS_* */
#define ENPU_REG_HEARTBEAT		0x044	/* +1 per device ms while READY */
#define ENPU_REG_FW_VERSION		0x048	/* from the booted image */
#define ENPU_REG_FW_API_VERSION		0x04c
#define ENPU_REG_ERROR_CODE		0x050	/* ENPU_ERR_* of the last error */
#define ENPU_REG_ERROR_INFO		0x054	/* error-specific detail */
#define ENPU_REG_RESET_COUNT		0x058
/*
 * 1.3: wall-clock microseconds one HEARTBEAT increment takes as the
 * device runs now (1000 on silicon; 1000 / speed on the vnpu), so the
 * driver's watchdog can tell a slow device from a stopped one.
 */
#define ENPU_REG_HEARTBEAT_PERIOD_US	0x05c

#define ENPU_STATUS_OFF			0	/* not yet initialised */
#define ENPU_STATUS_WAIT_FW		1	/* reset done, needs firmware */
#define ENPU_STATUS_BOOTING		2
#define ENPU_STATUS_READY		3
#define ENPU_STATUS_ERROR		4	/* needs a reset */
#define ENPU_STATUS_HUNG		5	/* heartbeat stopped */

/*
 * Mailbox: the driver fills ARG0..ARG3 and CMD, then bumps CMD_SEQ and
 * rings doorbell ENPU_DB_CONTROL. The device executes the command, writes
 * CMD_RESULT and then CMD_DONE_SEQ = CMD_SEQ, and raises ENPU_VEC_MAILBOX.
 * One command is outstanding at a time.
 */
#define ENPU_REG_CMD			0x080	/* (drv) ENPU_MBOX_* */
#define ENPU_REG_CMD_ARG0		0x084	/* (drv) */
#define ENPU_REG_CMD_ARG1		0x088	/* (drv) */
#define ENPU_REG_CMD_ARG2		0x08c	/* (drv) */
#define ENPU_REG_CMD_ARG3		0x090	/* (drv) */
#define ENPU_REG_CMD_SEQ		0x094	/* (drv) */
#define ENPU_REG_CMD_DONE_SEQ		0x098	/* (dev) */
#define ENPU_REG_CMD_RESULT		0x09c	/* (dev) ENPU_ERR_* */
#define ENPU_REG_CMD_RESULT_DATA	0x0a0	/* (dev) command-specific */

#define ENPU_MBOX_PING			1	/* no-op, for round-trip tests */
#define ENPU_MBOX_BOOT			2	/* ARG0/1 = image lo/hi, ARG2 = size */
#define ENPU_MBOX_RESET			3	/* back to WAIT_FW, rings cleared */
#define ENPU_MBOX_SET_OPP		4	/* ARG0 = OPP index */
#define ENPU_MBOX_PREEMPT		5	/* ARG0 = queue, ARG1/2 = save area */
#define ENPU_MBOX_SET_IRQ_MASK		6	/* ARG0 = 1 << vector enables */
#define ENPU_MBOX_SET_POWER		7	/* 1.5: ARG0 = ENPU_POWER_* */

#define ENPU_ERR_NONE			0
#define ENPU_ERR_BAD_COMMAND		1
#define ENPU_ERR_BAD_ARGUMENT		2
#define ENPU_ERR_BAD_STATE		3
#define ENPU_ERR_DMA_FAULT		4	/* address outside guest RAM */
#define ENPU_ERR_FW_FORMAT		5	/* image header rejected */
#define ENPU_ERR_FW_DIGEST		6	/* SHA-256 mismatch */
#define ENPU_ERR_FW_API			7	/* unsupported firmware API */
#define ENPU_ERR_BAD_JOB		8	/* invalid command stream */
#define ENPU_ERR_RING			9	/* ring index out of range */
#define ENPU_ERR_INJECTED		10	/* host fault injection */
#define ENPU_ERR_THERMAL		11	/* halted above TEMP_CRIT_MC */

/* Clocks (dev, except OPP requests via ENPU_MBOX_SET_OPP). */
#define ENPU_REG_OPP_COUNT		0x0c0
#define ENPU_REG_OPP_CURRENT		0x0c4
#define ENPU_MAX_OPPS			8
#define ENPU_REG_OPP_KHZ(i)		(0x0c8 + (i) * 4)	/* ascending */
#define ENPU_REG_OPP_MW(i)		(0x0e8 + (i) * 4)	/* power at OPP */

/* Thermal (dev). */
#define ENPU_REG_TEMP_MC		0x108	/* milli-degrees Celsius */
#define ENPU_REG_TEMP_CRIT_MC		0x10c	/* device halts above this */
/*
 * Interface 1.5, thermal and power (docs/hw/vnpu.md, "Interface 1.5"):
 * the device's recommended trips, its power state, its power draw and the
 * voltage of each OPP. A 1.4 device reads 0 in all of them.
 */
#define ENPU_REG_TEMP_PASSIVE_MC	0x110	/* slow the clock above this */
#define ENPU_REG_TEMP_HOT_MC		0x114	/* stop feeding work above this */
#define ENPU_REG_POWER_STATE		0x118	/* ENPU_POWER_* */
#define ENPU_REG_POWER_MW		0x11c	/* draw over the last model step */
#define ENPU_REG_OPP_MV(i)		(0x120 + (i) * 4)	/* voltage of OPP */

#define ENPU_POWER_ON			0	/* D0: clocked, can run firmware */
#define ENPU_POWER_OFF			1	/* power-gated: firmware lost */

/* Performance counters (dev), 64-bit as lo/hi pairs, hi read first. */
#define ENPU_REG_PERF_CYCLES_LO		0x140
#define ENPU_REG_PERF_CYCLES_HI		0x144
#define ENPU_REG_PERF_BUSY_NS_LO	0x148
#define ENPU_REG_PERF_BUSY_NS_HI	0x14c
#define ENPU_REG_PERF_JOBS_DONE		0x150
#define ENPU_REG_PERF_MACS_LO		0x158
#define ENPU_REG_PERF_MACS_HI		0x15c
#define ENPU_REG_PERF_DMA_BYTES_LO	0x160
#define ENPU_REG_PERF_DMA_BYTES_HI	0x164
#define ENPU_REG_PERF_PREEMPTIONS	0x168	/* 1.4: jobs saved */
/* 1.5: device ns since power-on, also while idle or off (devfreq's total). */
#define ENPU_REG_PERF_DEVICE_NS_LO	0x170
#define ENPU_REG_PERF_DEVICE_NS_HI	0x174

/*
 * Submission queues: ENPU_SQ_ENTRIES descriptors at ENPU_SQ_OFFSET(q). The
 * driver writes descriptors, then SQ_TAIL, then rings ENPU_DB_QUEUE. The
 * device consumes and advances SQ_HEAD. Indices are free-running u32,
 * slot = index % entries.
 */
#define ENPU_REG_QUEUE_BASE(q)		(0x200 + (q) * 0x20)
#define ENPU_REG_SQ_TAIL(q)		(ENPU_REG_QUEUE_BASE(q) + 0x00) /* drv */
#define ENPU_REG_SQ_HEAD(q)		(ENPU_REG_QUEUE_BASE(q) + 0x04) /* dev */
#define ENPU_REG_SQ_PRIORITY(q)		(ENPU_REG_QUEUE_BASE(q) + 0x08) /* drv */
/*
 * PREEMPT(q), interface 1.4: the driver writes the context-save area
 * address of the context to stop (lo, hi), then bumps SQ_PREEMPT_SEQ(q)
 * and rings ENPU_DB_QUEUE. The device copies the seq to SQ_PREEMPT_ACK(q)
 * when it has looked at the request: the job of queue q running with that
 * save area is saved at its next preemption point, and the descriptors of
 * queue q with that save area not started yet are returned unstarted
 * (docs/hw/vnpu.md, Interface 1.4).
 */
#define ENPU_REG_SQ_PREEMPT_AREA_LO(q)	(ENPU_REG_QUEUE_BASE(q) + 0x0c) /* drv */
#define ENPU_REG_SQ_PREEMPT_AREA_HI(q)	(ENPU_REG_QUEUE_BASE(q) + 0x10) /* drv */
#define ENPU_REG_SQ_PREEMPT_SEQ(q)	(ENPU_REG_QUEUE_BASE(q) + 0x14) /* drv */
#define ENPU_REG_SQ_PREEMPT_ACK(q)	(ENPU_REG_QUEUE_BASE(q) + 0x18) /* dev */

/*
 * Completion ring: ENPU_CQ_ENTRIES entries at ENPU_CQ_OFFSET, shared by all
 * queues. The device writes an entry, then CQ_TAIL, then raises
 * ENPU_VEC_JOB_DONE; the driver consumes and writes CQ_HEAD.
 */
#define ENPU_REG_CQ_TAIL		0x300	/* dev */
#define ENPU_REG_CQ_HEAD		0x304	/* drv */

/* Doorbell numbers (guest -> device) written to the ivshmem BAR0. */
#define ENPU_DB_QUEUE			0	/* SQ_TAIL or PREEMPT_SEQ moved */
#define ENPU_DB_CONTROL			1	/* mailbox command pending */

/* MSI-X vectors (device -> guest). */
#define ENPU_VEC_JOB_DONE		0
#define ENPU_VEC_ERROR			1
#define ENPU_VEC_EVENT			2	/* thermal / DVFS change */
#define ENPU_VEC_MAILBOX		3
#define ENPU_NUM_VECTORS		4

/*
 * SoC integration (platform/DT glue): there is no ivshmem BAR0, so the
 * doorbell is a (drv) register inside the register window; the value
 * written is the doorbell number. The virtual NPU ignores this register.
 */
#define ENPU_REG_DOORBELL		0x400	/* drv, platform only */

/* ivshmem BAR0 register that rings a peer's doorbell. */
#define ENPU_IVSHMEM_DOORBELL		12
#define ENPU_IVSHMEM_DOORBELL_VAL(peer, vec)	(((peer) << 16) | (vec))
#define ENPU_VNPU_PEER_ID		0

/* Job descriptor in a submission ring, 64 bytes. */
#define ENPU_JOB_DESC_SIZE		64
#define ENPU_JOB_CMD_ADDR		0x00	/* u64 DMA address of stream */
#define ENPU_JOB_CMD_SIZE		0x08	/* u32 bytes */
#define ENPU_JOB_FLAGS			0x0c	/* u32, must be 0 in v1.0 */
#define ENPU_JOB_TAG			0x10	/* u64 echoed in completion */
#define ENPU_JOB_CTX_SAVE_ADDR		0x18	/* u64, 0 = not preemptible */
#define ENPU_JOB_CTX_SAVE_SIZE		0x20	/* u32 */
#define ENPU_JOB_BO_TABLE_ADDR		0x28	/* u64, 1.1: BO table */
#define ENPU_JOB_BO_COUNT		0x30	/* u32, 1.1: BO table entries */

/*
 * BO table (1.1): BO_COUNT entries of 32 bytes at BO_TABLE_ADDR, one per BO
 * of the submit, in submit order. Each points at a scatter-gather list of
 * SG_COUNT segments; a command's (bo_index, offset) is resolved through it.
 */
#define ENPU_BO_ENTRY_SIZE		32
#define ENPU_BO_SG_ADDR			0x00	/* u64 DMA address of segments */
#define ENPU_BO_SG_COUNT		0x08	/* u32 */
#define ENPU_BO_ACCESS			0x0c	/* u32 ENPU_BO_ACCESS_* */
#define ENPU_BO_SIZE			0x10	/* u64 bytes addressable */
#define ENPU_BO_RESERVED		0x18	/* u64, must be 0 */
#define ENPU_BO_ACCESS_READ		(1u << 0)
#define ENPU_BO_ACCESS_WRITE		(1u << 1)

#define ENPU_SG_ENTRY_SIZE		16
#define ENPU_SG_ADDR			0x00	/* u64 DMA address */
#define ENPU_SG_LEN			0x08	/* u64 bytes, non-zero */

/* Completion entry, 32 bytes. */
#define ENPU_CQE_SIZE			32
#define ENPU_CQE_TAG			0x00	/* u64 from the descriptor */
#define ENPU_CQE_QUEUE			0x08	/* u32 */
#define ENPU_CQE_STATUS			0x0c	/* u32 ENPU_JOB_STATUS_* */
#define ENPU_CQE_CYCLES			0x10	/* u64 device cycles spent */
#define ENPU_CQE_INFO			0x18	/* u32 e.g. failing command idx */
#define ENPU_CQE_INFO_DESCRIPTOR	0xffffffffu	/* INVALID: bad descriptor */
#define ENPU_CQE_INFO_SAVE_AREA		0xfffffffeu	/* INVALID: bad save state */
#define ENPU_CQE_INFO_NOT_STARTED	0xfffffffdu	/* PREEMPTED before it ran */

#define ENPU_JOB_STATUS_OK		0
#define ENPU_JOB_STATUS_INVALID		1	/* stream rejected by device */
#define ENPU_JOB_STATUS_DMA_FAULT	2
#define ENPU_JOB_STATUS_PREEMPTED	3	/* context saved, resubmit */
#define ENPU_JOB_STATUS_ABORTED		4	/* dropped by reset */

/*
 * Context-save area (1.4): CTX_SAVE_SIZE bytes at the descriptor's
 * CTX_SAVE_ADDR, of which the device uses this 64-byte header. MAGIC 0
 * means "start from the beginning"; the device writes the header when it
 * preempts the job and clears MAGIC when the job completes otherwise.
 */
#define ENPU_SAVE_MAGIC			0x56415345u	/* "ESAV" */
#define ENPU_SAVE_VERSION		1
#define ENPU_SAVE_HEADER_SIZE		64
#define ENPU_SAVE_OFF_MAGIC		0x00	/* u32 */
#define ENPU_SAVE_OFF_VERSION		0x04	/* u32 */
#define ENPU_SAVE_OFF_TAG		0x08	/* u64 the saved job's tag */
#define ENPU_SAVE_OFF_CMD_OFFSET	0x10	/* u32 command to continue */
#define ENPU_SAVE_OFF_STREAM_SIZE	0x14	/* u32 CMD_SIZE of the job */
#define ENPU_SAVE_OFF_UNITS_DONE	0x18	/* u64 of that command */
#define ENPU_SAVE_OFF_STREAM_HASH	0x20	/* u64 FNV-1a of the stream */
#define ENPU_SAVE_OFF_PREEMPTIONS	0x28	/* u32 times saved so far */
#define ENPU_SAVE_OFF_RESERVED		0x2c	/* u32, 0 */
#define ENPU_SAVE_OFF_REQUEST_NS	0x30	/* u64 device ns of PREEMPT */
#define ENPU_SAVE_OFF_SAVED_NS		0x38	/* u64 device ns of the save */

#endif /* ENPU_REGS_H */
