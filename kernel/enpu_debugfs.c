// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs files under the DRM device's directory:
 *   nop   one NOP job of the scheduler's kernel context (NORMAL), through
 *         the scheduler, the ring, doorbell and job-done interrupt:
 *         "status=<s> latency_ns=<n> irqs=<n>"
 *   ping  one mailbox PING round trip by interrupt: "latency_ns=<n>"
 *   regs  the register block, one register per line
 *   cpu_copy_bytes  bytes of buffer contents the driver copied with the
 *         CPU (zero-copy: stays 0)
 *   last_job_sg     BO table and segments of the last submitted job
 *   recovery        "resets=<n> hangs=<n> lost_irqs=<n>" since probe
 *   dmabuf_moves    move_notify calls from exporters of imported buffers
 *   power           runtime PM and the thermal safe state (enpu_pm.c,
 *                   enpu_thermal.c)
 *   irq_stats       the most work the completion path did at once
 *                   (struct enpu_irq_stats) and its batch limits
 *   sched           the scheduler and one line of counters per context
 *   latency         per finished job (the last 4096): SUBMIT entry,
 *                   dispatch, completion consumed, fence signalled
 *
 * Lock order (scheduler/enpu_sched.c): enpu_device.nop.lock, then the
 * scheduler's. The mailbox lock is taken by ping without any other lock
 * held.
 */
#include <linux/bits.h>
#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/seq_file.h>
#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_managed.h>

#include "enpu_cmd.h"
#include "enpu_debugfs.h"
#include "enpu_device.h"
#include "enpu_fence.h"
#include "enpu_hw.h"
#include "enpu_job.h"
#include "enpu_mailbox.h"
#include "enpu_pm.h"
#include "enpu_queue.h"
#include "enpu_recovery.h"
#include "enpu_sched.h"
#include "enpu_thermal.h"

#define ENPU_NOP_CYCLES		1000
#define ENPU_NOP_TIMEOUT_MS	1000
#define ENPU_PING_TIMEOUT_MS	100
/*
 * The command stream is device memory, little endian whatever the CPU; the
 * uapi struct uses plain types because userspace shares it.
 */
static void enpu_debugfs_write_nop(struct enpu_cmd_nop *nop)
{
	nop->hdr.opcode = (__force __u16)cpu_to_le16(ENPU_CMD_NOP);
	nop->hdr.flags = 0;
	nop->hdr.size = (__force __u32)cpu_to_le32(sizeof(*nop));
	nop->cycles = (__force __u32)cpu_to_le32(ENPU_NOP_CYCLES);
	nop->reserved = 0;
}

/**
 * struct enpu_nop_job - one debugfs NOP, a job of the scheduler's kernel
 *	context like any other (the scheduler is the rings' only producer)
 * @ref: the reader's and the scheduler's.
 * @edev: the device.
 * @sched: the scheduler's view.
 * @done: completed when the fence has signalled.
 * @free_work: the last put, in process context.
 * @fence_live: the fence was initialised by enpu_sched_push().
 */
struct enpu_nop_job {
	struct kref ref;
	struct enpu_device *edev;
	struct enpu_sched_job sched;
	struct completion done;
	struct work_struct free_work;
	bool fence_live;
};

static void enpu_nop_release(struct kref *ref)
{
	struct enpu_nop_job *nop = container_of(ref, struct enpu_nop_job, ref);

	enpu_queue_unregister_waiter(nop->edev, &nop->sched.waiter);
	if (nop->fence_live)
		dma_fence_put(nop->sched.fence);
	else
		enpu_fence_free_uninit(nop->sched.fence);
	kfree(nop);
}

static void enpu_nop_free_work(struct work_struct *work)
{
	struct enpu_nop_job *nop = container_of(work, struct enpu_nop_job,
						free_work);

	kref_put(&nop->ref, enpu_nop_release);
}

static void enpu_nop_done(struct enpu_sched_job *sjob)
{
	struct enpu_nop_job *nop = container_of(sjob, struct enpu_nop_job,
						sched);

	complete(&nop->done);
	queue_work(nop->edev->job.wq, &nop->free_work);
}

