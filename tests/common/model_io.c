// SPDX-License-Identifier: MIT
/* Inputs, files and the ONNX Runtime worker; see model_io.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model_io.h"

int mio_parse_inputs(const char *text, struct mio_input *in, int max)
{
	char buf[2048], *save = NULL, *item;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", text);
	for (item = strtok_r(buf, ";", &save); item && n < max;
	     item = strtok_r(NULL, ";", &save)) {
		struct mio_input *s = &in[n++];
		char *type, *dims, *values, *p;

		/* Split from the end: names may hold ':' (onnx::Flatten_0). */
		values = strrchr(item, ':');
		if (!values)
			return -1;
		*values++ = 0;
		dims = strrchr(item, ':');
		if (!dims)
			return -1;
		*dims++ = 0;
		type = strrchr(item, ':');
		if (!type)
			return -1;
		*type++ = 0;
		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", item);
		s->dtype = !strcmp(type, "float") ? ENPU_RT_FLOAT :
			   !strcmp(type, "int64") ? ENPU_RT_INT64 : 0;
		if (!s->dtype)
			return -1;
		for (p = dims; *p && s->rank < ENPU_RT_MAX_RANK;) {
			s->dims[s->rank++] = strtoll(p, &p, 10);
			if (*p == 'x')
				p++;
			else if (*p)
				return -1;
		}
		s->constant = values[0] == 'c';
		if (s->constant)
			s->lo = strtod(values + 1, NULL);
		else if (values[0] != 'u' ||
			 sscanf(values + 1, "%lf,%lf", &s->lo, &s->hi) != 2)
			return -1;
	}
	return n;
}

size_t mio_elements(const struct mio_input *in)
{
	size_t n = 1;

	for (int d = 0; d < in->rank; d++)
		n *= (size_t)in->dims[d];
	return n;
}

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ull;
}

void *mio_make_input(const char *name, const struct mio_input *in,
		     int index, int sample, size_t *bytes)
{
	size_t n = mio_elements(in), size = in->dtype == ENPU_RT_FLOAT ? 4 : 8;
	uint64_t state = 1469598103934665603ull;
	void *data = malloc(n * size + 1);

	if (!data)
		return NULL;
	while (*name)
		state = (state ^ (uint8_t)*name++) * 1099511628211ull;
	state ^= ((uint64_t)index << 32) ^ ((uint64_t)sample << 48) ^ 1;
	for (size_t e = 0; e < n; e++) {
		double u = (double)(next_random(&state) >> 11) /
			   9007199254740992.0;
		double v = in->constant ? in->lo : in->lo + (in->hi - in->lo) * u;

		if (in->dtype == ENPU_RT_FLOAT)
			((float *)data)[e] = (float)v;
		else
			((int64_t *)data)[e] = (int64_t)v;
	}
	*bytes = n * size;
	return data;
}

int mio_write_file(const char *path, const void *data, size_t bytes)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(data, 1, bytes, f) == bytes;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

void *mio_read_file(const char *path, size_t *bytes)
{
	FILE *f = fopen(path, "rb");
	void *data = NULL;
	long size;

	*bytes = 0;
	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		data = malloc((size_t)size + 1);
		if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
			free(data);
			data = NULL;
		}
		*bytes = (size_t)size;
	}
	fclose(f);
	return data;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

int mio_write_tensor_pb(const char *path, const struct mio_input *in,
			const void *data, size_t bytes)
{
	size_t name_len = strlen(in->name), n = 0;
	uint8_t *buf = malloc(bytes + name_len + 32 + 11 * ENPU_RT_MAX_RANK);
	int status;

	if (!buf)
		return -1;
	for (int d = 0; d < in->rank; d++) {	/* dims, field 1 */
		buf[n++] = 0x08;
		n += put_varint(buf + n, (uint64_t)in->dims[d]);
	}
	buf[n++] = 0x10;			/* data_type, field 2 */
	n += put_varint(buf + n, (uint64_t)in->dtype);
	buf[n++] = 0x42;			/* name, field 8 */
	n += put_varint(buf + n, name_len);
	memcpy(buf + n, in->name, name_len);
	n += name_len;
	buf[n++] = 0x4a;			/* raw_data, field 9 */
	n += put_varint(buf + n, bytes);
	memcpy(buf + n, data, bytes);
	n += bytes;
	status = mio_write_file(path, buf, n);
	free(buf);
	return status;
}

