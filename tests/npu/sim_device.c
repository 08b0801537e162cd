// SPDX-License-Identifier: GPL-2.0
/*
 * The vnpu's command execution without the device around it: a job's BOs
 * are laid out in a simulated guest RAM in shuffled scatter-gather
 * segments (tests/vnpu_exec/guest_model.c), the stream is checked by the
 * device's own validator (cmdstream_validate(): every rule the vnpu
 * applies before a job runs) and performed command by command with the
 * FAST or ORACLE layer engine, then the written BOs are copied back.
 */
#include <stdlib.h>
#include <string.h>

#include "guest_model.h"
#include "layer.h"
#include "sim_device.h"
#include "vnpu.h"

struct sim_device {
	struct guest_model gm;
	uint64_t ram_size;
	struct layer_engine fast, oracle;
	int engines;
};

static struct sim_device sim;

static int ensure(uint64_t ram_size)
{
	if (!sim.engines) {
		if (layer_engine_init(&sim.fast, LAYER_MODE_FAST, 1) ||
		    layer_engine_init(&sim.oracle, LAYER_MODE_ORACLE, 1))
			return -1;
		sim.engines = 1;
	}
	if (sim.ram_size >= ram_size)
		return 0;
	guest_model_destroy(&sim.gm);
	if (guest_model_init(&sim.gm, ram_size, 1u << 24))
		return -1;
	guest_model_reset(&sim.gm, 1);
	sim.ram_size = ram_size;
	return 0;
}

uint32_t sim_device_run(const void *stream, uint32_t stream_size,
			struct sim_bo *bos, uint32_t count, int oracle,
			struct sim_result *result)
{
	uint64_t need = 1u << 24;
	struct vnpu_job *job;
	struct cmdstream_counters counters = { 0 };
	uint32_t status = ENPU_JOB_STATUS_OK, at;

	memset(result, 0, sizeof(*result));
	for (uint32_t i = 0; i < count; i++)
		need += bos[i].size + bos[i].size / 8 + 65536;
	if (count > GUEST_MODEL_MAX_BOS || ensure(need))
		return ENPU_JOB_STATUS_INVALID;
	guest_model_forget(&sim.gm);
	for (uint32_t i = 0; i < count; i++) {
		if (guest_model_bo(&sim.gm, bos[i].size, 4096, 65536, 64) != i)
			return ENPU_JOB_STATUS_INVALID;
		sim.gm.bos[i].access = ENPU_BO_ACCESS_READ |
				       (bos[i].write ? ENPU_BO_ACCESS_WRITE : 0);
		guest_model_write(&sim.gm, i, 0, bos[i].data, bos[i].size);
	}
	job = &sim.gm.job;
	job->stream = (uint8_t *)stream;
	job->stream_size = stream_size;
	job->offset = 0;
	job->layer = NULL;
	at = cmdstream_validate(job, &status);
	if (at != CMDSTREAM_OK) {
		result->offset = at;
		return status;
	}
	result->cycles = job->cycles_total;
	while (job->offset < job->stream_size) {
		uint64_t cycles, units;

		cmdstream_plan(job, job->offset, &cycles, &units);
		if (cycles > result->longest_cycles)
			result->longest_cycles = cycles;
		result->commands++;
		status = cmdstream_perform(job, &sim.gm.ram,
					   oracle ? &sim.oracle : &sim.fast, 0,
					   units, &counters);
		layer_state_free(job->layer);
		job->layer = NULL;
		if (status != ENPU_JOB_STATUS_OK) {
			result->offset = job->offset;
			return status;
		}
		job->offset += cmdstream_command_size(job, job->offset);
	}
	result->macs = counters.macs;
	result->dma_bytes = counters.dma_bytes;
	for (uint32_t i = 0; i < count; i++)
		if (bos[i].write)
			guest_model_read(&sim.gm, i, 0, bos[i].data,
					 bos[i].size);
	return ENPU_JOB_STATUS_OK;
}
