# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the virtual NPU and the firmware packer (tests/vnpu/README.md).

VNPU_TEST_SRCS := tests/vnpu/vnpu_test.c tests/vnpu/vnpu_dma_test.c \
	tests/vnpu/vnpu_layer_test.c tests/vnpu/vnpu_preempt_test.c \
	tests/vnpu/vnpu_thermal_test.c \
	tests/vnpu/vnpu_rig.c
VNPU_TEST_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(VNPU_TEST_SRCS))
VNPU_TEST_CFLAGS = $(USER_CFLAGS) -Ikernel -Ifirmware-loader -Itools/vnpu \
	$(RUNTIME_CPU_CFLAGS) $(shell pkg-config --cflags libcrypto) -MMD -MP

HOST_TESTS += test-vnpu
.PHONY: test-vnpu

$(B)/obj/tests/vnpu/%.o: tests/vnpu/%.c
	@mkdir -p $(@D)
	$(CC) $(VNPU_TEST_CFLAGS) -c -o $@ $<

# The layer tests compare the device with the CPU reference kernels.
$(B)/tests/vnpu/vnpu-test: $(VNPU_TEST_OBJS) $(RUNTIME_CPU_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(VNPU_TEST_OBJS) $(RUNTIME_CPU_LDFLAGS) \
		$(shell pkg-config --libs libcrypto)

test-vnpu: $(B)/tests/vnpu/vnpu-test $(B)/bin/vnpu $(B)/bin/enpu-fwpack \
		$(B)/firmware/enpu/enpu-fw-v1.bin
	bash tests/vnpu/fwpack-test.sh $(B)/bin/enpu-fwpack $(B)/firmware/enpu/enpu-fw-v1.bin
	$(B)/tests/vnpu/vnpu-test --vnpu $(B)/bin/vnpu \
		--firmware $(B)/firmware/enpu/enpu-fw-v1.bin

-include $(VNPU_TEST_OBJS:.o=.d)
