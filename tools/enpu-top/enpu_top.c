// SPDX-License-Identifier: MIT
/*
 * enpu-top: a terminal monitor of ENPU devices (README.md). Samples
 * sysfs, debugfs and every process's fdinfo under --root, prints the
 * report of enpu_top_report.c: once (--once, for scripts) or refreshed
 * in place with ANSI escapes until 'q' or SIGINT.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "enpu_top_report.h"
#include "enpu_top_sample.h"

#define TOP_DEFAULT_INTERVAL_MS 1000
#define TOP_MAX_INTERVAL_MS (3600 * 1000)

static volatile sig_atomic_t stop_requested;

static void on_signal(int signal)
{
	(void)signal;
	stop_requested = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: enpu-top [--once] [--interval MS] [--iterations N] [--root DIR]\n"
		"  --once          print one report and exit (two samples MS apart;\n"
		"                  with --interval 0, one sample and no rates)\n"
		"  --interval MS   sampling interval, default %d\n"
		"  --iterations N  refresh N times, then exit (default: until 'q')\n"
		"  --root DIR      read /proc and /sys under DIR (tests)\n",
		TOP_DEFAULT_INTERVAL_MS);
}

static int parse_number(const char *text, long max, long *value)
{
	char *end;

	errno = 0;
	*value = strtol(text, &end, 10);
	return errno || end == text || *end || *value < 0 || *value > max ?
	       -EINVAL : 0;
}

static void sleep_ms(long ms)
{
	struct timespec delay = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&delay, &delay) && errno == EINTR && !stop_requested)
		;
}

static int run_once(const char *root, long interval_ms)
{
	struct top_sample first, second;
	int status;

	status = top_sample_read(root, now_ns(), &first);
	if (interval_ms == 0) {
		top_report(stdout, NULL, &first);
		top_sample_release(&first);
		return status ? 1 : 0;
	}
	sleep_ms(interval_ms);
	status |= top_sample_read(root, now_ns(), &second);
	top_report(stdout, &first, &second);
	top_sample_release(&first);
	top_sample_release(&second);
	return status ? 1 : 0;
}

/*
 * Waits up to ms; on a terminal, returns 1 early if 'q' was typed or the
 * terminal went away. Without one (a pipe, /dev/null) it only waits:
 * --iterations or a signal ends it.
 */
static int wait_for_quit(long ms, int have_tty)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char key;

	if (!have_tty) {
		sleep_ms(ms);
		return 0;
	}
	if (poll(&pfd, 1, (int)ms) <= 0)
		return 0;
	if (read(STDIN_FILENO, &key, 1) != 1)
		return 1;
	return key == 'q' || key == 'Q';
}

static int run_interactive(const char *root, long interval_ms,
			   long iterations)
{
	struct top_sample samples[2];
	struct termios saved, raw;
	int have_tty = isatty(STDIN_FILENO);
	int status = 0, have_previous = 0;

	if (have_tty && !tcgetattr(STDIN_FILENO, &saved)) {
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	} else {
		have_tty = 0;
	}
	for (long i = 0; !stop_requested && (!iterations || i < iterations);
	     i++) {
		struct top_sample *current = &samples[i % 2];
		struct top_sample *previous = &samples[(i + 1) % 2];

		status |= top_sample_read(root, now_ns(), current);
		/* Home, clear to the end: one frame replaces the last. */
		printf("\033[H\033[2J");
		top_report(stdout, have_previous ? previous : NULL, current);
		printf("\n(q quits)\n");
		fflush(stdout);
		if (have_previous)
			top_sample_release(previous);
		have_previous = 1;
		if ((!iterations || i + 1 < iterations) &&
		    wait_for_quit(interval_ms ? interval_ms :
				  TOP_DEFAULT_INTERVAL_MS, have_tty))
			break;
	}
	if (have_previous) {
		top_sample_release(&samples[0]);
		top_sample_release(&samples[1]);
	}
	if (have_tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	return status ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'i' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long interval_ms = TOP_DEFAULT_INTERVAL_MS, iterations = 0;
	const char *root = "/";
	struct sigaction action = { .sa_handler = on_signal };
	int once = 0, option;

	while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (option) {
		case 'o':
			once = 1;
			break;
		case 'i':
			if (parse_number(optarg, TOP_MAX_INTERVAL_MS,
					 &interval_ms)) {
				fprintf(stderr, "enpu-top: --interval '%s': not a number of ms in [0, %d]\n",
					optarg, TOP_MAX_INTERVAL_MS);
				return 2;
			}
			break;
		case 'n':
			if (parse_number(optarg, 1000000000L, &iterations)) {
				fprintf(stderr, "enpu-top: --iterations '%s': not a count\n",
					optarg);
				return 2;
			}
			break;
		case 'r':
			root = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "enpu-top: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	if (access(root, R_OK | X_OK)) {
		fprintf(stderr, "enpu-top: --root %s: %s\n", root,
			strerror(errno));
		return 2;
	}
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	if (once)
		return run_once(root, interval_ms);
	return run_interactive(root, interval_ms, iterations);
}
