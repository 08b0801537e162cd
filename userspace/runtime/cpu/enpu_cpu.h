/* SPDX-License-Identifier: MIT */
/*
 * ENPU CPU fallback runtime: int8 kernels for the operators the NPU cannot
 * take. A context owns the thread pool and the chosen instruction set; no
 * state lives outside it. Every function returns 0 or a negative errno; the
 * context keeps a message naming the object and the reason of the last
 * failure (enpu_cpu_context_error()).
 */
#ifndef ENPU_CPU_H
#define ENPU_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "enpu_quantization.h"

typedef struct enpu_cpu_context enpu_cpu_context;
typedef struct enpu_cpu_gemm_weights enpu_cpu_gemm_weights;

/* Kernel families; AUTO picks the best one the CPU and the OS support. */
enum enpu_cpu_isa {
	ENPU_CPU_ISA_AUTO = 0,
	ENPU_CPU_ISA_SCALAR,
	ENPU_CPU_ISA_AVX2,
	ENPU_CPU_ISA_AVX512_VNNI,
	/*
	 * arm64: plain NEON (every AArch64 core), + SDOT/UDOT (ARMv8.2
	 * dotprod), + USDOT (ARMv8.6 i8mm). Later values are better.
	 */
	ENPU_CPU_ISA_NEON,
	ENPU_CPU_ISA_NEON_DOTPROD,
	ENPU_CPU_ISA_NEON_I8MM,
	ENPU_CPU_ISA_COUNT,
};

enum enpu_cpu_dtype {
	ENPU_CPU_UINT8 = 1,
	ENPU_CPU_INT8,
	ENPU_CPU_INT32,
};

/* "auto", "scalar", "avx2", "avx512vnni", "neon", "neondot", "neoni8mm". */
const char *enpu_cpu_isa_name(enum enpu_cpu_isa isa);
/* Parses the names above; returns -EINVAL for anything else. */
int enpu_cpu_isa_from_name(const char *name, enum enpu_cpu_isa *isa);
/* 1 when this CPU and OS can run @isa, else 0. */
int enpu_cpu_isa_supported(enum enpu_cpu_isa isa);

/*
 * Creates a context running on @thread_count threads (the caller's thread
 * is one of them). The instruction set is AUTO unless the environment
 * variable ENPU_CPU_ISA names one, which lets tests force a path.
 */
int enpu_cpu_context_create(unsigned int thread_count,
			    enpu_cpu_context **context);
void enpu_cpu_context_destroy(enpu_cpu_context *context);
int enpu_cpu_context_set_thread_count(enpu_cpu_context *context,
				      unsigned int thread_count);
unsigned int enpu_cpu_context_thread_count(const enpu_cpu_context *context);
/* Forces an instruction set; -ENOTSUP if this machine cannot run it. */
int enpu_cpu_context_set_isa(enpu_cpu_context *context,
			     enum enpu_cpu_isa isa);
/* The resolved instruction set (never AUTO). */
enum enpu_cpu_isa enpu_cpu_context_isa(const enpu_cpu_context *context);
/* Message describing the last failure on this context, or "". */
const char *enpu_cpu_context_error(const enpu_cpu_context *context);

/*
 * Runs function(argument, i) for every i in [0, task_count) on the
 * context's threads (the caller's among them) and returns when all have
 * run; tasks run in no particular order, each exactly once. For work of
 * the runtime's own ops that is none of the kernels below, so it shares
 * their pool instead of starting threads. Not reentrant: a task must not
 * call it, nor any kernel, on the same context.
 */
typedef void (*enpu_cpu_task_function)(void *argument, size_t task);
void enpu_cpu_parallel_for(enpu_cpu_context *context, size_t task_count,
			   enpu_cpu_task_function function, void *argument);
/*
 * The same with what the whole region moves (bytes read and written)
 * and computes (float operations; an int8 multiply-add counts a quarter
 * of one): the pool runs it on the caller alone when that is too little
 * to pay for a second thread (thread_pool.h, the grain rule).
 */
/*
 * The grain rule's threshold in nanoseconds of estimated one-thread work
 * (default ENPU_THREAD_POOL_SPLIT_NS); 0 shares every region of two or
 * more tasks (the unit tests' threaded pass). Kept when the thread count
 * changes.
 */
