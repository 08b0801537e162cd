/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A host-side stand-in for QEMU + the guest driver: starts a vnpu, speaks
 * the ivshmem protocol exactly as QEMU's ivshmem-doorbell does, maps BAR2
 * and the guest RAM file, and drives the device through registers,
 * doorbell eventfds and MSI-X eventfds.
 */
#ifndef VNPU_RIG_H
#define VNPU_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "enpu_regs.h"

#define RIG_RAM_SIZE	(16u << 20)

struct rig {
	pid_t pid;
	char dir[64];
	char socket_path[96];
	char control_path[96];
	char facts_path[96];
	char log_path[96];
	char ram_path[96];
	int sock;
	uint8_t *shm;
	uint64_t shm_size;
	uint8_t *ram;
	int doorbell[ENPU_NUM_VECTORS];
	int msi[ENPU_NUM_VECTORS];
	int64_t handshake[3 + 2 * ENPU_NUM_VECTORS];	/* values received */
	bool handshake_fd_ok;
	uint32_t cmd_seq;
	uint32_t sq_tail[ENPU_MAX_QUEUES];
	uint32_t cq_head;
};

struct cqe {
	uint64_t tag;
	uint32_t queue;
	uint32_t status;
	uint64_t cycles;
	uint32_t info;
};

/* Lifecycle. rig_start returns 0 on success, with a message on stderr on
 * failure. rig_disconnect closes QEMU's side; rig_wait_exit reaps vnpu. */
int rig_start(struct rig *r, const char *vnpu, const char *speed);
/* The same with more vnpu arguments (NULL-terminated list). */
int rig_start_with(struct rig *r, const char *vnpu, const char *speed,
		   const char *const *extra);
int rig_connect(struct rig *r);
void rig_disconnect(struct rig *r);
int rig_wait_exit(struct rig *r, int timeout_ms);	/* exit status or -1 */
void rig_destroy(struct rig *r);

/* Registers and interrupts. */
uint32_t rd(struct rig *r, uint32_t offset);
void wr(struct rig *r, uint32_t offset, uint32_t value);
void ring(struct rig *r, unsigned int doorbell);
bool wait_vector(struct rig *r, unsigned int vector, int timeout_ms);
void drain_vectors(struct rig *r);

/* Mailbox: returns CMD_RESULT, or -1 if no answer within timeout_ms. */
int mbox(struct rig *r, uint32_t cmd, uint32_t a0, uint32_t a1, uint32_t a2,
	 uint32_t *data, int timeout_ms);

/* Queues. */
void submit(struct rig *r, unsigned int q, uint64_t addr, uint32_t size,
	    uint32_t flags, uint64_t tag);
/* The same with a BO table (interface 1.1). */
void submit_with_bos(struct rig *r, unsigned int q, uint64_t addr,
		     uint32_t size, uint64_t tag, uint64_t bo_table_addr,
		     uint32_t bo_count);
/* Any descriptor: BO table and context-save area (interface 1.3). */
void submit_saved(struct rig *r, unsigned int q, uint64_t addr, uint32_t size,
		  uint64_t tag, uint64_t bo_table_addr, uint32_t bo_count,
		  uint64_t save_addr, uint32_t save_size, uint32_t flags);
bool wait_cqe(struct rig *r, struct cqe *out, int timeout_ms);
void driver_reset_rings(struct rig *r);

/* Control socket: sends one line, copies the reply line (without '\n'). */
int ctl(struct rig *r, const char *cmd, char *reply, size_t reply_size);

/* The rule the vnpu logged for the failed job @tag (its last one), or
 * RIG_NO_RULE. */
#define RIG_NO_RULE	UINT32_MAX
uint32_t rig_job_rule(struct rig *r, uint64_t tag);

/*
 * The device's busy time (cost-stats busy_ns, since the last
 * stats-reset), UINT64_MAX when the vnpu does not answer; and a wait of
 * up to @timeout_ms until it has moved past @before: a job submitted
 * after reading @before is running then. A fixed sleep after the
 * doorbell is not that on a loaded host, where the device's thread may
 * not have run yet.
 */
uint64_t rig_busy_ns(struct rig *r);
bool rig_wait_busy_past(struct rig *r, uint64_t before, int timeout_ms);

uint64_t now_ms(void);
void sleep_ms(int ms);

#endif /* VNPU_RIG_H */
