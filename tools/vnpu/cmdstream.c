// SPDX-License-Identifier: GPL-2.0
/*
 * Command-stream parsing and the effect of commands (uapi/enpu_cmd.h).
 * The whole stream is validated when the job starts, before any command
 * runs, so a bad stream never half-executes; engine.c then walks the
 * commands in order, tile by tile.
 *
 * A tile takes its device time first and has its effect when that time
 * is used up: a DMA tile moves its bytes at its end, all at once. A RESET
 * or hang before that point leaves its destination untouched; once a
 * tile's time is spent its effect is complete, so every tile boundary is
 * a clean point to stop at. A job without a save area runs each command
 * as one tile, as interfaces 1.0-1.2 did.
 */
#include <linux/types.h>
#include <stddef.h>

#include "enpu_cmd.h"
#include "layer.h"
#include "shm_access.h"
#include "vnpu.h"

#define HDR_OPCODE	offsetof(struct enpu_cmd_header, opcode)
#define HDR_FLAGS	offsetof(struct enpu_cmd_header, flags)
#define HDR_SIZE	offsetof(struct enpu_cmd_header, size)
#define NOP_CYCLES	offsetof(struct enpu_cmd_nop, cycles)
#define NOP_RESERVED	offsetof(struct enpu_cmd_nop, reserved)
#define COPY_SRC	offsetof(struct enpu_cmd_dma_copy, src)
#define COPY_DST	offsetof(struct enpu_cmd_dma_copy, dst)
#define COPY_SIZE	offsetof(struct enpu_cmd_dma_copy, size)
#define FILL_DST	offsetof(struct enpu_cmd_dma_fill, dst)
#define FILL_SIZE	offsetof(struct enpu_cmd_dma_fill, size)
#define FILL_VALUE	offsetof(struct enpu_cmd_dma_fill, value)
#define FILL_RESERVED	offsetof(struct enpu_cmd_dma_fill, reserved)
#define REF_BO		offsetof(struct enpu_buf_ref, bo_index)
#define REF_RESERVED	offsetof(struct enpu_buf_ref, reserved)
#define REF_OFFSET	offsetof(struct enpu_buf_ref, offset)

#define DMA_BYTES_PER_CYCLE	32u

struct buf_ref {
	uint32_t bo;
	uint64_t offset;
};

static struct buf_ref ref_get(const uint8_t *p)
{
	return (struct buf_ref){
		.bo = le32_get(p + REF_BO),
		.offset = le64_get(p + REF_OFFSET),
	};
}

/* The spec's reference rules: an existing BO, the range inside its SIZE
 * (no overflow), and the access the command needs. */
bool job_ref_ok(const struct vnpu_job *job, uint32_t bo_index,
		uint64_t offset, uint64_t size, uint32_t access)
{
	const struct vnpu_bo *bo;

	if (bo_index >= job->bo_count)
		return false;
	bo = &job->bos[bo_index];
	return offset <= bo->size && size <= bo->size - offset &&
	       (bo->access & access) == access;
}

static bool ref_ok(const struct vnpu_job *job, struct buf_ref ref,
		   uint64_t size, uint32_t access)
{
	return job_ref_ok(job, ref.bo, ref.offset, size, access);
}

static bool ranges_overlap(struct buf_ref a, struct buf_ref b, uint64_t size)
{
	/* Only called for ranges already inside one BO, so no overflow. */
	return a.bo == b.bo && a.offset < b.offset + size &&
	       b.offset < a.offset + size;
}

static uint64_t dma_cycles(uint64_t size)
{
	return size < DMA_BYTES_PER_CYCLE ? 1 : size / DMA_BYTES_PER_CYCLE;
}

/* Cycles of a command of a validated stream. */
static uint64_t command_cycles(const uint8_t *cmd)
{
	uint16_t opcode = le16_get(cmd + HDR_OPCODE);
	struct layer_cost cost;
	struct layer l;

	if (opcode_is_layer(opcode)) {
		layer_decode(cmd, &l);
		layer_cost(&l, &cost);
		return cost.cycles;
	}
	switch (opcode) {
	case ENPU_CMD_DMA_COPY:
		return dma_cycles(le64_get(cmd + COPY_SIZE));
	case ENPU_CMD_DMA_FILL:
		return dma_cycles(le64_get(cmd + FILL_SIZE));
	default:
		return le32_get(cmd + NOP_CYCLES);
	}
}