void enpu_cpu_context_set_split_ns(enpu_cpu_context *context,
				   uint64_t split_ns);
void enpu_cpu_parallel_for_work(enpu_cpu_context *context, size_t task_count,
				uint64_t bytes, uint64_t flops,
				enpu_cpu_task_function function,
				void *argument);

/*
 * Packs the int8 weights B[K][N] (row stride @ldb elements) and the optional
 * int32 bias[N] once, at model load. The packed object holds the column sums
 * needed to correct for the activation zero point, is read-only afterwards
 * and may be shared by concurrent GEMM calls. One layout serves every ISA.
 * K is limited to ENPU_CPU_GEMM_MAX_K so that the int32 sum of products
 * cannot overflow.
 */
#define ENPU_CPU_GEMM_MAX_K 65536
/*
 * Shape bounds of convolution and pooling, int8 and float: every batch,
 * channel count, input side, stride, pad and (int8) dilation is at most
 * ENPU_CPU_SIZE_LIMIT; int8 kernel sides are 1..ENPU_CPU_MAX_KERNEL;
 * float kernel sides and dilations 1..ENPU_CPU_FCONV_MAX_KERNEL. Beyond
 * them a call fails with -EINVAL and a message naming the size.
 */
#define ENPU_CPU_SIZE_LIMIT ((size_t)1 << 24)
#define ENPU_CPU_MAX_KERNEL 1024
#define ENPU_CPU_FCONV_MAX_KERNEL 4096
int enpu_cpu_gemm_weights_pack(enpu_cpu_context *context, size_t k, size_t n,
			       const int8_t *b, size_t ldb,
			       const int32_t *bias,
			       enpu_cpu_gemm_weights **weights);
void enpu_cpu_gemm_weights_destroy(enpu_cpu_gemm_weights *weights);
size_t enpu_cpu_gemm_weights_k(const enpu_cpu_gemm_weights *weights);
size_t enpu_cpu_gemm_weights_n(const enpu_cpu_gemm_weights *weights);

/*
 * Output quantization of a GEMM. Per output channel n:
 *   C[m][n] = enpu_requantize(acc[m][n], multiplier[n], shift[n],
 *                             zero_point, min, max)
 * min/max are in the output type's range and express a fused ReLU/ReLU6.
 * With per_channel == 0 only multiplier[0]/shift[0] are read.
 * Ignored when the output type is ENPU_CPU_INT32.
 */
struct enpu_cpu_requant {
	const int32_t *multiplier;
	const int32_t *shift;
	int per_channel;
	int32_t zero_point;
	int32_t min;
	int32_t max;
};

/*
 * C[M][N] = requant(sum_k (A[m][k] - a_zero_point) * B[k][n] + bias[n]).
 * A is uint8 or int8 (row stride lda elements); C is uint8, int8 or the raw
 * int32 accumulators (row stride ldc elements).
 */
struct enpu_cpu_gemm_args {
	size_t m;
	const void *a;
	size_t lda;
	enum enpu_cpu_dtype a_type;
	int32_t a_zero_point;
	const enpu_cpu_gemm_weights *weights;
	void *c;
	size_t ldc;
	enum enpu_cpu_dtype c_type;
	const struct enpu_cpu_requant *requant;
};

int enpu_cpu_gemm(enpu_cpu_context *context,
		  const struct enpu_cpu_gemm_args *args);

/*
 * The definition every optimized path is tested against: straight loops over
 * the unpacked B, no packing, no threads. Same argument checks as
 * enpu_cpu_gemm(), B given unpacked.
 */
int enpu_cpu_gemm_reference(enpu_cpu_context *context,
			    const struct enpu_cpu_gemm_args *args,
			    const int8_t *b, size_t ldb, const int32_t *bias,
			    size_t k, size_t n);

/* enpu_requant_from_scale(): see enpu_quantization.h. */

/* ==================================================================== */
/* Convolution, depthwise convolution, pooling, elementwise             */
/* ==================================================================== */

