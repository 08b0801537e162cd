// SPDX-License-Identifier: GPL-2.0
/* The QEMU + guest-driver stand-in used by vnpu_test.c (see vnpu_rig.h). */
#include "vnpu_rig.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int rig_start(struct rig *r, const char *vnpu, const char *speed)
{
	return rig_start_with(r, vnpu, speed, NULL);
}

int rig_start_with(struct rig *r, const char *vnpu, const char *speed,
		   const char *const *extra)
{
	const char *argv[24];
	unsigned int argc = 0;
	uint64_t deadline;
	int fd;

	memset(r, 0, sizeof(*r));
	r->sock = -1;
	for (int i = 0; i < ENPU_NUM_VECTORS; i++)
		r->doorbell[i] = r->msi[i] = -1;
	snprintf(r->dir, sizeof(r->dir), "/tmp/vnpu-test.XXXXXX");
	if (!mkdtemp(r->dir)) {
		perror("mkdtemp");
		return -1;
	}
	snprintf(r->socket_path, sizeof(r->socket_path), "%s/ivshmem.sock", r->dir);
	snprintf(r->control_path, sizeof(r->control_path), "%s/control.sock", r->dir);
	snprintf(r->facts_path, sizeof(r->facts_path), "%s/facts", r->dir);
	snprintf(r->log_path, sizeof(r->log_path), "%s/vnpu.log", r->dir);
	snprintf(r->ram_path, sizeof(r->ram_path), "%s/ram", r->dir);

	fd = open(r->ram_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, RIG_RAM_SIZE)) {
		perror("guest RAM file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	r->ram = mmap(NULL, RIG_RAM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, 0);
	close(fd);
	if (r->ram == MAP_FAILED) {
		r->ram = NULL;
		perror("mmap guest RAM");
		return -1;
	}

	r->pid = fork();
	if (r->pid < 0) {
		perror("fork");
		return -1;
	}
	if (r->pid == 0) {
		const char *fixed[] = {
			vnpu, "--socket", r->socket_path, "--ram", r->ram_path,
			"--control", r->control_path, "--facts", r->facts_path,
			"--log", r->log_path, "--speed", speed,
		};

		for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			argv[argc++] = fixed[i];
		while (extra && *extra && argc < 23)
			argv[argc++] = *extra++;
		argv[argc] = NULL;
		execv(vnpu, (char *const *)argv);
		perror("exec vnpu");
		_exit(127);
	}
	deadline = now_ms() + 5000;
	while (access(r->socket_path, F_OK) || access(r->control_path, F_OK)) {
		int status;

		if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
			fprintf(stderr, "vnpu exited before creating its socket\n");
			r->pid = 0;
			return -1;
		}
		if (now_ms() > deadline) {
			fprintf(stderr, "vnpu did not create its sockets in 5 s\n");
			return -1;
		}
		sleep_ms(5);
	}
	return 0;
}

/* One protocol message: an int64 and at most one fd, as QEMU reads it. */
static int recv_msg(int sock, int64_t *value, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = value, .iov_len = sizeof(*value) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg;
	ssize_t n;

	*fd = -1;
	n = recvmsg(sock, &msg, MSG_WAITALL | MSG_CMSG_CLOEXEC);
	if (n != (ssize_t)sizeof(*value))
		return -1;
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
	return 0;
}

int rig_connect(struct rig *r)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	struct stat st;
	int shm_fd = -1, i, fd;
	int64_t value;
	void *shm;

	r->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", r->socket_path);
	if (r->sock < 0 ||
	    connect(r->sock, (struct sockaddr *)&addr, sizeof(addr))) {
		perror("connect to vnpu");
		return -1;
	}
	setsockopt(r->sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	/* version, own id, shared memory; then the vnpu's (peer 0) doorbell
	 * eventfds; then our own MSI eventfds. Record everything so the
	 * test can check the exact sequence. */
	r->handshake_fd_ok = true;
	for (i = 0; i < 3 + 2 * ENPU_NUM_VECTORS; i++) {
		if (recv_msg(r->sock, &value, &fd)) {
			fprintf(stderr, "handshake message %d missing\n", i);
			return -1;
		}
		r->handshake[i] = value;
		if (i < 2) {
			if (fd >= 0) {
				r->handshake_fd_ok = false;
				close(fd);
			}
		} else if (fd < 0) {
			r->handshake_fd_ok = false;
		} else if (i == 2) {
			shm_fd = fd;
		} else if (i < 3 + ENPU_NUM_VECTORS) {
			r->doorbell[i - 3] = fd;
		} else {
			r->msi[i - 3 - ENPU_NUM_VECTORS] = fd;
			fcntl(fd, F_SETFL, O_NONBLOCK);
		}
	}
	if (shm_fd < 0 || fstat(shm_fd, &st)) {
		fprintf(stderr, "no shared memory fd\n");
		return -1;
	}
	r->shm_size = (uint64_t)st.st_size;
	shm = mmap(NULL, r->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   shm_fd, 0);
	close(shm_fd);
	if (shm == MAP_FAILED) {
		perror("mmap BAR2");
		return -1;
	}
	r->shm = shm;
	return 0;
}