/*
 * Checks one command whose header fits and whose size is sane. Returns
 * ENPU_JOB_STATUS_OK or the status the job fails with. For a command that
 * breaks several rules, the first of: shape (INVALID), references
 * (DMA_FAULT), same-BO overlap (INVALID).
 */
static uint32_t command_check(const struct vnpu_job *job, const uint8_t *cmd,
			      uint32_t cmd_size)
{
	struct buf_ref src, dst;
	uint64_t size;

	switch (le16_get(cmd + HDR_OPCODE)) {
	case ENPU_CMD_NOP:
		if (cmd_size != sizeof(struct enpu_cmd_nop) ||
		    le32_get(cmd + NOP_RESERVED))
			return ENPU_JOB_STATUS_INVALID;
		return ENPU_JOB_STATUS_OK;
	case ENPU_CMD_DMA_COPY:
		if (cmd_size != sizeof(struct enpu_cmd_dma_copy) ||
		    le32_get(cmd + COPY_SRC + REF_RESERVED) ||
		    le32_get(cmd + COPY_DST + REF_RESERVED))
			return ENPU_JOB_STATUS_INVALID;
		size = le64_get(cmd + COPY_SIZE);
		if (!size)
			return ENPU_JOB_STATUS_INVALID;
		src = ref_get(cmd + COPY_SRC);
		dst = ref_get(cmd + COPY_DST);
		if (!ref_ok(job, src, size, ENPU_BO_ACCESS_READ) ||
		    !ref_ok(job, dst, size, ENPU_BO_ACCESS_WRITE))
			return ENPU_JOB_STATUS_DMA_FAULT;
		if (ranges_overlap(src, dst, size))
			return ENPU_JOB_STATUS_INVALID;
		return ENPU_JOB_STATUS_OK;
	case ENPU_CMD_DMA_FILL:
		if (cmd_size != sizeof(struct enpu_cmd_dma_fill) ||
		    le32_get(cmd + FILL_DST + REF_RESERVED) ||
		    le32_get(cmd + FILL_RESERVED) ||
		    le32_get(cmd + FILL_VALUE) > 0xff)
			return ENPU_JOB_STATUS_INVALID;
		size = le64_get(cmd + FILL_SIZE);
		if (!size)
			return ENPU_JOB_STATUS_INVALID;
		if (!ref_ok(job, ref_get(cmd + FILL_DST), size,
			    ENPU_BO_ACCESS_WRITE))
			return ENPU_JOB_STATUS_DMA_FAULT;
		return ENPU_JOB_STATUS_OK;
	default:
		if (opcode_is_layer(le16_get(cmd + HDR_OPCODE)))
			return layer_check(job, cmd, cmd_size);
		return ENPU_JOB_STATUS_INVALID;
	}
}

/*
 * Validates job->stream against job->bos. Returns CMDSTREAM_OK and sets
 * the job's cycle total, or returns the byte offset of the first
 * bad command with *@status saying how it is bad.
 */
uint32_t cmdstream_validate(struct vnpu_job *job, uint32_t *status)
{
	uint32_t offset = 0, size = job->stream_size;
	uint64_t cycles = 0;

	while (offset < size) {
		const uint8_t *cmd = job->stream + offset;
		uint32_t left = size - offset;
		uint32_t cmd_size;
		uint64_t c;

		*status = ENPU_JOB_STATUS_INVALID;
		if (left < sizeof(struct enpu_cmd_header))
			return offset;
		cmd_size = le32_get(cmd + HDR_SIZE);
		if (cmd_size < sizeof(struct enpu_cmd_header) ||
		    cmd_size % ENPU_CMD_ALIGN || cmd_size > left)
			return offset;
		if (le16_get(cmd + HDR_FLAGS))
			return offset;
		*status = command_check(job, cmd, cmd_size);
		if (*status != ENPU_JOB_STATUS_OK)
			return offset;
		c = command_cycles(cmd);
		/* A stream of huge DMA commands can exceed 2^64 cycles. */
		cycles = cycles > UINT64_MAX - c ? UINT64_MAX : cycles + c;
		offset += cmd_size;
	}
	job->cycles_total = cycles;
	return CMDSTREAM_OK;
}

uint32_t cmdstream_command_size(const struct vnpu_job *job, uint32_t offset)
{
	return le32_get(job->stream + offset + HDR_SIZE);
}

