/* SPDX-License-Identifier: MIT */
/*
 * ENPU runtime public API: load an ONNX model, query its inputs and outputs,
 * bind host buffers, run, read the outputs.
 *
 * Rules that hold for every function:
 * - Handles are opaque; one _destroy per _create. Destroy functions accept
 *   NULL.
 * - Every function returns an enum enpu_rt_status. On failure the handle
 *   named in the call (or, for creation, the options object) keeps a message
 *   naming the object and the reason: enpu_rt_session_error(),
 *   enpu_rt_options_error(). Failed calls leave nothing allocated.
 * - No global state: two sessions share nothing, and may run on two
 *   threads at once. One session must not be used by two threads at once.
 * - Tensor element types use ONNX TensorProto.DataType numbering.
 */
#ifndef ENPU_RT_H
#define ENPU_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum enpu_rt_status {
	ENPU_RT_OK = 0,
	ENPU_RT_INVALID_ARGUMENT,	/* bad call: NULL, index, size, shape */
	ENPU_RT_INVALID_MODEL,		/* malformed protobuf or graph */
	ENPU_RT_UNSUPPORTED,		/* valid ONNX we do not implement */
	ENPU_RT_OUT_OF_MEMORY,
	ENPU_RT_IO_ERROR,		/* model or external data file */
	ENPU_RT_RUNTIME_ERROR,		/* an op failed while running */
	ENPU_RT_NOT_READY,		/* e.g. run before every input bound */
};

/* ONNX TensorProto.DataType values the runtime knows. */
enum enpu_rt_dtype {
	ENPU_RT_UNDEFINED = 0,
	ENPU_RT_FLOAT = 1,
	ENPU_RT_UINT8 = 2,
	ENPU_RT_INT8 = 3,
	ENPU_RT_UINT16 = 4,
	ENPU_RT_INT16 = 5,
	ENPU_RT_INT32 = 6,
	ENPU_RT_INT64 = 7,
	ENPU_RT_STRING = 8,
	ENPU_RT_BOOL = 9,
	ENPU_RT_FLOAT16 = 10,
	ENPU_RT_DOUBLE = 11,
	ENPU_RT_UINT32 = 12,
	ENPU_RT_UINT64 = 13,
	ENPU_RT_COMPLEX64 = 14,
	ENPU_RT_COMPLEX128 = 15,
	ENPU_RT_BFLOAT16 = 16,
	/*
	 * Not TensorProto types: ONNX sequence and optional values, which
	 * travel as one packed byte buffer (see enpu_rt_value_pack()).
	 */
	ENPU_RT_SEQUENCE = 0x10000,
	ENPU_RT_OPTIONAL = 0x10001,
};

#define ENPU_RT_MAX_RANK 8

typedef struct enpu_rt_options enpu_rt_options;
typedef struct enpu_rt_session enpu_rt_session;

/* Short name of a status ("ok", "invalid model", ...). */
const char *enpu_rt_status_name(enum enpu_rt_status status);
/* ONNX name of a type ("float", "uint8", ...), or "unknown". */
const char *enpu_rt_dtype_name(int32_t dtype);
/* Bytes per element, 0 for types without a fixed size (string, undefined). */
size_t enpu_rt_dtype_size(int32_t dtype);

/* Options: threads (default 1) and instruction set (default "auto"). */
enum enpu_rt_status enpu_rt_options_create(enpu_rt_options **options);
void enpu_rt_options_destroy(enpu_rt_options *options);
enum enpu_rt_status enpu_rt_options_set_threads(enpu_rt_options *options,
						unsigned int threads);
/* "auto", "scalar", "avx2", "avx512vnni" (x86), "neon", "neondot",
 * "neoni8mm" (arm64). */
enum enpu_rt_status enpu_rt_options_set_isa(enpu_rt_options *options,
					    const char *isa);
/*
 * 0 turns off the graph optimizations (constant folding, fusions,
 * quantized lowering); for tests comparing optimized and plain graphs.
 */
