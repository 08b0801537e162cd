// SPDX-License-Identifier: MIT
/*
 * Tiling: how the compiler cuts a layer into commands. The device stops a
 * job only between commands when a layer's output shares a BO with its
 * inputs (docs/hw/vnpu.md, "Interface 1.4"), which is always the case for
 * the one arena BO the compiler uses, so every command must be short
 * enough on its own: at most NPU_COMMAND_BOUND_NS minus the cost of a
 * preemption point at the top clock (cycles from the timing model:
 * max(MACs / MACS_PER_CYCLE, bytes / 32)), and its working set (what it
 * reads and writes) must fit the on-chip SRAM. Layers are cut into bands
 * of output rows, and when one row is still too much, into slices of
 * output channels (their weights are contiguous in OIHW); the bands are
 * balanced so that no band is much shorter than the others.
 */
#include "npu.h"

uint64_t npu_cycles(const struct npu_limits *l, uint64_t macs, uint64_t bytes)
{
	uint64_t a = (macs + l->macs_per_cycle - 1) / l->macs_per_cycle;
	uint64_t b = (bytes + NPU_BYTES_PER_CYCLE - 1) / NPU_BYTES_PER_CYCLE;

	return a > b ? a : b;
}

bool npu_fits(const struct npu_limits *l, uint64_t macs, uint64_t bytes)
{
	return npu_cycles(l, macs, bytes) <= l->budget_cycles &&
	       bytes <= l->sram_bytes;
}

void npu_limits_init(struct npu_limits *l, uint32_t bound_ns,
		     uint64_t clock_khz, uint64_t macs_per_cycle,
		     uint64_t sram_bytes)
{
	uint64_t bound = (uint64_t)(bound_ns ? bound_ns : NPU_COMMAND_BOUND_NS) *
			 clock_khz / 1000000;

	l->macs_per_cycle = macs_per_cycle ? macs_per_cycle : 1;
	l->sram_bytes = sram_bytes ? sram_bytes : UINT64_MAX;
	l->budget_cycles = bound > NPU_POINT_CYCLES ? bound - NPU_POINT_CYCLES :
			   1;
}

void npu_conv_band(uint32_t height, uint32_t kernel, uint32_t stride,
		   uint32_t dilation, uint32_t pad_top, uint32_t r0,
		   uint32_t r1, struct npu_band *band)
{
	int64_t first = (int64_t)r0 * stride - pad_top;
	int64_t last = (int64_t)(r1 - 1) * stride - pad_top +
		       (int64_t)dilation * (kernel - 1);

	band->pad_top = first < 0 ? (uint32_t)-first : 0;
	band->in_y0 = first < 0 ? 0 : (uint32_t)first;
	band->pad_bottom = last >= height ? (uint32_t)(last - height + 1) : 0;
	last = last >= height ? height - 1 : last;
	band->in_rows = last >= (int64_t)band->in_y0 ?
			(uint32_t)(last - band->in_y0 + 1) : 0;
}

uint32_t npu_band_count(uint32_t rows, uint32_t per_band)
{
	if (!per_band)
		per_band = 1;
	return (rows + per_band - 1) / per_band;
}

void npu_band_rows(uint32_t rows, uint32_t bands, uint32_t i, uint32_t *r0,
		   uint32_t *r1)
{
	*r0 = (uint32_t)((uint64_t)i * rows / bands);
	*r1 = (uint32_t)((uint64_t)(i + 1) * rows / bands);
}

uint32_t npu_most_rows(uint32_t rows, bool (*fits)(void *ctx, uint32_t rows),
		       void *ctx)
{
	uint32_t lo = 1, hi = rows;

	if (!fits(ctx, 1))
		return 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;

		if (fits(ctx, mid))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}