static const struct enpu_sched_job_ops enpu_nop_ops = {
	.done = enpu_nop_done,
};

static int enpu_debugfs_nop_locked(struct seq_file *m,
				   struct enpu_device *edev)
{
	struct enpu_nop_job *nop;
	ktime_t submitted;
	u32 status;
	int ret;

	lockdep_assert_held(&edev->nop.lock);
	status = enpu_read(edev, ENPU_REG_STATUS);
	if (status != ENPU_STATUS_READY) {
		seq_printf(m, "device not ready (status %u)\n", status);
		return -EIO;
	}
	nop = kzalloc(sizeof(*nop), GFP_KERNEL);
	if (!nop)
		return -ENOMEM;
	nop->sched.fence = enpu_fence_alloc();
	if (!nop->sched.fence) {
		kfree(nop);
		return -ENOMEM;
	}
	ret = enpu_queue_register_waiter(edev, &nop->sched.waiter);
	if (ret) {
		enpu_fence_free_uninit(nop->sched.fence);
		kfree(nop);
		return ret;
	}
	kref_init(&nop->ref);
	nop->edev = edev;
	init_completion(&nop->done);
	INIT_WORK(&nop->free_work, enpu_nop_free_work);
	enpu_debugfs_write_nop(edev->nop.cmd);
	enpu_sched_job_init(&nop->sched, &edev->sched.kernel_ctx,
			    nop->sched.fence, &enpu_nop_ops);
	nop->sched.desc.cmd_addr = edev->nop.cmd_dma;
	nop->sched.desc.cmd_size = sizeof(struct enpu_cmd_nop);
	kref_get(&nop->ref);	/* the scheduler's, dropped after done */
	nop->fence_live = true;
	submitted = ktime_get();
	enpu_sched_push(&nop->sched);

	/* A hang is recovery's to handle; this reader only gives up. */
	if (!wait_for_completion_timeout(&nop->done,
					 msecs_to_jiffies(ENPU_NOP_TIMEOUT_MS))) {
		dev_err(edev->dev, "NOP job timed out\n");
		ret = -ETIMEDOUT;
		goto out;
	}
	seq_printf(m, "status=%u latency_ns=%lld irqs=%lld\n",
		   nop->sched.waiter.status,
		   ktime_to_ns(ktime_sub(nop->sched.waiter.completed_at,
					 submitted)),
		   (long long)atomic64_read(&edev->irq.count[ENPU_VEC_JOB_DONE]));
out:
	kref_put(&nop->ref, enpu_nop_release);
	return ret;
}

static int enpu_debugfs_nop(struct seq_file *m, struct enpu_device *edev)
{
	int ret;

	/* A runtime-suspended engine is powered on for it, as for SUBMIT. */
	ret = enpu_pm_get(edev);
	if (ret)
		return ret;
	mutex_lock(&edev->nop.lock);
	ret = enpu_debugfs_nop_locked(m, edev);
	mutex_unlock(&edev->nop.lock);
	enpu_pm_put(edev);
	return ret;
}

static int enpu_debugfs_ping(struct seq_file *m, struct enpu_device *edev)
{
	struct enpu_mbox_msg msg = { .cmd = ENPU_MBOX_PING };
	ktime_t start;
	s64 latency;
	int ret;

	if (!READ_ONCE(edev->mbox.use_irq))
		return -EIO;
	start = ktime_get();
	ret = enpu_mailbox_exec(edev, &msg, ENPU_PING_TIMEOUT_MS);
	latency = ktime_to_ns(ktime_sub(ktime_get(), start));
	if (ret)
		return ret;
	if (msg.result != ENPU_ERR_NONE) {
		seq_printf(m, "error=%u\n", msg.result);
		return -EIO;
	}
	seq_printf(m, "latency_ns=%lld\n", latency);
	return 0;
}

#define ENPU_REG_NAME(reg)	{ #reg, ENPU_REG_##reg }

