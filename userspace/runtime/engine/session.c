// SPDX-License-Identifier: MIT
/* The public API (enpu_rt.h): options, sessions, bindings, outputs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "onnx_loader.h"

static enum enpu_rt_status options_fail(enpu_rt_options *options,
					enum enpu_rt_status status,
					const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum enpu_rt_status options_fail(enpu_rt_options *options,
					enum enpu_rt_status status,
					const char *fmt, ...)
{
	va_list ap;

	if (options) {
		va_start(ap, fmt);
		vsnprintf(options->error, sizeof(options->error), fmt, ap);
		va_end(ap);
	}
	return status;
}

enum enpu_rt_status enpu_rt_options_create(enpu_rt_options **options)
{
	if (!options)
		return ENPU_RT_INVALID_ARGUMENT;
	*options = calloc(1, sizeof(**options));
	if (!*options)
		return ENPU_RT_OUT_OF_MEMORY;
	(*options)->threads = 1;
	(*options)->isa = ENPU_CPU_ISA_AUTO;
	(*options)->optimize = 1;
	snprintf((*options)->backends, sizeof((*options)->backends), "%s",
		 RT_DEFAULT_BACKENDS);
	(*options)->partitioning.min_nodes = 2;
	(*options)->partitioning.max_partitions = 16;
	return ENPU_RT_OK;
}

void enpu_rt_options_destroy(enpu_rt_options *options)
{
	free(options);
}

enum enpu_rt_status enpu_rt_options_set_threads(enpu_rt_options *options,
						unsigned int threads)
{
	if (!options)
		return ENPU_RT_INVALID_ARGUMENT;
	if (threads < 1 || threads > 256)
		return options_fail(options, ENPU_RT_INVALID_ARGUMENT,
				    "thread count %u is outside 1..256",
				    threads);
	options->threads = threads;
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_options_set_isa(enpu_rt_options *options,
					    const char *isa)
{
	enum enpu_cpu_isa value;

	if (!options || !isa)
		return ENPU_RT_INVALID_ARGUMENT;
	if (enpu_cpu_isa_from_name(isa, &value))
		return options_fail(options, ENPU_RT_INVALID_ARGUMENT,
				    "unknown instruction set '%s' (auto, "
				    "scalar, avx2, avx512vnni, neon, neondot, neoni8mm)", isa);
	if (value != ENPU_CPU_ISA_AUTO && !enpu_cpu_isa_supported(value))
		return options_fail(options, ENPU_RT_UNSUPPORTED,
				    "this CPU cannot run instruction set '%s'",
				    isa);
	options->isa = value;
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_options_set_optimize(enpu_rt_options *options,
						 int optimize)
{
	if (!options)
		return ENPU_RT_INVALID_ARGUMENT;
	options->optimize = optimize != 0;
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_options_set_backends(enpu_rt_options *options,
						 const char *list)
{
	char names[RT_BACKEND_LIST_MAX], *save = NULL;

	if (!options || !list)
		return ENPU_RT_INVALID_ARGUMENT;
	if (strlen(list) >= sizeof(names) || !*list)
		return options_fail(options, ENPU_RT_INVALID_ARGUMENT,
				    "backend list '%s' is empty or too long",
				    list);
	snprintf(names, sizeof(names), "%s", list);
	for (char *name = strtok_r(names, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		int extra = 0;

		for (size_t i = 0; i < options->extra_count; i++)
			extra |= !strcmp(options->extra[i]->name, name);
		if (!extra && !rt_engine_backend(NULL, name))
			return options_fail(options, ENPU_RT_INVALID_ARGUMENT,
					    "unknown backend '%s' in '%s'",
					    name, list);
	}
	snprintf(options->backends, sizeof(options->backends), "%s", list);
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_options_set_strict(enpu_rt_options *options,
					       int strict)
{
	if (!options)
		return ENPU_RT_INVALID_ARGUMENT;
	options->partitioning.strict = strict != 0;
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_options_set_partitioning(enpu_rt_options *options,
						     size_t min_nodes,
						     size_t max_partitions)
{
	if (!options)
		return ENPU_RT_INVALID_ARGUMENT;
	options->partitioning.min_nodes = min_nodes;
	options->partitioning.max_partitions = max_partitions;
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_options_set_device(enpu_rt_options *options,
					       const char *path)
{
	if (!options)
		return ENPU_RT_INVALID_ARGUMENT;
	if (path && strlen(path) >= sizeof(options->device_path))
		return options_fail(options, ENPU_RT_INVALID_ARGUMENT,
				    "device path is too long");
	snprintf(options->device_path, sizeof(options->device_path), "%s",
		 path ? path : "");
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_options_set_cache_dir(enpu_rt_options *options,
						  const char *dir)
{
	if (!options)
		return ENPU_RT_INVALID_ARGUMENT;
	if (dir && strlen(dir) >= sizeof(options->cache_dir) - 32)
		return options_fail(options, ENPU_RT_INVALID_ARGUMENT,
				    "cache directory path is too long");
	snprintf(options->cache_dir, sizeof(options->cache_dir), "%s",
		 dir ? dir : "");
	options->cache_set = 1;
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_options_set_device_time(enpu_rt_options *options,
						    int on)
{
	if (!options)
		return ENPU_RT_INVALID_ARGUMENT;
	options->device_time = on != 0;
	return ENPU_RT_OK;
}

/* $ENPU_RT_CACHE_DIR, else $XDG_CACHE_HOME/enpu-rt, else ~/.cache/enpu-rt. */
static void default_cache_dir(char *dir, size_t size)
{
	const char *env = getenv("ENPU_RT_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	dir[0] = 0;
	if (env)
		snprintf(dir, size, "%s", env);
	else if (xdg && *xdg)
		snprintf(dir, size, "%s/enpu-rt", xdg);
	else if (home && *home && strcmp(home, "/"))
		snprintf(dir, size, "%s/.cache/enpu-rt", home);
	if (strlen(dir) >= size - 32)
		dir[0] = 0;
}

/* FNV-1a over the model and what changes the graph made from it. */
static uint64_t model_hash(const void *data, size_t size, int optimize)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	h ^= (uint64_t)optimize;
	h *= 0x100000001b3ull;
	return h;
}

