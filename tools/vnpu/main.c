// SPDX-License-Identifier: GPL-2.0
/*
 * vnpu: the virtual ENPU. See README.md for the command line and
 * docs/hw/vnpu.md for the device it models.
 *
 * One thread, one epoll loop over: the ivshmem server socket, the QEMU
 * connection, the four doorbell eventfds, the control socket and its
 * clients, a 1 ms wall-clock tick (thermal, retries), a job timer that
 * fires when the running job's device time is up, and a signalfd for
 * SIGTERM/SIGINT. The heartbeat has a thread of its own (clock.c).
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "layer.h"
#include "shm_access.h"
#include "vnpu.h"

#define TICK_NS 1000000

static void usage(FILE *out)
{
	fprintf(out,
		"usage: vnpu --socket PATH --ram PATH [--control PATH] [--facts PATH]\n"
		"            [--speed F] [--log PATH] [--device-id N] [--queues N]\n"
		"            [--preempt-bound-us N] [--ambient-mc MC]\n"
		"            [--layers fast|oracle] [--layer-threads N]\n");
}

static int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long value;
	char *end;

	errno = 0;
	value = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || value < min ||
	    value > max)
		return -1;
	*out = (uint32_t)value;
	return 0;
}

static int parse_args(struct vnpu_config *cfg, int argc, char **argv)
{
	static const struct option options[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "ram", required_argument, NULL, 'r' },
		{ "control", required_argument, NULL, 'c' },
		{ "facts", required_argument, NULL, 'f' },
		{ "speed", required_argument, NULL, 'S' },
		{ "log", required_argument, NULL, 'l' },
		{ "device-id", required_argument, NULL, 'd' },
		{ "queues", required_argument, NULL, 'q' },
		{ "preempt-bound-us", required_argument, NULL, 'p' },
		{ "ambient-mc", required_argument, NULL, 'a' },
		{ "layers", required_argument, NULL, 'L' },
		{ "layer-threads", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum layer_mode mode;
	char *end;
	int opt;

	*cfg = (struct vnpu_config){
		.speed = 1.0,
		.layer_mode = "fast",
		.layer_threads = 1,
		.device_id = VNPU_DEFAULT_DEVICE_ID,
		.num_queues = ENPU_MAX_QUEUES,
		.preempt_bound_ns = VNPU_PREEMPT_BOUND_NS,
		.ambient_c = VNPU_AMBIENT_MC / 1000.0,
	};
	long mc;
	uint32_t us;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 's':
			cfg->socket_path = optarg;
			break;
		case 'r':
			cfg->ram_path = optarg;
			break;
		case 'c':
			cfg->control_path = optarg;
			break;
		case 'f':
			cfg->facts_path = optarg;
			break;
		case 'l':
			cfg->log_path = optarg;
			break;
		case 'S':
			cfg->speed = strtod(optarg, &end);
			if (end == optarg || *end || !isfinite(cfg->speed) ||
			    cfg->speed <= 0 || cfg->speed > 1e6) {
				fprintf(stderr, "vnpu: --speed '%s' must be a number in (0, 1e6]\n",
					optarg);
				return -1;
			}
			break;
		case 'd':
			if (parse_u32(optarg, 0, UINT32_MAX, &cfg->device_id)) {
				fprintf(stderr, "vnpu: --device-id '%s' is not a 32-bit number\n",
					optarg);
				return -1;
			}
			break;
		case 'q':
			if (parse_u32(optarg, 1, ENPU_MAX_QUEUES, &cfg->num_queues)) {
				fprintf(stderr, "vnpu: --queues '%s' must be 1..%d\n",
					optarg, ENPU_MAX_QUEUES);
				return -1;
			}
			break;
		case 'p':
			if (parse_u32(optarg, 1, 10000, &us)) {
				fprintf(stderr, "vnpu: --preempt-bound-us '%s' must be 1..10000\n",
					optarg);
				return -1;
			}
			cfg->preempt_bound_ns = us * 1000;
			break;
		case 'a':
			errno = 0;
			mc = strtol(optarg, &end, 0);
			if (errno || end == optarg || *end ||
			    mc < VNPU_AMBIENT_MIN_MC || mc > VNPU_AMBIENT_MAX_MC) {
				fprintf(stderr, "vnpu: --ambient-mc '%s' must be %d..%d\n",
					optarg, VNPU_AMBIENT_MIN_MC,
					VNPU_AMBIENT_MAX_MC);
				return -1;
			}
			cfg->ambient_c = mc / 1000.0;
			break;
		case 'L':
			if (!layer_mode_from_name(optarg, &mode)) {
				fprintf(stderr, "vnpu: --layers '%s' must be fast or oracle\n",
					optarg);
				return -1;
			}
			cfg->layer_mode = optarg;
			break;
		case 'T':
			if (parse_u32(optarg, 1, 64, &cfg->layer_threads)) {
				fprintf(stderr, "vnpu: --layer-threads '%s' must be 1..64\n",
					optarg);
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "vnpu: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!cfg->socket_path || !cfg->ram_path) {
		fprintf(stderr, "vnpu: --socket and --ram are required\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

static int watch(struct vnpu *v, int fd, uint64_t tag, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = tag };

	if (epoll_ctl(v->epoll_fd, EPOLL_CTL_ADD, fd, &ev)) {
		fprintf(stderr, "vnpu: epoll_ctl: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int setup_shared_memory(struct vnpu *v)
{
	void *shm;

	v->shm_fd = memfd_create("enpu-bar2", MFD_CLOEXEC);
	if (v->shm_fd < 0 || ftruncate(v->shm_fd, ENPU_BAR2_SIZE)) {
		fprintf(stderr, "vnpu: shared memory: %s\n", strerror(errno));
		return -1;
	}
	shm = mmap(NULL, ENPU_BAR2_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   v->shm_fd, 0);
	if (shm == MAP_FAILED) {
		fprintf(stderr, "vnpu: mmap shared memory: %s\n", strerror(errno));
		return -1;
	}
	v->shm = shm;
	return 0;
}

static int setup_events(struct vnpu *v)
{
	struct itimerspec tick = {
		.it_interval = { .tv_nsec = TICK_NS },
		.it_value = { .tv_nsec = TICK_NS },
	};
	sigset_t signals;
	unsigned int i;

	v->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	v->tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	v->job_timer_fd = timerfd_create(CLOCK_MONOTONIC,
					 TFD_CLOEXEC | TFD_NONBLOCK);
	sigemptyset(&signals);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGINT);
	sigprocmask(SIG_BLOCK, &signals, NULL);
	v->signal_fd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
	if (v->epoll_fd < 0 || v->tick_fd < 0 || v->job_timer_fd < 0 ||
	    v->signal_fd < 0) {
		fprintf(stderr, "vnpu: event setup: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < ENPU_NUM_VECTORS; i++) {
		v->doorbell_fd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		v->msi_fd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (v->doorbell_fd[i] < 0 || v->msi_fd[i] < 0) {
			fprintf(stderr, "vnpu: eventfd: %s\n", strerror(errno));
			return -1;
		}
		if (watch(v, v->doorbell_fd[i], EV_DOORBELL_BASE + i, EPOLLIN))
			return -1;
	}
	if (timerfd_settime(v->tick_fd, 0, &tick, NULL)) {
		fprintf(stderr, "vnpu: timerfd: %s\n", strerror(errno));
		return -1;
	}
	if (watch(v, v->listen_fd, EV_LISTEN, EPOLLIN) ||
	    watch(v, v->tick_fd, EV_TICK, EPOLLIN) ||
	    watch(v, v->job_timer_fd, EV_JOB_TIMER, EPOLLIN) ||
	    watch(v, v->signal_fd, EV_SIGNAL, EPOLLIN))
		return -1;
	if (v->cfg.control_path) {
		if (control_listen(v) ||
		    watch(v, v->control_fd, EV_CONTROL_LISTEN, EPOLLIN))
			return -1;
	}
	return 0;
}

static void drain(int fd)
{
	uint64_t value;

	while (read(fd, &value, sizeof(value)) == sizeof(value))
		;
}

static void client_accept(struct vnpu *v)
{
	int fd = accept4(v->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (v->client_seen) {
		/* One QEMU per device; a second one would share BAR2. */
		vnpu_log(v, "rejecting a second ivshmem client");
		close(fd);
		return;
	}
	v->client_seen = true;
	if (ivshmem_greet(v, fd) || watch(v, fd, EV_CLIENT, EPOLLIN | EPOLLRDHUP)) {
		close(fd);
		v->quit = true;
		return;
	}
	v->client_fd = fd;
	vnpu_log(v, "ivshmem client connected as peer 1");
}

