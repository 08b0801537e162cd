# SPDX-License-Identifier: GPL-2.0
#
# vnpu: the virtual NPU device model (tools/vnpu/README.md). It links the
# driver's firmware image parser built for userspace (FW_PARSER_OBJS, from
# tools/fwpack/fwpack.mk), so the driver, the packer and the device share
# one set of image rules.
# -Iuserspace/runtime/cpu is for the header-only requantization rule
# (enpu_quantization.h); the vnpu links nothing of the CPU runtime.

VNPU_SRCS := $(sort $(wildcard tools/vnpu/*.c))
VNPU_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(VNPU_SRCS))
VNPU_CFLAGS = $(USER_CFLAGS) -Ikernel -Ifirmware-loader \
	-Iuserspace/runtime/cpu \
	$(shell pkg-config --cflags libcrypto) -MMD -MP
VNPU_LIBS = $(shell pkg-config --libs libcrypto) -lm -pthread

ALL_TARGETS += $(B)/bin/vnpu

$(B)/obj/tools/vnpu/%.o: tools/vnpu/%.c
	@mkdir -p $(@D)
	$(CC) $(VNPU_CFLAGS) -c -o $@ $<

$(B)/bin/vnpu: $(VNPU_OBJS) $(FW_PARSER_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(VNPU_LIBS)

-include $(VNPU_OBJS:.o=.d)