enum enpu_rt_status enpu_rt_options_set_optimize(enpu_rt_options *options,
						 int optimize);
/*
 * Backends in preference order, comma-separated: "npu,cpu" (the default)
 * puts each node on the NPU when it can run there and on the CPU
 * otherwise; "cpu" runs everything on the CPU. A backend that cannot open
 * (no device) is left out with a note (enpu_rt_session_backend()), unless
 * strict mode is on.
 */
enum enpu_rt_status enpu_rt_options_set_backends(enpu_rt_options *options,
						 const char *list);
/*
 * Strict mode: refuse to load (ENPU_RT_UNSUPPORTED) rather than run any
 * node anywhere but on the first backend; the message names every node
 * that would fall back, and why.
 */
enum enpu_rt_status enpu_rt_options_set_strict(enpu_rt_options *options,
					       int strict);
/*
 * Partitioning limits: partitions of fewer than @min_nodes nodes leave a
 * non-fallback backend (default 2); at most @max_partitions partitions
 * (0: no cap; default 16).
 */
enum enpu_rt_status enpu_rt_options_set_partitioning(enpu_rt_options *options,
						     size_t min_nodes,
						     size_t max_partitions);
/*
 * 0: keep every partition a backend claims even where the cost estimate
 * says running it elsewhere is faster (its dispatch costs more than it
 * saves); 1 (the default): leave such partitions to the next backend.
 */
enum enpu_rt_status enpu_rt_options_set_cost_placement(enpu_rt_options *options,
						      int use_cost);
/*
 * The NPU to use: a device node path (/dev/accel/accel0), or NULL for the
 * first ENPU found (the default).
 */
enum enpu_rt_status enpu_rt_options_set_device(enpu_rt_options *options,
					       const char *path);
/*
 * Where the NPU backend keeps compiled partitions (docs/runtime.md, "The
 * compiled-partition cache"); "" or NULL turns the cache off. Default:
 * $ENPU_RT_CACHE_DIR, else $XDG_CACHE_HOME/enpu-rt, else
 * $HOME/.cache/enpu-rt.
 */
enum enpu_rt_status enpu_rt_options_set_cache_dir(enpu_rt_options *options,
						  const char *dir);
/*
 * 1: the NPU backend reads the device's busy counter (PERF_BUSY_NS, from
 * the driver's debugfs, root only) before and after each of its jobs, so
 * that enpu_rt_session_partition() reports device_ns. Each reading is a
 * file read of the driver's register dump, which costs more than the rest
 * of a job's submission, so it is off by default (device_ns 0): a
 * profiling switch, as enpu-run and enpu-demo use it.
 */
enum enpu_rt_status enpu_rt_options_set_device_time(enpu_rt_options *options,
						    int on);
const char *enpu_rt_options_error(const enpu_rt_options *options);

/*
 * Loads a model. @options may be NULL (defaults). On failure *session is
 * NULL and, when @options is given, enpu_rt_options_error() says why (the
 * message names the node, the op and the reason).
 * From memory, external data files are resolved against @base_dir (NULL:
 * external data is refused).
 */
enum enpu_rt_status enpu_rt_session_create_from_file(
	const char *path, enpu_rt_options *options, enpu_rt_session **session);
enum enpu_rt_status enpu_rt_session_create_from_memory(
	const void *data, size_t size, const char *base_dir,
	enpu_rt_options *options, enpu_rt_session **session);
void enpu_rt_session_destroy(enpu_rt_session *session);
const char *enpu_rt_session_error(const enpu_rt_session *session);

/* What the model declares for one input or output. */
struct enpu_rt_tensor_info {
	const char *name;		/* valid while the session lives */
	int32_t dtype;			/* enum enpu_rt_dtype */
	int32_t rank;			/* -1: the model does not say */
	int64_t dims[ENPU_RT_MAX_RANK];	/* -1: symbolic or unknown */
	const char *dim_names[ENPU_RT_MAX_RANK]; /* symbolic names or NULL */
};

