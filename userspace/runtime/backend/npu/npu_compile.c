// SPDX-License-Identifier: MIT
/*
 * The NPU compiler: one partition to one command stream, through
 * libenpu's builders (enpu_cmdbuf_*), plus the bytes of its constants and
 * the size of its arena.
 *
 * Memory. A job names BOs by their index in its list: NPU_BO_ARENA (every
 * intermediate, one BO, offsets reused once a value is dead: first fit
 * over live ranges in partition order, 64-byte aligned), NPU_BO_CONSTS
 * (weights OIHW, biases, per-channel (M, S) tables, average-pool tables,
 * constant operands), then one BO per value at the partition's seams
 * (inputs first), which hold the value in ONNX layout: the engine and the
 * CPU read and write them as they are.
 *
 * Layout. Tensors are NHWC on the device (rank 4 [N,C,H,W] as N,H,W,C;
 * rank 2 [M,K] as 1,1,M,K; rank 1 [K] as 1,1,1,K). A seam value whose
 * NHWC bytes are its ONNX bytes (C == 1, H*W == 1, rank != 4) is read and
 * written in place; any other one is moved between its seam BO and the
 * arena by COPY commands, one per image and channel plane, on the device.
 *
 * Parameters. Every integer of a command comes from ops/rt_qparams.h,
 * the functions the CPU ops run on, so the NPU and the CPU compute the
 * same bytes.
 *
 * Tiling. Every command keeps to the limits of npu_tiling.c (the
 * scheduler's preemption bound, the SRAM): layers are cut into bands of
 * output rows and slices of output channels.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu.h"
#include "op_view.h"
#include "qnhwc.h"
#include "rt_enpu_ops.h"
#include "rt_qparams.h"

enum place_kind { PLACE_NONE = 0, PLACE_ARENA, PLACE_SEAM };

struct place {
	enum place_kind kind;
	uint32_t bo;
	uint64_t offset;
	struct npu_tensor t;
	int root;		/* the arena value whose bytes these are */
	int def, last;		/* positions: 0 prologue, i + 1 node i */
	int boundary;		/* index in c->boundaries, -1 */
	int moved;		/* a seam value kept in the arena (layout) */
};

struct compile {
	struct npu_backend *b;
	struct rt_graph *g;
	const struct rt_partition *p;
	struct npu_compiled *c;
	struct rt_error_sink *why;
	struct npu_limits lim;
	enpu_cmdbuf *cmd;
	struct place *pl;
	uint8_t *consts;
	uint64_t consts_size, consts_cap;
	const char *label;	/* node being compiled */
};

static size_t elem_size(uint32_t dtype)
{
	return dtype == ENPU_DTYPE_INT32 || dtype == ENPU_DTYPE_FLOAT32 ? 4 : 1;
}

static uint64_t tensor_bytes(const struct npu_tensor *t)
{
	return (uint64_t)t->n * t->h * t->w * t->c * elem_size(t->dtype);
}

static uint64_t align_up(uint64_t v)
{
	return (v + NPU_ALIGN - 1) / NPU_ALIGN * NPU_ALIGN;
}

static int fail(struct compile *cc, int status, const char *what)
{
	const char *m = "";

	if (cc->cmd)
		enpu_cmdbuf_last_error(cc->cmd, &m);
	return rt_error_set(cc->why, ENPU_RT_UNSUPPORTED,
			    "NPU compiler: %s: %s: %s", cc->label, what,
			    m && *m ? m : strerror(-status));
}

static int oom(struct compile *cc)
{
	return rt_error_set(cc->why, ENPU_RT_OUT_OF_MEMORY,
			    "NPU compiler: out of memory at %s", cc->label);
}

/* Appends @bytes of constants; their offset in the constants BO. */
static int const_add(struct compile *cc, const void *data, uint64_t bytes,
		     uint64_t *offset)
{
	uint64_t at = align_up(cc->consts_size), end = at + bytes;

	if (end > NPU_TENSOR_MAX_BYTES)
		return rt_error_set(cc->why, ENPU_RT_UNSUPPORTED,
				    "NPU compiler: constants above %llu MiB",
				    NPU_TENSOR_MAX_BYTES >> 20);
	if (end > cc->consts_cap) {
		uint64_t cap = cc->consts_cap ? cc->consts_cap : 65536;
		uint8_t *grown;

		while (cap < end)
			cap *= 2;
		grown = realloc(cc->consts, cap);
		if (!grown)
			return oom(cc);
		cc->consts = grown;
		cc->consts_cap = cap;
	}
	memset(cc->consts + cc->consts_size, 0, at - cc->consts_size);
	if (data)
		memcpy(cc->consts + at, data, bytes);
	else
		memset(cc->consts + at, 0, bytes);
	cc->consts_size = end;
	*offset = at;
	return 0;
}

/* A per-channel requantization table in the device's layout. */
static int const_add_requant(struct compile *cc, const int32_t *multiplier,
			     const int32_t *shift, uint32_t channels,
			     uint64_t *offset)
{
	struct enpu_requant_param *table;
	int status = const_add(cc, NULL, channels * sizeof(*table), offset);

	if (status)
		return status;
	table = (struct enpu_requant_param *)(cc->consts + *offset);
	for (uint32_t c = 0; c < channels; c++) {
		table[c].multiplier = multiplier[c];
		table[c].shift = shift[c];
	}
	return 0;
}

/* Adds a command of @macs and @bytes to the job's modeled time. */
static void account(struct compile *cc, uint64_t macs, uint64_t bytes)
{
	uint64_t cycles = npu_cycles(&cc->lim, macs, bytes);

	cc->c->cycles += cycles + (cc->c->command_count ? NPU_POINT_CYCLES : 0);
	cc->c->command_count++;
	if (cycles > cc->lim.budget_cycles)
		cc->c->over_budget++;
	if (cycles > cc->c->longest_cycles)
		cc->c->longest_cycles = cycles;
}

static struct enpu_layer_ref cref(uint64_t offset)
{
	return (struct enpu_layer_ref){ .bo_index = NPU_BO_CONSTS,
					.offset = offset };
}

static struct enpu_layer_ref no_ref(void)
{
	return (struct enpu_layer_ref){ .bo_index = ENPU_BUF_NONE };
}

#define REQUANT_BYTES sizeof(struct enpu_requant_param)

/* Row @channel of the per-channel requantization table at @table. */
static struct enpu_layer_ref requant_ref(uint64_t table, uint32_t channel)
{
	return cref(table + channel * REQUANT_BYTES);
}

static struct enpu_layer_tensor desc(const struct place *p, int32_t zero)
{
	return (struct enpu_layer_tensor){
		.buf = { .bo_index = p->bo, .offset = p->offset },
		.batch = p->t.n, .height = p->t.h, .width = p->t.w,
		.channels = p->t.c, .pixel_stride = p->t.pixel_stride,
		.dtype = p->t.dtype, .zero_point = zero,
	};
}