static const struct {
	const char *name;
	u32 offset;
} enpu_debugfs_regs[] = {
	ENPU_REG_NAME(SIGNATURE), ENPU_REG_NAME(HW_VERSION),
	ENPU_REG_NAME(DEVICE_ID), ENPU_REG_NAME(CAPS),
	ENPU_REG_NAME(NUM_QUEUES), ENPU_REG_NAME(SRAM_KB),
	ENPU_REG_NAME(MACS_PER_CYCLE), ENPU_REG_NAME(SQ_ENTRIES),
	ENPU_REG_NAME(CQ_ENTRIES), ENPU_REG_NAME(STATUS),
	ENPU_REG_NAME(HEARTBEAT), ENPU_REG_NAME(FW_VERSION),
	ENPU_REG_NAME(FW_API_VERSION), ENPU_REG_NAME(ERROR_CODE),
	ENPU_REG_NAME(ERROR_INFO), ENPU_REG_NAME(RESET_COUNT),
	ENPU_REG_NAME(HEARTBEAT_PERIOD_US),
	ENPU_REG_NAME(CMD), ENPU_REG_NAME(CMD_ARG0), ENPU_REG_NAME(CMD_ARG1),
	ENPU_REG_NAME(CMD_ARG2), ENPU_REG_NAME(CMD_ARG3),
	ENPU_REG_NAME(CMD_SEQ), ENPU_REG_NAME(CMD_DONE_SEQ),
	ENPU_REG_NAME(CMD_RESULT), ENPU_REG_NAME(CMD_RESULT_DATA),
	ENPU_REG_NAME(OPP_COUNT), ENPU_REG_NAME(OPP_CURRENT),
	ENPU_REG_NAME(TEMP_MC), ENPU_REG_NAME(TEMP_CRIT_MC),
	ENPU_REG_NAME(PERF_CYCLES_LO), ENPU_REG_NAME(PERF_CYCLES_HI),
	ENPU_REG_NAME(PERF_BUSY_NS_LO), ENPU_REG_NAME(PERF_BUSY_NS_HI),
	ENPU_REG_NAME(PERF_JOBS_DONE), ENPU_REG_NAME(PERF_MACS_LO),
	ENPU_REG_NAME(PERF_MACS_HI), ENPU_REG_NAME(PERF_DMA_BYTES_LO),
	ENPU_REG_NAME(PERF_DMA_BYTES_HI), ENPU_REG_NAME(CQ_TAIL),
	ENPU_REG_NAME(CQ_HEAD),
};

static int enpu_debugfs_dump_regs(struct seq_file *m, struct enpu_device *edev)
{
	unsigned int i, q;

	for (i = 0; i < ARRAY_SIZE(enpu_debugfs_regs); i++)
		seq_printf(m, "%-18s 0x%03x 0x%08x\n", enpu_debugfs_regs[i].name,
			   enpu_debugfs_regs[i].offset,
			   enpu_read(edev, enpu_debugfs_regs[i].offset));
	for (i = 0; i < ENPU_MAX_OPPS; i++)
		seq_printf(m, "OPP_KHZ(%u)         0x%03x 0x%08x\n", i,
			   ENPU_REG_OPP_KHZ(i),
			   enpu_read(edev, ENPU_REG_OPP_KHZ(i)));
	for (i = 0; i < ENPU_MAX_OPPS; i++)
		seq_printf(m, "OPP_MW(%u)          0x%03x 0x%08x\n", i,
			   ENPU_REG_OPP_MW(i),
			   enpu_read(edev, ENPU_REG_OPP_MW(i)));
	for (q = 0; q < ENPU_MAX_QUEUES; q++) {
		seq_printf(m, "SQ_TAIL(%u)         0x%03x 0x%08x\n", q,
			   ENPU_REG_SQ_TAIL(q),
			   enpu_read(edev, ENPU_REG_SQ_TAIL(q)));
		seq_printf(m, "SQ_HEAD(%u)         0x%03x 0x%08x\n", q,
			   ENPU_REG_SQ_HEAD(q),
			   enpu_read(edev, ENPU_REG_SQ_HEAD(q)));
		seq_printf(m, "SQ_PRIORITY(%u)     0x%03x 0x%08x\n", q,
			   ENPU_REG_SQ_PRIORITY(q),
			   enpu_read(edev, ENPU_REG_SQ_PRIORITY(q)));
	}
	return 0;
}

