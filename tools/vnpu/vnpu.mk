# SPDX-License-Identifier: GPL-2.0
#
# vnpu: the virtual NPU device model (tools/vnpu/README.md). It compiles
# tools/fwpack/fw_image.c too, so the packer and the device share one set
# of firmware header rules (the object's rule lives in tools/fwpack/fwpack.mk).
# -Iuserspace/runtime/cpu is for the header-only requantization rule
# (enpu_quantization.h); the vnpu links nothing of the CPU runtime.

VNPU_SRCS := $(sort $(wildcard tools/vnpu/*.c))
VNPU_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(VNPU_SRCS))
VNPU_CFLAGS = $(USER_CFLAGS) -Ikernel -Ifirmware-loader -Itools/fwpack \
	-Iuserspace/runtime/cpu \
	$(shell pkg-config --cflags libcrypto) -MMD -MP
VNPU_LIBS = $(shell pkg-config --libs libcrypto) -lm -pthread

ALL_TARGETS += $(B)/bin/vnpu

$(B)/obj/tools/vnpu/%.o: tools/vnpu/%.c
	@mkdir -p $(@D)
	$(CC) $(VNPU_CFLAGS) -c -o $@ $<

$(B)/bin/vnpu: $(VNPU_OBJS) $(B)/obj/tools/fwpack/fw_image.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(VNPU_LIBS)

-include $(VNPU_OBJS:.o=.d)
