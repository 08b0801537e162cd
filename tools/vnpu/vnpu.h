/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtual NPU: one process that is both QEMU's ivshmem server and the
 * device behind it. Everything runs on one thread driven by an epoll loop,
 * so device state needs no locks; the only concurrency is with the guest,
 * through the single-writer registers in shared memory (shm_access.h).
 *
 * Device time is simulated: wall time elapsed since the last event,
 * multiplied by the speed factor, advances the clock (clock.c). Every event
 * handler first calls device_advance() to bring the model up to "now",
 * then acts, then device_settle() starts queued work and re-arms the
 * job timer.
 */
#ifndef VNPU_H
#define VNPU_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "enpu_cmd_rule.h"
#include "enpu_regs.h"

#define VNPU_DEFAULT_DEVICE_ID	0x0001u
#define VNPU_SRAM_KB		2048u
#define VNPU_MACS_PER_CYCLE	1024u
#define VNPU_OPP_COUNT		5
/* Ambient temperature (interface 1.5): default and the accepted range of
 * --ambient-mc and the control socket's "ambient". */
#define VNPU_AMBIENT_MC		35000
#define VNPU_AMBIENT_MIN_MC	(-40000)
#define VNPU_AMBIENT_MAX_MC	150000
#define VNPU_CONTROL_CLIENTS	8
#define VNPU_CONTROL_LINE	256

/* Interface 1.4 preemption model (docs/hw/vnpu.md, "Interface 1.4"). */
#define VNPU_CTX_SAVE_SIZE	4096u	/* bytes a save area must have */
#define VNPU_PREEMPT_BOUND_NS	16000u	/* default, at the nominal clock */
#define VNPU_POINT_CYCLES	128u	/* each preemption point */
#define VNPU_SAVE_CYCLES	1024u	/* writing the save area */
#define VNPU_RESTORE_CYCLES	1024u	/* resuming from it */
#define VNPU_PREEMPT_SAMPLES	4096u	/* latency samples kept */

/* Progress is kept in cycle-units: 1 cycle = 1e6 units, so that
 * device_ns * clock_khz is an exact amount of work. */
typedef unsigned __int128 work_units;
#define UNITS_PER_CYCLE		1000000u

struct vnpu_config {
	const char *socket_path;
	const char *ram_path;
	const char *control_path;
	const char *facts_path;
	const char *log_path;
	const char *layer_mode;		/* "fast" (default) or "oracle" */
	unsigned int layer_threads;
	double speed;
	double ambient_c;
	uint32_t device_id;
	uint32_t num_queues;
	uint32_t preempt_bound_ns;
};

struct guest_ram {
	uint8_t *base;
	uint64_t size;
};

/* One entry of a job's BO table (interface 1.1), copied in at job start.
 * The scatter-gather list stays in guest RAM and is walked, with bounds
 * checks, whenever a DMA command runs (dma.c). */
struct vnpu_bo {
	uint64_t sg_addr;
	uint32_t sg_count;
	uint32_t access;	/* ENPU_BO_ACCESS_* */
	uint64_t size;
};

#define VNPU_MAX_BOS		4096u	/* BO_COUNT limit of the spec */

struct layer_state;
struct layer_engine;	/* layer.h: how layers are computed */

/* Where a job is (engine.c): resuming, running tiles, or saving. */
enum job_phase {
	JOB_RESTORE,
	JOB_RUN,
	JOB_SAVE,
};

/* The job the engine is executing; its stream and BO table were copied in
 * at start so the guest cannot change them under the parser. Each command
 * runs as `tiles` tiles over its `units` (output elements, bytes or NOP
 * cycles); a job with a save area may stop after any tile. */
struct vnpu_job {
	bool active;
	bool stopped;		/* finished or saved: status says which */
	uint32_t queue;
	uint64_t tag;
	uint8_t *stream;
	uint32_t stream_size;
	uint64_t stream_hash;
	struct vnpu_bo *bos;
	uint32_t bo_count;
	uint64_t save_addr;	/* 0: not preemptible */
	uint64_t seen_ns;	/* device time its descriptor became visible */
	uint32_t offset;	/* current command */
	uint64_t cmd_cycles;	/* its cycles */
	uint64_t units;		/* its units */
	uint64_t tiles;		/* its tiles */
	uint64_t tile;		/* the current one */
	bool in_tile;		/* tile_left holds the current tile's work */
	work_units tile_left;	/* incl. the point after it */
	enum job_phase phase;
	work_units phase_left;	/* of RESTORE or SAVE */
	work_units left;	/* to the end of the job, if not preempted */
	uint64_t cycles_total;	/* set by validation: all commands' cycles */
	uint64_t run_cycles;	/* this run's; reported in the completion */
	bool preempt_pending;
	uint64_t preempt_request_ns;
	uint32_t preemptions;	/* saves of this job so far */
	struct layer_state *layer;	/* the current layer's host operands */
	uint32_t status;	/* ENPU_JOB_STATUS_* once stopped */
	uint32_t info;
	uint32_t rule;		/* why the checks refused it (vnpu_rule_name) */
	bool host_trouble;	/* the host could not perform a command */
};