/*
 * The command at @offset of a validated stream: its cycles and the units
 * it can be cut into between preemption points (engine.c): NOP cycles,
 * DMA bytes, layer output elements. A layer whose output shares a BO with
 * one of its inputs is one unit: its inputs must all be read before any
 * output byte is written, so it only stops at its boundaries.
 */
void cmdstream_plan(const struct vnpu_job *job, uint32_t offset,
		    uint64_t *cycles, uint64_t *units)
{
	const uint8_t *cmd = job->stream + offset;
	uint16_t opcode = le16_get(cmd + HDR_OPCODE);
	struct layer l;

	*cycles = command_cycles(cmd);
	if (opcode_is_layer(opcode)) {
		layer_decode(cmd, &l);
		*units = tensor_elements(&l.out);
		if (l.out.bo == l.in.bo ||
		    ((opcode == ENPU_CMD_ADD || opcode == ENPU_CMD_MUL) &&
		     l.out.bo == l.in2.bo) ||
		    (l.weights.bo != ENPU_BUF_NONE && l.out.bo == l.weights.bo) ||
		    (l.bias.bo != ENPU_BUF_NONE && l.out.bo == l.bias.bo) ||
		    (l.table.bo != ENPU_BUF_NONE && l.out.bo == l.table.bo))
			*units = 1;
		return;
	}
	switch (opcode) {
	case ENPU_CMD_DMA_COPY:
		*units = le64_get(cmd + COPY_SIZE);
		return;
	case ENPU_CMD_DMA_FILL:
		*units = le64_get(cmd + FILL_SIZE);
		return;
	default:
		*units = *cycles;
	}
}

static uint64_t add_saturating(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Units [first, end) of a layer; its bytes and MACs count once it is
 * complete. */
static uint32_t layer_perform(struct vnpu_job *job, const struct guest_ram *ram,
			      uint64_t first, uint64_t end,
			      struct cmdstream_counters *counters)
{
	struct layer_cost cost;
	struct layer l;
	uint64_t units, cycles;
	uint32_t status;

	layer_decode(job->stream + job->offset, &l);
	cmdstream_plan(job, job->offset, &cycles, &units);
	if (units == 1 && end == 1) {	/* the whole layer in one go */
		first = 0;
		end = tensor_elements(&l.out);
	}
	status = layer_run_range(&l, job, ram, &job->layer, first, end);
	if (status != ENPU_JOB_STATUS_OK)
		return status;
	if (end < tensor_elements(&l.out))
		return ENPU_JOB_STATUS_OK;
	layer_cost(&l, &cost);
	counters->dma_bytes = add_saturating(counters->dma_bytes, cost.bytes);
	counters->macs = add_saturating(counters->macs, cost.macs);
	return ENPU_JOB_STATUS_OK;
}

/*
 * The effect of units [first, end) of the current command, once their
 * device time is spent (cmdstream_plan() says what a unit is):
 * ENPU_JOB_STATUS_OK, the status the job fails with, or
 * LAYER_HOST_TROUBLE.
 */
uint32_t cmdstream_perform(struct vnpu_job *job, const struct guest_ram *ram,
			   uint64_t first, uint64_t end,
			   struct cmdstream_counters *counters)
{
	const uint8_t *cmd = job->stream + job->offset;
	uint64_t *dma_bytes = &counters->dma_bytes, size = end - first;
	struct buf_ref src, dst;

	if (first >= end)
		return ENPU_JOB_STATUS_OK;
	switch (le16_get(cmd + HDR_OPCODE)) {
	case ENPU_CMD_DMA_COPY:
		src = ref_get(cmd + COPY_SRC);
		dst = ref_get(cmd + COPY_DST);
		if (!dma_copy(ram, &job->bos[src.bo], src.offset + first,
			      &job->bos[dst.bo], dst.offset + first, size))
			return ENPU_JOB_STATUS_DMA_FAULT;
		*dma_bytes += 2 * size;
		return ENPU_JOB_STATUS_OK;
	case ENPU_CMD_DMA_FILL:
		dst = ref_get(cmd + FILL_DST);
		if (!dma_fill(ram, &job->bos[dst.bo], dst.offset + first, size,
			      (uint8_t)le32_get(cmd + FILL_VALUE)))
			return ENPU_JOB_STATUS_DMA_FAULT;
		*dma_bytes += size;
		return ENPU_JOB_STATUS_OK;
	default:
		if (opcode_is_layer(le16_get(cmd + HDR_OPCODE)))
			return layer_perform(job, ram, first, end, counters);
		return ENPU_JOB_STATUS_OK;
	}
}