/* Image n0, rows [y0, y0 + rows), columns [x0, x0 + cols), channels
 * [c0, c0 + cn) of @full. */
static struct enpu_layer_tensor slice(const struct enpu_layer_tensor *full,
				      uint32_t n0, uint32_t y0, uint32_t rows,
				      uint32_t x0, uint32_t cols, uint32_t c0,
				      uint32_t cn)
{
	struct enpu_layer_tensor t = *full;
	uint64_t ps = full->pixel_stride ? full->pixel_stride : full->channels;

	t.buf.offset += ((((uint64_t)n0 * full->height + y0) * full->width +
			  x0) * ps + c0) * elem_size(full->dtype);
	t.batch = 1;
	t.height = rows;
	t.width = cols;
	t.channels = cn;
	t.pixel_stride = (uint32_t)ps;
	return t;
}

/* ---- COPY (layout moves, concatenation) and DMA_COPY ---- */

struct copy_fit {
	struct compile *cc;
	uint64_t row_bytes;
};

static bool copy_fits(void *ctx, uint32_t rows)
{
	struct copy_fit *f = ctx;

	return npu_fits(&f->cc->lim, 0, 2 * f->row_bytes * rows);
}

/* COPY @src to @dst (same dims), cut into images and bands of rows. */
static int emit_copy(struct compile *cc, const struct enpu_layer_tensor *src,
		     const struct enpu_layer_tensor *dst)
{
	struct copy_fit f = {
		cc, (uint64_t)src->width * src->channels *
		    elem_size(src->dtype),
	};
	uint32_t rows = npu_most_rows(src->height, copy_fits, &f), bands;
	int status;

	bands = npu_band_count(src->height, rows);
	for (uint32_t n = 0; n < src->batch; n++)
		for (uint32_t i = 0; i < bands; i++) {
			struct enpu_layer_tensor a, b;
			uint32_t r0, r1;

			npu_band_rows(src->height, bands, i, &r0, &r1);
			a = slice(src, n, r0, r1 - r0, 0, src->width, 0,
				  src->channels);
			b = slice(dst, n, r0, r1 - r0, 0, dst->width, 0,
				  dst->channels);
			a.zero_point = b.zero_point = 0;
			status = enpu_cmdbuf_copy(cc->cmd, &a, &b);
			if (status)
				return fail(cc, status, "COPY");
			account(cc, 0, 2 * f.row_bytes * (r1 - r0));
		}
	return 0;
}

static int emit_dma(struct compile *cc, const struct place *from,
		    const struct place *to, uint64_t bytes)
{
	uint64_t chunk = cc->lim.budget_cycles * NPU_BYTES_PER_CYCLE;

	for (uint64_t at = 0; at < bytes; at += chunk) {
		uint64_t size = bytes - at < chunk ? bytes - at : chunk;
		int status = enpu_cmdbuf_dma_copy(cc->cmd, from->bo,
						  from->offset + at, to->bo,
						  to->offset + at, size);

		if (status)
			return fail(cc, status, "DMA_COPY");
		cc->c->cycles += size / NPU_BYTES_PER_CYCLE +
				 (cc->c->command_count ? NPU_POINT_CYCLES : 0);
		cc->c->command_count++;
	}
	return 0;
}

/*
 * NCHW bytes at @seam <-> NHWC at @dev: one COPY per image and channel
 * (a plane of H x W elements, pixel stride 1 on one side, C on the other).
 */
/* Plane (@n, @c) of the NCHW bytes at @seam, as a 1-channel tensor. */
static struct enpu_layer_tensor onnx_plane(const struct place *seam,
					   uint32_t n, uint32_t c)
{
	const struct npu_tensor *t = &seam->t;
	uint64_t plane = (uint64_t)t->h * t->w;

	return (struct enpu_layer_tensor){
		.buf = { .bo_index = seam->bo,
			 .offset = seam->offset + ((uint64_t)n * t->c + c) *
				   plane * elem_size(t->dtype) },
		.batch = 1, .height = t->h, .width = t->w,
		.channels = 1, .pixel_stride = 1, .dtype = t->dtype,
	};
}

static int emit_transpose(struct compile *cc, const struct place *seam,
			  const struct place *dev, int to_device)
{
	const struct npu_tensor *t = &seam->t;
	struct enpu_layer_tensor full = desc(dev, 0);

	for (uint32_t n = 0; n < t->n; n++)
		for (uint32_t c = 0; c < t->c; c++) {
			struct enpu_layer_tensor onnx = onnx_plane(seam, n, c);
			struct enpu_layer_tensor nhwc = slice(&full, n, 0, t->h,
							      0, t->w, c, 1);
			int status = to_device ?
				     emit_copy(cc, &onnx, &nhwc) :
				     emit_copy(cc, &nhwc, &onnx);

			if (status)
				return status;
		}
	return 0;
}

/* ---- constant operands in device layout ---- */

static int const_tensor(struct compile *cc, const struct rt_tensor *x,
			int rank, struct place *out)
{
	struct npu_tensor t;
	uint64_t offset, es;
	uint8_t *dst;
	int status;

	if (!npu_broadcast_shape(x, rank, &t))
		return rt_error_set(cc->why, ENPU_RT_UNSUPPORTED,
				    "NPU compiler: %s: a constant operand has "
				    "no device layout", cc->label);
	es = elem_size(t.dtype);
	status = const_add(cc, NULL, tensor_bytes(&t), &offset);
	if (status)
		return status;
	dst = cc->consts + offset;
	if (rank == 4) {
		const uint8_t *src = x->data;

		for (uint32_t n = 0; n < t.n; n++)
			for (uint32_t c = 0; c < t.c; c++)
				for (uint32_t i = 0; i < t.h * t.w; i++)
					memcpy(dst + (((uint64_t)n * t.h * t.w +
						       i) * t.c + c) * es,
					       src + (((uint64_t)n * t.c + c) *
						      t.h * t.w + i) * es, es);
	} else {
		memcpy(dst, x->data, tensor_bytes(&t));
	}
	memset(out, 0, sizeof(*out));
	out->kind = PLACE_ARENA;
	out->bo = NPU_BO_CONSTS;
	out->offset = offset;
	out->t = t;
	return 0;
}

/* The place a node reads input @i from (a constant goes to the consts). */
static int input_place(struct compile *cc, const struct rt_node *node,
		       size_t i, int rank, struct place *out)
{
	int v = node->inputs[i];
	const struct rt_value *val = &cc->g->values[v];

	if (val->kind == RT_VALUE_CONSTANT)
		return const_tensor(cc, &val->tensor, rank, out);
	*out = cc->pl[v];
	if (rank != val->tensor.rank && !npu_broadcast_shape(&val->tensor, rank,
							     &out->t))
		return rt_error_set(cc->why, ENPU_RT_UNSUPPORTED,
				    "NPU compiler: %s: input %zu has no "
				    "device layout", cc->label, i);
	return 0;
}

