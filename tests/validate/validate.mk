# tests/validate: the command-stream validator (kernel/enpu_validate.c)
# built for userspace. `make test-validate` runs the rule-by-rule unit test
# (accept/reject per rule of uapi/enpu_cmd.h, plus the fuzzer's seeds
# replayed through its entry point); `make fuzz-validate` runs the libFuzzer
# target for FUZZ_VALIDATE_SECONDS (default 60) with ASan and UBSan. The
# fuzzer is not part of `make check`.

TEST_VALIDATE_DIR := tests/validate
TEST_VALIDATE_OUT := $(B)/tests/validate
TEST_VALIDATE_BIN := $(TEST_VALIDATE_OUT)/test-validate
FUZZ_VALIDATE_BIN := $(TEST_VALIDATE_OUT)/fuzz-validate
FUZZ_VALIDATE_SECONDS ?= 60
TEST_VALIDATE_DEPS := kernel/enpu_validate.c kernel/enpu_validate.h \
	uapi/enpu_cmd.h kernel/enpu_regs.h $(TEST_VALIDATE_DIR)/validate_fuzz.c \
	$(TEST_VALIDATE_DIR)/validate_fuzz.h
# The kernel file is compiled as is, without __KERNEL__ (see its header).
TEST_VALIDATE_CFLAGS = $(USER_CFLAGS) -Ikernel -I$(TEST_VALIDATE_DIR)

ALL_TARGETS += $(TEST_VALIDATE_BIN)
HOST_TESTS += test-validate

$(TEST_VALIDATE_BIN): $(TEST_VALIDATE_DIR)/test_validate.c \
		$(TEST_VALIDATE_DEPS) | $(TEST_VALIDATE_OUT)/
	$(CC) $(TEST_VALIDATE_CFLAGS) -fsanitize=address,undefined \
		-fno-sanitize-recover=all -o $@ $< \
		$(TEST_VALIDATE_DIR)/validate_fuzz.c kernel/enpu_validate.c

$(FUZZ_VALIDATE_BIN): $(TEST_VALIDATE_DIR)/fuzz_validate.c \
		$(TEST_VALIDATE_DEPS) | $(TEST_VALIDATE_OUT)/
	clang -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 -Iuapi \
		-Ikernel -I$(TEST_VALIDATE_DIR) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $< $(TEST_VALIDATE_DIR)/validate_fuzz.c \
		kernel/enpu_validate.c

.PHONY: test-validate fuzz-validate
test-validate: $(TEST_VALIDATE_BIN)
	$(TEST_VALIDATE_BIN)

# Seeds come from the unit test's valid commands; findings land in
# $(TEST_VALIDATE_OUT)/findings.
fuzz-validate: $(FUZZ_VALIDATE_BIN) $(TEST_VALIDATE_BIN)
	mkdir -p $(TEST_VALIDATE_OUT)/corpus $(TEST_VALIDATE_OUT)/findings
	$(TEST_VALIDATE_BIN) --write-corpus $(TEST_VALIDATE_OUT)/corpus
	$(FUZZ_VALIDATE_BIN) -max_total_time=$(FUZZ_VALIDATE_SECONDS) \
		-max_len=4096 -artifact_prefix=$(TEST_VALIDATE_OUT)/findings/ \
		$(TEST_VALIDATE_OUT)/corpus
