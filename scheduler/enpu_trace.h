/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the scheduler, system "enpu" (docs/scheduler.md,
 * "Tracing"): a job's life as queued, run (written to a ring), preempt
 * (a PREEMPT request posted for it), resume (run again from its save
 * area) and done (its completion; error -EINPROGRESS for a PREEMPTED
 * completion, which is not the end of the job). Every event carries the
 * job id (the completion tag's cookie), the context id and its priority.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM enpu

#if !defined(ENPU_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define ENPU_TRACE_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(enpu_job_class,
		    TP_PROTO(u64 id, u32 ctx, u8 prio, u8 level),
		    TP_ARGS(id, ctx, prio, level),
		    TP_STRUCT__entry(__field(u64, id)
				     __field(u32, ctx)
				     __field(u8, prio)
				     __field(u8, level)),
		    TP_fast_assign(__entry->id = id;
				   __entry->ctx = ctx;
				   __entry->prio = prio;
				   __entry->level = level;),
		    TP_printk("job=%llu ctx=%u prio=%u level=%u",
			      __entry->id, __entry->ctx, __entry->prio,
			      __entry->level));

DEFINE_EVENT(enpu_job_class, enpu_job_preempt,
	     TP_PROTO(u64 id, u32 ctx, u8 prio, u8 level),
	     TP_ARGS(id, ctx, prio, level));

DEFINE_EVENT(enpu_job_class, enpu_job_resume,
	     TP_PROTO(u64 id, u32 ctx, u8 prio, u8 level),
	     TP_ARGS(id, ctx, prio, level));

TRACE_EVENT(enpu_job_queue,
	    TP_PROTO(u64 id, u32 ctx, u8 prio, u64 seqno),
	    TP_ARGS(id, ctx, prio, seqno),
	    TP_STRUCT__entry(__field(u64, id)
			     __field(u32, ctx)
			     __field(u8, prio)
			     __field(u64, seqno)),
	    TP_fast_assign(__entry->id = id;
			   __entry->ctx = ctx;
			   __entry->prio = prio;
			   __entry->seqno = seqno;),
	    TP_printk("job=%llu ctx=%u prio=%u seqno=%llu",
		      __entry->id, __entry->ctx, __entry->prio,
		      __entry->seqno));

TRACE_EVENT(enpu_job_run,
	    TP_PROTO(u64 id, u32 ctx, u8 prio, u8 level, u32 queue),
	    TP_ARGS(id, ctx, prio, level, queue),
	    TP_STRUCT__entry(__field(u64, id)
			     __field(u32, ctx)
			     __field(u8, prio)
			     __field(u8, level)
			     __field(u32, queue)),
	    TP_fast_assign(__entry->id = id;
			   __entry->ctx = ctx;
			   __entry->prio = prio;
			   __entry->level = level;
			   __entry->queue = queue;),
	    TP_printk("job=%llu ctx=%u prio=%u level=%u queue=%u",
		      __entry->id, __entry->ctx, __entry->prio, __entry->level,
		      __entry->queue));

TRACE_EVENT(enpu_job_done,
	    TP_PROTO(u64 id, u32 ctx, u8 prio, int error, u64 cycles),
	    TP_ARGS(id, ctx, prio, error, cycles),
	    TP_STRUCT__entry(__field(u64, id)
			     __field(u32, ctx)
			     __field(u8, prio)
			     __field(int, error)
			     __field(u64, cycles)),
	    TP_fast_assign(__entry->id = id;
			   __entry->ctx = ctx;
			   __entry->prio = prio;
			   __entry->error = error;
			   __entry->cycles = cycles;),
	    TP_printk("job=%llu ctx=%u prio=%u error=%d cycles=%llu",
		      __entry->id, __entry->ctx, __entry->prio, __entry->error,
		      __entry->cycles));

#endif /* ENPU_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE enpu_trace
#include <trace/define_trace.h>
