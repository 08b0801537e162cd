# SPDX-License-Identifier: GPL-2.0
#
# vnpu: the virtual NPU device model (tools/vnpu/README.md). It links the
# driver's firmware image parser built for userspace (FW_PARSER_OBJS, from
# tools/fwpack/fwpack.mk), so the driver, the packer and the device share
# one set of image rules. The vnpu computes layers with the CPU runtime's
# int8 kernels in its FAST mode (tools/vnpu/layer_fast.c), so it links
# libenpu-cpu.a; its ORACLE mode is its own code (layer_conv.c,
# layer_eltwise.c, layer_pool.c, layer_quantize.c).

VNPU_SRCS := $(sort $(wildcard tools/vnpu/*.c))
VNPU_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(VNPU_SRCS))
VNPU_CFLAGS = $(USER_CFLAGS) -Ikernel -Ifirmware-loader \
	-Iuserspace/runtime/cpu \
	$(shell pkg-config --cflags libcrypto) -MMD -MP
VNPU_LIBS = $(shell pkg-config --libs libcrypto) $(RUNTIME_CPU_LDFLAGS) -pthread

ALL_TARGETS += $(B)/bin/vnpu

$(B)/obj/tools/vnpu/%.o: tools/vnpu/%.c
	@mkdir -p $(@D)
	$(CC) $(VNPU_CFLAGS) -c -o $@ $<

$(B)/bin/vnpu: $(VNPU_OBJS) $(FW_PARSER_OBJS) $(RUNTIME_CPU_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(VNPU_OBJS) $(FW_PARSER_OBJS) $(VNPU_LIBS)

-include $(VNPU_OBJS:.o=.d)
