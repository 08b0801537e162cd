// SPDX-License-Identifier: GPL-2.0
/* See checkers.h. */
#include <stdlib.h>
#include <string.h>

#include "checkers.h"
#include "enpu_cmd.h"
#include "enpu_cmd_rule.h"
#include "vnpu.h"

void check_with_kernel(const void *stream, uint32_t size,
		       const struct enpu_validate_bo *bos, uint32_t count,
		       struct verdict *out)
{
	memset(out, 0, sizeof(*out));
	out->offset = UINT32_MAX;
	out->rejected = enpu_validate_stream(stream, size, bos, count,
					     &out->offset, &out->rule) != 0;
}

bool device_job_init(struct vnpu_job *job, const void *stream, uint32_t size,
		     const struct enpu_validate_bo *bos, uint32_t count)
{
	memset(job, 0, sizeof(*job));
	/* Exact sizes, so ASan sees any read past the stream or the table. */
	job->stream = malloc(size ? size : 1);
	job->bos = calloc(count ? count : 1, sizeof(*job->bos));
	if (!job->stream || !job->bos) {
		device_job_free(job);
		return false;
	}
	if (size)
		memcpy(job->stream, stream, size);
	job->stream_size = size;
	job->bo_count = count;
	for (uint32_t i = 0; i < count; i++) {
		job->bos[i].size = bos[i].size;
		job->bos[i].access = bos[i].access;
	}
	return true;
}

void device_job_free(struct vnpu_job *job)
{
	free(job->stream);
	free(job->bos);
	job->stream = NULL;
	job->bos = NULL;
}

bool check_with_device(const void *stream, uint32_t size,
		       const struct enpu_validate_bo *bos, uint32_t count,
		       struct verdict *out)
{
	struct vnpu_job job;
	uint32_t bad;

	memset(out, 0, sizeof(*out));
	if (!device_job_init(&job, stream, size, bos, count))
		return false;
	bad = cmdstream_validate(&job, &out->status);
	out->rejected = bad != CMDSTREAM_OK;
	out->offset = out->rejected ? bad : UINT32_MAX;
	out->rule = job.rule;
	if (!out->rejected)
		out->status = ENPU_JOB_STATUS_OK;
	device_job_free(&job);
	return true;
}

uint32_t device_status_for_rule(uint32_t rule)
{
	switch (rule) {
	case ENPU_RULE_NONE:
		return ENPU_JOB_STATUS_OK;
	case ENPU_RULE_REF_BO_INDEX:
	case ENPU_RULE_REF_READ_ACCESS:
	case ENPU_RULE_REF_WRITE_ACCESS:
	case ENPU_RULE_REF_RANGE:
	case ENPU_RULE_TENSOR_SIZE:
	case ENPU_RULE_CONV_WEIGHTS_SIZE:
		return ENPU_JOB_STATUS_DMA_FAULT;
	default:
		return ENPU_JOB_STATUS_INVALID;
	}
}
