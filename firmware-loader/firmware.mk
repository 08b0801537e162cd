# SPDX-License-Identifier: GPL-2.0
#
# The firmware image for the virtual NPU. Its payload is generated here,
# byte for byte the same on every build (text plus zero padding to 4 KiB):
# the vnpu only verifies the image, it runs no code from it.

ENPU_FW_V1 := $(B)/firmware/enpu/enpu-fw-v1.bin
ENPU_FW_V1_PAYLOAD := $(B)/obj/firmware-loader/enpu-fw-v1.payload

ALL_TARGETS += $(ENPU_FW_V1)

$(ENPU_FW_V1_PAYLOAD): firmware-loader/firmware.mk
	@mkdir -p $(@D)
	printf 'ENPU vNPU firmware 1.2.0\nfirmware API 1\nhardware interface 1.0\n' > $@.tmp
	truncate -s 4096 $@.tmp
	mv $@.tmp $@

$(ENPU_FW_V1): $(ENPU_FW_V1_PAYLOAD) $(B)/bin/enpu-fwpack
	@mkdir -p $(@D)
	$(B)/bin/enpu-fwpack --fw-version 1.2.0 --api-version 1 $< $@
