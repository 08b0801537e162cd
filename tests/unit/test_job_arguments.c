// SPDX-License-Identifier: MIT
/*
 * Context and job-status calls without a driver: NULL objects and
 * out-parameters, and sync_file status on fds that are not sync_files.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <enpu/enpu.h>

#include "unit_test.h"

static int context_calls_refuse_null(void)
{
	struct enpu_context_info info;
	enpu_context *context = NULL;
	uint32_t id;

	CHECK(enpu_context_create(NULL, DRM_ENPU_PRIORITY_NORMAL,
				  &context) == -EINVAL);
	CHECK(context == NULL);
	CHECK(enpu_context_destroy(NULL) == 0);
	CHECK(enpu_context_id(NULL, &id) == -EINVAL);
	CHECK(enpu_context_query(NULL, sizeof(info), &info) == -EINVAL);
	CHECK(enpu_device_query_context(NULL, 0, sizeof(info), &info) ==
	      -EINVAL);
	return 0;
}

static int job_calls_refuse_null(void)
{
	int job_status = 99;

	CHECK(enpu_job_status(NULL, 1, &job_status) == -EINVAL);
	CHECK(enpu_job_wait(NULL, 1, 0, 0, &job_status) == -EINVAL);
	CHECK(enpu_sync_file_status(0, NULL, NULL) == -EINVAL);
	CHECK(job_status == 99);
	return 0;
}

static int stream_calls_refuse_null(void)
{
	static const uint64_t nop[2];
	struct enpu_submit_desc desc;
	enpu_stream *stream = NULL;
	uint32_t handle = 7;
	uint64_t seqno = 9;

	memset(&desc, 0, sizeof(desc));
	CHECK(enpu_stream_create(NULL, nop, sizeof(nop), &stream) == -EINVAL);
	CHECK(stream == NULL);
	CHECK(enpu_stream_destroy(NULL) == 0);
	CHECK(enpu_stream_handle(NULL, &handle) == -EINVAL);
	CHECK(handle == 7);
	CHECK(enpu_submit_stream(NULL, &desc, NULL, &seqno) == -EINVAL);
	CHECK(seqno == 9);
	return 0;
}

static int sync_file_status_of_a_closed_fd_names_it(void)
{
	struct enpu_error error = { "" };
	int job_status = 99;

	CHECK(enpu_sync_file_status(-1, &job_status, &error) == -EBADF);
	CHECK(strstr(error.message, "fd -1") != NULL);
	CHECK(job_status == 99);
	return 0;
}

static int sync_file_status_of_a_pipe_is_refused(void)
{
	struct enpu_error error = { "" };
	int job_status = 99, pipe_fds[2], status;

	CHECK(pipe(pipe_fds) == 0);
	status = enpu_sync_file_status(pipe_fds[0], &job_status, &error);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	CHECK(status == -ENOTTY);
	CHECK(strstr(error.message, "not a sync_file") != NULL);
	CHECK(job_status == 99);
	return 0;
}

UNIT_TEST_SUITE(job_arguments,
	UNIT_TEST(context_calls_refuse_null),
	UNIT_TEST(job_calls_refuse_null),
	UNIT_TEST(stream_calls_refuse_null),
	UNIT_TEST(sync_file_status_of_a_closed_fd_names_it),
	UNIT_TEST(sync_file_status_of_a_pipe_is_refused));
