# SPDX-License-Identifier: GPL-2.0
#
# tests/vnpu_exec: the vnpu's layer execution driven directly (tile ranges,
# FAST vs ORACLE), and the oracle mode under the whole device test.

VNPU_EXEC_TEST_BIN := $(B)/tests/vnpu_exec/test-vnpu-exec
# The device's sources but its main(): the layer files and what they call.
VNPU_EXEC_LAYER_SOURCES := tests/vnpu_exec/guest_model.c \
	$(filter-out tools/vnpu/main.c,$(VNPU_SRCS)) firmware-loader/enpu_fw_image.c \
	tools/fwpack/fw_sha256.c
VNPU_EXEC_CFLAGS = $(USER_CFLAGS) -Ikernel -Itools/vnpu -Ifirmware-loader \
	-Itools/fwpack $(RUNTIME_CPU_CFLAGS) \
	$(shell pkg-config --cflags libcrypto)
VNPU_EXEC_LIBS = $(RUNTIME_CPU_LDFLAGS) $(shell pkg-config --libs libcrypto) \
	-pthread
VNPU_EXEC_DEPS = tools/vnpu/layer.h tools/vnpu/layer_fast.h \
	tools/vnpu/vnpu.h tests/vnpu_exec/guest_model.h $(RUNTIME_CPU_LIB)
VNPU_LAYER_BENCH_BIN := $(B)/tests/vnpu_exec/vnpu-layer-bench
VNPU_EXEC_SOURCES := tests/vnpu_exec/test_layer_exec.c $(VNPU_EXEC_LAYER_SOURCES)

ALL_TARGETS += $(VNPU_EXEC_TEST_BIN)
HOST_TESTS += test-vnpu-exec test-vnpu-oracle
.PHONY: test-vnpu-exec test-vnpu-oracle

$(VNPU_EXEC_TEST_BIN): $(VNPU_EXEC_SOURCES) $(VNPU_EXEC_DEPS)
	@mkdir -p $(@D)
	$(CC) $(VNPU_EXEC_CFLAGS) -o $@ $(VNPU_EXEC_SOURCES) $(VNPU_EXEC_LIBS)

ALL_TARGETS += $(VNPU_LAYER_BENCH_BIN)
$(VNPU_LAYER_BENCH_BIN): tests/vnpu_exec/vnpu_layer_bench.c \
		$(VNPU_EXEC_LAYER_SOURCES) $(VNPU_EXEC_DEPS)
	@mkdir -p $(@D)
	$(CC) $(VNPU_EXEC_CFLAGS) -o $@ tests/vnpu_exec/vnpu_layer_bench.c \
		$(VNPU_EXEC_LAYER_SOURCES) $(VNPU_EXEC_LIBS)

# Host compute per layer vs modeled device time (docs/hw/vnpu.md).
.PHONY: bench-vnpu
bench-vnpu: $(VNPU_LAYER_BENCH_BIN)
	$(VNPU_LAYER_BENCH_BIN) --runs 5 --oracle
	$(VNPU_LAYER_BENCH_BIN) --runs 5 --threads 2

test-vnpu-exec: $(VNPU_EXEC_TEST_BIN)
	$(VNPU_EXEC_TEST_BIN)

# The whole device test (tests/vnpu) again with the oracle computing the
# layers, so both modes meet the CPU reference kernels.
test-vnpu-oracle: $(B)/tests/vnpu/vnpu-test $(B)/bin/vnpu \
		$(B)/bin/enpu-fwpack $(B)/firmware/enpu/enpu-fw-v1.bin
	$(B)/tests/vnpu/vnpu-test \
		--vnpu $(CURDIR)/tests/vnpu_exec/vnpu-oracle.sh \
		--firmware $(B)/firmware/enpu/enpu-fw-v1.bin