/*
 * Layout: activations are NHWC (channels innermost), every image of the
 * batch after the other, pixel after pixel; a pixel's channels may be
 * followed by unused elements (pixel_stride >= channels), which lets a
 * convolution read or write a channel slice of a wider tensor (Concat).
 * NHWC makes a pixel's channels one contiguous GEMM row: a 1x1 convolution
 * is a GEMM over the image, a KxK one a GEMM whose rows are gathered tap by
 * tap through an indirection buffer, and depthwise convolution, pooling and
 * elementwise ops vectorize over channels. The runtime converts from ONNX's
 * NCHW at graph boundaries.
 *
 * Weights come in ONNX order (OIHW: [output channel][input channel of the
 * group][kernel row][kernel column]) and are packed once.
 */
typedef struct enpu_cpu_conv_weights enpu_cpu_conv_weights;

struct enpu_cpu_conv_shape {
	size_t input_channels;
	size_t output_channels;
	size_t groups;              /* divides both channel counts */
	size_t kernel_height;
	size_t kernel_width;
	size_t stride_height;       /* >= 1 */
	size_t stride_width;
	size_t dilation_height;     /* >= 1 */
	size_t dilation_width;
	size_t pad_top;
	size_t pad_left;
	size_t pad_bottom;
	size_t pad_right;
};

/*
 * out = (in + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride + 1
 * per dimension (ONNX Conv); -EINVAL when the kernel does not fit.
 */
int enpu_cpu_conv_output_size(enpu_cpu_context *context,
			      const struct enpu_cpu_conv_shape *shape,
			      size_t input_height, size_t input_width,
			      size_t *output_height, size_t *output_width);

/*
 * Packs OIHW int8 weights (symmetric, per output channel) and the optional
 * int32 bias[output_channels]. groups == input_channels == output_channels
 * selects the depthwise kernels; other group counts run one GEMM per group.
 * The kernel's K per group (kernel taps x input channels of the group,
 * each tap rounded up to 4 channels) is limited to ENPU_CPU_GEMM_MAX_K.
 */
int enpu_cpu_conv_weights_pack(enpu_cpu_context *context,
			       const struct enpu_cpu_conv_shape *shape,
			       const int8_t *weights, const int32_t *bias,
			       enpu_cpu_conv_weights **weights_out);
void enpu_cpu_conv_weights_destroy(enpu_cpu_conv_weights *weights);

/*
 * output[n][y][x][o] = requant(bias[o] + sum over the kernel window and the
 * group's input channels of (input - input_zero_point) * weight), padding
 * reading as input_zero_point. Requantization is per output channel (or
 * per tensor), with the fused clamp of struct enpu_cpu_requant; an int32
 * output gets the raw accumulators (ConvInteger).
 */
struct enpu_cpu_conv_args {
	size_t batch;
	size_t input_height;
	size_t input_width;
	const void *input;
	size_t input_pixel_stride;      /* elements; 0 = input_channels */
	enum enpu_cpu_dtype input_type; /* uint8 or int8 */
	int32_t input_zero_point;
	const enpu_cpu_conv_weights *weights;
	void *output;
	size_t output_pixel_stride;     /* elements; 0 = output_channels */
	enum enpu_cpu_dtype output_type;
	const struct enpu_cpu_requant *requant;
};

int enpu_cpu_conv2d(enpu_cpu_context *context,
		    const struct enpu_cpu_conv_args *args);

/*
 * The definition the optimized paths are tested against: straight loops
 * over the unpacked OIHW weights; args->weights is not read.
 */
int enpu_cpu_conv2d_reference(enpu_cpu_context *context,
			      const struct enpu_cpu_conv_args *args,
			      const struct enpu_cpu_conv_shape *shape,
			      const int8_t *weights, const int32_t *bias);

/*
 * Pooling over NHWC int8/uint8 (output type = input type), ONNX MaxPool and
 * AveragePool semantics:
 * - output size: floor (or ceil with ceil_mode) of
 *   (in + pads - dilation * (kernel - 1) - 1) / stride, plus 1; with
 *   ceil_mode a last window starting past in + pad_begin is dropped
 *   (it would only cover padding).
 * - max pool ignores padding; average pool divides by the number of input
 *   pixels in the window, or with count_include_pad by the number of
 *   window positions inside the padded input. A window without input
 *   pixels gives the type's minimum (max) or the output zero point
 *   (average).
 * Average requantization: sum = sum over the window of (in - in_zp), then
 *   out = enpu_requantize(sum << L, M, S, out_zp, min, max)
 * with (M, S) = enpu_requant_from_scale(scale / (count * 2^L)), scale =
 * input_scale / output_scale and L the smallest shift in 0..30 that brings
 * the real multiplier below 1 while sum << L still fits in int32 (else
 * -EINVAL).
 */
