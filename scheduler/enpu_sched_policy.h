/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduling policy: which context's job goes to the NPU next, and
 * whether the job on the NPU should be preempted for it. Pure rules over
 * entities and time: no locks (the caller holds the scheduler's lock), no
 * allocation, no clock (every call takes "now" in ns), no hardware. The
 * same file builds in userspace, compiled without __KERNEL__ with the
 * shim below (tests/sched), and in enpu.ko; docs/scheduler.md states the
 * policy in prose, the rules here are its one source.
 */
#ifndef ENPU_SCHED_POLICY_H
#define ENPU_SCHED_POLICY_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;
#define U64_MAX			UINT64_MAX
#define div64_u64(a, b)		((a) / (b))
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

/* The few <linux/list.h> operations the policy uses. */
struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void list_add(struct list_head *n, struct list_head *after)
{
	n->next = after->next;
	n->prev = after;
	after->next->prev = n;
	after->next = n;
}

static inline void list_del_init(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	INIT_LIST_HEAD(n);
}

#define list_entry(p, type, member)	container_of(p, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#endif

/*
 * Levels are the uapi priorities (enum drm_enpu_priority): LOW 0, NORMAL
 * 1, HIGH 2, REALTIME 3. A level is also the hardware queue a job is
 * written to, so the device's own arbiter (SQ_PRIORITY(q) = q) agrees.
 */
#define ENPU_SCHED_LEVELS	4
#define ENPU_SCHED_LOW		0
#define ENPU_SCHED_NORMAL	1
#define ENPU_SCHED_HIGH		2
#define ENPU_SCHED_REALTIME	3
/* Aging raises a waiting level up to this one, never to REALTIME. */
#define ENPU_SCHED_AGING_CAP	ENPU_SCHED_HIGH

/**
 * enum enpu_sched_mode - how the policy chooses
 * @ENPU_SCHED_PREEMPTIVE: priorities with immediate preemption by a
 *	higher level, round-robin slices within a level, aging.
 * @ENPU_SCHED_FIFO: priorities at job boundaries only, submission order
 *	within a level; no preemption, no slices, no aging (the baseline
 *	the benefit is measured against).
 */
enum enpu_sched_mode {
	ENPU_SCHED_PREEMPTIVE,
	ENPU_SCHED_FIFO,
};

/**
 * struct enpu_sched_params - tunables, fixed while entities exist
 * @mode: enum enpu_sched_mode.
 * @slice_ns: round-robin slice: the time an entity may keep the device
 *	while another entity of its level waits. At least 1.
 * @aging_ns: a level whose entities waited this long without any of
 *	them starting counts one level higher, up to ENPU_SCHED_AGING_CAP.
 *	At least @slice_ns (enpu_sched_rq_init() raises it).
 *
 * The per-context queue limit is not a policy rule: it is the context's
 * job quota (kernel/enpu_limits.h, max_jobs_per_context, -EAGAIN).
 */
struct enpu_sched_params {
	enum enpu_sched_mode mode;
	u64 slice_ns;
	u64 aging_ns;
};

/**
 * enum enpu_sched_state - where an entity is
 * @ENPU_SCHED_IDLE: no job ready to run (none queued, or the head waits
 *	for a fence).
 * @ENPU_SCHED_READY: its head job may run; it is on its level's list.
 * @ENPU_SCHED_RUNNING: one of its jobs is on the device (an entity never
 *	has two, which keeps its jobs in order across preemption).
 */
enum enpu_sched_state {
	ENPU_SCHED_IDLE,
	ENPU_SCHED_READY,
	ENPU_SCHED_RUNNING,
};

/**
 * struct enpu_sched_entity - the scheduling state of one context
 * @node: on enpu_sched_rq.ready[@level] while READY.
 * @state: enum enpu_sched_state.
 * @prio: base priority, a level.
 * @level: static level: @prio raised by priority inheritance (@boost).
 * @run_level: level it was started at (aging included); it cannot be
 *	preempted by a level at or below this one before its slice is used.
 * @key: order within its level: the time it became ready (preemptive
 *	mode) or its head job's submission order (FIFO mode); smaller first.
 * @run_start: when its job went to the device.
 * @slice_used: device time used in its current slice before @run_start.
 * @boost: per level, jobs of that priority waiting on a fence of one of
 *	this entity's jobs (priority inheritance through fences).
 */
struct enpu_sched_entity {
	struct list_head node;
	enum enpu_sched_state state;
	u8 prio;
	u8 level;
	u8 run_level;
	u64 key;
	u64 run_start;
	u64 slice_used;
	u32 boost[ENPU_SCHED_LEVELS];
};

/**
 * struct enpu_sched_rq - the ready entities of one device
 * @params: the tunables.
 * @ready: READY entities per static level, in @key order.
 * @waiting_since: per level, since when its entities have waited without
 *	one of them starting (valid while the list is not empty): the base
 *	of aging.
 */
struct enpu_sched_rq {
	struct enpu_sched_params params;
	struct list_head ready[ENPU_SCHED_LEVELS];
	u64 waiting_since[ENPU_SCHED_LEVELS];
};

void enpu_sched_rq_init(struct enpu_sched_rq *rq,
			const struct enpu_sched_params *params);
void enpu_sched_entity_init(struct enpu_sched_entity *e, u8 prio);

void enpu_sched_ready(struct enpu_sched_rq *rq, struct enpu_sched_entity *e,
		      u64 now, u64 order);
void enpu_sched_unready(struct enpu_sched_entity *e);

u8 enpu_sched_level_of(const struct enpu_sched_rq *rq,
		       const struct enpu_sched_entity *e, u64 now);
struct enpu_sched_entity *enpu_sched_pick(const struct enpu_sched_rq *rq,
					  u64 now);
void enpu_sched_start(struct enpu_sched_rq *rq, struct enpu_sched_entity *e,
		      u64 now);
u8 enpu_sched_running_level(const struct enpu_sched_rq *rq,
			    const struct enpu_sched_entity *e, u64 now);
bool enpu_sched_should_preempt(const struct enpu_sched_rq *rq,
			       const struct enpu_sched_entity *running,
			       const struct enpu_sched_entity *cand, u64 now);
void enpu_sched_stop(struct enpu_sched_rq *rq, struct enpu_sched_entity *e,
		     u64 now, bool more, u64 order);
u64 enpu_sched_next_event(const struct enpu_sched_rq *rq,
			  const struct enpu_sched_entity *running, u64 now);

void enpu_sched_boost(struct enpu_sched_rq *rq, struct enpu_sched_entity *e,
		      u8 level, u64 now);
void enpu_sched_unboost(struct enpu_sched_rq *rq, struct enpu_sched_entity *e,
			u8 level, u64 now);

#endif /* ENPU_SCHED_POLICY_H */
