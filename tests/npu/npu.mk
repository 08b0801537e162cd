# tests/npu: the NPU backend (claim, compiler, tiling, cache) on the host,
# the device simulated by the vnpu's validator and layer engines.

TEST_NPU_BIN := $(B)/tests/npu/test-npu
TEST_NPU_SIM_DIR := $(B)/obj/tests/npu/sim
# The device side: the vnpu's sources but its main(), built as the vnpu.
TEST_NPU_SIM_SOURCES := tests/npu/sim_device.c tests/vnpu_exec/guest_model.c \
	$(filter-out tools/vnpu/main.c,$(VNPU_SRCS)) firmware-loader/enpu_fw_image.c \
	tools/fwpack/fw_sha256.c
TEST_NPU_SIM_CFLAGS = $(USER_CFLAGS) -Ikernel -Itools/vnpu -Ifirmware-loader \
	-Itools/fwpack -Itests/vnpu_exec $(RUNTIME_CPU_CFLAGS) \
	$(shell pkg-config --cflags libcrypto)
TEST_NPU_SIM_LIB := $(TEST_NPU_SIM_DIR)/libsim.a
# The runtime side.
TEST_NPU_SOURCES := tests/npu/test_npu.c tests/npu/npu_sim.c \
	tests/npu/qmodel.c tests/rt/model_builder.c tests/rt/mobilenet_model.c
TEST_NPU_HEADERS := $(wildcard tests/npu/*.h) tests/rt/model_builder.h \
	tests/rt/mobilenet_model.h

ALL_TARGETS += $(TEST_NPU_BIN)
HOST_TESTS += test-npu
.PHONY: test-npu

$(TEST_NPU_SIM_LIB): $(TEST_NPU_SIM_SOURCES) tools/vnpu/layer.h \
		tools/vnpu/layer_fast.h tools/vnpu/vnpu.h tests/npu/sim_device.h \
		tests/vnpu_exec/guest_model.h
	@mkdir -p $(@D)
	for f in $(TEST_NPU_SIM_SOURCES); do \
		$(CC) $(TEST_NPU_SIM_CFLAGS) -c $$f \
			-o $(@D)/$$(basename $$f .c).o || exit 1; \
	done
	rm -f $@
	$(AR) rcs $@ $(patsubst %.c,$(@D)/%.o,$(notdir $(TEST_NPU_SIM_SOURCES)))

$(TEST_NPU_BIN): $(TEST_NPU_SOURCES) $(TEST_NPU_HEADERS) $(RT_HEADERS) \
		kernel/enpu_regs.h \
		$(RT_LIB) $(RUNTIME_CPU_LIB) $(TEST_NPU_SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(RT_INTERNAL_CFLAGS) $(LIBENPU_CFLAGS) \
		-Itests/rt -Itests/npu -Ikernel -o $@ $(TEST_NPU_SOURCES) \
		$(TEST_NPU_SIM_LIB) $(RT_LDFLAGS) \
		$(shell pkg-config --libs libcrypto) -pthread

test-npu: $(TEST_NPU_BIN)
	$(TEST_NPU_BIN)

# The same backend through the kernel driver and the vnpu, in the VM.
TEST_NPU_MODELS := $(B)/tests/npu/models
VM_TESTS += vm-test-npu
.PHONY: vm-test-npu
vm-test-npu: all
	rm -rf $(TEST_NPU_MODELS) && mkdir -p $(TEST_NPU_MODELS)
	$(TEST_NPU_BIN) --write-models $(TEST_NPU_MODELS)
	tools/vm/run --timeout 600 -- sh $(CURDIR)/tests/npu/vm-npu.sh \
		$(CURDIR)/$(TEST_NPU_MODELS)