void rig_disconnect(struct rig *r)
{
	if (r->sock >= 0)
		close(r->sock);
	r->sock = -1;
}

int rig_wait_exit(struct rig *r, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
	int status;

	if (r->pid <= 0)
		return -1;
	while (now_ms() < deadline) {
		if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
			r->pid = 0;
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		}
		sleep_ms(5);
	}
	return -1;
}

void rig_destroy(struct rig *r)
{
	char path[192];

	rig_disconnect(r);
	if (r->pid > 0) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, NULL, 0);
		r->pid = 0;
	}
	for (int i = 0; i < ENPU_NUM_VECTORS; i++) {
		if (r->doorbell[i] >= 0)
			close(r->doorbell[i]);
		if (r->msi[i] >= 0)
			close(r->msi[i]);
	}
	if (r->shm)
		munmap(r->shm, r->shm_size);
	if (r->ram)
		munmap(r->ram, RIG_RAM_SIZE);
	r->shm = r->ram = NULL;
	unlink(r->socket_path);
	unlink(r->control_path);
	unlink(r->facts_path);
	unlink(r->ram_path);
	if (getenv("VNPU_TEST_KEEP_LOG")) {
		fprintf(stderr, "vnpu log kept in %s\n", r->log_path);
		return;
	}
	unlink(r->log_path);
	snprintf(path, sizeof(path), "%s", r->dir);
	rmdir(path);
}

uint32_t rd(struct rig *r, uint32_t offset)
{
	return atomic_load_explicit((_Atomic uint32_t *)(void *)(r->shm + offset),
				    memory_order_acquire);
}

void wr(struct rig *r, uint32_t offset, uint32_t value)
{
	atomic_store_explicit((_Atomic uint32_t *)(void *)(r->shm + offset),
			      value, memory_order_release);
}

/* What QEMU does when the guest writes (0 << 16 | n) to the doorbell. */
void ring(struct rig *r, unsigned int doorbell)
{
	uint64_t one = 1;

	if (write(r->doorbell[doorbell], &one, sizeof(one)) != sizeof(one))
		perror("doorbell");
}

bool wait_vector(struct rig *r, unsigned int vector, int timeout_ms)
{
	struct pollfd p = { .fd = r->msi[vector], .events = POLLIN };
	uint64_t count;

	if (poll(&p, 1, timeout_ms) != 1)
		return false;
	return read(r->msi[vector], &count, sizeof(count)) == sizeof(count);
}

void drain_vectors(struct rig *r)
{
	uint64_t count;

	for (int i = 0; i < ENPU_NUM_VECTORS; i++)
		while (read(r->msi[i], &count, sizeof(count)) == sizeof(count))
			;
}

