// SPDX-License-Identifier: GPL-2.0
/*
 * --facts: key=value lines describing this device, for tests that compare
 * what the driver reports (GET_PARAM) with the truth. Values are the
 * numbers GET_PARAM returns (sram_size in bytes, caps as the CAPS bits,
 * versions as packed integers). The file is replaced atomically so a
 * reader never sees half of it; fw_version and fw_api_version appear after
 * the first successful BOOT and then describe the last booted image.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm_access.h"
#include "vnpu.h"

int facts_write(struct vnpu *v)
{
	const char *path = v->cfg.facts_path;
	char *tmp = NULL;
	FILE *f;
	int ok;

	if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) {
		vnpu_log(v, "facts: out of memory");
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f) {
		vnpu_log(v, "facts: %s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	fprintf(f, "device_id=%u\n", shm_read32(v->shm, ENPU_REG_DEVICE_ID));
	fprintf(f, "hw_version=%u\n", shm_read32(v->shm, ENPU_REG_HW_VERSION));
	fprintf(f, "num_queues=%u\n", shm_read32(v->shm, ENPU_REG_NUM_QUEUES));
	fprintf(f, "clock_min_khz=%u\n", opp_khz(0));
	fprintf(f, "clock_max_khz=%u\n", opp_khz(VNPU_OPP_COUNT - 1));
	fprintf(f, "caps=%u\n", shm_read32(v->shm, ENPU_REG_CAPS));
	fprintf(f, "sram_size=%llu\n",
		(unsigned long long)shm_read32(v->shm, ENPU_REG_SRAM_KB) * 1024);
	fprintf(f, "macs_per_cycle=%u\n",
		shm_read32(v->shm, ENPU_REG_MACS_PER_CYCLE));
	if (v->fw_booted) {
		fprintf(f, "fw_version=%u\n", v->fw_version);
		fprintf(f, "fw_api_version=%u\n", v->fw_api_version);
	}
	ok = !ferror(f);
	if (fclose(f))
		ok = 0;
	if (!ok || rename(tmp, path)) {
		vnpu_log(v, "facts: cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}