/* ---- CONV2D / DEPTHWISE_CONV2D ---- */

struct conv_fit {
	struct compile *cc;
	const struct rt_qconv_params *q;
	int depthwise, bias, table;
	uint32_t channels;	/* output channels of a piece */
	size_t out_es;
};

/* A band of @rows output rows reading @in_rows (0: the most it may). */
static void conv_piece(const struct conv_fit *f, uint32_t rows,
		       uint64_t in_rows, uint64_t *macs, uint64_t *bytes)
{
	const struct enpu_cpu_conv_shape *s = &f->q->shape;
	uint64_t ext = s->dilation_height * (s->kernel_height - 1) + 1;
	uint64_t cin = f->depthwise ? f->channels : s->input_channels;
	uint64_t taps = s->kernel_height * s->kernel_width *
			(s->input_channels / s->groups);

	if (!in_rows)
		in_rows = (rows - 1) * s->stride_height + ext;
	if (in_rows > f->q->height)
		in_rows = f->q->height;
	*macs = (uint64_t)rows * f->q->out_width * f->channels * taps;
	*bytes = in_rows * f->q->width * cin + f->channels * taps +
		 (f->bias ? f->channels * 4ull : 0) +
		 (f->table ? f->channels * REQUANT_BYTES : 0) +
		 (uint64_t)rows * f->q->out_width * f->channels * f->out_es;
}

static bool conv_fits(void *ctx, uint32_t rows)
{
	const struct conv_fit *f = ctx;
	uint64_t macs, bytes;

	conv_piece(f, rows, 0, &macs, &bytes);
	return npu_fits(&f->cc->lim, macs, bytes);
}

static int emit_conv(struct compile *cc, const struct rt_node *node,
		     struct rt_kernel *k)
{
	const struct rt_tensor *in[RT_QCONV_INPUTS];
	size_t n_in = npu_node_inputs(cc->g, node, in, RT_QCONV_INPUTS);
	const struct rt_tensor *w = in[RT_QCONV_W], *bias = in[RT_QCONV_BIAS];
	struct rt_qconv_params q;
	const struct enpu_cpu_conv_shape *s = &q.shape;
	struct enpu_layer_tensor x, y;
	struct conv_fit f = { cc, &q, 0, bias != NULL, 0, 0, 1 };
	uint64_t w_off, b_off = 0, t_off = 0, taps;
	uint32_t chunks = 1, rows, bands, cout;
	int status = rt_qconv_params(k, in, n_in, &q), per_tensor = 1;

	if (status)
		return status;
	cout = (uint32_t)s->output_channels;
	taps = s->kernel_height * s->kernel_width *
	       (s->input_channels / s->groups);
	for (uint32_t c = 1; c < cout; c++)
		if (q.multiplier[c] != q.multiplier[0] ||
		    q.shift[c] != q.shift[0])
			per_tensor = 0;
	f.table = !per_tensor;
	f.depthwise = s->groups > 1 && s->groups == s->input_channels &&
		      s->groups == s->output_channels;
	status = const_add(cc, w->data, (uint64_t)cout * taps, &w_off);
	if (!status && bias)
		status = const_add(cc, bias->data, cout * 4ull, &b_off);
	if (!status && !per_tensor)
		status = const_add_requant(cc, q.multiplier, q.shift, cout,
					   &t_off);
	if (status)
		goto out;
	x = desc(&cc->pl[node->inputs[RT_QCONV_X]], q.x_zero);
	y = desc(&cc->pl[node->outputs[0]], q.y_zero);
	f.out_es = elem_size(y.dtype);
	/* Output channel slices when one row of all of them is too much. */
	f.channels = cout;
	if (s->groups == 1 || f.depthwise)
		while (f.channels > 1 && !conv_fits(&f, 1)) {
			chunks++;
			f.channels = (cout + chunks - 1) / chunks;
		}
	rows = npu_most_rows((uint32_t)q.out_height, conv_fits, &f);
	bands = npu_band_count((uint32_t)q.out_height, rows);
	for (uint32_t n = 0; n < q.batch; n++)
		for (uint32_t ch = 0; ch < chunks; ch++)
			for (uint32_t i = 0; i < bands; i++) {
				struct enpu_conv2d_layer l = { 0 };
				struct npu_band bd;
				uint32_t r0, r1, c0, c1;
				uint64_t macs, bytes;

				npu_band_rows(cout, chunks, ch, &c0, &c1);
				npu_band_rows((uint32_t)q.out_height, bands, i,
					      &r0, &r1);
				npu_conv_band((uint32_t)q.height,
					      (uint32_t)s->kernel_height,
					      (uint32_t)s->stride_height,
					      (uint32_t)s->dilation_height,
					      (uint32_t)s->pad_top, r0, r1, &bd);
				l.input = slice(&x, n, bd.in_y0, bd.in_rows, 0,
						x.width, f.depthwise ? c0 : 0,
						f.depthwise ? c1 - c0 :
						x.channels);
				l.output = slice(&y, n, r0, r1 - r0, 0, y.width,
						 c0, c1 - c0);
				l.weights = cref(w_off + c0 * taps);
				l.bias = bias ? cref(b_off + c0 * 4ull) :
					no_ref();
				l.requant.per_channel = per_tensor ?
					no_ref() :
					requant_ref(t_off, c0);
				l.requant.multiplier = per_tensor ?
						       q.multiplier[0] : 0;
				l.requant.shift = per_tensor ? q.shift[0] : 0;
				l.requant.min = q.lo;
				l.requant.max = q.hi;
				l.kernel_height = (uint32_t)s->kernel_height;
				l.kernel_width = (uint32_t)s->kernel_width;
				l.stride_height = (uint32_t)s->stride_height;
				l.stride_width = (uint32_t)s->stride_width;
				l.dilation_height = (uint32_t)s->dilation_height;
				l.dilation_width = (uint32_t)s->dilation_width;
				l.pad_top = bd.pad_top;
				l.pad_bottom = bd.pad_bottom;
				l.pad_left = (uint32_t)s->pad_left;
				l.pad_right = (uint32_t)s->pad_right;
				l.groups = f.depthwise ? c1 - c0 :
					   (uint32_t)s->groups;
				status = f.depthwise ?
					 enpu_cmdbuf_depthwise_conv2d(cc->cmd, &l) :
					 enpu_cmdbuf_conv2d(cc->cmd, &l);
				if (status) {
					status = fail(cc, status, "CONV2D");
					goto out;
				}
				f.channels = c1 - c0;
				conv_piece(&f, r1 - r0, bd.in_rows, &macs,
					   &bytes);
				account(cc, macs, bytes);
			}
out:
	rt_qconv_params_free(&q);
	return status;
}

/* ---- FULLY_CONNECTED ---- */

struct fc_fit {
	struct compile *cc;
	uint64_t k, channels;
	int bias, table;
	size_t out_es;
};

