// SPDX-License-Identifier: MIT
/*
 * Reading one sample (enpu_top_sample.h). Every path is taken relative to
 * the root given, so the tests point it at a fake tree.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enpu_top_sample.h"

#define TOP_PATH_SIZE 512
#define TOP_MAX_NAMES 256

/*
 * snprintf() for paths and fields: a result too long for its buffer is
 * cut, which at worst names a file that does not exist (then absent).
 */
__attribute__((format(printf, 3, 4)))
static int text_format(char *out, size_t size, const char *format, ...)
{
	va_list args;
	int length;

	va_start(args, format);
	length = vsnprintf(out, size, format, args);
	va_end(args);
	return length;
}

/* Reads a whole (small) file into text; returns its length or -errno. */
static ssize_t read_text(const char *root, const char *path, char *text,
			 size_t size)
{
	char full[TOP_PATH_SIZE];
	size_t used = 0;
	ssize_t got = 0;
	int fd;

	if (text_format(full, sizeof(full), "%s/%s", root, path) >=
	    (int)sizeof(full))
		return -ENAMETOOLONG;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (used + 1 < size &&
	       (got = read(fd, text + used, size - 1 - used)) > 0)
		used += (size_t)got;
	close(fd);
	if (got < 0)
		return -EIO;
	text[used] = '\0';
	return (ssize_t)used;
}

static int read_u64(const char *root, const char *path, uint64_t *value)
{
	char text[64], *end;

	if (read_text(root, path, text, sizeof(text)) <= 0)
		return -ENOENT;
	errno = 0;
	*value = strtoull(text, &end, 10);
	return errno || end == text ? -EINVAL : 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The entries of root/path starting with prefix, sorted; returns their
 * count (0 if the directory is missing). Free with free_names().
 */
static size_t list_names(const char *root, const char *path,
			 const char *prefix, char **names)
{
	char full[TOP_PATH_SIZE];
	struct dirent *entry;
	size_t count = 0;
	DIR *dir;

	text_format(full, sizeof(full), "%s/%s", root, path);
	dir = opendir(full);
	if (!dir)
		return 0;
	while ((entry = readdir(dir)) && count < TOP_MAX_NAMES) {
		if (entry->d_name[0] == '.' ||
		    strncmp(entry->d_name, prefix, strlen(prefix)))
			continue;
		names[count] = strdup(entry->d_name);
		if (names[count])
			count++;
	}
	closedir(dir);
	qsort(names, count, sizeof(*names), compare_names);
	return count;
}

static void free_names(char **names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(names[i]);
}

/* The value of "key" at the start of a line of text ("KEY=value"). */
static int line_value(const char *text, const char *key, char *value,
		      size_t size)
{
	size_t length = strlen(key);

	for (const char *at = text; at && *at; at = strchr(at, '\n')) {
		if (*at == '\n')
			at++;
		if (!strncmp(at, key, length)) {
			size_t n = strcspn(at + length, "\n");

			if (n >= size)
				n = size - 1;
			memcpy(value, at + length, n);
			value[n] = '\0';
			return 0;
		}
	}
	return -ENOENT;
}

static void read_devfreq(const char *root, const char *device_dir,
			 struct top_device *device)
{
	char path[TOP_PATH_SIZE], *names[TOP_MAX_NAMES];
	size_t count;

	text_format(path, sizeof(path), "%s/devfreq", device_dir);
	count = list_names(root, path, "", names);
	if (count) {
		char cur[TOP_PATH_SIZE], max[TOP_PATH_SIZE];

		text_format(cur, sizeof(cur), "%s/%s/cur_freq", path, names[0]);
		text_format(max, sizeof(max), "%s/%s/max_freq", path, names[0]);
		device->has_clock =
			!read_u64(root, cur, &device->clock_hz) &&
			!read_u64(root, max, &device->max_clock_hz);
	}
	free_names(names, count);
}

/* The index-th thermal zone whose type is "enpu" (one per device). */
static void read_thermal(const char *root, size_t index,
			 struct top_device *device)
{
	char *names[TOP_MAX_NAMES];
	size_t count = list_names(root, "sys/class/thermal", "thermal_zone",
				  names);
	size_t seen = 0;

	for (size_t i = 0; i < count; i++) {
		char path[TOP_PATH_SIZE], type[64];
		uint64_t unused;

		text_format(path, sizeof(path), "sys/class/thermal/%s/type",
			 names[i]);
		if (read_text(root, path, type, sizeof(type)) <= 0 ||
		    strcmp(type, "enpu\n") || seen++ != index)
			continue;
		text_format(path, sizeof(path), "sys/class/thermal/%s/temp",
			 names[i]);
		if (!read_u64(root, path, &unused)) {
			device->has_temperature = true;
			device->temperature_mc = (long)unused;
		} else {
			/* Negative temperatures do not parse as u64. */
			char text[64];

			if (read_text(root, path, text, sizeof(text)) > 0) {
				device->has_temperature = true;
				device->temperature_mc = strtol(text, NULL, 10);
			}
		}
		break;
	}
	free_names(names, count);
}

/* A 64-bit counter of debugfs regs from its NAME_LO and NAME_HI lines. */
static int regs_counter(const char *regs, const char *name, uint64_t *value)
{
	unsigned long long half[2];
	const char *suffix[2] = { "_LO ", "_HI " };

	for (int i = 0; i < 2; i++) {
		char key[64];
		const char *at = regs;

		text_format(key, sizeof(key), "%s%s", name, suffix[i]);
		while ((at = strstr(at, key)) && at != regs && at[-1] != '\n')
			at++;
		if (!at || sscanf(at + strlen(key), " 0x%*x 0x%llx",
				  &half[i]) != 1)
			return -ENOENT;
	}
	*value = (uint64_t)half[1] << 32 | half[0];
	return 0;
}

static long long text_key(const char *line, const char *key)
{
	size_t length = strlen(key);

	for (const char *at = line; (at = strstr(at, key)); at += length)
		if ((at == line || at[-1] == ' ') && at[length] == '=')
			return strtoll(at + length + 1, NULL, 10);
	return -1;
}

static void read_sched(const char *text, struct top_device *device)
{
	device->has_queues = true;
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		char copy[512];
		size_t n = end ? (size_t)(end - line) : strlen(line);
		long long prio, queued, on_device;

		if (n >= sizeof(copy))
			n = sizeof(copy) - 1;
		memcpy(copy, line, n);
		copy[n] = '\0';
		line = end ? end + 1 : NULL;
		if (strncmp(copy, "ctx=", 4))
			continue;
		prio = text_key(copy, "prio");
		queued = text_key(copy, "queued");
		on_device = text_key(copy, "on_device");
		if (prio < 0 || prio >= TOP_PRIORITIES || queued < 0 ||
		    on_device < 0)
			continue;
		device->queued[prio] += (unsigned int)queued;
		device->on_device[prio] += (unsigned int)on_device;
	}
}

