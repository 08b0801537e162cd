// SPDX-License-Identifier: GPL-2.0
/*
 * Command-stream parsing and execution (uapi/enpu_cmd.h). The whole stream
 * is validated when the job starts, before any command runs, so a bad
 * stream never half-executes; execution then walks the commands in order,
 * keeping the current command offset, which is where a later preemption
 * will stop.
 */
#include <linux/types.h>
#include <stddef.h>

#include "enpu_cmd.h"
#include "shm_access.h"
#include "vnpu.h"

#define HDR_OPCODE	offsetof(struct enpu_cmd_header, opcode)
#define HDR_FLAGS	offsetof(struct enpu_cmd_header, flags)
#define HDR_SIZE	offsetof(struct enpu_cmd_header, size)
#define NOP_CYCLES	offsetof(struct enpu_cmd_nop, cycles)
#define NOP_RESERVED	offsetof(struct enpu_cmd_nop, reserved)

/* Returns CMDSTREAM_OK, or the byte offset of the first bad command. */
uint32_t cmdstream_validate(const uint8_t *stream, uint32_t size,
			    uint64_t *cycles_total)
{
	uint32_t offset = 0;
	uint64_t cycles = 0;

	while (offset < size) {
		const uint8_t *cmd = stream + offset;
		uint32_t left = size - offset;
		uint32_t cmd_size;

		if (left < sizeof(struct enpu_cmd_header))
			return offset;
		cmd_size = le32_get(cmd + HDR_SIZE);
		if (cmd_size < sizeof(struct enpu_cmd_header) ||
		    cmd_size % ENPU_CMD_ALIGN || cmd_size > left)
			return offset;
		if (le16_get(cmd + HDR_FLAGS))
			return offset;
		switch (le16_get(cmd + HDR_OPCODE)) {
		case ENPU_CMD_NOP:
			if (cmd_size != sizeof(struct enpu_cmd_nop) ||
			    le32_get(cmd + NOP_RESERVED))
				return offset;
			cycles += le32_get(cmd + NOP_CYCLES);
			break;
		default:
			return offset;
		}
		offset += cmd_size;
	}
	*cycles_total = cycles;
	return CMDSTREAM_OK;
}

static work_units command_work(const struct vnpu_job *job)
{
	const uint8_t *cmd = job->stream + job->offset;

	/* Only NOP exists in 1.0, and the stream was validated. */
	return (work_units)le32_get(cmd + NOP_CYCLES) * UNITS_PER_CYCLE;
}

static uint32_t command_size(const struct vnpu_job *job)
{
	return le32_get(job->stream + job->offset + HDR_SIZE);
}

void cmdstream_start(struct vnpu_job *job)
{
	job->offset = 0;
	job->left = (work_units)job->cycles_total * UNITS_PER_CYCLE;
	job->cmd_left = job->stream_size ? command_work(job) : 0;
}

/*
 * Runs the job for at most @budget work units at @khz; returns the device
 * nanoseconds the engine was busy. The job is finished when job->left is 0.
 */
uint64_t cmdstream_execute(struct vnpu_job *job, work_units budget,
			   uint32_t khz)
{
	work_units used = 0;

	while (job->left && used < budget) {
		work_units take;

		if (!job->cmd_left) {
			job->offset += command_size(job);
			job->cmd_left = command_work(job);
			continue;
		}
		take = budget - used;
		if (take > job->cmd_left)
			take = job->cmd_left;
		job->cmd_left -= take;
		job->left -= take;
		used += take;
	}
	if (!job->left)
		job->offset = job->stream_size;
	return (uint64_t)((used + khz - 1) / khz);
}
