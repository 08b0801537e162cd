// SPDX-License-Identifier: MIT
/*
 * The guest side of the fault relay (vnpu_relay.h). The host half
 * (tools/vm/fault-relay) reads request.1, request.2, ... in order and
 * answers each with reply.<n>; a request is written to request.<n>.tmp
 * and renamed, so the relay never reads half a line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vnpu_relay.h"

/* Whether request number @n is taken (renamed or still being written). */
static bool request_taken(const char *dir, unsigned int n)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/request.%u", dir, n);
	if (access(path, F_OK) == 0)
		return true;
	snprintf(path, sizeof(path), "%s/request.%u.tmp", dir, n);
	return access(path, F_OK) == 0;
}

/*
 * The next free request number, claimed by creating its .tmp exclusively.
 * Numbers are taken in order and never freed (the relay reads them in
 * order), so the taken ones are always 1..K: a doubling then binary search
 * finds K + 1 in O(log K) lookups. A scan from 1 took K lookups per call
 * over 9p: a test polling the vnpu every 20 ms made K reach thousands (on
 * the debug kernel one round trip took seconds, then minutes), and
 * e2e-npu-bench's two cost-stats per frame made the guest's RCU and
 * softirqs busy freeing the lookups' dentries while the next frames ran,
 * which it counted as driver work. Another claimer may take the number
 * first: try the next.
 */
static int claim_request(const char *dir, size_t size, char *tmp,
			 unsigned int *number)
{
	unsigned int free = 1, taken = 0;

	while (request_taken(dir, free)) {
		if (free >= 1u << 24)
			return -ENOSPC;
		taken = free;
		free *= 2;
	}
	while (free - taken > 1) {
		unsigned int mid = taken + (free - taken) / 2;

		if (request_taken(dir, mid))
			taken = mid;
		else
			free = mid;
	}
	for (unsigned int n = free; n < free + 100000; n++) {
		char done[512];
		int fd;

		snprintf(done, sizeof(done), "%s/request.%u", dir, n);
		if (access(done, F_OK) == 0)
			continue;
		snprintf(tmp, size, "%s/request.%u.tmp", dir, n);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			if (errno == EEXIST)
				continue;
			return -errno;
		}
		close(fd);
		/*
		 * Between our access() and open() another claimer may have
		 * created, written and renamed this very .tmp: then
		 * request.n exists and the number is theirs. (The scan from 1
		 * had the same window: 8 processes claiming 300 numbers each
		 * in a host directory lost about 30 of the 2400 to it.)
		 */
		if (access(done, F_OK) == 0) {
			unlink(tmp);
			continue;
		}
		*number = n;
		return 0;
	}
	return -ENOSPC;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int vnpu_relay(const char *command, char *reply, size_t reply_size,
	       int poll_ms)
{
	const char *dir = getenv("ENPU_VNPU_RELAY");
	char tmp[512], request[512], answer[512];
	unsigned int number = 0;
	FILE *file;
	int status;

	if (!dir || !*dir)
		return -ENOSYS;
	if (poll_ms < 1)
		poll_ms = 1;
	status = claim_request(dir, sizeof(tmp), tmp, &number);
	if (status)
		return status;
	file = fopen(tmp, "w");
	if (!file)
		return -errno;
	fprintf(file, "%s\n", command);
	if (fclose(file))
		return -EIO;
	snprintf(request, sizeof(request), "%s/request.%u", dir, number);
	if (rename(tmp, request))
		return -errno;
	snprintf(answer, sizeof(answer), "%s/reply.%u", dir, number);
	for (int waited = 0; waited < 10000; waited += poll_ms) {
		file = fopen(answer, "r");
		if (file) {
			char line[512] = "";

			if (!fgets(line, sizeof(line), file))
				line[0] = '\0';
			fclose(file);
			line[strcspn(line, "\n")] = '\0';
			if (reply && reply_size)
				snprintf(reply, reply_size, "%s", line);
			return strncmp(line, "ok", 2) ? -EIO : 0;
		}
		sleep_ms(poll_ms);
	}
	return -ETIMEDOUT;
}