/* debugfs dri/N or accel/N whose name says "enpu" and names our device. */
static void read_debugfs(const char *root, struct top_device *device)
{
	static const char *const bases[] = { "sys/kernel/debug/accel",
					     "sys/kernel/debug/dri" };
	static char text[32768];

	for (size_t b = 0; b < 2; b++) {
		char *names[TOP_MAX_NAMES];
		size_t count = list_names(root, bases[b], "", names);

		for (size_t i = 0; i < count; i++) {
			char path[TOP_PATH_SIZE], name[256], dev[80];

			text_format(path, sizeof(path), "%s/%s/name", bases[b],
				 names[i]);
			text_format(dev, sizeof(dev), "dev=%s", device->pdev);
			if (read_text(root, path, name, sizeof(name)) <= 0 ||
			    strncmp(name, "enpu ", 5) || !strstr(name, dev))
				continue;
			text_format(path, sizeof(path), "%s/%s/regs", bases[b],
				 names[i]);
			if (read_text(root, path, text, sizeof(text)) > 0) {
				device->has_busy =
					!regs_counter(text, "PERF_BUSY_NS",
						      &device->busy_ns);
				device->has_device_time =
					!regs_counter(text, "PERF_DEVICE_NS",
						      &device->device_ns);
			}
			text_format(path, sizeof(path), "%s/%s/sched", bases[b],
				 names[i]);
			if (read_text(root, path, text, sizeof(text)) > 0)
				read_sched(text, device);
			free_names(names, count);
			return;
		}
		free_names(names, count);
	}
}

static void read_devices(const char *root, struct top_sample *sample)
{
	static const char *const classes[][2] = {
		{ "sys/class/accel", "accel" },
		{ "sys/class/drm", "renderD" },
	};

	for (size_t c = 0; c < 2; c++) {
		char *names[TOP_MAX_NAMES];
		size_t count = list_names(root, classes[c][0], classes[c][1],
					  names);

		for (size_t i = 0; i < count; i++) {
			struct top_device *device =
				&sample->devices[sample->device_count];
			char dir[TOP_PATH_SIZE], path[TOP_PATH_SIZE];
			char uevent[1024], driver[64];

			if (sample->device_count == TOP_MAX_DEVICES)
				break;
			text_format(dir, sizeof(dir), "%s/%s/device",
				 classes[c][0], names[i]);
			text_format(path, sizeof(path), "%s/uevent", dir);
			if (read_text(root, path, uevent, sizeof(uevent)) <= 0 ||
			    line_value(uevent, "DRIVER=", driver,
				       sizeof(driver)) ||
			    strcmp(driver, "enpu"))
				continue;
			memset(device, 0, sizeof(*device));
			text_format(device->node, sizeof(device->node), "%s",
				 names[i]);
			if (line_value(uevent, "PCI_SLOT_NAME=", device->pdev,
				       sizeof(device->pdev)))
				text_format(device->pdev, sizeof(device->pdev),
					 "%s", names[i]);
			read_devfreq(root, dir, device);
			read_thermal(root, sample->device_count, device);
			read_debugfs(root, device);
			sample->device_count++;
		}
		free_names(names, count);
	}
}