static void fc_piece(const struct fc_fit *f, uint32_t rows, uint64_t *macs,
		     uint64_t *bytes)
{
	*macs = rows * f->channels * f->k;
	*bytes = rows * f->k + f->channels * f->k +
		 (f->bias ? f->channels * 4 : 0) +
		 (f->table ? f->channels * REQUANT_BYTES : 0) +
		 rows * f->channels * f->out_es;
}

static bool fc_fits(void *ctx, uint32_t rows)
{
	const struct fc_fit *f = ctx;
	uint64_t macs, bytes;

	fc_piece(f, rows, &macs, &bytes);
	return npu_fits(&f->cc->lim, macs, bytes);
}

static int emit_fc(struct compile *cc, const struct rt_node *node,
		   struct rt_kernel *k)
{
	const struct rt_tensor *in[RT_QGEMM_INPUTS];
	size_t n_in = npu_node_inputs(cc->g, node, in, RT_QGEMM_INPUTS);
	const struct rt_tensor *a = in[RT_QGEMM_A], *b = in[RT_QGEMM_B];
	const struct rt_tensor *bias = in[RT_QGEMM_BIAS];
	const struct rt_tensor *az = in[RT_QGEMM_A_ZERO];
	const struct rt_value *yv = &cc->g->values[node->outputs[0]];
	uint32_t m = (uint32_t)a->dims[0], kk = (uint32_t)a->dims[1];
	uint32_t n = (uint32_t)b->dims[1], chunks = 1, rows, bands;
	struct rt_qgemm_requant r;
	struct enpu_layer_tensor x, y;
	struct fc_fit f = { cc, kk, n, bias != NULL, 0, 1 };
	uint64_t w_off, b_off = 0, t_off = 0;
	int32_t a_zero = az ? (int32_t)rt_tensor_get_double(az, 0) : 0;
	int status = rt_qgemm_requant(k, in, n_in, n, yv->tensor.dtype, &r);

	if (status)
		return status;
	if (!r.fixed) {
		rt_qgemm_requant_free(&r);
		return rt_error_set(cc->why, ENPU_RT_UNSUPPORTED,
				    "NPU compiler: %s: scales outside the "
				    "fixed-point rule", cc->label);
	}
	f.table = r.per_channel;
	/* ONNX B is [K][N]; the device's weights are [N][K]. */
	status = const_add(cc, NULL, (uint64_t)n * kk, &w_off);
	if (!status) {
		const int8_t *src = b->data;
		int8_t *dst = (int8_t *)(cc->consts + w_off);

		for (uint32_t j = 0; j < n; j++)
			for (uint32_t i = 0; i < kk; i++)
				dst[(uint64_t)j * kk + i] =
					src[(uint64_t)i * n + j];
	}
	if (!status && bias)
		status = const_add(cc, bias->data, n * 4ull, &b_off);
	if (!status && r.per_channel)
		status = const_add_requant(cc, r.multiplier, r.shift, n,
					   &t_off);
	if (status)
		goto out;
	x = desc(&cc->pl[node->inputs[RT_QGEMM_A]], a_zero);
	y = desc(&cc->pl[node->outputs[0]], r.zero_point);
	f.out_es = elem_size(y.dtype);
	while (f.channels > 1 && !fc_fits(&f, 1)) {
		chunks++;
		f.channels = (n + chunks - 1) / chunks;
	}
	rows = npu_most_rows(m, fc_fits, &f);
	bands = npu_band_count(m, rows);
	for (uint32_t ch = 0; ch < chunks; ch++)
		for (uint32_t i = 0; i < bands; i++) {
			struct enpu_fc_layer l = { 0 };
			uint32_t r0, r1, c0, c1;
			uint64_t macs, bytes;

			npu_band_rows(n, chunks, ch, &c0, &c1);
			npu_band_rows(m, bands, i, &r0, &r1);
			l.input = slice(&x, 0, 0, 1, r0, r1 - r0, 0, kk);
			l.output = slice(&y, 0, 0, 1, r0, r1 - r0, c0, c1 - c0);
			l.weights = cref(w_off + (uint64_t)c0 * kk);
			l.bias = bias ? cref(b_off + c0 * 4ull) :
				no_ref();
			l.requant.per_channel = r.per_channel ?
				requant_ref(t_off, c0) :
				no_ref();
			l.requant.multiplier = r.per_channel ? 0 :
					       r.multiplier[0];
			l.requant.shift = r.per_channel ? 0 : r.shift[0];
			l.requant.min = r.lo;
			l.requant.max = r.hi;
			status = enpu_cmdbuf_fully_connected(cc->cmd, &l);
			if (status) {
				status = fail(cc, status, "FULLY_CONNECTED");
				goto out;
			}
			f.channels = c1 - c0;
			fc_piece(&f, r1 - r0, &macs, &bytes);
			account(cc, macs, bytes);
		}
out:
	rt_qgemm_requant_free(&r);
	return status;
}

/* ---- ADD / MUL ---- */

struct eltwise_fit {
	struct compile *cc;
	const struct npu_tensor *a, *b, *y;
	uint32_t cols;		/* of a piece; 0 while choosing rows */
};

static uint64_t operand_bytes(const struct npu_tensor *t, uint32_t rows,
			      uint32_t cols)
{
	return (uint64_t)(t->h == 1 ? 1 : rows) * (t->w == 1 ? 1 : cols) *
	       t->c;
}

static bool eltwise_fits(void *ctx, uint32_t rows)
{
	const struct eltwise_fit *f = ctx;
	uint32_t cols = f->cols ? f->cols : f->y->w;

	return npu_fits(&f->cc->lim, 0,
			operand_bytes(f->a, rows, cols) +
			operand_bytes(f->b, rows, cols) +
			operand_bytes(f->y, rows, cols));
}

static bool eltwise_cols_fit(void *ctx, uint32_t cols)
{
	struct eltwise_fit *f = ctx;
	bool fits;

	f->cols = cols;
	fits = eltwise_fits(f, 1);
	f->cols = 0;
	return fits;
}

static struct enpu_layer_tensor operand_slice(const struct enpu_layer_tensor *t,
					      uint32_t n, uint32_t r0,
					      uint32_t r1, uint32_t x0,
					      uint32_t x1)
{
	return slice(t, t->batch == 1 ? 0 : n, t->height == 1 ? 0 : r0,
		     t->height == 1 ? 1 : r1 - r0, t->width == 1 ? 0 : x0,
		     t->width == 1 ? 1 : x1 - x0, 0, t->channels);
}

static int emit_eltwise(struct compile *cc, const struct rt_node *node,
			struct rt_kernel *k, int mul)
{
	const struct rt_tensor *in[RT_QBINARY_INPUTS];
	size_t n_in = npu_node_inputs(cc->g, node, in, RT_QBINARY_INPUTS);
	int rank = cc->g->values[node->outputs[0]].tensor.rank;
	struct enpu_cpu_eltwise_params q;
	struct place pa, pb;
	struct enpu_layer_tensor a, b, y;
	struct eltwise_fit f;
	uint32_t rows, bands, cols, col_pieces;
	int status = rt_qeltwise_params(k, in, n_in, mul, &q);