struct enpu_cpu_pool_shape {
	size_t kernel_height;
	size_t kernel_width;
	size_t stride_height;
	size_t stride_width;
	size_t dilation_height;
	size_t dilation_width;
	size_t pad_top;
	size_t pad_left;
	size_t pad_bottom;
	size_t pad_right;
	int ceil_mode;
	int count_include_pad;
};

struct enpu_cpu_pool_args {
	size_t batch;
	size_t input_height;
	size_t input_width;
	size_t channels;
	enum enpu_cpu_dtype type;       /* uint8 or int8, input and output */
	const void *input;
	size_t input_pixel_stride;      /* elements; 0 = channels */
	void *output;
	size_t output_pixel_stride;     /* elements; 0 = channels */
	/* Average pooling only. */
	int32_t input_zero_point;
	double scale;                   /* input_scale / output_scale */
	int32_t output_zero_point;
	int32_t min;                    /* fused clamp, in the type's range */
	int32_t max;
};

int enpu_cpu_pool_output_size(enpu_cpu_context *context,
			      const struct enpu_cpu_pool_shape *shape,
			      size_t input_height, size_t input_width,
			      size_t *output_height, size_t *output_width);
int enpu_cpu_max_pool(enpu_cpu_context *context,
		      const struct enpu_cpu_pool_shape *shape,
		      const struct enpu_cpu_pool_args *args);
int enpu_cpu_average_pool(enpu_cpu_context *context,
			  const struct enpu_cpu_pool_shape *shape,
			  const struct enpu_cpu_pool_args *args);
/* Average over all of each image: output is batch x 1 x 1 x channels. */
int enpu_cpu_global_average_pool(enpu_cpu_context *context,
				 const struct enpu_cpu_pool_args *args);
int enpu_cpu_max_pool_reference(enpu_cpu_context *context,
				const struct enpu_cpu_pool_shape *shape,
				const struct enpu_cpu_pool_args *args);
/*
 * The average-pooling fixed-point parameters for a window of @count
 * pixels (the rule above): what the kernels use internally, exported so an
 * NPU compiler builds the per-count table of uapi/enpu_cmd.h's AVG_POOL
 * from the same code. 0, or -EINVAL when no L in 0..30 works.
 */
int enpu_cpu_average_pool_params(double scale, size_t count,
				 int32_t *left_shift, int32_t *multiplier,
				 int32_t *shift);
int enpu_cpu_average_pool_reference(enpu_cpu_context *context,
				    const struct enpu_cpu_pool_shape *shape,
				    const struct enpu_cpu_pool_args *args);
int enpu_cpu_global_average_pool_reference(enpu_cpu_context *context,
					   const struct enpu_cpu_pool_args *args);

/*
 * Elementwise int8 ops with QLinearAdd / QLinearMul semantics; a, b and
 * the output share one type (uint8 or int8) but not scales or zero points.
 * The fixed-point parameters are derived once from the float scales:
 *
 * Add:  acc = (a - a_zp) * Ma + (b - b_zp) * Mb        (int32, exact)
 *       out = clamp(((acc + 2^(S-1)) >> S) + out_zp, min, max)
 *       Ma = round(a_scale / out_scale * 2^S), Mb likewise (half away
 *       from zero), S in 1..31 the largest with max(Ma, Mb) < 2^21, so
 *       |acc| + 2^(S-1) < 2^31. Scale ratios up to 2^20 are supported.
 * Mul:  out = enpu_requantize(((a - a_zp) * (b - b_zp)) << L, M, S,
 *                             out_zp, min, max)
 *       (M, S) = enpu_requant_from_scale(a_scale * b_scale / out_scale /
 *       2^L), L the smallest in 0..15 bringing the ratio below 1.
 */
struct enpu_cpu_eltwise_quant {
	enum enpu_cpu_dtype type;
	double a_scale;
	int32_t a_zero_point;
	double b_scale;
	int32_t b_zero_point;
	double output_scale;
	int32_t output_zero_point;
	int32_t min;                /* fused clamp, in the type's range */
	int32_t max;
};