int top_parse_fdinfo(const char *text, struct top_client *client)
{
	int is_enpu = 0;

	memset(client->pdev, 0, sizeof(client->pdev));
	client->client_id = client->engine_ns = client->cycles = 0;
	client->total_bytes = client->resident_bytes = 0;
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		char key[64], value[64], unit[16] = "";
		int fields;

		fields = sscanf(line, "%63[^:]: %63s %15s", key, value, unit);
		line = end ? end + 1 : NULL;
		if (fields < 2 || strncmp(key, "drm-", 4))
			continue;
		if (!strcmp(key, "drm-driver")) {
			is_enpu = !strcmp(value, "enpu");
		} else if (!strcmp(key, "drm-pdev")) {
			text_format(client->pdev, sizeof(client->pdev), "%s",
				 value);
		} else {
			uint64_t number = strtoull(value, NULL, 10);

			if (!strcmp(unit, "KiB"))
				number <<= 10;
			else if (!strcmp(unit, "MiB"))
				number <<= 20;
			if (!strcmp(key, "drm-client-id"))
				client->client_id = number;
			else if (!strcmp(key, "drm-engine-npu"))
				client->engine_ns = number;
			else if (!strcmp(key, "drm-cycles-npu"))
				client->cycles = number;
			else if (!strcmp(key, "drm-total-memory"))
				client->total_bytes = number;
			else if (!strcmp(key, "drm-resident-memory"))
				client->resident_bytes = number;
		}
	}
	return is_enpu;
}

static int known_client(const struct top_sample *sample,
			const struct top_client *client)
{
	for (size_t i = 0; i < sample->client_count; i++)
		if (sample->clients[i].client_id == client->client_id &&
		    !strcmp(sample->clients[i].pdev, client->pdev))
			return 1;
	return 0;
}

static int add_client(struct top_sample *sample,
		      const struct top_client *client)
{
	if (known_client(sample, client))
		return 0;
	if (sample->client_count == sample->client_capacity) {
		size_t capacity = sample->client_capacity ?
				  2 * sample->client_capacity : 16;
		struct top_client *grown = realloc(sample->clients,
						   capacity * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		sample->clients = grown;
		sample->client_capacity = capacity;
	}
	sample->clients[sample->client_count++] = *client;
	return 0;
}

static int is_number(const char *name)
{
	if (!*name)
		return 0;
	for (; *name; name++)
		if (!isdigit((unsigned char)*name))
			return 0;
	return 1;
}

static int compare_pids(const void *a, const void *b)
{
	long x = strtol(*(char *const *)a, NULL, 10);
	long y = strtol(*(char *const *)b, NULL, 10);

	return (x > y) - (x < y);
}

static int read_clients(const char *root, struct top_sample *sample)
{
	char *pids[TOP_MAX_NAMES * 16];
	size_t count = 0;
	char full[TOP_PATH_SIZE];
	struct dirent *entry;
	int status = 0;
	DIR *dir;

	text_format(full, sizeof(full), "%s/proc", root);
	dir = opendir(full);
	if (!dir)
		return 0;
	while ((entry = readdir(dir)) &&
	       count < sizeof(pids) / sizeof(pids[0]))
		if (is_number(entry->d_name) &&
		    (pids[count] = strdup(entry->d_name)))
			count++;
	closedir(dir);
	/* Lowest pid first: a client shared by fork goes to the parent. */
	qsort(pids, count, sizeof(*pids), compare_pids);
	for (size_t p = 0; p < count && !status; p++) {
		char path[TOP_PATH_SIZE], *fds[TOP_MAX_NAMES];
		struct top_client client = { 0 };
		size_t fd_count;

		text_format(path, sizeof(path), "proc/%s/fdinfo", pids[p]);
		fd_count = list_names(root, path, "", fds);
		for (size_t f = 0; f < fd_count && !status; f++) {
			char file[TOP_PATH_SIZE], text[4096];

			text_format(file, sizeof(file), "%s/%s", path, fds[f]);
			if (read_text(root, file, text, sizeof(text)) <= 0 ||
			    !top_parse_fdinfo(text, &client))
				continue;
			client.pid = (pid_t)strtol(pids[p], NULL, 10);
			text_format(file, sizeof(file), "proc/%s/comm", pids[p]);
			if (read_text(root, file, client.command,
				      sizeof(client.command)) <= 0)
				text_format(client.command, sizeof(client.command),
					 "?");
			client.command[strcspn(client.command, "\n")] = '\0';
			status = add_client(sample, &client);
		}
		free_names(fds, fd_count);
	}
	free_names(pids, count);
	return status;
}

int top_sample_read(const char *root, uint64_t time_ns,
		    struct top_sample *sample)
{
	memset(sample, 0, sizeof(*sample));
	sample->time_ns = time_ns;
	read_devices(root, sample);
	return read_clients(root, sample);
}

void top_sample_release(struct top_sample *sample)
{
	free(sample->clients);
	sample->clients = NULL;
	sample->client_count = sample->client_capacity = 0;
}
