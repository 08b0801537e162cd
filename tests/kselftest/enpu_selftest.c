// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enpu_selftest.h"

#define DEBUGFS_DRI "/sys/kernel/debug/dri"
#define DEBUGFS_ACCEL "/sys/kernel/debug/accel"

int enpu_selftest_count_devices(void)
{
	enpu_device_list *list;
	size_t count;
	int status;

	status = enpu_device_list_create(&list, NULL);
	if (status)
		return status;
	enpu_device_list_count(list, &count);
	enpu_device_list_destroy(list);
	return (int)count;
}

int enpu_selftest_wait_devices(int wanted, int timeout_ms)
{
	const struct timespec step = { 0, 50 * 1000000L };

	for (int waited = 0; waited <= timeout_ms; waited += 50) {
		if (enpu_selftest_count_devices() == wanted)
			return waited;
		nanosleep(&step, NULL);
	}
	return -1;
}

int enpu_selftest_unload(int timeout_ms)
{
	const struct timespec step = { 0, 50 * 1000000L };

	for (int waited = 0; waited <= timeout_ms; waited += 50) {
		if (enpu_run("rmmod enpu 2>/dev/null") == 0)
			return 0;
		nanosleep(&step, NULL);
	}
	return -EBUSY;
}

int enpu_selftest_open(enpu_device **device, size_t why_size, char *why)
{
	struct enpu_error error = { "" };
	int count = enpu_selftest_count_devices();

	if (count != 1) {
		snprintf(why, why_size,
			 "expected exactly one ENPU device, found %d", count);
		return -ENODEV;
	}
	if (enpu_device_open_index(0, device, &error)) {
		snprintf(why, why_size, "%s", error.message);
		return -ENODEV;
	}
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec delay = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&delay, NULL);
}

static int parse_facts(FILE *file, struct enpu_facts *facts, size_t why_size,
		       char *why)
{
	char line[256];

	facts->count = 0;
	while (fgets(line, sizeof(line), file)) {
		char *equals = strchr(line, '='), *end;
		unsigned long long value;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (!equals || equals == line ||
		    (size_t)(equals - line) >= ENPU_FACTS_KEY_SIZE) {
			snprintf(why, why_size, "facts: malformed line '%s'",
				 line);
			return -EINVAL;
		}
		*equals = '\0';
		errno = 0;
		value = strtoull(equals + 1, &end, 0);
		if (errno || end == equals + 1 || *end) {
			snprintf(why, why_size,
				 "facts: value of %s is not a number: '%s'",
				 line, equals + 1);
			return -EINVAL;
		}
		if (facts->count == ENPU_FACTS_MAX) {
			snprintf(why, why_size, "facts: more than %d keys",
				 ENPU_FACTS_MAX);
			return -E2BIG;
		}
		/* The key's length was checked against the slot above. */
		memcpy(facts->keys[facts->count], line,
		       (size_t)(equals - line) + 1);
		facts->values[facts->count++] = value;
	}
	return 0;
}

int enpu_facts_load(const char *require_key, int timeout_ms,
		    struct enpu_facts *facts, size_t why_size, char *why)
{
	const char *path = getenv("ENPU_VNPU_FACTS");
	int waited = 0, status;
	uint64_t unused;

	if (!path || !path[0]) {
		snprintf(why, why_size, "ENPU_VNPU_FACTS is not set");
		return -ENOENT;
	}
	for (;;) {
		FILE *file = fopen(path, "re");

		if (!file) {
			status = -errno;
			snprintf(why, why_size, "cannot open facts %s: %s",
				 path, strerror(errno));
		} else {
			status = parse_facts(file, facts, why_size, why);
			fclose(file);
			if (!status && require_key &&
			    enpu_facts_get(facts, require_key, &unused)) {
				status = -ENOENT;
				snprintf(why, why_size,
					 "facts %s has no %s after %d ms",
					 path, require_key, waited);
			}
		}
		if (!status || waited >= timeout_ms)
			return status;
		sleep_ms(50);
		waited += 50;
	}
}

int enpu_facts_get(const struct enpu_facts *facts, const char *key,
		   uint64_t *value)
{
	for (size_t i = 0; i < facts->count; i++) {
		if (!strcmp(facts->keys[i], key)) {
			*value = facts->values[i];
			return 0;
		}
	}
	return -ENOENT;
}

int enpu_debugfs_read(const char *dir, const char *file, size_t size,
		      char *text)
{
	char path[512];
	size_t used = 0;
	ssize_t got = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (used + 1 < size &&
	       (got = read(fd, text + used, size - 1 - used)) > 0)
		used += (size_t)got;
	if (got < 0) {
		int saved = errno;

		close(fd);
		return -saved;
	}
	text[used] = '\0';
	close(fd);
	return 0;
}