size_t enpu_rt_session_input_count(const enpu_rt_session *session);
size_t enpu_rt_session_output_count(const enpu_rt_session *session);
enum enpu_rt_status enpu_rt_session_input_info(
	const enpu_rt_session *session, size_t index,
	struct enpu_rt_tensor_info *info);
enum enpu_rt_status enpu_rt_session_output_info(
	const enpu_rt_session *session, size_t index,
	struct enpu_rt_tensor_info *info);
/* Index of the input/output called @name; ENPU_RT_INVALID_ARGUMENT if none. */
enum enpu_rt_status enpu_rt_session_find_input(const enpu_rt_session *session,
					       const char *name, size_t *index);
enum enpu_rt_status enpu_rt_session_find_output(
	const enpu_rt_session *session, const char *name, size_t *index);

/*
 * Binds a host buffer to input @index for the following runs. The session
 * does not copy it: the buffer must stay valid and unchanged until the next
 * bind of that input or the session's destruction. dtype must match the
 * model; dims must match every fixed dimension the model declares.
 */
enum enpu_rt_status enpu_rt_session_bind_input(enpu_rt_session *session,
					       size_t index, int32_t dtype,
					       size_t rank,
					       const int64_t *dims,
					       const void *data,
					       size_t byte_size);

/*
 * Memory for input @index that the backend reading it uses in place: for
 * an input the NPU reads, a buffer object of the device mapped for the
 * host, so a run that has it bound (enpu_rt_session_bind_input() with
 * *data) copies nothing at that seam (enpu_rt_partition_info.copied_bytes
 * stays 0), where a buffer of the caller's is copied into a staging buffer
 * object on every run; for an input only the CPU reads, aligned heap
 * memory. The caller writes the tensor into it (a decoder or a camera's
 * CPU stage can produce the frame there). At least @byte_size bytes, owned
 * by the session: valid until the session is destroyed or this is asked
 * again for the same input with a larger size (which gives new memory).
 */
enum enpu_rt_status enpu_rt_session_input_memory(enpu_rt_session *session,
						 size_t index,
						 size_t byte_size,
						 void **data);

/*
 * Binds a dma-buf (e.g. a vgem or udmabuf camera frame) to input @index:
 * the session maps it for the CPU and the NPU imports it, so neither
 * copies it (enpu_rt_partition_info.copied_bytes stays 0). The session
 * keeps its own dup of the fd until the next bind of that input or its
 * destruction; the caller keeps @dmabuf_fd. The buffer's contents must not
 * change while a run reads it.
 */
enum enpu_rt_status enpu_rt_session_bind_input_dmabuf(
	enpu_rt_session *session, size_t index, int32_t dtype, size_t rank,
	const int64_t *dims, int dmabuf_fd, size_t byte_size);
/*
 * Output @index is written straight into a dma-buf of at least the
 * output's bytes (enpu_rt_session_output() then points into its mapping).
 */
enum enpu_rt_status enpu_rt_session_bind_output_dmabuf(
	enpu_rt_session *session, size_t index, int dmabuf_fd,
	size_t byte_size);

/* Runs the graph on the bound inputs. */
enum enpu_rt_status enpu_rt_session_run(enpu_rt_session *session);
/*
 * The same in two halves, for pipelining: run_async runs the partitions in
 * order until one must wait for an NPU job still in flight (typically
 * the CPU work before the NPU's partition, then its submit) and returns;
 * run_wait runs the rest and waits for every job. Between them the
 * session's inputs must stay unchanged, and nothing else may be done
 * with the session; other sessions may run (double buffering: frame N+1's
 * run_async on a second session while the NPU runs frame N).
 */
enum enpu_rt_status enpu_rt_session_run_async(enpu_rt_session *session);
enum enpu_rt_status enpu_rt_session_run_wait(enpu_rt_session *session);

/*
 * The output of the last successful run: its shape and a pointer to
 * session-owned memory, valid until the next run or the destruction.
 */