static int enpu_debugfs_cpu_copy_bytes(struct seq_file *m,
				       struct enpu_device *edev)
{
	seq_printf(m, "%lld\n",
		   (long long)atomic64_read(&edev->job.cpu_copy_bytes));
	return 0;
}

static int enpu_debugfs_last_job_sg(struct seq_file *m,
				    struct enpu_device *edev)
{
	enpu_job_show_last_sg(m, edev);
	return 0;
}

static int enpu_debugfs_recovery(struct seq_file *m, struct enpu_device *edev)
{
	enpu_recovery_show(m, edev);
	return 0;
}

static int enpu_debugfs_dmabuf_moves(struct seq_file *m,
				     struct enpu_device *edev)
{
	seq_printf(m, "%lld\n", (long long)atomic64_read(&edev->import_moves));
	return 0;
}

static int enpu_debugfs_sched(struct seq_file *m, struct enpu_device *edev)
{
	enpu_sched_show(m, edev);
	return 0;
}

static int enpu_debugfs_latency(struct seq_file *m, struct enpu_device *edev)
{
	enpu_sched_show_latency(m, edev);
	return 0;
}

/* Runtime PM and the thermal safe state (enpu_pm.c, enpu_thermal.c). */
static int enpu_debugfs_power(struct seq_file *m, struct enpu_device *edev)
{
	enpu_pm_show(m, edev);
	enpu_thermal_show(m, edev);
	return 0;
}

static int enpu_debugfs_irq_stats(struct seq_file *m, struct enpu_device *edev)
{
	struct enpu_irq_stats *stats = &edev->irq.stats;

	seq_printf(m, "hard_max_ns=%lld hard_max_entries=%d cq_batch=%d thread_runs=%lld thread_entries=%lld pump_max_jobs=%d pump_batch=%d pump_deferred=%lld\n",
		   (long long)atomic64_read(&stats->hard_max_ns),
		   atomic_read(&stats->hard_max_entries), ENPU_CQ_BATCH,
		   (long long)atomic64_read(&stats->thread_runs),
		   (long long)atomic64_read(&stats->thread_entries),
		   atomic_read(&stats->pump_max_jobs),
		   enpu_sched_max_on_device(edev),
		   (long long)atomic64_read(&stats->pump_deferred));
	return 0;
}

typedef int (*enpu_debugfs_show_t)(struct seq_file *m,
				   struct enpu_device *edev);

/* Every file goes through drm_dev_enter(): the device may be unplugged. */
static int enpu_debugfs_call(struct seq_file *m, struct drm_device *drm,
			     enpu_debugfs_show_t show)
{
	int ret, idx;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = show(m, to_enpu_device(drm));
	drm_dev_exit(idx);
	return ret;
}

static struct drm_device *enpu_debugfs_drm(struct seq_file *m);

#define ENPU_DEBUGFS_SHOW(name, fn)					\
static int enpu_debugfs_##name##_show(struct seq_file *m, void *data)	\
{									\
	return enpu_debugfs_call(m, enpu_debugfs_drm(m), fn);		\
}