/* Preemption figures for the control socket (engine.c), since power-on
 * or the last "stats-reset". Latencies are device ns. */
struct vnpu_preempt_stats {
	uint64_t saves, resumes, ignored, bounced, points;
	uint64_t point_cycles, save_cycles, restore_cycles;
	uint64_t host_ns;	/* host time spent performing commands */
	uint64_t busy_ns_base;	/* perf_busy_ns at the reset */
	uint32_t saved_count, start_count;
	uint64_t to_saved[VNPU_PREEMPT_SAMPLES];	/* request -> saved */
	uint64_t to_start[VNPU_PREEMPT_SAMPLES];	/* request -> next start */
	/* per queue: descriptor visible -> job completed (not PREEMPTED) */
	uint32_t done_count[ENPU_MAX_QUEUES];
	uint64_t to_done[ENPU_MAX_QUEUES][VNPU_PREEMPT_SAMPLES];
	bool await_start;
	uint64_t await_request_ns;
};

struct vnpu_cqe {
	uint64_t tag;
	uint32_t queue;
	uint32_t status;
	uint64_t cycles;
	uint32_t info;
};

/*
 * The heartbeat (clock.c) runs on a thread of its own, like a firmware
 * heartbeat on its own core: a layer that keeps the event loop busy for
 * seconds of host compute does not stop it. This is the only state the
 * two threads share; the heartbeat thread is the only writer of
 * HEARTBEAT, the event loop of HEARTBEAT_PERIOD_US.
 */
struct vnpu_heartbeat {
	pthread_mutex_t lock;
	pthread_t thread;
	bool started;
	bool stop;
	bool running;		/* READY and not hung */
	double speed;
	double acc_ns;		/* device ns not yet a whole tick */
	uint64_t last_wall_ns;
	uint32_t count;
	uint64_t stalled_until_ns;	/* control `stall-heartbeat`: no ticks */
};

struct control_client {
	int fd;
	size_t used;
	char line[VNPU_CONTROL_LINE];
};

struct vnpu {
	struct vnpu_config cfg;
	FILE *log;
	uint64_t start_ns;

	/* ivshmem side */
	int listen_fd;
	int client_fd;
	bool client_seen;
	int shm_fd;
	uint8_t *shm;
	int doorbell_fd[ENPU_NUM_VECTORS];	/* guest -> vnpu (peer 0) */
	int msi_fd[ENPU_NUM_VECTORS];		/* vnpu -> guest (peer 1) */
	struct guest_ram ram;

	/* event loop */
	int epoll_fd;
	int tick_fd;
	int job_timer_fd;
	int signal_fd;
	int control_fd;
	struct control_client control[VNPU_CONTROL_CLIENTS];
	bool quit;

	/* device clock */
	uint64_t device_ns;		/* device time since power-on */
	work_units advance_used;	/* inside device_advance(), see engine.c */
	bool in_advance;
	double speed;
	uint64_t last_wall_ns;
	double device_carry_ns;
	struct vnpu_heartbeat hb;

	/* device state; the shm copy of each (dev) register mirrors these */
	uint32_t status;
	bool hung;
	uint32_t irq_mask;
	uint32_t reset_count;
	bool fw_booted;			/* once booted, facts keep the version */
	uint32_t fw_version;
	uint32_t fw_api_version;
	uint32_t mbox_done_seq;
	uint32_t opp;
	uint32_t sq_head[ENPU_MAX_QUEUES];
	uint32_t sq_visible[ENPU_MAX_QUEUES];	/* SQ_TAIL at the last look */
	/* device time each ring slot's descriptor became visible */
	uint64_t sq_seen_ns[ENPU_MAX_QUEUES][ENPU_SQ_ENTRIES];
	uint32_t cq_tail;
	uint32_t rr_next;		/* round-robin start among equals */
	uint32_t preempt_seen[ENPU_MAX_QUEUES];	/* SQ_PREEMPT_SEQ looked at */
	uint64_t bounce_area[ENPU_MAX_QUEUES];	/* return these unstarted */
	uint32_t perf_preemptions;
	struct vnpu_preempt_stats pstats;
	struct vnpu_job job;
	const struct layer_engine *layers;
	/* [enum layer_mode]: what `layers fast|oracle` switches between. */
	const struct layer_engine *layer_engines;
	bool cqe_pending;		/* finished, waiting for CQ space */
	struct vnpu_cqe pending_cqe;