static void client_readable(struct vnpu *v)
{
	char buf[64];
	ssize_t n = recv(v->client_fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
		return;		/* QEMU sends nothing after the handshake */
	vnpu_log(v, "ivshmem client disconnected");
	v->quit = true;
}

static void handle(struct vnpu *v, uint64_t tag)
{
	if (tag >= EV_CONTROL_CLIENT_BASE) {
		control_readable(v, (unsigned int)(tag - EV_CONTROL_CLIENT_BASE));
		return;
	}
	if (tag >= EV_DOORBELL_BASE) {
		unsigned int n = (unsigned int)(tag - EV_DOORBELL_BASE);

		drain(v->doorbell_fd[n]);
		if (n == ENPU_DB_CONTROL)
			mailbox_doorbell(v);
		/* ENPU_DB_QUEUE needs nothing here: device_settle() rescans
		 * every queue after each batch of events. */
		return;
	}
	switch (tag) {
	case EV_LISTEN:
		client_accept(v);
		break;
	case EV_CLIENT:
		client_readable(v);
		break;
	case EV_TICK:
	case EV_JOB_TIMER:
		drain(tag == EV_TICK ? v->tick_fd : v->job_timer_fd);
		break;
	case EV_SIGNAL: {
		struct signalfd_siginfo info;

		if (read(v->signal_fd, &info, sizeof(info)) == sizeof(info))
			vnpu_log(v, "signal %u, exiting", info.ssi_signo);
		v->quit = true;
		break;
	}
	case EV_CONTROL_LISTEN:
		control_accept(v);
		break;
	}
}

static void run(struct vnpu *v)
{
	struct epoll_event events[16];

	while (!v->quit) {
		int n = epoll_wait(v->epoll_fd, events, 16, -1), i;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			vnpu_log(v, "epoll_wait: %s", strerror(errno));
			break;
		}
		device_advance(v);
		for (i = 0; i < n && !v->quit; i++)
			handle(v, events[i].data.u64);
		device_settle(v);
	}
}

