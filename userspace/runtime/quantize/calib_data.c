// SPDX-License-Identifier: MIT
/*
 * The calibration directory: one subdirectory per sample holding
 * input_<i>.pb TensorProtos (the ONNX test-data layout, so a
 * test_data_set_N directory is a valid sample), or, for a single sample,
 * the directory itself.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "quantize_internal.h"

static int has_first_input(const char *dir)
{
	char path[4096];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/input_0.pb", dir) >=
	    (int)sizeof(path))
		return 0;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void q_free_samples(struct q_sample_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->dirs[i]);
	free(list->dirs);
	list->dirs = NULL;
	list->count = 0;
}

static int push(struct q_sample_list *list, const char *dir,
		const char *name)
{
	char **grown = realloc(list->dirs,
			       (list->count + 1) * sizeof(*grown));
	char *path = NULL;

	if (!grown)
		return -1;
	list->dirs = grown;
	if (name ? asprintf(&path, "%s/%s", dir, name) < 0 :
	    !(path = strdup(dir)))
		return -1;
	list->dirs[list->count++] = path;
	return 0;
}

int q_list_samples(struct q_model *m, const char *calib_dir,
		   struct q_sample_list *list)
{
	struct stat st;
	struct dirent *e;
	DIR *d;

	list->dirs = NULL;
	list->count = 0;
	if (!calib_dir || stat(calib_dir, &st))
		return q_fail(m, ENPU_RT_IO_ERROR,
			      "calibration directory '%s': %s",
			      calib_dir ? calib_dir : "(null)",
			      calib_dir ? strerror(errno) : "not given");
	if (!S_ISDIR(st.st_mode))
		return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
			      "calibration directory '%s' is not a directory",
			      calib_dir);
	if (has_first_input(calib_dir)) {
		if (push(list, calib_dir, NULL))
			goto oom;
		return 0;
	}
	d = opendir(calib_dir);
	if (!d)
		return q_fail(m, ENPU_RT_IO_ERROR,
			      "calibration directory '%s': %s", calib_dir,
			      strerror(errno));
	while ((e = readdir(d))) {
		char path[4096];

		if (e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", calib_dir,
			     e->d_name) >= (int)sizeof(path))
			continue;
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (!has_first_input(path)) {
			closedir(d);
			q_free_samples(list);
			return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
				      "calibration sample '%s' has no "
				      "input_0.pb", path);
		}
		if (push(list, calib_dir, e->d_name)) {
			closedir(d);
			goto oom;
		}
	}
	closedir(d);
	if (!list->count)
		return q_fail(m, ENPU_RT_INVALID_ARGUMENT,
			      "calibration directory '%s' holds no samples "
			      "(expected subdirectories with input_0.pb, "
			      "input_1.pb, ...)", calib_dir);
	qsort(list->dirs, list->count, sizeof(*list->dirs), by_name);
	return 0;
oom:
	q_free_samples(list);
	return q_fail(m, ENPU_RT_OUT_OF_MEMORY, "out of memory");
}