	/* thermal and power (thermal.c, power.c) */
	uint32_t power_state;		/* ENPU_POWER_* */
	double ambient_c;
	double power_w;			/* over the last model step */
	double temp_c;
	uint64_t thermal_acc_ns;
	uint64_t thermal_busy_ns;

	/* perf counters */
	work_units perf_units;
	uint64_t perf_busy_ns;
	uint32_t perf_jobs_done;
	uint64_t perf_dma_bytes;
	uint64_t perf_macs;

	/* host fault injection */
	uint32_t lose_irqs;
	uint32_t fail_boots;		/* BOOTs still to refuse */
	bool corrupt_next_cqe;
	uint64_t error_vector_at_ns;	/* a late error interrupt, 0: none */
	uint64_t mbox_muted_until_ns;	/* control `mute-mailbox`, 0: none */
};

/* epoll tags (data.u64) */
enum vnpu_event {
	EV_LISTEN = 1,
	EV_CLIENT,
	EV_TICK,
	EV_JOB_TIMER,
	EV_SIGNAL,
	EV_CONTROL_LISTEN,
	EV_DOORBELL_BASE = 16,		/* + vector */
	EV_CONTROL_CLIENT_BASE = 32,	/* + slot */
};

/* log.c */
void vnpu_log(struct vnpu *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* guest_ram.c */
int guest_ram_map(struct guest_ram *ram, const char *path, char *why,
		  size_t why_size);
void guest_ram_unmap(struct guest_ram *ram);
bool guest_ram_range_ok(const struct guest_ram *ram, uint64_t addr,
			uint64_t len);
bool guest_ram_read(const struct guest_ram *ram, uint64_t addr, void *dst,
		    uint64_t len);

/* bo_table.c */
enum bo_table_result {
	BO_TABLE_OK,
	BO_TABLE_FAULT,		/* the guest's table or lists break a rule */
	BO_TABLE_NO_MEMORY,	/* host trouble */
};
/* On BO_TABLE_FAULT, *@rule is the enum vnpu_job_rule broken. */
enum bo_table_result bo_table_load(const struct guest_ram *ram, uint64_t addr,
				   uint32_t count, struct vnpu_bo **bos,
				   uint32_t *rule);

/* dma.c */
bool dma_copy(const struct guest_ram *ram, const struct vnpu_bo *src,
	      uint64_t src_offset, const struct vnpu_bo *dst,
	      uint64_t dst_offset, uint64_t size);
bool dma_fill(const struct guest_ram *ram, const struct vnpu_bo *dst,
	      uint64_t offset, uint64_t size, uint8_t value);
bool dma_gather(const struct guest_ram *ram, const struct vnpu_bo *bo,
		uint64_t offset, uint64_t run, uint64_t stride, uint64_t runs,
		void *dst);
bool dma_scatter(const struct guest_ram *ram, const struct vnpu_bo *bo,
		 uint64_t offset, uint64_t run, uint64_t stride, uint64_t runs,
		 const void *src);

/* registers.c */
void regs_power_on(struct vnpu *v);
void regs_set_status(struct vnpu *v, uint32_t status);
void regs_set_error(struct vnpu *v, uint32_t status, uint32_t code,
		    uint32_t info);
void regs_publish_perf(struct vnpu *v);
void device_raise_vector(struct vnpu *v, unsigned int vector);
const char *status_name(uint32_t status);

/* clock.c */
uint64_t monotonic_ns(void);
void device_advance(struct vnpu *v);
void device_settle(struct vnpu *v);
void device_set_speed(struct vnpu *v, double speed);
int heartbeat_init(struct vnpu *v);
int heartbeat_start(struct vnpu *v);
void heartbeat_stop(struct vnpu *v);
void heartbeat_update(struct vnpu *v);
void heartbeat_restart(struct vnpu *v);
uint32_t heartbeat_read(struct vnpu *v);
void heartbeat_stall(struct vnpu *v, uint64_t ns);

/* thermal.c */
uint32_t opp_khz(uint32_t index);
uint32_t opp_mw(uint32_t index);
uint32_t opp_mv(uint32_t index);
double power_model_w(uint32_t index, double activity, double temp_c);
void thermal_init(struct vnpu *v);
void thermal_set_ambient(struct vnpu *v, double ambient_c);
void thermal_advance(struct vnpu *v, uint64_t device_ns, uint64_t busy_ns);
void thermal_add(struct vnpu *v, double delta_c);
uint32_t thermal_mc(const struct vnpu *v);

/* power.c */
uint32_t power_set_state(struct vnpu *v, uint32_t state, uint32_t *data);

/* mailbox.c */
void mailbox_doorbell(struct vnpu *v);
void device_reset(struct vnpu *v);

/* firmware_boot.c */
uint32_t firmware_boot(struct vnpu *v, uint64_t addr, uint32_t size,
		       uint32_t *result_data);

/* fw_log.c */
void fw_log_clear(struct vnpu *v);
void fw_log_printf(struct vnpu *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* queues.c */
void queues_run(struct vnpu *v);
void queues_step(struct vnpu *v);
void queues_abort(struct vnpu *v);
void queues_release(struct vnpu *v);
uint32_t queues_preempt_mailbox(struct vnpu *v, const uint32_t arg[4],
				uint32_t *data);

/*
 * Why the device refused a job: a command-format rule (enum enpu_cmd_rule,
 * kernel/enpu_cmd_rule.h, the same ids the kernel validator reports), or
 * one of the rules below, of the descriptor and the BO table, which only
 * the device checks (docs/hw/vnpu.md). The log line of a failed job names
 * it; the host tests assert it.
 */
enum vnpu_job_rule {
	VNPU_RULE_DESC_FLAGS = 0x100,	/* descriptor FLAGS not 0 */
	VNPU_RULE_DESC_STREAM_SIZE,	/* CMD_SIZE above ENPU_CMD_MAX_STREAM */
	VNPU_RULE_STREAM_RANGE,		/* stream outside guest RAM */
	VNPU_RULE_BO_COUNT,		/* BO_COUNT above VNPU_MAX_BOS */
	VNPU_RULE_BO_TABLE_RANGE,	/* BO table outside guest RAM */
	VNPU_RULE_BO_RESERVED,		/* a BO entry's reserved not 0 */
	VNPU_RULE_BO_ACCESS,		/* an unknown ACCESS bit */
	VNPU_RULE_SG_COUNT,		/* SG_COUNT 0 */
	VNPU_RULE_SG_LIST_RANGE,	/* a list outside guest RAM */
	VNPU_RULE_SG_SEGMENT_EMPTY,	/* a segment of LEN 0 */
	VNPU_RULE_SG_SEGMENT_RANGE,	/* a segment outside guest RAM */
	VNPU_RULE_SG_SHORT,		/* segments cover less than SIZE */
	VNPU_RULE_DESC_SAVE_SIZE,	/* CTX_SAVE_SIZE below VNPU_CTX_SAVE_SIZE */
	VNPU_RULE_SAVE_RANGE,		/* save area outside guest RAM */
	VNPU_RULE_SAVE_STATE,		/* saved state not of this job */
	VNPU_RULE_END
};

/* cmdstream.c */
const char *vnpu_rule_name(uint32_t rule);
#define CMDSTREAM_OK UINT32_MAX
uint32_t cmdstream_validate(struct vnpu_job *job, uint32_t *status);
struct cmdstream_counters {
	uint64_t dma_bytes;	/* PERF_DMA_BYTES */
	uint64_t macs;		/* PERF_MACS */
};
uint32_t job_ref_rule(const struct vnpu_job *job, uint32_t bo_index,
		      uint64_t offset, uint64_t size, uint32_t access);
uint32_t cmdstream_command_size(const struct vnpu_job *job, uint32_t offset);
void cmdstream_plan(const struct vnpu_job *job, uint32_t offset,
		    uint64_t *cycles, uint64_t *units);
uint32_t cmdstream_perform(struct vnpu_job *job, const struct guest_ram *ram,
			   const struct layer_engine *layers, uint64_t first,
			   uint64_t end, struct cmdstream_counters *counters);

/* engine.c */
uint32_t engine_start(struct vnpu *v, uint32_t *status);
work_units engine_advance(struct vnpu *v, work_units budget);
void engine_run_instant(struct vnpu *v);
work_units engine_work_to_stop(const struct vnpu_job *job);
uint64_t engine_now_ns(const struct vnpu *v);
bool engine_preempt(struct vnpu *v, uint32_t queue, uint64_t area);
void engine_job_end(struct vnpu *v);
void engine_job_started(struct vnpu *v);
void engine_stats_reset(struct vnpu *v);
int engine_stats_preempt(const struct vnpu *v, char *buf, size_t size);
int engine_stats_cost(const struct vnpu *v, char *buf, size_t size);
void engine_job_latency(struct vnpu *v, uint32_t q, uint64_t seen_ns);
int engine_stats_queue(const struct vnpu *v, uint32_t q, char *buf,
		       size_t size);

/* facts.c */
int facts_write(struct vnpu *v);

/* control.c */
int control_listen(struct vnpu *v);
void control_accept(struct vnpu *v);
void control_readable(struct vnpu *v, unsigned int slot);
void control_close_all(struct vnpu *v);

/* ivshmem_server.c */
int unix_listen(const char *path, char *why, size_t why_size);
int ivshmem_greet(struct vnpu *v, int client_fd);

#endif /* VNPU_H */