ENPU_DEBUGFS_SHOW(nop, enpu_debugfs_nop)
ENPU_DEBUGFS_SHOW(ping, enpu_debugfs_ping)
ENPU_DEBUGFS_SHOW(regs, enpu_debugfs_dump_regs)
ENPU_DEBUGFS_SHOW(cpu_copy_bytes, enpu_debugfs_cpu_copy_bytes)
ENPU_DEBUGFS_SHOW(last_job_sg, enpu_debugfs_last_job_sg)
ENPU_DEBUGFS_SHOW(recovery, enpu_debugfs_recovery)
ENPU_DEBUGFS_SHOW(irq_stats, enpu_debugfs_irq_stats)
ENPU_DEBUGFS_SHOW(dmabuf_moves, enpu_debugfs_dmabuf_moves)
ENPU_DEBUGFS_SHOW(sched, enpu_debugfs_sched)
ENPU_DEBUGFS_SHOW(latency, enpu_debugfs_latency)
ENPU_DEBUGFS_SHOW(power, enpu_debugfs_power)

#ifdef ENPU_HAVE_DRM_DEBUGFS_ADD_FILES

static struct drm_device *enpu_debugfs_drm(struct seq_file *m)
{
	struct drm_debugfs_entry *entry = m->private;

	return entry->dev;
}

static const struct drm_debugfs_info enpu_debugfs_files[] = {
	{ "nop", enpu_debugfs_nop_show },
	{ "ping", enpu_debugfs_ping_show },
	{ "regs", enpu_debugfs_regs_show },
	{ "cpu_copy_bytes", enpu_debugfs_cpu_copy_bytes_show },
	{ "last_job_sg", enpu_debugfs_last_job_sg_show },
	{ "recovery", enpu_debugfs_recovery_show },
	{ "irq_stats", enpu_debugfs_irq_stats_show },
	{ "dmabuf_moves", enpu_debugfs_dmabuf_moves_show },
	{ "sched", enpu_debugfs_sched_show },
	{ "latency", enpu_debugfs_latency_show },
	{ "power", enpu_debugfs_power_show },
};

#else

static struct drm_device *enpu_debugfs_drm(struct seq_file *m)
{
	struct drm_info_node *node = m->private;

	return node->minor->dev;
}

static const struct drm_info_list enpu_debugfs_files[] = {
	{ "nop", enpu_debugfs_nop_show },
	{ "ping", enpu_debugfs_ping_show },
	{ "regs", enpu_debugfs_regs_show },
	{ "cpu_copy_bytes", enpu_debugfs_cpu_copy_bytes_show },
	{ "last_job_sg", enpu_debugfs_last_job_sg_show },
	{ "recovery", enpu_debugfs_recovery_show },
	{ "irq_stats", enpu_debugfs_irq_stats_show },
	{ "dmabuf_moves", enpu_debugfs_dmabuf_moves_show },
	{ "sched", enpu_debugfs_sched_show },
	{ "latency", enpu_debugfs_latency_show },
	{ "power", enpu_debugfs_power_show },
};

/**
 * enpu_debugfs_init_minor() - drm_driver.debugfs_init: add our files
 * @minor: the DRM minor whose debugfs directory is being populated.
 */
void enpu_debugfs_init_minor(struct drm_minor *minor)
{
	drm_debugfs_create_files(enpu_debugfs_files,
				 ARRAY_SIZE(enpu_debugfs_files),
				 minor->debugfs_root, minor);
}

#endif /* ENPU_HAVE_DRM_DEBUGFS_ADD_FILES */

/**
 * enpu_debugfs_init() - allocate what the debugfs files need
 * @edev: the device, before drm_dev_register().
 *
 * Return: 0 or -ENOMEM.
 */
int enpu_debugfs_init(struct enpu_device *edev)
{
	int ret;

	ret = drmm_mutex_init(&edev->drm, &edev->nop.lock);
	if (ret)
		return ret;
	/* Lives as long as the device: a timed-out job may still read it. */
	edev->nop.cmd = dmam_alloc_coherent(edev->dev,
					    sizeof(struct enpu_cmd_nop),
					    &edev->nop.cmd_dma, GFP_KERNEL);
	if (!edev->nop.cmd)
		return -ENOMEM;
#ifdef ENPU_HAVE_DRM_DEBUGFS_ADD_FILES
	drm_debugfs_add_files(&edev->drm, enpu_debugfs_files,
			      ARRAY_SIZE(enpu_debugfs_files));
#endif
	return 0;
}