int mio_write_inputs(const char *dir, const char *name,
		     const struct mio_input *in, int count)
{
	char path[4096];
	FILE *list;

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/inputs.txt", dir);
	list = fopen(path, "w");
	if (!list)
		return -1;
	for (int i = 0; i < count; i++) {
		size_t bytes;
		void *data = mio_make_input(name, &in[i], i, 0, &bytes);

		snprintf(path, sizeof(path), "%s/input_%d.bin", dir, i);
		if (!data || mio_write_file(path, data, bytes)) {
			free(data);
			fclose(list);
			return -1;
		}
		free(data);
		fprintf(list, "%s %s %d", in[i].name,
			in[i].dtype == ENPU_RT_FLOAT ? "float32" : "int64",
			in[i].rank);
		for (int d = 0; d < in[i].rank; d++)
			fprintf(list, " %lld", (long long)in[i].dims[d]);
		fprintf(list, "\n");
	}
	return fclose(list) ? -1 : 0;
}

int mio_write_calibration(const char *dir, const char *name,
			  const struct mio_input *in, int count, int samples)
{
	char path[4096];

	mkdir(dir, 0755);
	for (int s = 1; s <= samples; s++) {
		snprintf(path, sizeof(path), "%s/%03d", dir, s);
		mkdir(path, 0755);
		for (int i = 0; i < count; i++) {
			size_t bytes;
			void *data = mio_make_input(name, &in[i], i, s, &bytes);
			int status;

			snprintf(path, sizeof(path), "%s/%03d/input_%d.pb", dir,
				 s, i);
			status = data ? mio_write_tensor_pb(path, &in[i], data,
							    bytes) : -1;
			free(data);
			if (status)
				return -1;
		}
	}
	return 0;
}

int mio_ort_start(struct mio_ort *ort, const char *script,
		  const char *model, const char *input_dir, int threads)
{
	int to[2], from[2];
	char threads_arg[16], line[256];

	memset(ort, 0, sizeof(*ort));
	ort->pid = -1;
	/*
	 * Close-on-exec: a second worker started while this one runs must
	 * not inherit this one's stdin, or closing it would not end it.
	 */
	if (pipe2(to, O_CLOEXEC))
		return -1;
	if (pipe2(from, O_CLOEXEC)) {
		close(to[0]);
		close(to[1]);
		return -1;
	}
	snprintf(threads_arg, sizeof(threads_arg), "%d", threads);
	ort->pid = fork();
	if (ort->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execlp("node", "node", script, model, input_dir, threads_arg,
		       (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	if (ort->pid < 0) {
		close(to[1]);
		close(from[0]);
		return -1;
	}
	ort->to = fdopen(to[1], "w");
	ort->from = fdopen(from[0], "r");
	if (!ort->to || !ort->from || !fgets(line, sizeof(line), ort->from) ||
	    strncmp(line, "ready", 5)) {
		fprintf(stderr, "ort worker: %s", ort->from && *line ? line :
			"did not start\n");
		mio_ort_stop(ort);
		return -1;
	}
	return 0;
}

double mio_ort_run(struct mio_ort *ort)
{
	char line[128];

	if (!ort->to || fprintf(ort->to, "run\n") < 0 || fflush(ort->to) ||
	    !fgets(line, sizeof(line), ort->from))
		return -1;
	return strtod(line, NULL);
}

int mio_ort_dump(struct mio_ort *ort, const char *dir, const char *prefix)
{
	char line[128];

	if (!ort->to || fprintf(ort->to, "dump %s %s\n", dir, prefix) < 0 ||
	    fflush(ort->to) || !fgets(line, sizeof(line), ort->from))
		return -1;
	return strncmp(line, "ok", 2) ? -1 : 0;
}

void mio_ort_stop(struct mio_ort *ort)
{
	if (ort->to)
		fclose(ort->to);	/* EOF: the worker exits */
	if (ort->from)
		fclose(ort->from);
	if (ort->pid > 0)
		waitpid(ort->pid, NULL, 0);
	ort->to = ort->from = NULL;
	ort->pid = -1;
}