int mbox(struct rig *r, uint32_t cmd, uint32_t a0, uint32_t a1, uint32_t a2,
	 uint32_t *data, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
	uint32_t seq = ++r->cmd_seq;

	wr(r, ENPU_REG_CMD, cmd);
	wr(r, ENPU_REG_CMD_ARG0, a0);
	wr(r, ENPU_REG_CMD_ARG1, a1);
	wr(r, ENPU_REG_CMD_ARG2, a2);
	wr(r, ENPU_REG_CMD_ARG3, 0);
	wr(r, ENPU_REG_CMD_SEQ, seq);
	ring(r, ENPU_DB_CONTROL);
	while (rd(r, ENPU_REG_CMD_DONE_SEQ) != seq) {
		if (now_ms() > deadline)
			return -1;
		usleep(200);
	}
	if (data)
		*data = rd(r, ENPU_REG_CMD_RESULT_DATA);
	return (int)rd(r, ENPU_REG_CMD_RESULT);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void submit_desc(struct rig *r, unsigned int q, uint64_t addr,
			uint32_t size, uint32_t flags, uint64_t tag,
			uint64_t bo_table_addr, uint32_t bo_count)
{
	submit_saved(r, q, addr, size, tag, bo_table_addr, bo_count, 0, 0,
		     flags);
}

void submit_saved(struct rig *r, unsigned int q, uint64_t addr, uint32_t size,
		  uint64_t tag, uint64_t bo_table_addr, uint32_t bo_count,
		  uint64_t save_addr, uint32_t save_size, uint32_t flags)
{
	uint8_t *desc = r->shm + ENPU_SQ_OFFSET(q) +
			(r->sq_tail[q] % ENPU_SQ_ENTRIES) * ENPU_JOB_DESC_SIZE;

	memset(desc, 0, ENPU_JOB_DESC_SIZE);
	put64(desc + ENPU_JOB_CMD_ADDR, addr);
	put32(desc + ENPU_JOB_CMD_SIZE, size);
	put32(desc + ENPU_JOB_FLAGS, flags);
	put64(desc + ENPU_JOB_TAG, tag);
	put64(desc + ENPU_JOB_BO_TABLE_ADDR, bo_table_addr);
	put32(desc + ENPU_JOB_BO_COUNT, bo_count);
	put64(desc + ENPU_JOB_CTX_SAVE_ADDR, save_addr);
	put32(desc + ENPU_JOB_CTX_SAVE_SIZE, save_size);
	r->sq_tail[q]++;
	wr(r, ENPU_REG_SQ_TAIL(q), r->sq_tail[q]);
	ring(r, ENPU_DB_QUEUE);
}

void submit(struct rig *r, unsigned int q, uint64_t addr, uint32_t size,
	    uint32_t flags, uint64_t tag)
{
	submit_desc(r, q, addr, size, flags, tag, 0, 0);
}

void submit_with_bos(struct rig *r, unsigned int q, uint64_t addr,
		     uint32_t size, uint64_t tag, uint64_t bo_table_addr,
		     uint32_t bo_count)
{
	submit_desc(r, q, addr, size, 0, tag, bo_table_addr, bo_count);
}

bool wait_cqe(struct rig *r, struct cqe *out, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
	const uint8_t *e;

	while (rd(r, ENPU_REG_CQ_TAIL) == r->cq_head) {
		if (now_ms() > deadline)
			return false;
		usleep(200);
	}
	e = r->shm + ENPU_CQ_OFFSET + (r->cq_head % ENPU_CQ_ENTRIES) * ENPU_CQE_SIZE;
	memcpy(&out->tag, e + ENPU_CQE_TAG, 8);
	memcpy(&out->queue, e + ENPU_CQE_QUEUE, 4);
	memcpy(&out->status, e + ENPU_CQE_STATUS, 4);
	memcpy(&out->cycles, e + ENPU_CQE_CYCLES, 8);
	memcpy(&out->info, e + ENPU_CQE_INFO, 4);
	r->cq_head++;
	wr(r, ENPU_REG_CQ_HEAD, r->cq_head);
	return true;
}

/* After RESET the device restarts every ring at index 0; the driver
 * does the same for the indices it owns. */
void driver_reset_rings(struct rig *r)
{
	for (unsigned int q = 0; q < ENPU_MAX_QUEUES; q++) {
		r->sq_tail[q] = 0;
		wr(r, ENPU_REG_SQ_TAIL(q), 0);
	}
	r->cq_head = 0;
	wr(r, ENPU_REG_CQ_HEAD, 0);
}

int ctl(struct rig *r, const char *cmd, char *reply, size_t reply_size)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	size_t used = 0;
	int fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", r->control_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(fd, cmd, strlen(cmd), MSG_NOSIGNAL) != (ssize_t)strlen(cmd) ||
	    send(fd, "\n", 1, MSG_NOSIGNAL) != 1) {
		close(fd);
		return -1;
	}
	while (used + 1 < reply_size) {
		ssize_t n = recv(fd, reply + used, 1, 0);

		if (n != 1)
			break;
		if (reply[used] == '\n')
			break;
		used++;
	}
	reply[used] = '\0';
	close(fd);
	return used ? 0 : -1;
}

/*
 * The vnpu logs every failed job as "job tag=0x<tag> ... rule=<id> <name>"
 * before it publishes the completion, so by the time the test has the
 * completion entry the line is in the log file.
 */
uint32_t rig_job_rule(struct rig *r, uint64_t tag)
{
	char want[40], line[512];
	uint32_t rule = RIG_NO_RULE;
	FILE *log = fopen(r->log_path, "re");

	if (!log)
		return RIG_NO_RULE;
	snprintf(want, sizeof(want), "job tag=0x%llx ", (unsigned long long)tag);
	while (fgets(line, sizeof(line), log)) {
		const char *at = strstr(line, want), *text;
		unsigned int value;

		if (!at || !(text = strstr(at, " rule=")))
			continue;
		if (sscanf(text, " rule=%u", &value) == 1)
			rule = value;
	}
	fclose(log);
	return rule;
}

uint64_t rig_busy_ns(struct rig *r)
{
	char reply[256];
	unsigned long long busy;

	if (ctl(r, "cost-stats", reply, sizeof(reply)) ||
	    sscanf(reply, "ok busy_ns=%llu", &busy) != 1)
		return UINT64_MAX;
	return busy;
}

bool rig_wait_busy_past(struct rig *r, uint64_t before, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms, busy;

	for (;;) {
		busy = rig_busy_ns(r);
		if (busy != UINT64_MAX && busy > before)
			return true;
		if (busy == UINT64_MAX || now_ms() >= end)
			return false;
		sleep_ms(1);
	}
}
