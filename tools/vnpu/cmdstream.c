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
#include "enpu_cmd_rule.h"
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

/* The spec's reference rules, in the device's order: an existing BO, the
 * range inside its SIZE (no overflow), and the access the command needs.
 * Returns ENPU_RULE_NONE or the rule broken. */
uint32_t job_ref_rule(const struct vnpu_job *job, uint32_t bo_index,
		      uint64_t offset, uint64_t size, uint32_t access)
{
	const struct vnpu_bo *bo;

	if (bo_index >= job->bo_count)
		return ENPU_RULE_REF_BO_INDEX;
	bo = &job->bos[bo_index];
	if (offset > bo->size || size > bo->size - offset)
		return ENPU_RULE_REF_RANGE;
	if ((bo->access & access) != access)
		return access & ENPU_BO_ACCESS_WRITE ? ENPU_RULE_REF_WRITE_ACCESS :
						      ENPU_RULE_REF_READ_ACCESS;
	return ENPU_RULE_NONE;
}

static uint32_t ref_rule(const struct vnpu_job *job, struct buf_ref ref,
			 uint64_t size, uint32_t access)
{
	return job_ref_rule(job, ref.bo, ref.offset, size, access);
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

static uint32_t dma_copy_shape_rule(const uint8_t *cmd, uint32_t cmd_size)
{
	if (cmd_size != sizeof(struct enpu_cmd_dma_copy))
		return ENPU_RULE_COMMAND_SIZE;
	if (le32_get(cmd + COPY_SRC + REF_RESERVED) ||
	    le32_get(cmd + COPY_DST + REF_RESERVED))
		return ENPU_RULE_REF_RESERVED;
	if (!le64_get(cmd + COPY_SIZE))
		return ENPU_RULE_REF_EMPTY;
	return ENPU_RULE_NONE;
}

static uint32_t dma_fill_shape_rule(const uint8_t *cmd, uint32_t cmd_size)
{
	if (cmd_size != sizeof(struct enpu_cmd_dma_fill))
		return ENPU_RULE_COMMAND_SIZE;
	if (le32_get(cmd + FILL_DST + REF_RESERVED))
		return ENPU_RULE_REF_RESERVED;
	if (le32_get(cmd + FILL_RESERVED))
		return ENPU_RULE_FILL_RESERVED;
	if (le32_get(cmd + FILL_VALUE) > ENPU_FILL_VALUE_MAX)
		return ENPU_RULE_FILL_VALUE;
	if (!le64_get(cmd + FILL_SIZE))
		return ENPU_RULE_REF_EMPTY;
	return ENPU_RULE_NONE;
}

/*
 * Checks one DMA or NOP command whose header fits and whose size is sane;
 * the rule broken goes to *@rule. For a command that breaks several rules,
 * the first of: shape (INVALID), references (DMA_FAULT), same-BO overlap
 * (INVALID).
 */
static uint32_t dma_check(const struct vnpu_job *job, const uint8_t *cmd,
			  uint32_t cmd_size, uint32_t *rule)
{
	struct buf_ref src, dst;
	uint64_t size;

	switch (le16_get(cmd + HDR_OPCODE)) {
	case ENPU_CMD_NOP:
		if (cmd_size != sizeof(struct enpu_cmd_nop))
			*rule = ENPU_RULE_COMMAND_SIZE;
		else if (le32_get(cmd + NOP_RESERVED))
			*rule = ENPU_RULE_NOP_RESERVED;
		return *rule ? ENPU_JOB_STATUS_INVALID : ENPU_JOB_STATUS_OK;
	case ENPU_CMD_DMA_COPY:
		*rule = dma_copy_shape_rule(cmd, cmd_size);
		if (*rule)
			return ENPU_JOB_STATUS_INVALID;
		size = le64_get(cmd + COPY_SIZE);
		src = ref_get(cmd + COPY_SRC);
		dst = ref_get(cmd + COPY_DST);
		*rule = ref_rule(job, src, size, ENPU_BO_ACCESS_READ);
		if (!*rule)
			*rule = ref_rule(job, dst, size, ENPU_BO_ACCESS_WRITE);
		if (*rule)
			return ENPU_JOB_STATUS_DMA_FAULT;
		if (ranges_overlap(src, dst, size)) {
			*rule = ENPU_RULE_DMA_OVERLAP;
			return ENPU_JOB_STATUS_INVALID;
		}
		return ENPU_JOB_STATUS_OK;
	default:	/* ENPU_CMD_DMA_FILL */
		*rule = dma_fill_shape_rule(cmd, cmd_size);
		if (*rule)
			return ENPU_JOB_STATUS_INVALID;
		*rule = ref_rule(job, ref_get(cmd + FILL_DST),
				 le64_get(cmd + FILL_SIZE), ENPU_BO_ACCESS_WRITE);
		return *rule ? ENPU_JOB_STATUS_DMA_FAULT : ENPU_JOB_STATUS_OK;
	}
}

/*
 * Framing of the command at @left bytes from the stream's end, in the
 * order of kernel/enpu_cmd_rule.h (flags, size, stream end), so that a
 * header that breaks several framing rules is blamed on the same one as
 * by the kernel.
 */
static uint32_t header_rule(const uint8_t *cmd, uint32_t left)
{
	uint32_t cmd_size;

	if (left < sizeof(struct enpu_cmd_header))
		return ENPU_RULE_PAST_STREAM_END;
	if (le16_get(cmd + HDR_FLAGS))
		return ENPU_RULE_HEADER_FLAGS;
	cmd_size = le32_get(cmd + HDR_SIZE);
	if (cmd_size < sizeof(struct enpu_cmd_header) ||
	    cmd_size % ENPU_CMD_ALIGN)
		return ENPU_RULE_HEADER_SIZE;
	if (cmd_size > left)
		return ENPU_RULE_PAST_STREAM_END;
	return ENPU_RULE_NONE;
}

static uint32_t command_check(const struct vnpu_job *job, const uint8_t *cmd,
			      uint32_t cmd_size, uint32_t *rule)
{
	uint16_t opcode = le16_get(cmd + HDR_OPCODE);

	*rule = ENPU_RULE_NONE;
	if (opcode_is_layer(opcode))
		return layer_check(job, cmd, cmd_size, rule);
	if (opcode > ENPU_CMD_DMA_FILL) {
		*rule = ENPU_RULE_OPCODE;
		return ENPU_JOB_STATUS_INVALID;
	}
	return dma_check(job, cmd, cmd_size, rule);
}

static const char *const job_rule_names[] = {
	[VNPU_RULE_DESC_FLAGS - VNPU_RULE_DESC_FLAGS] = "desc_flags",
	[VNPU_RULE_DESC_STREAM_SIZE - VNPU_RULE_DESC_FLAGS] = "desc_stream_size",
	[VNPU_RULE_STREAM_RANGE - VNPU_RULE_DESC_FLAGS] = "stream_range",
	[VNPU_RULE_BO_COUNT - VNPU_RULE_DESC_FLAGS] = "bo_count",
	[VNPU_RULE_BO_TABLE_RANGE - VNPU_RULE_DESC_FLAGS] = "bo_table_range",
	[VNPU_RULE_BO_RESERVED - VNPU_RULE_DESC_FLAGS] = "bo_reserved",
	[VNPU_RULE_BO_ACCESS - VNPU_RULE_DESC_FLAGS] = "bo_access",
	[VNPU_RULE_SG_COUNT - VNPU_RULE_DESC_FLAGS] = "sg_count",
	[VNPU_RULE_SG_LIST_RANGE - VNPU_RULE_DESC_FLAGS] = "sg_list_range",
	[VNPU_RULE_SG_SEGMENT_EMPTY - VNPU_RULE_DESC_FLAGS] = "sg_segment_empty",
	[VNPU_RULE_SG_SEGMENT_RANGE - VNPU_RULE_DESC_FLAGS] = "sg_segment_range",
	[VNPU_RULE_SG_SHORT - VNPU_RULE_DESC_FLAGS] = "sg_short",
	[VNPU_RULE_DESC_SAVE_SIZE - VNPU_RULE_DESC_FLAGS] = "desc_save_size",
	[VNPU_RULE_SAVE_RANGE - VNPU_RULE_DESC_FLAGS] = "save_range",
	[VNPU_RULE_SAVE_STATE - VNPU_RULE_DESC_FLAGS] = "save_state",
};

const char *vnpu_rule_name(uint32_t rule)
{
	if (rule >= VNPU_RULE_DESC_FLAGS && rule < VNPU_RULE_END)
		return job_rule_names[rule - VNPU_RULE_DESC_FLAGS];
	return enpu_cmd_rule_name(rule);
}

/*
 * Validates job->stream against job->bos. Returns CMDSTREAM_OK and sets
 * the job's cycle total, or returns the byte offset of the first
 * bad command with *@status saying how it is bad and job->rule which rule
 * it broke.
 */
uint32_t cmdstream_validate(struct vnpu_job *job, uint32_t *status)
{
	uint32_t offset = 0, size = job->stream_size;
	uint64_t cycles = 0;

	job->rule = ENPU_RULE_NONE;
	while (offset < size) {
		const uint8_t *cmd = job->stream + offset;
		uint32_t cmd_size;
		uint64_t c;

		*status = ENPU_JOB_STATUS_INVALID;
		job->rule = header_rule(cmd, size - offset);
		if (job->rule)
			return offset;
		cmd_size = le32_get(cmd + HDR_SIZE);
		*status = command_check(job, cmd, cmd_size, &job->rule);
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
			      const struct layer_engine *layers, uint64_t first,
			      uint64_t end, struct cmdstream_counters *counters)
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
	status = layer_run_range(layers, &l, job, ram, &job->layer, first,
				 end);
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
			   const struct layer_engine *layers, uint64_t first,
			   uint64_t end, struct cmdstream_counters *counters)
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
			return layer_perform(job, ram, layers, first, end,
					     counters);
		return ENPU_JOB_STATUS_OK;
	}
}