	if (status)
		return status;
	status = input_place(cc, node, RT_QBINARY_A, rank, &pa);
	if (!status)
		status = input_place(cc, node, RT_QBINARY_B, rank, &pb);
	if (status)
		return status;
	a = desc(&pa, q.a_zero_point);
	b = desc(&pb, q.b_zero_point);
	y = desc(&cc->pl[node->outputs[0]], q.output_zero_point);
	f = (struct eltwise_fit){ cc, &pa.t, &pb.t, &cc->pl[node->outputs[0]].t,
				  0 };
	cols = y.width;
	rows = npu_most_rows(y.height, eltwise_fits, &f);
	if (!rows) {
		rows = 1;
		cols = npu_most_rows(y.width, eltwise_cols_fit, &f);
	}
	bands = npu_band_count(y.height, rows);
	col_pieces = npu_band_count(y.width, cols);
	for (uint32_t n = 0; n < y.batch; n++)
		for (uint32_t i = 0; i < bands; i++)
			for (uint32_t j = 0; j < col_pieces; j++) {
				uint32_t r0, r1, x0, x1;
				struct enpu_layer_tensor sa, sb, sy;

				npu_band_rows(y.height, bands, i, &r0, &r1);
				npu_band_rows(y.width, col_pieces, j, &x0, &x1);
				sa = operand_slice(&a, n, r0, r1, x0, x1);
				sb = operand_slice(&b, n, r0, r1, x0, x1);
				sy = slice(&y, n, r0, r1 - r0, x0, x1 - x0, 0,
					   y.channels);
				if (mul) {
					struct enpu_mul_layer l = {
						.a = sa, .b = sb, .output = sy,
						.left_shift = q.left_shift,
						.multiplier = q.multiplier,
						.shift = q.shift,
						.min = q.min, .max = q.max,
					};

					status = enpu_cmdbuf_mul(cc->cmd, &l);
				} else {
					struct enpu_add_layer l = {
						.a = sa, .b = sb, .output = sy,
						.a_multiplier = q.a_multiplier,
						.b_multiplier = q.b_multiplier,
						.shift = q.add_shift,
						.min = q.min, .max = q.max,
					};

					status = enpu_cmdbuf_add(cc->cmd, &l);
				}
				if (status)
					return fail(cc, status, mul ? "MUL" : "ADD");
				account(cc, 0,
					(uint64_t)sa.height * sa.width * sa.channels +
					(uint64_t)sb.height * sb.width * sb.channels +
					(uint64_t)sy.height * sy.width * sy.channels);
			}
	return 0;
}

/* ---- MAX_POOL / AVG_POOL ---- */

struct pool_fit {
	struct compile *cc;
	const struct enpu_cpu_pool_shape *s;
	uint64_t in_h, in_w, out_w, channels, table_bytes;
};

static bool pool_fits(void *ctx, uint32_t rows)
{
	const struct pool_fit *f = ctx;
	uint64_t in_rows = (rows - 1) * f->s->stride_height +
			   f->s->dilation_height * (f->s->kernel_height - 1) + 1;

	if (in_rows > f->in_h)
		in_rows = f->in_h;
	return npu_fits(&f->cc->lim, 0,
			(in_rows * f->in_w + (uint64_t)rows * f->out_w) *
			f->channels + f->table_bytes);
}

static int emit_pool(struct compile *cc, const struct rt_node *node,
		     struct rt_kernel *k, enum rt_qpool_kind kind)
{
	const struct rt_tensor *in[RT_QPOOL_INPUTS];
	size_t n_in = npu_node_inputs(cc->g, node, in, RT_QPOOL_INPUTS);
	struct rt_qpool_params q;
	struct enpu_cpu_pool_shape *s = &q.shape;
	struct enpu_layer_tensor x, y;
	struct pool_fit f = { cc, &q.shape, 0, 0, 0, 0, 0 };
	uint64_t t_off = 0;
	int32_t single[3] = { 0, 0, 0 };
	uint32_t rows, bands, chunks = 1, oh, ow, ih, iw;
	int table = 0, status = rt_qpool_params(k, kind, in, n_in, &q);

	if (status)
		return status;
	x = desc(&cc->pl[node->inputs[0]], q.args.input_zero_point);
	y = desc(&cc->pl[node->outputs[0]], q.args.output_zero_point);
	ih = x.height;
	iw = x.width;
	oh = y.height;
	ow = y.width;
	if (kind == RT_QPOOL_GLOBAL) {
		*s = (struct enpu_cpu_pool_shape){
			.kernel_height = ih, .kernel_width = iw,
			.stride_height = 1, .stride_width = 1,
			.dilation_height = 1, .dilation_width = 1,
		};
		enpu_cpu_average_pool_params(q.args.scale, (size_t)ih * iw,
					     &single[2], &single[0], &single[1]);
	} else if (kind == RT_QPOOL_AVERAGE) {
		size_t taps = s->kernel_height * s->kernel_width;

		table = s->ceil_mode || s->pad_top || s->pad_left ||
			s->pad_bottom || s->pad_right;
		if (!table) {
			enpu_cpu_average_pool_params(q.args.scale, taps,
						     &single[2], &single[0],
						     &single[1]);
		} else {
			struct enpu_pool_param *t;

			status = const_add(cc, NULL, taps * sizeof(*t), &t_off);
			if (status)
				return status;
			t = (struct enpu_pool_param *)(cc->consts + t_off);
			for (size_t c = 1; c <= taps; c++)
				enpu_cpu_average_pool_params(
					q.args.scale, c, &t[c - 1].left_shift,
					&t[c - 1].multiplier, &t[c - 1].shift);
			f.table_bytes = taps * sizeof(*t);
		}
	}
	/* Bands of rows, except where the rows are not independent. */
	f.in_h = ih;
	f.in_w = iw;
	f.out_w = ow;
	f.channels = y.channels;
	if (kind == RT_QPOOL_GLOBAL || s->ceil_mode) {
		rows = oh;
		while (f.channels > 1 && !pool_fits(&f, oh) &&
		       kind == RT_QPOOL_GLOBAL) {
			chunks++;
			f.channels = (y.channels + chunks - 1) / chunks;
		}
	} else {
		rows = npu_most_rows(oh, pool_fits, &f);
	}
	bands = npu_band_count(oh, rows);
	for (uint32_t n = 0; n < x.batch; n++)
		for (uint32_t ch = 0; ch < chunks; ch++)
			for (uint32_t i = 0; i < bands; i++) {
				struct enpu_pool_layer l = { 0 };
				struct npu_band bd = { 0, ih, 0, 0 };
				uint32_t r0, r1, c0, c1;

				npu_band_rows(y.channels, chunks, ch, &c0, &c1);
				npu_band_rows(oh, bands, i, &r0, &r1);
				if (bands > 1)
					npu_conv_band(ih,
						      (uint32_t)s->kernel_height,
						      (uint32_t)s->stride_height,
						      (uint32_t)s->dilation_height,
						      (uint32_t)s->pad_top, r0, r1,
						      &bd);
				else
					bd = (struct npu_band){
						0, ih, (uint32_t)s->pad_top,
						(uint32_t)s->pad_bottom };
				l.input = slice(&x, n, bd.in_y0, bd.in_rows, 0,
						iw, c0, c1 - c0);
				l.output = slice(&y, n, r0, r1 - r0, 0, ow, c0,
						 c1 - c0);
				l.params = table ? cref(t_off) :
					no_ref();
				l.kernel_height = (uint32_t)s->kernel_height;
				l.kernel_width = (uint32_t)s->kernel_width;
				l.stride_height = (uint32_t)s->stride_height;
				l.stride_width = (uint32_t)s->stride_width;
				l.dilation_height = (uint32_t)s->dilation_height;
				l.dilation_width = (uint32_t)s->dilation_width;
				l.pad_top = bd.pad_top;
				l.pad_bottom = bd.pad_bottom;
				l.pad_left = (uint32_t)s->pad_left;
				l.pad_right = (uint32_t)s->pad_right;
				l.flags = (s->ceil_mode ? ENPU_POOL_CEIL_MODE : 0) |
					  (s->count_include_pad &&
					   kind == RT_QPOOL_AVERAGE ?
					   ENPU_POOL_COUNT_INCLUDE_PAD : 0);
				if (kind == RT_QPOOL_MAX) {
					l.input.zero_point = 0;
					l.output.zero_point = 0;
					l.min = q.args.min;
					l.max = q.args.max;
					status = enpu_cmdbuf_max_pool(cc->cmd, &l);
				} else {
					if (!table) {
						l.multiplier = single[0];
						l.shift = single[1];
						l.left_shift = single[2];
					}
					l.min = q.args.min;
					l.max = q.args.max;
					status = enpu_cmdbuf_avg_pool(cc->cmd, &l);
				}
				if (status)
					return fail(cc, status, "POOL");
				account(cc, 0,
					((uint64_t)bd.in_rows * iw +
					 (uint64_t)(r1 - r0) * ow) * (c1 - c0) +
					f.table_bytes);
			}
	return 0;
}

