# SPDX-License-Identifier: GPL-2.0
#
# tests/firmware: the firmware image parser (firmware-loader/enpu_fw_image.c)
# built for userspace. `make test-fw-image` (host tier) runs the case table
# rule by rule with ASan and UBSan, writes the cases as seeds, and replays
# the seeds, the built firmware and tests/firmware/regressions/ through the
# fuzzing entry point. The libFuzzer target `fw-image` joins FUZZ_TARGETS
# (`make fuzz-fw-image`, or every target with `make fuzz FUZZ_SECONDS=N`).

FW_TEST_DIR := tests/firmware
FW_TEST_OUT := $(B)/tests/firmware
FW_TEST_BIN := $(FW_TEST_OUT)/test-fw-image
FW_FUZZ_BIN := $(FW_TEST_OUT)/fuzz-fw-image
FW_TEST_SRCS := $(FW_TEST_DIR)/fw_image_fuzz.c firmware-loader/enpu_fw_image.c \
	tools/fwpack/fw_build.c tools/fwpack/fw_sha256.c
FW_TEST_DEPS := $(FW_TEST_SRCS) $(FW_PARSER_DEPS) $(wildcard $(FW_TEST_DIR)/*.h) \
	tools/fwpack/fw_build.h
FW_TEST_INCLUDES = -Ifirmware-loader -Itools/fwpack -I$(FW_TEST_DIR)
FW_CRYPTO_LIBS = $(shell pkg-config --libs libcrypto)

FUZZ_TARGETS += fw-image
HOST_TESTS += test-fw-image
ALL_TARGETS += $(FW_TEST_BIN)

$(FW_TEST_BIN): $(FW_TEST_DIR)/test_fw_image.c $(FW_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(FW_TEST_INCLUDES) -fsanitize=address,undefined \
		-fno-sanitize-recover=all -o $@ $< $(FW_TEST_SRCS) $(FW_CRYPTO_LIBS)

$(FW_FUZZ_BIN): $(FW_TEST_DIR)/fuzz_fw_image.c $(FW_TEST_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CLANG) -std=c11 -D_GNU_SOURCE $(WARN) -g -O1 $(FW_TEST_INCLUDES) \
		$(FUZZ_SANITIZE) -o $@ $< $(FW_TEST_SRCS) $(FW_CRYPTO_LIBS)

.PHONY: test-fw-image fuzz-fw-image
test-fw-image: $(FW_TEST_BIN) $(ENPU_FW_V1)
	$(FW_TEST_BIN)
	rm -rf $(FW_TEST_OUT)/seeds
	$(FW_TEST_BIN) --write-corpus $(FW_TEST_OUT)/seeds
	$(FW_TEST_BIN) --replay $(FW_TEST_OUT)/seeds $(ENPU_FW_V1) \
		$(FW_TEST_DIR)/regressions

# Seeds: the case table and the built firmware; findings (crash-*, ...)
# land in $(FW_TEST_OUT)/findings. Copy one into tests/firmware/regressions/
# once fixed, so `make check` replays it for good.
fuzz-fw-image: $(FW_FUZZ_BIN) $(FW_TEST_BIN) $(ENPU_FW_V1)
	mkdir -p $(FW_TEST_OUT)/corpus $(FW_TEST_OUT)/findings
	$(FW_TEST_BIN) --write-corpus $(FW_TEST_OUT)/corpus
	cp $(ENPU_FW_V1) $(FW_TEST_OUT)/corpus/enpu-fw-v1.bin
	$(call fuzz_run,$(FW_FUZZ_BIN),$(FW_TEST_OUT)/corpus,\
		$(FW_TEST_OUT)/findings/,-max_len=8192)
