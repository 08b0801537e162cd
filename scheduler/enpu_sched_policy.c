// SPDX-License-Identifier: GPL-2.0
/*
 * The policy in one sentence: the ready context of the highest level
 * runs, a higher level preempts at once, contexts of one level share the
 * device in round-robin slices, and a level that waited aging_ns without
 * a start counts one level higher (up to HIGH), so LOW always progresses.
 *
 * Levels: a context's priority (LOW..REALTIME), raised while a job of a
 * higher priority waits on one of its fences (priority inheritance), and,
 * for choosing only, by aging. Within a level, entities are ordered by
 * key: the time they became ready, so the list is a round-robin queue; an
 * entity that stops with slice time left (its job finished and it has
 * another, or a higher level preempted it) keeps its key and so its turn.
 * A started entity is protected for the rest of its slice against its
 * own level (and the level it was aged to); once the slice is used, an
 * entity of its level that waits preempts it.
 *
 * Starvation bound (docs/scheduler.md): a level below HIGH whose entities
 * wait counts one level higher after aging_ns (at least slice_ns, so that
 * aging never cuts a slice short). Under a saturating NORMAL load with no
 * HIGH or REALTIME work, a waiting LOW level therefore ties NORMAL after
 * aging_ns and wins the tie (it became ready before the rotating NORMAL
 * entities) at the next slice end: its head starts within
 * aging_ns + slice_ns plus one preemption latency, runs one slice, and
 * with k LOW contexts ready each of them starts within k times that.
 */
#include "enpu_sched_policy.h"

/**
 * enpu_sched_rq_init() - an empty run queue
 * @rq: the run queue.
 * @params: tunables, copied; every field must be at least 1. An aging
 *	period shorter than the slice is raised to the slice.
 */
void enpu_sched_rq_init(struct enpu_sched_rq *rq,
			const struct enpu_sched_params *params)
{
	unsigned int l;

	rq->params = *params;
	if (rq->params.aging_ns < rq->params.slice_ns)
		rq->params.aging_ns = rq->params.slice_ns;
	for (l = 0; l < ENPU_SCHED_LEVELS; l++) {
		INIT_LIST_HEAD(&rq->ready[l]);
		rq->waiting_since[l] = 0;
	}
}

/**
 * enpu_sched_entity_init() - an idle entity
 * @e: the entity.
 * @prio: its priority, below ENPU_SCHED_LEVELS (the caller checked it).
 */
void enpu_sched_entity_init(struct enpu_sched_entity *e, u8 prio)
{
	unsigned int l;

	INIT_LIST_HEAD(&e->node);
	e->state = ENPU_SCHED_IDLE;
	e->prio = prio;
	e->level = prio;
	e->run_level = prio;
	e->key = 0;
	e->run_start = 0;
	e->slice_used = 0;
	for (l = 0; l < ENPU_SCHED_LEVELS; l++)
		e->boost[l] = 0;
}

static bool enpu_sched_fifo(const struct enpu_sched_rq *rq)
{
	return rq->params.mode == ENPU_SCHED_FIFO;
}

/* Inserts @e in its level's list by key, scanning from the tail (keys
 * mostly grow, so this is usually one step). Equal keys keep arrival
 * order.
 */
static void enpu_sched_insert(struct enpu_sched_rq *rq,
			      struct enpu_sched_entity *e, u64 now)
{
	struct list_head *head = &rq->ready[e->level], *pos;

	if (list_empty(head))
		rq->waiting_since[e->level] = now;
	for (pos = head->prev; pos != head; pos = pos->prev) {
		struct enpu_sched_entity *other =
			list_entry(pos, struct enpu_sched_entity, node);

		if (other->key <= e->key)
			break;
	}
	list_add(&e->node, pos);
	e->state = ENPU_SCHED_READY;
}

static void enpu_sched_remove(struct enpu_sched_entity *e)
{
	list_del_init(&e->node);
}

/**
 * enpu_sched_ready() - an idle entity's head job may run
 * @rq: the run queue.
 * @e: an IDLE entity.
 * @now: current time, ns.
 * @order: submission order of the head job (FIFO mode's key).
 *
 * The entity joins the tail of its level with a fresh slice.
 */
void enpu_sched_ready(struct enpu_sched_rq *rq, struct enpu_sched_entity *e,
		      u64 now, u64 order)
{
	if (e->state != ENPU_SCHED_IDLE)
		return;
	e->key = enpu_sched_fifo(rq) ? order : now;
	e->slice_used = 0;
	enpu_sched_insert(rq, e, now);
}

/**
 * enpu_sched_unready() - a ready entity has nothing to run any more
 * @e: the entity; nothing happens unless it is READY.
 *
 * E.g. its queued jobs were cancelled, or its head job was found to wait
 * for a fence after all.
 */