/* ---- QUANTIZE (interface 1.6) and DEQUANTIZE (1.7) ---- */

/* Bytes of one row: 4 + 1 per element, float one way, 8-bit the other. */
struct quantize_fit {
	struct compile *cc;
	uint64_t row_bytes;
};

static bool quantize_fits(void *ctx, uint32_t rows)
{
	struct quantize_fit *f = ctx;

	return npu_fits(&f->cc->lim, 0, f->row_bytes * rows);
}

/*
 * @src (float) to @dst (8-bit, same dims), or with @dequantize 8-bit to
 * float, cut into images and bands.
 */
static int emit_convert_tensor(struct compile *cc,
			       const struct enpu_layer_tensor *src,
			       const struct enpu_layer_tensor *dst,
			       float scale, bool dequantize)
{
	struct quantize_fit f = {
		cc, (uint64_t)src->width * src->channels * (4 + 1),
	};
	uint32_t rows = npu_most_rows(src->height, quantize_fits, &f), bands;

	bands = npu_band_count(src->height, rows);
	for (uint32_t n = 0; n < src->batch; n++)
		for (uint32_t i = 0; i < bands; i++) {
			struct enpu_layer_tensor a, b;
			uint32_t r0, r1;
			int status;

			npu_band_rows(src->height, bands, i, &r0, &r1);
			a = slice(src, n, r0, r1 - r0, 0, src->width, 0,
				  src->channels);
			b = slice(dst, n, r0, r1 - r0, 0, dst->width, 0,
				  dst->channels);
			if (dequantize) {
				struct enpu_dequantize_layer l = {
					.input = a, .output = b, .scale = scale,
				};

				status = enpu_cmdbuf_dequantize(cc->cmd, &l);
			} else {
				struct enpu_quantize_layer l = {
					.input = a, .output = b, .scale = scale,
				};

				status = enpu_cmdbuf_quantize(cc->cmd, &l);
			}
			if (status)
				return fail(cc, status, dequantize ?
					    "DEQUANTIZE" : "QUANTIZE");
			account(cc, 0, f.row_bytes * (r1 - r0));
		}
	return 0;
}

/* One QUANTIZE (@dequantize false: @f into @q) or DEQUANTIZE (@q into @f). */
static int emit_convert_pair(struct compile *cc,
			     const struct enpu_layer_tensor *f,
			     const struct enpu_layer_tensor *q, float scale,
			     bool dequantize)
{
	return dequantize ? emit_convert_tensor(cc, q, f, scale, true) :
			    emit_convert_tensor(cc, f, q, scale, false);
}

/*
 * Quantize8 and its mirror DequantizeLinear, between a float tensor and an
 * 8-bit one. A float seam value is never kept in the arena (place_values):
 * in NCHW it is converted plane by plane, each plane to or from its
 * channel of the NHWC 8-bit tensor, so the frame is transposed and
 * converted in one pass.
 */
static int emit_convert(struct compile *cc, const struct rt_node *node,
			struct rt_kernel *k, bool dequantize)
{
	int fv = dequantize ? node->outputs[0] : node->inputs[0];
	int qv = dequantize ? node->inputs[0] : node->outputs[0];
	const struct place *f = &cc->pl[fv];
	const struct rt_tensor *in[3];
	struct enpu_layer_tensor q, t;
	int32_t zero;
	double scale;
	int status;

	npu_node_inputs(cc->g, node, in, 3);
	status = dequantize ? rt_q_dequantize_params(k, in, &scale, &zero) :
			      rt_q_quantize_params(k, in, &scale, &zero);
	if (status)
		return status;
	q = desc(&cc->pl[qv], zero);
	if (f->kind == PLACE_SEAM && !npu_layout_is_onnx(&cc->g->values[fv])) {
		for (uint32_t n = 0; n < f->t.n; n++)
			for (uint32_t c = 0; c < f->t.c; c++) {
				struct enpu_layer_tensor plane =
					onnx_plane(f, n, c);
				struct enpu_layer_tensor part =
					slice(&q, n, 0, f->t.h, 0, f->t.w, c, 1);

				status = emit_convert_pair(cc, &plane, &part,
							   (float)scale,
							   dequantize);
				if (status)
					return status;
			}
		return 0;
	}
	t = desc(f, 0);
	return emit_convert_pair(cc, &t, &q, (float)scale, dequantize);
}

/* ---- Concat along channels: a COPY of each input into its slice ---- */