struct enpu_rt_output {
	int32_t dtype;
	size_t rank;
	int64_t dims[ENPU_RT_MAX_RANK];
	const void *data;
	size_t byte_size;
};
enum enpu_rt_status enpu_rt_session_output(const enpu_rt_session *session,
					   size_t index,
					   struct enpu_rt_output *output);

/*
 * Sequence and optional values (ENPU_RT_SEQUENCE, ENPU_RT_OPTIONAL) are
 * bound and returned as one packed byte buffer: rank 1, dims[0] = bytes.
 * A sequence holds @count tensors (or nested packed values) of one
 * element type; an optional holds 0 (none) or 1. Build one with
 * enpu_rt_value_size() and enpu_rt_value_pack(), read one with
 * enpu_rt_value_info() and enpu_rt_value_item() (which check the buffer
 * and return ENPU_RT_INVALID_ARGUMENT for a malformed one).
 */
struct enpu_rt_value_item {
	int32_t dtype;		/* a tensor type, or SEQUENCE/OPTIONAL */
	size_t rank;
	int64_t dims[ENPU_RT_MAX_RANK];
	const void *data;	/* into the buffer when read */
	size_t byte_size;
};
size_t enpu_rt_value_size(size_t count, const struct enpu_rt_value_item *items);
/* @elem_dtype: the tensor type of the elements (0: unknown, e.g. empty). */
enum enpu_rt_status enpu_rt_value_pack(int32_t kind, int32_t elem_dtype,
				       size_t count,
				       const struct enpu_rt_value_item *items,
				       void *buffer, size_t size);
enum enpu_rt_status enpu_rt_value_info(const void *buffer, size_t size,
				       int32_t *kind, int32_t *elem_dtype,
				       size_t *count);
enum enpu_rt_status enpu_rt_value_item(const void *buffer, size_t size,
				       size_t index,
				       struct enpu_rt_value_item *item);

/* Per-node wall time of the last run, for tools; names valid as above.
 * Nodes run by a backend as one unit (the NPU) report 0: see the
 * partition's times. */
size_t enpu_rt_session_node_count(const enpu_rt_session *session);
enum enpu_rt_status enpu_rt_session_node_timing(
	const enpu_rt_session *session, size_t index, const char **name,
	const char **op_type, uint64_t *nanoseconds);

/* A backend the options asked for; @note says why it is not in use. */
struct enpu_rt_backend_info {
	const char *name;
	int active;		/* opened and used for placement */
	const char *note;	/* "" when active */
};
size_t enpu_rt_session_backend_count(const enpu_rt_session *session);
enum enpu_rt_status enpu_rt_session_backend(const enpu_rt_session *session,
					    size_t index,
					    struct enpu_rt_backend_info *info);

/* Where node @index (the order of enpu_rt_session_node_timing()) runs. */
struct enpu_rt_node_placement {
	const char *name;
	const char *op_type;
	const char *backend;
	size_t partition;
	uint64_t macs;		/* multiply-accumulates, from shapes */
	const char *reason;	/* why not on the first backend; "" if it is */
};
enum enpu_rt_status enpu_rt_session_node_placement(
	const enpu_rt_session *session, size_t index,
	struct enpu_rt_node_placement *placement);

/* A set of nodes one backend runs as a unit, in run order. */
struct enpu_rt_partition_info {
	const char *backend;
	size_t node_count;
	uint64_t macs;
	size_t input_count;	/* values at its seams */
	size_t output_count;
	uint64_t host_ns;	/* last run: wall time the host spent */
	uint64_t device_ns;	/* last run: device time (0: none) */
	uint64_t modeled_ns;	/* the NPU compiler's device time estimate */
	uint64_t copied_bytes;	/* last run: bytes copied at its seams */
	uint32_t commands;	/* NPU commands in its job */
	int from_cache;		/* NPU: compiled form read from the cache */
};
size_t enpu_rt_session_partition_count(const enpu_rt_session *session);
enum enpu_rt_status enpu_rt_session_partition(
	const enpu_rt_session *session, size_t index,
	struct enpu_rt_partition_info *info);

#ifdef __cplusplus
}
#endif

#endif /* ENPU_RT_H */