static void cleanup(struct vnpu *v)
{
	unsigned int i;

	/* Before the shared memory it writes goes away. */
	heartbeat_stop(v);
	control_close_all(v);
	if (v->listen_fd >= 0) {
		close(v->listen_fd);
		unlink(v->cfg.socket_path);
	}
	if (v->client_fd >= 0)
		close(v->client_fd);
	for (i = 0; i < ENPU_NUM_VECTORS; i++) {
		if (v->doorbell_fd[i] >= 0)
			close(v->doorbell_fd[i]);
		if (v->msi_fd[i] >= 0)
			close(v->msi_fd[i]);
	}
	if (v->shm)
		munmap(v->shm, ENPU_BAR2_SIZE);
	if (v->shm_fd >= 0)
		close(v->shm_fd);
	guest_ram_unmap(&v->ram);
	queues_release(v);
	if (v->epoll_fd >= 0)
		close(v->epoll_fd);
	if (v->tick_fd >= 0)
		close(v->tick_fd);
	if (v->job_timer_fd >= 0)
		close(v->job_timer_fd);
	if (v->signal_fd >= 0)
		close(v->signal_fd);
	if (v->log && v->log != stderr)
		fclose(v->log);
}

int main(int argc, char **argv)
{
	struct vnpu *v = calloc(1, sizeof(*v));
	struct layer_engine layers[2] = { { 0 }, { 0 } };
	enum layer_mode mode;
	char why[512];
	unsigned int i;
	int status = 1;

	if (!v) {
		fprintf(stderr, "vnpu: out of memory\n");
		return 1;
	}
	v->listen_fd = v->client_fd = v->shm_fd = v->control_fd = -1;
	v->epoll_fd = v->tick_fd = v->job_timer_fd = v->signal_fd = -1;
	for (i = 0; i < ENPU_NUM_VECTORS; i++)
		v->doorbell_fd[i] = v->msi_fd[i] = -1;
	for (i = 0; i < VNPU_CONTROL_CLIENTS; i++)
		v->control[i].fd = -1;
	v->log = stderr;
	v->start_ns = v->last_wall_ns = monotonic_ns();
	signal(SIGPIPE, SIG_IGN);

	/*
	 * Every layer allocates host scratch of up to a few MiB; glibc would
	 * mmap each such block afresh and fault in every page, each time.
	 * Keep freed memory in the heap instead.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	if (parse_args(&v->cfg, argc, argv))
		goto out;
	v->speed = v->cfg.speed;
	layer_mode_from_name(v->cfg.layer_mode, &mode);
	/* Both engines, so the control socket's `layers` can switch. */
	if (layer_engine_init(&layers[LAYER_MODE_FAST], LAYER_MODE_FAST,
			      v->cfg.layer_threads) ||
	    layer_engine_init(&layers[LAYER_MODE_ORACLE], LAYER_MODE_ORACLE,
			      v->cfg.layer_threads)) {
		fprintf(stderr, "vnpu: cannot set up the layer engine\n");
		goto out;
	}
	v->layer_engines = layers;
	v->layers = &layers[mode];
	/* The socket comes first: the rig starts QEMU as soon as it exists,
	 * and a pending connect simply waits in the backlog. */
	v->listen_fd = unix_listen(v->cfg.socket_path, why, sizeof(why));
	if (v->listen_fd < 0) {
		fprintf(stderr, "vnpu: --socket %s\n", why);
		goto out;
	}
	if (v->cfg.log_path) {
		v->log = fopen(v->cfg.log_path, "we");
		if (!v->log) {
			v->log = stderr;
			fprintf(stderr, "vnpu: --log %s: %s\n", v->cfg.log_path,
				strerror(errno));
			goto out;
		}
	}
	if (guest_ram_map(&v->ram, v->cfg.ram_path, why, sizeof(why))) {
		fprintf(stderr, "vnpu: %s\n", why);
		goto out;
	}
	if (setup_shared_memory(v) || setup_events(v))
		goto out;
	if (heartbeat_init(v)) {
		fprintf(stderr, "vnpu: heartbeat lock setup failed\n");
		goto out;
	}
	regs_power_on(v);
	if (heartbeat_start(v)) {
		fprintf(stderr, "vnpu: heartbeat thread: %s\n", strerror(errno));
		goto out;
	}
	if (v->cfg.facts_path && facts_write(v)) {
		fprintf(stderr, "vnpu: cannot write --facts %s\n",
			v->cfg.facts_path);
		goto out;
	}
	vnpu_log(v, "listening on %s, guest RAM %llu bytes, speed %g, %u queues, %s layers",
		 v->cfg.socket_path, (unsigned long long)v->ram.size, v->speed,
		 v->cfg.num_queues, v->cfg.layer_mode);
	v->last_wall_ns = monotonic_ns();
	run(v);
	status = 0;
	vnpu_log(v, "exiting");
out:
	cleanup(v);
	layer_engine_destroy(&layers[LAYER_MODE_FAST]);
	layer_engine_destroy(&layers[LAYER_MODE_ORACLE]);
	free(v);
	return status;
}