static int emit_concat(struct compile *cc, const struct rt_node *node)
{
	const struct rt_value *yv = &cc->g->values[node->outputs[0]];
	struct enpu_layer_tensor y = desc(&cc->pl[node->outputs[0]], 0);
	uint32_t c0 = 0;

	for (size_t i = 0; i < node->input_count; i++) {
		struct enpu_layer_tensor x, dst;
		struct place px;
		int status;

		if (node->inputs[i] < 0)
			continue;
		status = input_place(cc, node, i, yv->tensor.rank, &px);
		if (status)
			return status;
		x = desc(&px, 0);
		dst = y;
		dst.buf.offset += (uint64_t)c0 * elem_size(y.dtype);
		dst.channels = x.channels;
		dst.pixel_stride = y.channels;
		status = emit_copy(cc, &x, &dst);
		if (status)
			return status;
		c0 += x.channels;
	}
	return 0;
}

/* ---- the partition ---- */

static int emit_node(struct compile *cc, const struct rt_node *node)
{
	struct rt_kernel k;

	rt_op_view(&k, node, cc->b->cpu, cc->why);
	cc->label = rt_node_label(node);
	switch (npu_op_of(node)) {
	case NPU_OP_CONV:
		return emit_conv(cc, node, &k);
	case NPU_OP_FC:
		return emit_fc(cc, node, &k);
	case NPU_OP_ADD:
		return emit_eltwise(cc, node, &k, 0);
	case NPU_OP_MUL:
		return emit_eltwise(cc, node, &k, 1);
	case NPU_OP_MAX_POOL:
		return emit_pool(cc, node, &k, RT_QPOOL_MAX);
	case NPU_OP_AVG_POOL:
		return emit_pool(cc, node, &k, RT_QPOOL_AVERAGE);
	case NPU_OP_GLOBAL_POOL:
		return emit_pool(cc, node, &k, RT_QPOOL_GLOBAL);
	case NPU_OP_CONCAT:
		return emit_concat(cc, node);
	case NPU_OP_QUANTIZE:
		return emit_convert(cc, node, &k, false);
	case NPU_OP_DEQUANTIZE:
		return emit_convert(cc, node, &k, true);
	case NPU_OP_ALIAS: {
		const struct place *x = &cc->pl[node->inputs[0]];
		const struct place *y = &cc->pl[node->outputs[0]];

		/* Same bytes; a seam output gets its own copy. */
		if (y->kind == PLACE_SEAM && (x->bo != y->bo ||
					      x->offset != y->offset))
			return emit_dma(cc, x, y, tensor_bytes(&y->t));
		return 0;
	}
	case NPU_OP_NONE:
		break;
	}
	return rt_error_set(cc->why, ENPU_RT_UNSUPPORTED,
			    "NPU compiler: %s: not an NPU op", cc->label);
}

static int root_of(const struct place *pl, int v)
{
	while (pl[v].root >= 0 && pl[v].root != v)
		v = pl[v].root;
	return v;
}

