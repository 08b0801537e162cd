// SPDX-License-Identifier: MIT
/*
 * Reading the kernel's thermal and frequency state from sysfs under a
 * root directory. Everything is optional and everything may be odd: a
 * zone without trips, a trip without hysteresis, "N/A" in a frequency
 * file, a temperature that does not fit: such a field stays
 * ENPU_TH_UNKNOWN and the snapshot counts the odd file; nothing fails.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enpu_thermal.h"
#include "th_internal.h"

#define TH_PATH 512

/* Reads a small file into buf without trailing whitespace; 0 or -errno. */
int th_read_text(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' ||
			 buf[n - 1] == '\t'))
		buf[--n] = '\0';
	return 0;
}

/* A whole decimal integer in [min, max]; false for anything else. */
static bool parse_int64(const char *text, int64_t min, int64_t max,
			int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/* Reads dir/file as an integer; a missing file leaves *out alone, a file
 * that does not parse counts as odd. */
static void read_int(struct enpu_th_snapshot *s, const char *dir,
		     const char *file, int64_t min, int64_t max, int64_t *out)
{
	char path[TH_PATH], text[64];
	int64_t v;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return;
	if (th_read_text(path, text, sizeof(text)))
		return;
	if (parse_int64(text, min, max, &v))
		*out = v;
	else
		s->odd_files++;
}

static void read_i32(struct enpu_th_snapshot *s, const char *dir,
		     const char *file, int32_t *out)
{
	int64_t v = ENPU_TH_UNKNOWN;

	/* ENPU_TH_UNKNOWN itself is not a value sysfs may give. */
	read_int(s, dir, file, INT32_MIN + 1, INT32_MAX, &v);
	*out = (int32_t)v;
}

static void copy_name(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

/* The number after prefix in name, or -1 if name is not prefix<N>. */
static long suffix_number(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	int64_t v;

	if (strncmp(name, prefix, len) || !name[len] ||
	    !parse_int64(name + len, 0, INT32_MAX, &v))
		return -1;
	return (long)v;
}

struct th_entry {
	long number;
	char name[ENPU_TH_NAME];
};

static int entry_cmp(const void *a, const void *b)
{
	const struct th_entry *x = a, *y = b;

	return (x->number > y->number) - (x->number < y->number);
}

/* Entries prefix<N> of dir in numeric order, at most max. */
static unsigned int list_numbered(const char *dir, const char *prefix,
				  struct th_entry *out, unsigned int max)
{
	struct dirent *de;
	unsigned int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		long number = suffix_number(de->d_name, prefix);

		if (number < 0 || strlen(de->d_name) >= ENPU_TH_NAME)
			continue;
		out[n].number = number;
		copy_name(out[n].name, sizeof(out[n].name), de->d_name);
		n++;
	}
	closedir(d);
	qsort(out, n, sizeof(out[0]), entry_cmp);
	return n;
}

static void read_zone(struct enpu_th_snapshot *s, const char *dir,
		      struct enpu_th_zone *z)
{
	char path[TH_PATH], file[64];
	unsigned int i;

	z->temp_mc = ENPU_TH_UNKNOWN;
	z->type[0] = '\0';
	if (snprintf(path, sizeof(path), "%s/type", dir) < (int)sizeof(path))
		th_read_text(path, z->type, sizeof(z->type));
	read_i32(s, dir, "temp", &z->temp_mc);
	z->trip_count = 0;
	for (i = 0; i < ENPU_TH_MAX_TRIPS; i++) {
		struct enpu_th_trip *t = &z->trips[z->trip_count];

		snprintf(file, sizeof(file), "trip_point_%u_type", i);
		if (snprintf(path, sizeof(path), "%s/%s", dir, file) >=
		    (int)sizeof(path) || th_read_text(path, t->type, sizeof(t->type)))
			break;
		snprintf(file, sizeof(file), "trip_point_%u_temp", i);
		read_i32(s, dir, file, &t->temp_mc);
		snprintf(file, sizeof(file), "trip_point_%u_hyst", i);
		read_i32(s, dir, file, &t->hyst_mc);
		z->trip_count++;
	}
}

static void read_zones(const char *root, struct enpu_th_snapshot *s)
{
	struct th_entry entries[ENPU_TH_MAX_ZONES];
	char base[TH_PATH], dir[TH_PATH];
	unsigned int i, n;

	snprintf(base, sizeof(base), "%s/sys/class/thermal", root);
	n = list_numbered(base, "thermal_zone", entries, ENPU_TH_MAX_ZONES);
	for (i = 0; i < n; i++) {
		struct enpu_th_zone *z = &s->zones[s->zone_count];

		if (snprintf(dir, sizeof(dir), "%s/%s", base, entries[i].name) >=
		    (int)sizeof(dir))
			continue;
		copy_name(z->name, sizeof(z->name), entries[i].name);
		read_zone(s, dir, z);
		if (s->npu_zone < 0 && !strcmp(z->type, "enpu"))
			s->npu_zone = (int)s->zone_count;
		s->zone_count++;
	}
}

static void read_policies(const char *root, struct enpu_th_snapshot *s)
{
	struct th_entry entries[ENPU_TH_MAX_POLICIES];
	char base[TH_PATH], dir[TH_PATH];
	unsigned int i, n;

	snprintf(base, sizeof(base), "%s/sys/devices/system/cpu/cpufreq", root);
	n = list_numbered(base, "policy", entries, ENPU_TH_MAX_POLICIES);
	for (i = 0; i < n; i++) {
		struct enpu_th_cpufreq *p = &s->policies[s->policy_count];

		if (snprintf(dir, sizeof(dir), "%s/%s", base, entries[i].name) >=
		    (int)sizeof(dir))
			continue;
		copy_name(p->name, sizeof(p->name), entries[i].name);
		read_i32(s, dir, "scaling_cur_freq", &p->cur_khz);
		read_i32(s, dir, "scaling_min_freq", &p->min_khz);
		read_i32(s, dir, "scaling_max_freq", &p->max_khz);
		read_i32(s, dir, "cpuinfo_min_freq", &p->hw_min_khz);
		read_i32(s, dir, "cpuinfo_max_freq", &p->hw_max_khz);
		s->policy_count++;
	}
}

/* The highest of the space-separated frequencies, or -1. */
static int64_t top_frequency(struct enpu_th_snapshot *s, const char *dir)
{
	char path[TH_PATH], text[1024], *tok, *save = NULL;
	int64_t top = -1, v;

	if (snprintf(path, sizeof(path), "%s/available_frequencies", dir) >=
	    (int)sizeof(path) || th_read_text(path, text, sizeof(text)))
		return -1;
	for (tok = strtok_r(text, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (!parse_int64(tok, 1, INT64_MAX, &v)) {
			s->odd_files++;
			return -1;
		}
		if (v > top)
			top = v;
	}
	return top;
}

static bool driver_is_enpu(const char *dir)
{
	char path[TH_PATH], target[TH_PATH];
	const char *base;
	ssize_t n;

	if (snprintf(path, sizeof(path), "%s/device/driver", dir) >=
	    (int)sizeof(path))
		return false;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	base = strrchr(target, '/');
	return !strcmp(base ? base + 1 : target, "enpu");
}

static void read_devfreq(const char *root, struct enpu_th_snapshot *s)
{
	char base[TH_PATH], dir[TH_PATH];
	struct enpu_th_devfreq *npu = &s->npu;
	struct dirent *de;
	DIR *d;

	snprintf(base, sizeof(base), "%s/sys/class/devfreq", root);
	d = opendir(base);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= ENPU_TH_NAME ||
		    snprintf(dir, sizeof(dir), "%s/%s", base, de->d_name) >=
		    (int)sizeof(dir) || !driver_is_enpu(dir))
			continue;
		npu->present = true;
		copy_name(npu->name, sizeof(npu->name), de->d_name);
		npu->cur_hz = npu->min_hz = npu->max_hz = ENPU_TH_UNKNOWN;
		read_int(s, dir, "cur_freq", 1, INT64_MAX, &npu->cur_hz);
		read_int(s, dir, "min_freq", 1, INT64_MAX, &npu->min_hz);
		read_int(s, dir, "max_freq", 1, INT64_MAX, &npu->max_hz);
		npu->top_hz = top_frequency(s, dir);
		break;
	}
	closedir(d);
}

int enpu_th_read(const char *root, struct enpu_th_snapshot *s)
{
	char sys[TH_PATH];
	DIR *d;

	memset(s, 0, sizeof(*s));
	s->npu_zone = -1;
	if (!root || !*root)
		root = "/";
	if (!strcmp(root, "/"))
		root = "";
	snprintf(sys, sizeof(sys), "%s/", root);
	d = opendir(sys);
	if (!d)
		return -errno;
	closedir(d);
	read_zones(root, s);
	read_policies(root, s);
	read_devfreq(root, s);
	return 0;
}