struct enpu_cpu_eltwise_params {
	enum enpu_cpu_dtype type;
	int32_t a_zero_point;
	int32_t b_zero_point;
	int32_t output_zero_point;
	int32_t min;
	int32_t max;
	int32_t a_multiplier;       /* add */
	int32_t b_multiplier;
	int32_t add_shift;
	int32_t left_shift;         /* mul */
	int32_t multiplier;
	int32_t shift;
};

int enpu_cpu_add_params(enpu_cpu_context *context,
			const struct enpu_cpu_eltwise_quant *quant,
			struct enpu_cpu_eltwise_params *params);
int enpu_cpu_mul_params(enpu_cpu_context *context,
			const struct enpu_cpu_eltwise_quant *quant,
			struct enpu_cpu_eltwise_params *params);

/*
 * Broadcasting through strides: the output is dense with shape[dims]; input
 * x's element at index (i0, ..., i{dims-1}) is at sum(i_d * x_strides[d])
 * elements, a stride of 0 repeats the input along that dimension (numpy
 * broadcasting; see enpu_cpu_broadcast_strides()).
 */
#define ENPU_CPU_MAX_DIMS 6
struct enpu_cpu_eltwise_args {
	size_t dims;                        /* 1..ENPU_CPU_MAX_DIMS */
	size_t shape[ENPU_CPU_MAX_DIMS];
	const void *a;
	size_t a_strides[ENPU_CPU_MAX_DIMS];
	const void *b;
	size_t b_strides[ENPU_CPU_MAX_DIMS];
	void *output;
	const struct enpu_cpu_eltwise_params *params;
};

/*
 * Strides for an input of shape input_shape[input_dims] broadcast
 * (numpy rules, aligned on the last dimension) to shape[dims], for a dense
 * input; -EINVAL if the shapes are not broadcast-compatible.
 */
int enpu_cpu_broadcast_strides(enpu_cpu_context *context, size_t dims,
			       const size_t *shape, size_t input_dims,
			       const size_t *input_shape, size_t *strides);

int enpu_cpu_add(enpu_cpu_context *context,
		 const struct enpu_cpu_eltwise_args *args);
int enpu_cpu_mul(enpu_cpu_context *context,
		 const struct enpu_cpu_eltwise_args *args);
int enpu_cpu_add_reference(enpu_cpu_context *context,
			   const struct enpu_cpu_eltwise_args *args);
int enpu_cpu_mul_reference(enpu_cpu_context *context,
			   const struct enpu_cpu_eltwise_args *args);

/*
 * ReLU / Clip in the quantized domain: out = clamp(in, min, max) over
 * @count elements of one 8-bit type (ReLU: min = zero point). In place is
 * allowed.
 */
int enpu_cpu_clamp(enpu_cpu_context *context, enum enpu_cpu_dtype type,
		   const void *input, void *output, size_t count,
		   int32_t min, int32_t max);
int enpu_cpu_clamp_reference(enpu_cpu_context *context,
			     enum enpu_cpu_dtype type, const void *input,
			     void *output, size_t count, int32_t min,
			     int32_t max);

/*
 * Byte lookup over @rows rows of @row_bytes bytes:
 * output[r * output_stride + i] = table[input[r * input_stride + i]].
 * The requantization of an 8-bit tensor between two per-tensor
 * quantizations (QLinearConcat): the caller fills the 256 entries with
 * the float DequantizeLinear / QuantizeLinear arithmetic, so the bytes
 * are that path's. Strides may exceed row_bytes (a channel slice of an
 * NHWC tensor); input and output must not overlap.
 */
struct enpu_cpu_lookup_args {
	const uint8_t *table;		/* 256 entries */
	const uint8_t *input;
	size_t input_stride;		/* bytes from one row to the next */
	uint8_t *output;
	size_t output_stride;
	size_t rows;
	size_t row_bytes;
};

int enpu_cpu_lookup(enpu_cpu_context *context,
		    const struct enpu_cpu_lookup_args *args);
int enpu_cpu_lookup_reference(enpu_cpu_context *context,
			      const struct enpu_cpu_lookup_args *args);

#endif /* ENPU_CPU_H */