/* First fit of the arena values over their live ranges. */
static int allocate_arena(struct compile *cc)
{
	struct rt_graph *g = cc->g;
	size_t count = 0, live = 0;
	int *order = malloc((g->value_count + 1) * sizeof(int));
	int *active = malloc((g->value_count + 1) * sizeof(int));
	uint64_t end = 0;

	if (!order || !active) {
		free(order);
		free(active);
		return oom(cc);
	}
	for (size_t v = 0; v < g->value_count; v++)
		if (cc->pl[v].kind == PLACE_ARENA && cc->pl[v].root == (int)v)
			order[count++] = (int)v;
	/* By definition point (insertion sort: partitions are small). */
	for (size_t i = 1; i < count; i++)
		for (size_t j = i; j > 0 &&
		     cc->pl[order[j - 1]].def > cc->pl[order[j]].def; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (size_t i = 0; i < count; i++) {
		struct place *p = &cc->pl[order[i]];
		uint64_t size = align_up(tensor_bytes(&p->t)), at = 0;
		size_t kept = 0;

		/* Drop the values dead before p is written. */
		for (size_t j = 0; j < live; j++)
			if (cc->pl[active[j]].last >= p->def)
				active[kept++] = active[j];
		live = kept;
		/* Sort live by offset, then take the first gap. */
		for (size_t a = 1; a < live; a++)
			for (size_t b = a; b > 0 &&
			     cc->pl[active[b - 1]].offset >
			     cc->pl[active[b]].offset; b--) {
				int t = active[b];

				active[b] = active[b - 1];
				active[b - 1] = t;
			}
		for (size_t j = 0; j < live; j++) {
			const struct place *q = &cc->pl[active[j]];

			if (at + size <= q->offset)
				break;
			if (q->offset + align_up(tensor_bytes(&q->t)) > at)
				at = q->offset + align_up(tensor_bytes(&q->t));
		}
		p->offset = at;
		active[live++] = order[i];
		if (at + size > end)
			end = at + size;
	}
	free(order);
	free(active);
	cc->c->arena_size = end ? end : NPU_ALIGN;
	for (size_t v = 0; v < g->value_count; v++)
		if (cc->pl[v].kind == PLACE_ARENA && cc->pl[v].root != (int)v &&
		    cc->pl[v].root >= 0) {
			int r = root_of(cc->pl, (int)v);

			cc->pl[v].offset = cc->pl[r].offset;
		}
	return end > NPU_TENSOR_MAX_BYTES ?
	       rt_error_set(cc->why, ENPU_RT_UNSUPPORTED,
			    "NPU compiler: the arena needs %llu MiB, above %llu",
			    (unsigned long long)(end >> 20),
			    NPU_TENSOR_MAX_BYTES >> 20) : 0;
}

/* Where every value of the partition lives. */
static int place_values(struct compile *cc)
{
	struct rt_graph *g = cc->g;
	const struct rt_partition *p = cc->p;
	struct npu_compiled *c = cc->c;

	for (size_t v = 0; v < g->value_count; v++) {
		cc->pl[v].root = -1;
		cc->pl[v].boundary = -1;
		cc->pl[v].def = -1;
	}
	c->boundary_count = (uint32_t)(p->input_count + p->output_count);
	c->boundaries = calloc(c->boundary_count + 1, sizeof(*c->boundaries));
	if (!c->boundaries)
		return oom(cc);
	for (size_t i = 0; i < c->boundary_count; i++) {
		int out = i >= p->input_count;
		int v = out ? p->outputs[i - p->input_count] : p->inputs[i];
		struct place *pl = &cc->pl[v];

		c->boundaries[i].value = v;
		c->boundaries[i].output = out;
		pl->boundary = (int)i;
		if (!npu_value_shape(&g->values[v], &pl->t))
			return rt_error_set(cc->why, ENPU_RT_UNSUPPORTED,
					    "NPU compiler: '%s' has no device "
					    "layout", g->values[v].name);
		/* From the shape: a graph input has no byte_size until bound. */
		c->boundaries[i].bytes = tensor_bytes(&pl->t);
		if (!out) {
			pl->def = 0;
			pl->last = 0;
		}
	}
	/* Live ranges: definition and last reader, in partition order. */
	for (size_t i = 0; i < p->node_count; i++) {
		const struct rt_node *node = &g->nodes[p->nodes[i]];

		for (size_t j = 0; j < node->input_count; j++)
			if (node->inputs[j] >= 0)
				cc->pl[node->inputs[j]].last = (int)i + 1;
		for (size_t o = 0; o < node->output_count; o++)
			if (node->outputs[o] >= 0) {
				cc->pl[node->outputs[o]].def = (int)i + 1;
				cc->pl[node->outputs[o]].last = (int)i + 1;
			}
	}
	for (size_t i = 0; i < p->node_count; i++) {
		const struct rt_node *node = &g->nodes[p->nodes[i]];

		for (size_t j = 0; j < node->input_count; j++)
			if (node->inputs[j] >= 0 &&
			    cc->pl[node->inputs[j]].last < (int)i + 1)
				cc->pl[node->inputs[j]].last = (int)i + 1;
	}
	/* Seam inputs. */
	for (size_t i = 0; i < p->input_count; i++) {
		struct place *pl = &cc->pl[p->inputs[i]];

		/* Float is only QUANTIZE's input, which reads NCHW itself. */
		if (npu_layout_is_onnx(&g->values[p->inputs[i]]) ||
		    pl->t.dtype == ENPU_DTYPE_FLOAT32) {
			pl->kind = PLACE_SEAM;
			pl->bo = NPU_BO_SEAMS + (uint32_t)i;
		} else {
			pl->kind = PLACE_ARENA;
			pl->bo = NPU_BO_ARENA;
			pl->root = p->inputs[i];
			pl->moved = 1;
		}
	}
	/* What nodes write. */
	for (size_t i = 0; i < p->node_count; i++) {
		const struct rt_node *node = &g->nodes[p->nodes[i]];

		for (size_t o = 0; o < node->output_count; o++) {
			int v = node->outputs[o];
			struct place *pl;

			if (v < 0)
				continue;
			pl = &cc->pl[v];
			if (!npu_value_shape(&g->values[v], &pl->t))
				return rt_error_set(cc->why, ENPU_RT_UNSUPPORTED,
						    "NPU compiler: '%s' has no "
						    "device layout",
						    g->values[v].name);
			/* Float is only DEQUANTIZE's output, which writes
			 * NCHW itself. */
			if (pl->boundary >= 0 &&
			    (npu_layout_is_onnx(&g->values[v]) ||
			     pl->t.dtype == ENPU_DTYPE_FLOAT32)) {
				pl->kind = PLACE_SEAM;
				pl->bo = NPU_BO_SEAMS + (uint32_t)pl->boundary;
				continue;
			}
			if (npu_op_of(node) == NPU_OP_ALIAS &&
			    pl->boundary < 0) {
				int x = node->inputs[0];
				int r = cc->pl[x].kind == PLACE_ARENA ?
					root_of(cc->pl, x) : -1;

				pl->kind = cc->pl[x].kind;
				pl->bo = cc->pl[x].bo;
				pl->offset = cc->pl[x].offset;
				pl->root = r >= 0 ? r : -1;
				if (r >= 0 && cc->pl[r].last < pl->last)
					cc->pl[r].last = pl->last;
				continue;
			}
			pl->kind = PLACE_ARENA;
			pl->bo = NPU_BO_ARENA;
			pl->root = v;
			pl->moved = pl->boundary >= 0;
		}
	}
	/* An alias chain's readers keep its root alive (later links). */
	for (size_t v = 0; v < g->value_count; v++)
		if (cc->pl[v].kind == PLACE_ARENA && cc->pl[v].root >= 0 &&
		    cc->pl[v].root != (int)v) {
			int r = root_of(cc->pl, (int)v);

			if (cc->pl[r].last < cc->pl[v].last)
				cc->pl[r].last = cc->pl[v].last;
		}
	return allocate_arena(cc);
}

void npu_compiled_free_form(struct npu_compiled *c)
{
	free(c->stream);
	free(c->consts);
	free(c->boundaries);
	c->stream = NULL;
	c->consts = NULL;
	c->boundaries = NULL;
}

int npu_compile(struct npu_backend *b, struct rt_graph *g,
		const struct rt_partition *p, struct npu_compiled *c,
		struct rt_error_sink *why)
{
	struct compile cc = { .b = b, .g = g, .p = p, .c = c, .why = why,
			      .label = "partition" };
	const void *data;
	uint32_t size;
	int status;

	npu_limits_init(&cc.lim, b->bound_ns, b->params.clock_max_khz,
			b->params.macs_per_cycle, b->params.sram_size);
	cc.pl = calloc(g->value_count + 1, sizeof(*cc.pl));
	if (!cc.pl)
		return oom(&cc);
	status = enpu_cmdbuf_create(&cc.cmd);
	if (status) {
		free(cc.pl);
		return oom(&cc);
	}
	status = place_values(&cc);
	/* Prologue: seam inputs the layers read in NHWC. */
	for (size_t i = 0; !status && i < p->input_count; i++) {
		const struct place *dev = &cc.pl[p->inputs[i]];
		struct place seam = *dev;

		if (!dev->moved)
			continue;
		seam.bo = NPU_BO_SEAMS + (uint32_t)i;
		seam.offset = 0;
		cc.label = g->values[p->inputs[i]].name;
		status = emit_transpose(&cc, &seam, dev, 1);
	}
	for (size_t i = 0; !status && i < p->node_count; i++) {
		const struct rt_node *node = &g->nodes[p->nodes[i]];

		status = emit_node(&cc, node);
		/* Epilogue of each output kept in the arena for its layout. */
		for (size_t o = 0; !status && o < node->output_count; o++) {
			int v = node->outputs[o];
			struct place seam;

			if (v < 0 || !cc.pl[v].moved)
				continue;
			seam = cc.pl[v];
			seam.bo = NPU_BO_SEAMS + (uint32_t)cc.pl[v].boundary;
			seam.offset = 0;
			status = emit_transpose(&cc, &seam, &cc.pl[v], 0);
		}
	}
	if (!status && !c->command_count)
		status = enpu_cmdbuf_nop(cc.cmd, 0);
	if (!status)
		status = enpu_cmdbuf_data(cc.cmd, &data, &size);
	if (!status) {
		c->stream = malloc(size);
		if (!c->stream)
			status = oom(&cc);
		else
			memcpy(c->stream, data, size);
		c->stream_size = size;
	}
	if (!status) {
		c->consts = cc.consts;
		c->consts_size = cc.consts_size ? cc.consts_size : NPU_ALIGN;
		if (!cc.consts) {
			c->consts = calloc(1, NPU_ALIGN);
			if (!c->consts)
				status = oom(&cc);
		}
		cc.consts = NULL;
	} else if (status < 0) {
		status = fail(&cc, status, "stream");
	}
	free(cc.consts);
	free(cc.pl);
	enpu_cmdbuf_destroy(cc.cmd);
	if (status)
		npu_compiled_free_form(c);
	return status;
}