enum enpu_rt_status enpu_rt_options_set_cost_placement(enpu_rt_options *options,
						      int use_cost)
{
	if (!options)
		return ENPU_RT_INVALID_ARGUMENT;
	options->partitioning.ignore_cost = !use_cost;
	return ENPU_RT_OK;
}

const char *enpu_rt_options_error(const enpu_rt_options *options)
{
	return options ? options->error : "no options";
}

static enum enpu_rt_status create(const void *data, size_t size,
				  const char *base_dir,
				  enpu_rt_options *options,
				  enpu_rt_session **out)
{
	enpu_rt_session *s;
	int status;

	s = calloc(1, sizeof(*s));
	if (!s)
		return options_fail(options, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory creating a session");
	s->optimize = options ? options->optimize : 1;
	s->partitioning.min_nodes = 2;
	s->partitioning.max_partitions = 16;
	if (options)
		s->partitioning = options->partitioning;
	s->model_hash = model_hash(data, size, s->optimize);
	if (options)
		snprintf(s->device_path, sizeof(s->device_path), "%s",
			 options->device_path);
	if (options) {
		memcpy(s->extra, options->extra, sizeof(s->extra));
		s->extra_count = options->extra_count;
		s->device_time = options->device_time;
		s->stream_copies = options->stream_copies;
	}
	if (options && options->cache_set)
		snprintf(s->cache_dir, sizeof(s->cache_dir), "%s",
			 options->cache_dir);
	else
		default_cache_dir(s->cache_dir, sizeof(s->cache_dir));
	status = rt_graph_init(&s->graph, &s->errors);
	if (!status && enpu_cpu_context_create(options ? options->threads : 1,
					       &s->cpu))
		status = rt_error_set(&s->errors, ENPU_RT_OUT_OF_MEMORY,
				      "cannot create the CPU context");
	if (!status && options && options->isa != ENPU_CPU_ISA_AUTO &&
	    enpu_cpu_context_set_isa(s->cpu, options->isa))
		status = rt_error_set(&s->errors, ENPU_RT_UNSUPPORTED,
				      "%s", enpu_cpu_context_error(s->cpu));
	if (!status)
		status = rt_engine_open_backends(s, options ? options->backends :
						 RT_DEFAULT_BACKENDS);
	if (!status)
		status = rt_onnx_load(&s->graph, data, size, base_dir);
	if (!status) {
		s->bindings = calloc(s->graph.input_count + 1,
				     sizeof(*s->bindings));
		if (!s->bindings)
			status = rt_error_set(&s->errors,
					      ENPU_RT_OUT_OF_MEMORY,
					      "out of memory");
	}
	if (!status)
		status = rt_engine_prepare(s);
	if (status) {
		options_fail(options, status, "%s", s->errors.message);
		enpu_rt_session_destroy(s);
		return status;
	}
	*out = s;
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_session_create_from_memory(
	const void *data, size_t size, const char *base_dir,
	enpu_rt_options *options, enpu_rt_session **session)
{
	if (!session)
		return ENPU_RT_INVALID_ARGUMENT;
	*session = NULL;
	if (!data && size)
		return options_fail(options, ENPU_RT_INVALID_ARGUMENT,
				    "model data is NULL");
	return create(data ? data : "", size, base_dir, options, session);
}

enum enpu_rt_status enpu_rt_session_create_from_file(
	const char *path, enpu_rt_options *options, enpu_rt_session **session)
{
	struct rt_error_sink errors = { .status = 0 };
	void *data;
	size_t size;
	char *dir;
	enum enpu_rt_status status;

	if (!session)
		return ENPU_RT_INVALID_ARGUMENT;
	*session = NULL;
	if (!path)
		return options_fail(options, ENPU_RT_INVALID_ARGUMENT,
				    "model path is NULL");
	status = rt_read_file(path, RT_ONNX_MAX_MODEL_BYTES, &data, &size,
			      &errors);
	if (status)
		return options_fail(options, status, "%s", errors.message);
	dir = strdup(path);
	if (!dir) {
		free(data);
		return options_fail(options, ENPU_RT_OUT_OF_MEMORY,
				    "out of memory");
	}
	char *slash = strrchr(dir, '/');

	if (slash)
		*slash = 0;
	status = create(data, size, slash ? (*dir ? dir : "/") : ".",
			options, session);
	free(dir);
	free(data);
	return status;
}

void enpu_rt_session_destroy(enpu_rt_session *session)
{
	if (!session)
		return;
	if (session->running)
		rt_engine_run_finish(session);
	rt_engine_release_dmabufs(session);
	rt_engine_release(session);	/* releases op state: graph first */
	rt_graph_destroy(&session->graph);
	enpu_cpu_context_destroy(session->cpu);
	free(session->bindings);
	free(session);
}

const char *enpu_rt_session_error(const enpu_rt_session *session)
{
	return session ? session->errors.message : "no session";
}

size_t enpu_rt_session_input_count(const enpu_rt_session *session)
{
	return session ? session->graph.input_count : 0;
}

size_t enpu_rt_session_output_count(const enpu_rt_session *session)
{
	return session ? session->graph.output_count : 0;
}

static void fill_info(const struct rt_value *v,
		      struct enpu_rt_tensor_info *info)
{
	memset(info, 0, sizeof(*info));
	info->name = v->name;
	info->dtype = v->tensor.dtype;
	if (v->declared_rank >= 0) {
		info->rank = v->declared_rank;
		memcpy(info->dims, v->declared_dims, sizeof(info->dims));
	} else {
		/* Not declared: what load-time inference found, if anything. */
		info->rank = v->tensor.rank;
		if (v->tensor.rank > 0)
			memcpy(info->dims, v->tensor.dims, sizeof(info->dims));
	}
	for (int d = 0; d < ENPU_RT_MAX_RANK; d++)
		info->dim_names[d] = v->dim_names[d];
}

enum enpu_rt_status enpu_rt_session_input_info(
	const enpu_rt_session *session, size_t index,
	struct enpu_rt_tensor_info *info)
{
	if (!session || !info || index >= session->graph.input_count)
		return ENPU_RT_INVALID_ARGUMENT;
	fill_info(&session->graph.values[session->graph.inputs[index]], info);
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_session_output_info(
	const enpu_rt_session *session, size_t index,
	struct enpu_rt_tensor_info *info)
{
	if (!session || !info || index >= session->graph.output_count)
		return ENPU_RT_INVALID_ARGUMENT;
	fill_info(&session->graph.values[session->graph.outputs[index]],
		  info);
	return ENPU_RT_OK;
}

static enum enpu_rt_status find(const enpu_rt_session *session,
				const int *list, size_t count,
				const char *name, size_t *index)
{
	if (!session || !name || !index)
		return ENPU_RT_INVALID_ARGUMENT;
	for (size_t i = 0; i < count; i++)
		if (!strcmp(session->graph.values[list[i]].name, name)) {
			*index = i;
			return ENPU_RT_OK;
		}
	return ENPU_RT_INVALID_ARGUMENT;
}

enum enpu_rt_status enpu_rt_session_find_input(const enpu_rt_session *session,
					       const char *name, size_t *index)
{
	return find(session, session ? session->graph.inputs : NULL,
		    session ? session->graph.input_count : 0, name, index);
}

enum enpu_rt_status enpu_rt_session_find_output(
	const enpu_rt_session *session, const char *name, size_t *index)
{
	return find(session, session ? session->graph.outputs : NULL,
		    session ? session->graph.output_count : 0, name, index);
}

/* Input @index exists and no run is in flight; else the error, set. */
static int input_ready(enpu_rt_session *session, size_t index,
		       const char *doing)
{
	if (session->running)
		return rt_error_set(&session->errors, ENPU_RT_NOT_READY,
				    "a run is in flight: run_wait before %s",
				    doing);
	if (index >= session->graph.input_count)
		return rt_error_set(&session->errors, ENPU_RT_INVALID_ARGUMENT,
				    "input index %zu out of range (%zu inputs)",
				    index, session->graph.input_count);
	return 0;
}

enum enpu_rt_status enpu_rt_session_input_memory(enpu_rt_session *session,
						 size_t index,
						 size_t byte_size,
						 void **data)
{
	int status;

	if (!session || !data)
		return ENPU_RT_INVALID_ARGUMENT;
	*data = NULL;
	status = input_ready(session, index, "asking for input memory");
	if (status)
		return status;
	*data = rt_engine_input_memory(session, session->graph.inputs[index],
				       byte_size);
	return *data ? ENPU_RT_OK : session->errors.status;
}

enum enpu_rt_status enpu_rt_session_bind_input(enpu_rt_session *session,
					       size_t index, int32_t dtype,
					       size_t rank,
					       const int64_t *dims,
					       const void *data,
					       size_t byte_size)
{
	const struct rt_value *v;
	struct rt_binding *b;
	size_t elements = 1, element_size;
	int status;

	if (!session)
		return ENPU_RT_INVALID_ARGUMENT;
	status = input_ready(session, index, "binding");
	if (status)
		return status;
	v = &session->graph.values[session->graph.inputs[index]];
	b = &session->bindings[index];
	if (dtype != v->tensor.dtype)
		return rt_error_set(&session->errors, ENPU_RT_INVALID_ARGUMENT,
				    "input '%s': bound as %s, the model wants "
				    "%s", v->name, enpu_rt_dtype_name(dtype),
				    enpu_rt_dtype_name(v->tensor.dtype));
	if (rank > ENPU_RT_MAX_RANK || (rank && !dims))
		return rt_error_set(&session->errors, ENPU_RT_INVALID_ARGUMENT,
				    "input '%s': rank %zu invalid", v->name,
				    rank);
	if (v->declared_rank >= 0 && (int32_t)rank != v->declared_rank)
		return rt_error_set(&session->errors, ENPU_RT_INVALID_ARGUMENT,
				    "input '%s': rank %zu, the model declares %d",
				    v->name, rank, v->declared_rank);
	element_size = enpu_rt_dtype_size(dtype);
	for (size_t d = 0; d < rank; d++) {
		if (dims[d] < 0)
			return rt_error_set(&session->errors,
				ENPU_RT_INVALID_ARGUMENT,
				"input '%s': dimension %zu is negative",
				v->name, d);
		if (v->declared_rank >= 0 && v->declared_dims[d] >= 0 &&
		    v->declared_dims[d] != dims[d])
			return rt_error_set(&session->errors,
				ENPU_RT_INVALID_ARGUMENT,
				"input '%s': dimension %zu is %lld, the model "
				"declares %lld", v->name, d,
				(long long)dims[d],
				(long long)v->declared_dims[d]);
		if (dims[d] && elements > (SIZE_MAX / 16 / element_size) /
					  (uint64_t)dims[d])
			return rt_error_set(&session->errors,
				ENPU_RT_INVALID_ARGUMENT,
				"input '%s': size overflows", v->name);
		elements *= (size_t)dims[d];
	}
	if (byte_size != elements * element_size || (!data && byte_size))
		return rt_error_set(&session->errors, ENPU_RT_INVALID_ARGUMENT,
				    "input '%s': %zu bytes given, the shape "
				    "needs %zu", v->name, byte_size,
				    elements * element_size);
	b->bound = 1;
	b->rank = (int32_t)rank;
	memset(b->dims, 0, sizeof(b->dims));
	if (rank)
		memcpy(b->dims, dims, rank * sizeof(dims[0]));
	b->data = data ? data : (const void *)b;
	b->byte_size = byte_size;
	session->ran = 0;
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_session_run(enpu_rt_session *session)
{
	if (!session)
		return ENPU_RT_INVALID_ARGUMENT;
	return rt_engine_run(session);
}

enum enpu_rt_status enpu_rt_session_run_async(enpu_rt_session *session)
{
	if (!session)
		return ENPU_RT_INVALID_ARGUMENT;
	return rt_engine_run_async(session);
}

enum enpu_rt_status enpu_rt_session_run_wait(enpu_rt_session *session)
{
	if (!session)
		return ENPU_RT_INVALID_ARGUMENT;
	return rt_engine_run_finish(session);
}

enum enpu_rt_status enpu_rt_session_output(const enpu_rt_session *session,
					   size_t index,
					   struct enpu_rt_output *output)
{
	const struct rt_value *v;

	if (!session || !output || index >= session->graph.output_count)
		return ENPU_RT_INVALID_ARGUMENT;
	if (!session->ran)
		return ENPU_RT_NOT_READY;
	v = &session->graph.values[session->graph.outputs[index]];
	memset(output, 0, sizeof(*output));
	output->dtype = v->tensor.dtype;
	output->rank = (size_t)v->tensor.rank;
	memcpy(output->dims, v->tensor.dims, sizeof(output->dims));
	output->data = v->tensor.data;
	output->byte_size = v->tensor.byte_size;
	return ENPU_RT_OK;
}

size_t enpu_rt_session_node_count(const enpu_rt_session *session)
{
	return session ? session->graph.order_count : 0;
}

enum enpu_rt_status enpu_rt_session_node_timing(
	const enpu_rt_session *session, size_t index, const char **name,
	const char **op_type, uint64_t *nanoseconds)
{
	const struct rt_node *node;

	if (!session || index >= session->graph.order_count)
		return ENPU_RT_INVALID_ARGUMENT;
	node = &session->graph.nodes[session->graph.order[index]];
	if (name)
		*name = node->name;
	if (op_type)
		*op_type = node->op_type;
	if (nanoseconds) {
		size_t n = session->graph.order[index];
		int p = n < session->plan.node_count ?
			session->plan.nodes[n].partition : -1;

		*nanoseconds = 0;
		if (p >= 0 && session->compiled && session->compiled[p] &&
		    session->active[session->plan.partitions[p].backend].ops ==
		    &rt_backend_cpu)
			rt_cpu_node_time(session->compiled[p], n, nanoseconds);
	}
	return ENPU_RT_OK;
}

size_t enpu_rt_session_backend_count(const enpu_rt_session *session)
{
	return session ? session->requested_count : 0;
}

enum enpu_rt_status enpu_rt_session_backend(const enpu_rt_session *session,
					    size_t index,
					    struct enpu_rt_backend_info *info)
{
	if (!session || !info || index >= session->requested_count)
		return ENPU_RT_INVALID_ARGUMENT;
	info->name = session->requested[index].ops->name;
	info->active = session->requested[index].self != NULL;
	info->note = session->requested[index].note;
	return ENPU_RT_OK;
}

enum enpu_rt_status enpu_rt_session_node_placement(
	const enpu_rt_session *session, size_t index,
	struct enpu_rt_node_placement *placement)
{
	const struct rt_node_placement *p;
	size_t n;

	if (!session || !placement || index >= session->graph.order_count)
		return ENPU_RT_INVALID_ARGUMENT;
	n = session->graph.order[index];
	if (n >= session->plan.node_count)
		return ENPU_RT_NOT_READY;
	p = &session->plan.nodes[n];
	placement->name = session->graph.nodes[n].name;
	placement->op_type = session->graph.nodes[n].op_type;
	placement->backend = p->backend >= 0 ?
			     session->active[p->backend].ops->name : "";
	placement->partition = p->partition >= 0 ? (size_t)p->partition : 0;
	placement->macs = p->macs;
	placement->reason = p->reason;
	return ENPU_RT_OK;
}

size_t enpu_rt_session_partition_count(const enpu_rt_session *session)
{
	return session ? session->plan.partition_count : 0;
}

enum enpu_rt_status enpu_rt_session_partition(
	const enpu_rt_session *session, size_t index,
	struct enpu_rt_partition_info *info)
{
	const struct rt_partition *p;
	const struct rt_placement_backend *b;

	if (!session || !info || index >= session->plan.partition_count)
		return ENPU_RT_INVALID_ARGUMENT;
	p = &session->plan.partitions[index];
	b = &session->active[p->backend];
	memset(info, 0, sizeof(*info));
	info->backend = b->ops->name;
	info->node_count = p->node_count;
	info->macs = p->macs;
	info->input_count = p->input_count;
	info->output_count = p->output_count;
	if (session->compiled && session->compiled[index] && b->ops->stats) {
		struct rt_partition_stats st = { 0 };

		b->ops->stats(b->self, session->compiled[index], &st);
		info->host_ns = st.host_ns;
		info->device_ns = st.device_ns;
		info->modeled_ns = st.modeled_ns;
		info->copied_bytes = st.copied_bytes;
		info->commands = st.commands;
		info->from_cache = st.from_cache;
	}
	return ENPU_RT_OK;
}
