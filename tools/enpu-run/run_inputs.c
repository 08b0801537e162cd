// SPDX-License-Identifier: MIT
/* enpu-run: binding inputs from files, random values or zeros. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_loader.h"
#include "rt_op.h"
#include "run.h"

static uint32_t next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Values a model would see: floats in [-1, 1), integers over their type. */
static void fill_random(struct rt_tensor *t, uint32_t *seed)
{
	size_t n = rt_tensor_elements(t);

	for (size_t i = 0; i < n; i++) {
		uint32_t r = next(seed);

		if (t->dtype == ENPU_RT_FLOAT || t->dtype == ENPU_RT_DOUBLE)
			rt_tensor_set_double(t, i, (double)(r >> 8) /
						   8388608.0 - 1.0);
		else if (t->dtype == ENPU_RT_BOOL)
			rt_tensor_set_double(t, i, r & 1);
		else
			memcpy((uint8_t *)t->data + i * rt_dtype_size(t->dtype),
			       &r, rt_dtype_size(t->dtype) < 4 ?
			       rt_dtype_size(t->dtype) : 4);
	}
}

static int bind_file(enpu_rt_session *session,
		     const struct run_input_file *f, struct run_inputs *in)
{
	struct rt_error_sink errors = { .status = 0 };
	struct rt_arena arena = { .limit = (size_t)1 << 32 };
	struct run_input *b;
	struct rt_tensor t;
	size_t size, index = 0;
	void *data;
	int status;

	if (f->name && enpu_rt_session_find_input(session, f->name, &index)) {
		fprintf(stderr, "enpu-run: the model has no input '%s'\n",
			f->name);
		return -1;
	}
	status = rt_read_file(f->path, (size_t)1 << 31, &data, &size, &errors);
	if (!status) {
		status = rt_onnx_parse_tensor(data, size, &arena, &t, &errors);
		free(data);
	}
	if (status) {
		fprintf(stderr, "enpu-run: %s: %s\n", f->path, errors.message);
		rt_arena_free_all(&arena);
		return -1;
	}
	/* The session does not copy: keep the data outside the arena. */
	b = &in->inputs[index];
	b->data = malloc(t.byte_size + 1);
	if (b->data)
		memcpy(b->data, t.data, t.byte_size);
	b->dtype = t.dtype;
	b->rank = (size_t)t.rank;
	memcpy(b->dims, t.dims, sizeof(b->dims));
	b->byte_size = t.byte_size;
	rt_arena_free_all(&arena);
	if (!b->data ||
	    enpu_rt_session_bind_input(session, index, b->dtype, b->rank,
				       b->dims, b->data, b->byte_size)) {
		fprintf(stderr, "enpu-run: %s\n", enpu_rt_session_error(session));
		return -1;
	}
	printf("input %zu: %s\n", index, f->path);
	return 0;
}

int run_inputs_bind(enpu_rt_session *session,
		    const struct run_input_file *files, size_t file_count,
		    int random, uint32_t seed, struct run_inputs *in)
{
	in->count = enpu_rt_session_input_count(session);
	in->inputs = calloc(in->count + 1, sizeof(*in->inputs));
	if (!in->inputs)
		return -1;
	for (size_t f = 0; f < file_count; f++)
		if (bind_file(session, &files[f], in))
			return -1;
	for (size_t i = 0; i < in->count; i++) {
		struct enpu_rt_tensor_info info;
		struct rt_tensor t = { .rank = 0 };
		struct run_input *b = &in->inputs[i];
		size_t elements = 1;

		if (b->data)
			continue;
		enpu_rt_session_input_info(session, i, &info);
		if (info.rank < 0)
			info.rank = 0;
		for (int d = 0; d < info.rank; d++) {
			if (info.dims[d] < 0)
				info.dims[d] = 1;
			elements *= (size_t)info.dims[d];
		}
		t.dtype = info.dtype;
		t.rank = info.rank;
		memcpy(t.dims, info.dims, sizeof(t.dims));
		t.byte_size = elements * enpu_rt_dtype_size(info.dtype);
		b->data = calloc(1, t.byte_size + 1);
		t.data = b->data;
		if (!t.data) {
			fprintf(stderr, "enpu-run: out of memory\n");
			return -1;
		}
		if (random)
			fill_random(&t, &seed);
		b->dtype = t.dtype;
		b->rank = (size_t)t.rank;
		memcpy(b->dims, t.dims, sizeof(b->dims));
		b->byte_size = t.byte_size;
		if (enpu_rt_session_bind_input(session, i, b->dtype, b->rank,
					       b->dims, b->data,
					       b->byte_size)) {
			fprintf(stderr, "enpu-run: input '%s': %s\n", info.name,
				enpu_rt_session_error(session));
			return -1;
		}
		printf("input '%s': %s\n", info.name,
		       random ? "random" : "zero-filled");
	}
	return 0;
}

int run_inputs_rebind(const struct run_inputs *in, enpu_rt_session *to)
{
	for (size_t i = 0; i < in->count; i++) {
		const struct run_input *b = &in->inputs[i];

		if (enpu_rt_session_bind_input(to, i, b->dtype, b->rank,
					       b->dims, b->data,
					       b->byte_size)) {
			fprintf(stderr, "enpu-run: %s\n",
				enpu_rt_session_error(to));
			return -1;
		}
	}
	return 0;
}

void run_inputs_free(struct run_inputs *in)
{
	for (size_t i = 0; i < in->count; i++)
		free(in->inputs[i].data);
	free(in->inputs);
	in->inputs = NULL;
	in->count = 0;
}
