# SPDX-License-Identifier: GPL-2.0
#
# enpu-fwpack: builds and checks firmware images (tools/fwpack/README.md).
# fw_image.o is shared with the vnpu, which verifies images the same way.

FW_IMAGE_OBJ := $(B)/obj/tools/fwpack/fw_image.o
FWPACK_OBJS := $(B)/obj/tools/fwpack/fwpack.o $(FW_IMAGE_OBJ)
FWPACK_CFLAGS = $(USER_CFLAGS) -Ifirmware-loader -Itools/fwpack \
	$(shell pkg-config --cflags libcrypto) -MMD -MP

ALL_TARGETS += $(B)/bin/enpu-fwpack

$(B)/obj/tools/fwpack/%.o: tools/fwpack/%.c
	@mkdir -p $(@D)
	$(CC) $(FWPACK_CFLAGS) -c -o $@ $<

$(B)/bin/enpu-fwpack: $(FWPACK_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs libcrypto)

-include $(FWPACK_OBJS:.o=.d)
