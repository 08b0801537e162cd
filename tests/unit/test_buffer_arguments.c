// SPDX-License-Identifier: MIT
/*
 * Buffer, submit and syncobj entry points refuse missing objects with
 * -EINVAL before touching anything (no driver needed to check that).
 */
#include <errno.h>

#include <enpu/enpu.h>

#include "unit_test.h"

static int bo_functions_reject_null_objects(void)
{
	enpu_bo *bo = (enpu_bo *)1;
	uint64_t size;
	uint32_t value;
	void *address;
	int fd;

	CHECK(enpu_bo_create(NULL, 4096, 0, &bo) == -EINVAL);
	CHECK(enpu_bo_import(NULL, 0, &bo) == -EINVAL);
	CHECK(bo == (enpu_bo *)1);
	CHECK(enpu_bo_destroy(NULL) == 0);
	CHECK(enpu_bo_size(NULL, &size) == -EINVAL);
	CHECK(enpu_bo_handle(NULL, &value) == -EINVAL);
	CHECK(enpu_bo_flags(NULL, &value) == -EINVAL);
	CHECK(enpu_bo_map(NULL, &address) == -EINVAL);
	CHECK(enpu_bo_unmap(NULL) == -EINVAL);
	CHECK(enpu_bo_export(NULL, &fd) == -EINVAL);
	CHECK(enpu_bo_wait(NULL, 0, 0) == -EINVAL);
	return 0;
}

static int submit_and_syncobj_functions_reject_null_device(void)
{
	struct enpu_submit_desc desc = { 0 };
	uint64_t seqno;
	uint32_t syncobj;
	int fd;

	CHECK(enpu_submit(NULL, &desc, &seqno) == -EINVAL);
	CHECK(enpu_syncobj_create(NULL, &syncobj) == -EINVAL);
	CHECK(enpu_syncobj_destroy(NULL, 1) == -EINVAL);
	CHECK(enpu_syncobj_wait(NULL, 1, 0, 0) == -EINVAL);
	CHECK(enpu_syncobj_export_sync_file(NULL, 1, &fd) == -EINVAL);
	CHECK(enpu_syncobj_import_sync_file(NULL, 1, 0) == -EINVAL);
	return 0;
}

UNIT_TEST_SUITE(buffer_arguments,
	UNIT_TEST(bo_functions_reject_null_objects),
	UNIT_TEST(submit_and_syncobj_functions_reject_null_device));