void enpu_sched_unready(struct enpu_sched_entity *e)
{
	if (e->state != ENPU_SCHED_READY)
		return;
	enpu_sched_remove(e);
	e->state = ENPU_SCHED_IDLE;
	e->slice_used = 0;
}

/**
 * enpu_sched_level_of() - the level a ready entity competes at
 * @rq: the run queue.
 * @e: a READY entity.
 * @now: current time, ns.
 *
 * Its static level, raised by one per aging_ns its level has waited, up
 * to ENPU_SCHED_AGING_CAP (preemptive mode only).
 *
 * Return: the effective level.
 */
u8 enpu_sched_level_of(const struct enpu_sched_rq *rq,
		       const struct enpu_sched_entity *e, u64 now)
{
	u64 waited, steps;

	if (enpu_sched_fifo(rq) || e->level >= ENPU_SCHED_AGING_CAP)
		return e->level;
	waited = now > rq->waiting_since[e->level] ?
		 now - rq->waiting_since[e->level] : 0;
	steps = div64_u64(waited, rq->params.aging_ns);
	if (steps >= (u64)(ENPU_SCHED_AGING_CAP - e->level))
		return ENPU_SCHED_AGING_CAP;
	return e->level + (u8)steps;
}

/**
 * enpu_sched_pick() - the entity that should run next
 * @rq: the run queue.
 * @now: current time, ns.
 *
 * The head of every level competes at its effective level; the highest
 * wins, a tie goes to the smaller key (it became ready first), then to
 * the higher static level. Only heads compete: within a level, order is
 * the key's.
 *
 * Return: a READY entity (still on its list), or NULL if none is ready.
 */
struct enpu_sched_entity *enpu_sched_pick(const struct enpu_sched_rq *rq,
					  u64 now)
{
	struct enpu_sched_entity *best = NULL;
	u8 best_level = 0;
	int l;

	for (l = ENPU_SCHED_LEVELS - 1; l >= 0; l--) {
		struct enpu_sched_entity *head;
		u8 level;

		if (list_empty(&rq->ready[l]))
			continue;
		head = list_first_entry(&rq->ready[l],
					struct enpu_sched_entity, node);
		level = enpu_sched_level_of(rq, head, now);
		if (!best || level > best_level ||
		    (level == best_level && head->key < best->key)) {
			best = head;
			best_level = level;
		}
	}
	return best;
}

/**
 * enpu_sched_start() - a ready entity's head job goes to the device
 * @rq: the run queue.
 * @e: a READY entity, usually the one enpu_sched_pick() returned.
 * @now: current time, ns.
 *
 * It leaves its list; its level counts as served (aging restarts); it is
 * protected at the level it was chosen at for the rest of its slice.
 */
void enpu_sched_start(struct enpu_sched_rq *rq, struct enpu_sched_entity *e,
		      u64 now)
{
	if (e->state != ENPU_SCHED_READY)
		return;
	e->run_level = enpu_sched_level_of(rq, e, now);
	enpu_sched_remove(e);
	rq->waiting_since[e->level] = now;
	e->run_start = now;
	e->state = ENPU_SCHED_RUNNING;
}

static u64 enpu_sched_slice_end(const struct enpu_sched_rq *rq,
				const struct enpu_sched_entity *e)
{
	u64 left = e->slice_used < rq->params.slice_ns ?
		   rq->params.slice_ns - e->slice_used : 0;

	return e->run_start + left;
}

/**
 * enpu_sched_running_level() - the level a running entity defends
 * @rq: the run queue.
 * @e: a RUNNING entity.
 * @now: current time, ns.
 *
 * Return: the level it started at (or its static level if a boost raised
 * it since) until its slice is used up, its static level after that.
 */
u8 enpu_sched_running_level(const struct enpu_sched_rq *rq,
			    const struct enpu_sched_entity *e, u64 now)
{
	if (!enpu_sched_fifo(rq) && now < enpu_sched_slice_end(rq, e))
		return e->run_level > e->level ? e->run_level : e->level;
	return e->level;
}

/**
 * enpu_sched_should_preempt() - should @running give the device to @cand?
 * @rq: the run queue.
 * @running: the RUNNING entity whose job is on the device.
 * @cand: a READY entity, usually enpu_sched_pick()'s choice.
 * @now: current time, ns.
 *
 * Yes when @cand competes at a higher level than @running defends, or at
 * the same level once @running's slice is used up (round robin). Never
 * in FIFO mode.
 *
 * Return: true to preempt.
 */
bool enpu_sched_should_preempt(const struct enpu_sched_rq *rq,
			       const struct enpu_sched_entity *running,
			       const struct enpu_sched_entity *cand, u64 now)
{
	u8 lc, lr;

	if (enpu_sched_fifo(rq) || !cand || !running)
		return false;
	lc = enpu_sched_level_of(rq, cand, now);
	lr = enpu_sched_running_level(rq, running, now);
	return lc > lr ||
	       (lc == lr && now >= enpu_sched_slice_end(rq, running));
}

