# tests/bench/dmabuf: `make bench-dmabuf` boots the VM and times a
# 1920x1080 RGB vgem frame read by the NPU, zero-copy (imported dma-buf)
# vs. a CPU memcpy into an ENPU BO first. Not part of `make check`. The
# sources live in tests/bench/dmabuf/ so that bench.mk's *.c wildcard does
# not pick them up.

BENCH_DMABUF_DIR := tests/bench/dmabuf
BENCH_DMABUF_BIN := $(B)/tests/bench/dmabuf-bench
BENCH_DMABUF_FRAMES ?= 30
BENCH_DMABUF_SPEED ?= 1

ALL_TARGETS += $(BENCH_DMABUF_BIN)

# The debugfs readers and drm_card (tools/common) come with the kselftests'
# helper objects (defined by
# tests/kselftest/kselftest.mk, read after this file).
.SECONDEXPANSION:
$(BENCH_DMABUF_BIN): $(BENCH_DMABUF_DIR)/dmabuf_bench.c $(LIBENPU_HEADERS) \
		$$(KSELFTEST_HELPER_OBJECTS) $(B)/lib/libenpu.so
	@mkdir -p $(@D)
	$(CC) $(KSELFTEST_CFLAGS) -I$(KSELFTEST_DIR) -o $@ $< \
		$(KSELFTEST_HELPER_OBJECTS) $(LIBENPU_LDFLAGS) -pthread \
		-Wl,-rpath,'$$ORIGIN/../../lib'

.PHONY: bench-dmabuf
bench-dmabuf: all
	tools/vm/run --timeout 900 \
		--vnpu-arg --speed --vnpu-arg $(BENCH_DMABUF_SPEED) \
		-- $(CURDIR)/$(BENCH_DMABUF_BIN) \
		--frames $(BENCH_DMABUF_FRAMES) --speed $(BENCH_DMABUF_SPEED)
