// SPDX-License-Identifier: MIT
/*
 * The backends a session can ask for, by name. Adding a backend is one
 * entry here and its own directory under backend/; the partitioner and
 * the run loop see only struct rt_backend_ops.
 */
#include <stdio.h>
#include <string.h>

#include "engine.h"

static const struct rt_backend_ops *const known[] = {
	&rt_backend_npu,
	&rt_backend_cpu,
};

int rt_options_add_backend(struct enpu_rt_options *options,
			   const struct rt_backend_ops *ops)
{
	if (!options || !ops ||
	    options->extra_count == sizeof(options->extra) /
				    sizeof(options->extra[0]))
		return ENPU_RT_INVALID_ARGUMENT;
	options->extra[options->extra_count++] = ops;
	return 0;
}

int rt_options_set_stream_copies(struct enpu_rt_options *options, int on)
{
	if (!options)
		return ENPU_RT_INVALID_ARGUMENT;
	options->stream_copies = on != 0;
	return 0;
}

const struct rt_backend_ops *rt_engine_backend(
	const struct enpu_rt_session *s, const char *name)
{
	for (size_t i = 0; s && i < s->extra_count; i++)
		if (!strcmp(s->extra[i]->name, name))
			return s->extra[i];
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i]->name, name))
			return known[i];
	return NULL;
}

static void known_names(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]) &&
	     used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i ? ", " : "", known[i]->name);
}

int rt_engine_open_backends(struct enpu_rt_session *s, const char *list)
{
	struct rt_backend_env env = {
		.cpu = s->cpu,
		.errors = &s->errors,
		.cache_dir = s->cache_dir[0] ? s->cache_dir : NULL,
		.device_path = s->device_path[0] ? s->device_path : NULL,
		.model_hash = s->model_hash,
		.device_time = s->device_time,
		.stream_copies = s->stream_copies,
	};
	char names[RT_BACKEND_LIST_MAX], all[128];
	char *save = NULL;

	snprintf(names, sizeof(names), "%s", list);
	for (char *name = strtok_r(names, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		struct rt_session_backend *b;
		struct rt_error_sink why = { .status = 0 };
		const struct rt_backend_ops *ops = rt_engine_backend(s, name);

		if (!ops) {
			known_names(all, sizeof(all));
			return rt_error_set(&s->errors, ENPU_RT_INVALID_ARGUMENT,
					    "unknown backend '%s' (known: %s)",
					    name, all);
		}
		for (size_t i = 0; i < s->requested_count; i++)
			if (s->requested[i].ops == ops)
				return rt_error_set(&s->errors,
						    ENPU_RT_INVALID_ARGUMENT,
						    "backend '%s' listed twice",
						    name);
		if (s->requested_count == RT_PARTITION_MAX_BACKENDS)
			return rt_error_set(&s->errors, ENPU_RT_INVALID_ARGUMENT,
					    "more than %d backends",
					    RT_PARTITION_MAX_BACKENDS);
		b = &s->requested[s->requested_count++];
		b->ops = ops;
		if (ops->open(&env, &b->self, &b->info, &why)) {
			b->self = NULL;
			snprintf(b->note, sizeof(b->note), "%s", why.message);
			continue;
		}
		s->active[s->active_count].ops = ops;
		s->active[s->active_count].self = b->self;
		s->active[s->active_count].info = b->info;
		s->active_count++;
	}
	if (!s->requested_count)
		return rt_error_set(&s->errors, ENPU_RT_INVALID_ARGUMENT,
				    "no backend listed");
	if (s->partitioning.strict && !s->requested[0].self)
		return rt_error_set(&s->errors, ENPU_RT_UNSUPPORTED,
				    "strict: backend '%s' is not available: %s",
				    s->requested[0].ops->name,
				    s->requested[0].note);
	if (!s->active_count)
		return rt_error_set(&s->errors, ENPU_RT_UNSUPPORTED,
				    "no listed backend is available: %s: %s",
				    s->requested[0].ops->name,
				    s->requested[0].note);
	return 0;
}

void rt_engine_close_backends(struct enpu_rt_session *s)
{
	for (size_t i = 0; i < s->requested_count; i++)
		if (s->requested[i].self)
			s->requested[i].ops->close(s->requested[i].self);
	s->requested_count = 0;
	s->active_count = 0;
}
