# SPDX-License-Identifier: GPL-2.0
#
# enpu-fwpack: builds and inspects firmware images (tools/fwpack/README.md).
# FW_PARSER_OBJS is the driver's image parser (firmware-loader/
# enpu_fw_image.c) built for userspace with its sha256() over libcrypto;
# enpu-fwpack, the vnpu and the firmware tests link it, so every reader of
# an image runs the kernel's own checks.

FW_PARSER_OBJS := $(B)/obj/firmware-loader/enpu_fw_image.o \
	$(B)/obj/tools/fwpack/fw_sha256.o
FW_PARSER_DEPS := firmware-loader/enpu_fw_image.c \
	firmware-loader/enpu_fw_image.h firmware-loader/enpu_fw_format.h
FWPACK_OBJS := $(B)/obj/tools/fwpack/fwpack.o $(B)/obj/tools/fwpack/fw_build.o \
	$(FW_PARSER_OBJS)
FWPACK_CFLAGS = $(USER_CFLAGS) -Ifirmware-loader -Itools/fwpack \
	$(shell pkg-config --cflags libcrypto) -MMD -MP
FW_PARSER_LIBS = $(shell pkg-config --libs libcrypto)

ALL_TARGETS += $(B)/bin/enpu-fwpack

$(B)/obj/tools/fwpack/%.o: tools/fwpack/%.c
	@mkdir -p $(@D)
	$(CC) $(FWPACK_CFLAGS) -c -o $@ $<

# The kernel file compiled as is, without __KERNEL__ (see its header).
$(B)/obj/firmware-loader/enpu_fw_image.o: firmware-loader/enpu_fw_image.c
	@mkdir -p $(@D)
	$(CC) $(FWPACK_CFLAGS) -c -o $@ $<

$(B)/bin/enpu-fwpack: $(FWPACK_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(FW_PARSER_LIBS)

-include $(FWPACK_OBJS:.o=.d)