/**
 * enpu_sched_stop() - a running entity's job left the device
 * @rq: the run queue.
 * @e: a RUNNING entity.
 * @now: current time, ns.
 * @more: the entity has a head job that may run now (a preempted job
 *	itself, or the next one in its FIFO whose fences have signalled).
 * @order: that head job's submission order (FIFO mode's key).
 *
 * Completion and preemption are treated alike: the time since
 * enpu_sched_start() is charged to its slice; with slice time left it
 * keeps its key (its turn in its level: a job preempted by a higher level
 * resumes first among its equals), else it starts a new slice at the
 * tail. Without @more it goes idle.
 */
void enpu_sched_stop(struct enpu_sched_rq *rq, struct enpu_sched_entity *e,
		     u64 now, bool more, u64 order)
{
	if (e->state != ENPU_SCHED_RUNNING)
		return;
	if (now > e->run_start)
		e->slice_used += now - e->run_start;
	e->state = ENPU_SCHED_IDLE;
	if (!more) {
		e->slice_used = 0;
		return;
	}
	if (enpu_sched_fifo(rq)) {
		e->key = order;
	} else if (e->slice_used >= rq->params.slice_ns) {
		e->slice_used = 0;
		e->key = now;
	}
	/* Otherwise the old key: back to (near) the front of its level. */
	enpu_sched_insert(rq, e, now);
}

/**
 * enpu_sched_next_event() - when a decision may change without an event
 * @rq: the run queue.
 * @running: the RUNNING entity, or NULL when the device is idle.
 * @now: current time, ns.
 *
 * The end of @running's slice (if anything is ready), and the next
 * aging step of every waiting level below the cap. The mechanism arms a
 * timer for it and calls enpu_sched_should_preempt() again then.
 *
 * Return: a time after @now, or U64_MAX for none.
 */
u64 enpu_sched_next_event(const struct enpu_sched_rq *rq,
			  const struct enpu_sched_entity *running, u64 now)
{
	u64 next = U64_MAX, t;
	bool any = false;
	unsigned int l;

	if (enpu_sched_fifo(rq))
		return U64_MAX;
	for (l = 0; l < ENPU_SCHED_LEVELS; l++) {
		u64 ws = rq->waiting_since[l], steps;

		if (list_empty(&rq->ready[l]))
			continue;
		any = true;
		if (l >= ENPU_SCHED_AGING_CAP)
			continue;
		steps = div64_u64(now > ws ? now - ws : 0, rq->params.aging_ns);
		if (steps >= (u64)(ENPU_SCHED_AGING_CAP - l))
			continue;
		t = ws + (steps + 1) * rq->params.aging_ns;
		if (t < next)
			next = t;
	}
	if (running && any) {
		t = enpu_sched_slice_end(rq, running);
		if (t > now && t < next)
			next = t;
	}
	return next;
}

static u8 enpu_sched_static_level(const struct enpu_sched_entity *e)
{
	int l;

	for (l = ENPU_SCHED_LEVELS - 1; l > e->prio; l--)
		if (e->boost[l])
			return l;
	return e->prio;
}

static void enpu_sched_relevel(struct enpu_sched_rq *rq,
			       struct enpu_sched_entity *e, u64 now)
{
	u8 level = enpu_sched_static_level(e);

	if (level == e->level)
		return;
	if (e->state == ENPU_SCHED_READY) {
		/* Keeps its key: its place among its new equals is by age. */
		enpu_sched_remove(e);
		e->level = level;
		enpu_sched_insert(rq, e, now);
	} else {
		e->level = level;
	}
}

/**
 * enpu_sched_boost() - a job of priority @level waits on @e's fence
 * @rq: the run queue.
 * @e: the entity whose job the waiter depends on.
 * @level: the waiter's level.
 * @now: current time, ns.
 *
 * Until the matching enpu_sched_unboost(), @e's static level is at least
 * @level, so a LOW context cannot hold back a REALTIME one through a
 * fence by being starved.
 */
void enpu_sched_boost(struct enpu_sched_rq *rq, struct enpu_sched_entity *e,
		      u8 level, u64 now)
{
	if (level >= ENPU_SCHED_LEVELS)
		return;
	e->boost[level]++;
	enpu_sched_relevel(rq, e, now);
}

/**
 * enpu_sched_unboost() - undo one enpu_sched_boost()
 * @rq: the run queue.
 * @e: the entity.
 * @level: the level passed to enpu_sched_boost().
 * @now: current time, ns.
 */
void enpu_sched_unboost(struct enpu_sched_rq *rq, struct enpu_sched_entity *e,
			u8 level, u64 now)
{
	if (level >= ENPU_SCHED_LEVELS || !e->boost[level])
		return;
	e->boost[level]--;
	enpu_sched_relevel(rq, e, now);
}