/*
 * Finds the ENPU's directory under one debugfs root: DRM minors under
 * dri/ (render node, 6.1), accel minors under accel/ (6.12).
 */
static int enpu_debugfs_dir_under(const char *root, size_t size, char *dir)
{
	struct dirent *entry;
	int status = -ENOENT;
	DIR *minors;

	minors = opendir(root);
	if (!minors)
		return -errno;
	while ((entry = readdir(minors))) {
		char candidate[300], name[256];

		if (entry->d_name[0] == '.')
			continue;
		snprintf(candidate, sizeof(candidate), "%s/%s", root,
			 entry->d_name);
		if (enpu_debugfs_read(candidate, "name", sizeof(name), name))
			continue;
		/* "enpu dev=0000:00:03.0 unique=..." */
		if (strncmp(name, ENPU_DRIVER_NAME, strlen(ENPU_DRIVER_NAME)) ||
		    (name[strlen(ENPU_DRIVER_NAME)] != ' ' &&
		     name[strlen(ENPU_DRIVER_NAME)] != '\n' &&
		     name[strlen(ENPU_DRIVER_NAME)] != '\0'))
			continue;
		snprintf(dir, size, "%s", candidate);
		status = 0;
		break;
	}
	closedir(minors);
	return status;
}

int enpu_debugfs_dir(size_t size, char *dir)
{
	int status = enpu_debugfs_dir_under(DEBUGFS_ACCEL, size, dir);

	if (status)
		status = enpu_debugfs_dir_under(DEBUGFS_DRI, size, dir);
	return status;
}

int enpu_text_value(const char *text, const char *key, long long *value)
{
	size_t key_length = strlen(key);
	const char *at = text;

	while ((at = strstr(at, key))) {
		bool starts_word = at == text || at[-1] == ' ' ||
				   at[-1] == '\n' || at[-1] == '\t';

		if (starts_word && at[key_length] == '=') {
			char *end;

			errno = 0;
			*value = strtoll(at + key_length + 1, &end, 0);
			if (errno || end == at + key_length + 1)
				return -EINVAL;
			return 0;
		}
		at += key_length;
	}
	return -ENOENT;
}

int enpu_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t written;

	if (fd < 0)
		return -errno;
	written = write(fd, text, strlen(text));
	if (written < 0) {
		int saved = errno;

		close(fd);
		return -saved;
	}
	close(fd);
	return written == (ssize_t)strlen(text) ? 0 : -EIO;
}

long long enpu_sched_ctx_value(const char *debugfs, uint32_t ctx,
			       const char *key)
{
	static char text[1 << 16];
	char want[32], *line, *save = NULL;
	long long value;

	if (enpu_debugfs_read(debugfs, "sched", sizeof(text), text))
		return -1;
	snprintf(want, sizeof(want), "ctx=%u ", ctx);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, want, strlen(want)))
			return enpu_text_value(line, key, &value) ? -1 : value;
	return -1;
}

long long enpu_sched_value(const char *key)
{
	static char text[1 << 16];
	char debugfs[256];
	long long value;

	/* The scheduler's line comes first: its key is found before any
	 * context's of the same name. */
	if (enpu_debugfs_dir(sizeof(debugfs), debugfs) ||
	    enpu_debugfs_read(debugfs, "sched", sizeof(text), text) ||
	    enpu_text_value(text, key, &value))
		return -1;
	return value;
}

int enpu_run(const char *command)
{
	int status = system(command);

	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int enpu_selftest_program(const char *program, size_t size, char *path)
{
	char self[4096], *slash;
	ssize_t length;

	length = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (length < 0)
		return -errno;
	self[length] = '\0';
	/* <repo>/build/tests/kselftest/<test> -> <repo>/build/bin/<program> */
	for (int i = 0; i < 3; i++) {
		slash = strrchr(self, '/');
		if (!slash)
			return -ENOENT;
		*slash = '\0';
	}
	if ((size_t)snprintf(path, size, "%s/bin/%s", self, program) >= size)
		return -ENAMETOOLONG;
	return access(path, X_OK) ? -errno : 0;
}

int enpu_selftest_program_output(const char *program, size_t size,
				 char *output)
{
	char line[256], path[4096], command[4200];
	size_t used = 0;
	FILE *pipe;
	int status;

	output[0] = '\0';
	if (enpu_selftest_program(program, sizeof(path), path))
		return -1;
	snprintf(command, sizeof(command), "'%s' 2>&1", path);
	pipe = popen(command, "r");
	if (!pipe)
		return -1;
	while (fgets(line, sizeof(line), pipe)) {
		if (used + strlen(line) < size) {
			strcpy(output + used, line);
			used += strlen(line);
		}
	}
	status = pclose(pipe);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
