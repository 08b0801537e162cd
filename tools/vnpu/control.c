// SPDX-License-Identifier: GPL-2.0
/*
 * The host-only control socket (--control): line-based fault injection for
 * tests, one reply line per command ("ok ..." or "error <reason>"). The
 * guest cannot reach it; it is a unix socket on the host only.
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "layer.h"
#include "shm_access.h"
#include "vnpu.h"

#define SPEED_MAX 1e6

static int reply(struct control_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Returns 0 so that command handlers can end with "return reply(...)". */
static int reply(struct control_client *c, const char *fmt, ...)
{
	char line[VNPU_CONTROL_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* Replies are short; a client that stops reading loses them. */
	send(c->fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	return 0;
}

static bool parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long value;

	if (!s)
		return false;
	errno = 0;
	value = strtol(s, &end, 0);
	if (errno || end == s || *end || value < min || value > max)
		return false;
	*out = value;
	return true;
}

/* The whole event loop stops: a host that did not schedule the vnpu. */
static void sleep_ns(uint64_t ns)
{
	struct timespec left = { (time_t)(ns / 1000000000u),
				 (long)(ns % 1000000000u) };

	while (nanosleep(&left, &left) && errno == EINTR)
		;
}

static int command(struct vnpu *v, struct control_client *c, char *line)
{
	char *save = NULL;
	char *verb = strtok_r(line, " \t\r", &save);
	char *arg = strtok_r(NULL, " \t\r", &save);
	char *extra = strtok_r(NULL, " \t\r", &save);
	long n;

	if (!verb)
		return reply(c, "error empty command");
	if (extra)
		return reply(c, "error too many arguments to '%s'", verb);
	if (!strcmp(verb, "status")) {
		reply(c, "ok state=%s heartbeat=%u jobs=%u temp_mc=%u opp=%u ambient_mc=%ld power_mw=%ld power=%s",
		      status_name(v->status), heartbeat_read(v),
		      v->perf_jobs_done,
		      thermal_mc(v), v->opp, lround(v->ambient_c * 1000.0),
		      lround(v->power_w * 1000.0),
		      v->power_state == ENPU_POWER_OFF ? "off" : "on");
	} else if (!strcmp(verb, "hang")) {
		/* A hung sequencer raises nothing: the driver must notice the
		 * heartbeat stopping. */
		v->hung = true;
		regs_set_error(v, ENPU_STATUS_HUNG, ENPU_ERR_INJECTED, 0);
		vnpu_log(v, "fault: hang");
		reply(c, "ok state=HUNG");
	} else if (!strcmp(verb, "freeze")) {
		/* A sequencer wedged without noticing: STATUS stays READY,
		 * only the still heartbeat tells. */
		v->hung = true;
		heartbeat_update(v);
		vnpu_log(v, "fault: freeze");
		reply(c, "ok state=%s frozen", status_name(v->status));
	} else if (!strcmp(verb, "stall-heartbeat")) {
		if (!parse_long(arg, 1, 60000, &n))
			return reply(c, "error stall-heartbeat needs milliseconds 1..60000");
		heartbeat_stall(v, (uint64_t)n * 1000000u);
		vnpu_log(v, "fault: heartbeat thread stalled for %ld ms", n);
		reply(c, "ok stall-heartbeat=%ld", n);
	} else if (!strcmp(verb, "mute-mailbox")) {
		if (!parse_long(arg, 1, 60000, &n))
			return reply(c, "error mute-mailbox needs milliseconds 1..60000");
		v->mbox_muted_until_ns = monotonic_ns() + (uint64_t)n * 1000000u;
		vnpu_log(v, "fault: mailbox muted for %ld ms", n);
		reply(c, "ok mute-mailbox=%ld", n);
	} else if (!strcmp(verb, "stall")) {
		/* The reply first: the host that asked is not the one stalled. */
		if (!parse_long(arg, 1, 60000, &n))
			return reply(c, "error stall needs milliseconds 1..60000");
		vnpu_log(v, "fault: device stalled for %ld ms", n);
		reply(c, "ok stall=%ld", n);
		sleep_ns((uint64_t)n * 1000000u);
	} else if (!strcmp(verb, "error-irq")) {
		/* With MS: the interrupt is still in flight when the driver
		 * may find ERROR by itself and recover. */
		if (arg && !parse_long(arg, 1, 60000, &n))
			return reply(c, "error error-irq takes milliseconds 1..60000 of delay");
		regs_set_error(v, ENPU_STATUS_ERROR, ENPU_ERR_INJECTED, 0);
		if (arg) {
			v->error_vector_at_ns = monotonic_ns() +
						(uint64_t)n * 1000000u;
			vnpu_log(v, "fault: error-irq, vector in %ld ms", n);
			return reply(c, "ok state=ERROR vector_in_ms=%ld", n);
		}
		device_raise_vector(v, ENPU_VEC_ERROR);
		vnpu_log(v, "fault: error-irq");
		reply(c, "ok state=ERROR");
	} else if (!strcmp(verb, "lose-irq")) {
		if (!parse_long(arg, 0, UINT32_MAX, &n))
			return reply(c, "error lose-irq needs a count 0..%u",
				     UINT32_MAX);
		v->lose_irqs = (uint32_t)n;
		reply(c, "ok lose-irq=%u", v->lose_irqs);
	} else if (!strcmp(verb, "fail-boot")) {
		if (!parse_long(arg, 0, UINT32_MAX, &n))
			return reply(c, "error fail-boot needs a count 0..%u",
				     UINT32_MAX);
		v->fail_boots = (uint32_t)n;
		reply(c, "ok fail-boot=%u", v->fail_boots);
	} else if (!strcmp(verb, "corrupt-completion")) {
		v->corrupt_next_cqe = true;
		reply(c, "ok");
	} else if (!strcmp(verb, "thermal-spike")) {
		if (!parse_long(arg, -200000, 200000, &n))
			return reply(c, "error thermal-spike needs milli-degrees in -200000..200000");
		thermal_add(v, (double)n / 1000.0);
		reply(c, "ok temp_mc=%u", thermal_mc(v));
	} else if (!strcmp(verb, "ambient")) {
		if (!parse_long(arg, VNPU_AMBIENT_MIN_MC, VNPU_AMBIENT_MAX_MC, &n))
			return reply(c, "error ambient needs milli-degrees in %d..%d",
				     VNPU_AMBIENT_MIN_MC, VNPU_AMBIENT_MAX_MC);
		thermal_set_ambient(v, (double)n / 1000.0);
		reply(c, "ok ambient_mc=%ld", n);
	} else if (!strcmp(verb, "speed")) {
		char *end;
		double f = arg ? strtod(arg, &end) : 0;

		if (!arg || end == arg || *end || !isfinite(f) || f <= 0 ||
		    f > SPEED_MAX)
			return reply(c, "error speed needs a factor in (0, %g]",
				     SPEED_MAX);
		device_set_speed(v, f);
		reply(c, "ok speed=%g", f);
	} else if (!strcmp(verb, "layers")) {
		enum layer_mode mode;

		/* A layer in progress keeps the engine it started with. */
		if (!arg || !layer_mode_from_name(arg, &mode) ||
		    !v->layer_engines)
			return reply(c, "error layers needs fast or oracle");
		v->layers = &v->layer_engines[mode];
		vnpu_log(v, "control: %s layers", layer_mode_name(mode));
		reply(c, "ok layers=%s", layer_mode_name(mode));
	} else if (!strcmp(verb, "preempt-stats") && !arg) {
		char buf[VNPU_CONTROL_LINE - 8];

		engine_stats_preempt(v, buf, sizeof(buf));
		reply(c, "ok %s", buf);
	} else if (!strcmp(verb, "cost-stats") && !arg) {
		char buf[VNPU_CONTROL_LINE - 8];

		engine_stats_cost(v, buf, sizeof(buf));
		reply(c, "ok %s", buf);
	} else if (!strcmp(verb, "queue-stats")) {
		char buf[VNPU_CONTROL_LINE - 8];

		if (!parse_long(arg, 0, (long)v->cfg.num_queues - 1, &n))
			return reply(c, "error queue-stats needs a queue in 0..%u",
				     v->cfg.num_queues - 1);
		engine_stats_queue(v, (uint32_t)n, buf, sizeof(buf));
		reply(c, "ok %s", buf);
	} else if (!strcmp(verb, "stats-reset") && !arg) {
		engine_stats_reset(v);
		reply(c, "ok");
	} else {
		reply(c, "error unknown command '%s'", verb);
	}
	return 0;
}

int control_listen(struct vnpu *v)
{
	char why[256];
	unsigned int i;

	for (i = 0; i < VNPU_CONTROL_CLIENTS; i++)
		v->control[i].fd = -1;
	v->control_fd = unix_listen(v->cfg.control_path, why, sizeof(why));
	if (v->control_fd < 0) {
		fprintf(stderr, "vnpu: --control %s\n", why);
		return -1;
	}
	return 0;
}

void control_accept(struct vnpu *v)
{
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned int i;
	int fd;

	fd = accept4(v->control_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	for (i = 0; i < VNPU_CONTROL_CLIENTS; i++)
		if (v->control[i].fd < 0)
			break;
	if (i == VNPU_CONTROL_CLIENTS) {
		static const char busy[] = "error too many control connections\n";

		if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL) < 0)
			vnpu_log(v, "control: rejecting a connection failed");
		close(fd);
		return;
	}
	ev.data.u64 = EV_CONTROL_CLIENT_BASE + i;
	if (epoll_ctl(v->epoll_fd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		return;
	}
	v->control[i].fd = fd;
	v->control[i].used = 0;
}

static void control_close(struct vnpu *v, struct control_client *c)
{
	epoll_ctl(v->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->used = 0;
}

void control_readable(struct vnpu *v, unsigned int slot)
{
	struct control_client *c = &v->control[slot];
	ssize_t n;
	char *nl;

	if (slot >= VNPU_CONTROL_CLIENTS || c->fd < 0)
		return;
	n = recv(c->fd, c->line + c->used, sizeof(c->line) - 1 - c->used, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		control_close(v, c);
		return;
	}
	c->used += (size_t)n;
	c->line[c->used] = '\0';
	while ((nl = memchr(c->line, '\n', c->used))) {
		size_t len = (size_t)(nl - c->line) + 1;

		*nl = '\0';
		command(v, c, c->line);
		memmove(c->line, c->line + len, c->used - len);
		c->used -= len;
		c->line[c->used] = '\0';
	}
	if (c->used == sizeof(c->line) - 1) {
		reply(c, "error line longer than %zu bytes", sizeof(c->line) - 2);
		control_close(v, c);
	}
}

void control_close_all(struct vnpu *v)
{
	unsigned int i;

	for (i = 0; i < VNPU_CONTROL_CLIENTS; i++)
		if (v->control[i].fd >= 0)
			control_close(v, &v->control[i]);
	if (v->control_fd >= 0) {
		close(v->control_fd);
		unlink(v->cfg.control_path);
		v->control_fd = -1;
	}
}
