# tests/validate: the command-stream validator (kernel/enpu_validate.c)
# built for userspace, next to the vnpu's own checker. `make test-validate`
# runs the rule-by-rule unit test on both checkers (accept/reject per rule
# and limit of uapi/enpu_cmd.h, the rule each names), replays the fuzzers'
# seeds and deterministic mutations of them through both entry points.
# The libFuzzer targets `validate` and `differential` join FUZZ_TARGETS
# (`make fuzz`, tests/fuzz/README.md).

TEST_VALIDATE_DIR := tests/validate
TEST_VALIDATE_OUT := $(B)/tests/validate
TEST_VALIDATE_BIN := $(TEST_VALIDATE_OUT)/test-validate
# The vnpu's command checker, its own files compiled in (what
# cmdstream_validate() needs links nothing else of the vnpu).
VNPU_CHECKER_SRCS := tools/vnpu/cmdstream.c tools/vnpu/layer_check.c \
	tools/vnpu/layer_exec.c tools/vnpu/layer_conv.c \
	tools/vnpu/layer_eltwise.c tools/vnpu/layer_pool.c \
	tools/vnpu/layer_quantize.c tools/vnpu/dma.c \
	tools/vnpu/guest_ram.c tools/vnpu/bo_table.c
TEST_VALIDATE_SRCS := $(TEST_VALIDATE_DIR)/validate_fuzz.c \
	$(TEST_VALIDATE_DIR)/differential_fuzz.c \
	$(TEST_VALIDATE_DIR)/checkers.c kernel/enpu_validate.c \
	$(VNPU_CHECKER_SRCS)
TEST_VALIDATE_DEPS := $(TEST_VALIDATE_SRCS) kernel/enpu_validate.h \
	kernel/enpu_cmd_rule.h uapi/enpu_cmd.h kernel/enpu_regs.h \
	$(wildcard $(TEST_VALIDATE_DIR)/*.h) $(wildcard tools/vnpu/*.h) \
	userspace/runtime/cpu/enpu_quantization.h
# The kernel file is compiled as is, without __KERNEL__ (see its header).
TEST_VALIDATE_INCLUDES = -Iuapi -Ikernel -I$(TEST_VALIDATE_DIR) -Itools/vnpu \
	-Iuserspace/runtime/cpu
TEST_VALIDATE_CFLAGS = $(USER_CFLAGS) $(TEST_VALIDATE_INCLUDES)

# The unit test only: what the device does with accepted streams, on a
# guest RAM stand-in (tests/vnpu_exec/guest_model.c).
TEST_VALIDATE_UNIT_SRCS := $(TEST_VALIDATE_DIR)/device_plan_test.c \
	tests/vnpu_exec/guest_model.c

ALL_TARGETS += $(TEST_VALIDATE_BIN)
HOST_TESTS += test-validate
FUZZ_TARGETS += validate differential

# One sanitized object per source (header dependencies from -MMD), so a
# change of one file rebuilds that file and the link, not all of them.
TEST_VALIDATE_OBJ_DIR := $(B)/obj/tests/validate-asan
TEST_VALIDATE_OBJS := $(patsubst %.c,$(TEST_VALIDATE_OBJ_DIR)/%.o,\
	$(TEST_VALIDATE_DIR)/test_validate.c $(TEST_VALIDATE_UNIT_SRCS) \
	$(TEST_VALIDATE_SRCS))
TEST_VALIDATE_SANITIZE := -fsanitize=address,undefined \
	-fno-sanitize-recover=all

$(TEST_VALIDATE_OBJ_DIR)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(TEST_VALIDATE_CFLAGS) -Itests/vnpu_exec \
		$(TEST_VALIDATE_SANITIZE) -MMD -MP -c -o $@ $<

$(TEST_VALIDATE_BIN): $(TEST_VALIDATE_OBJS) | $(TEST_VALIDATE_OUT)/
	$(CC) $(CFLAGS) $(TEST_VALIDATE_SANITIZE) -o $@ \
		$(TEST_VALIDATE_OBJS) -lm

-include $(TEST_VALIDATE_OBJS:.o=.d)

# libFuzzer builds: clang, ASan + UBSan, the same sources.
$(TEST_VALIDATE_OUT)/fuzz-%: $(TEST_VALIDATE_DIR)/fuzz_%.c \
		$(TEST_VALIDATE_DEPS) | $(TEST_VALIDATE_OUT)/
	$(FUZZ_CLANG) -std=c11 -D_GNU_SOURCE $(WARN) -g -O1 \
		$(TEST_VALIDATE_INCLUDES) $(FUZZ_SANITIZE) \
		-o $@ $< $(TEST_VALIDATE_SRCS) -lm

.PHONY: test-validate fuzz-validate fuzz-differential
test-validate: $(TEST_VALIDATE_BIN)
	$(TEST_VALIDATE_BIN)

# Both targets start from the unit test's commands (valid ones and a few
# invalid); findings land in $(TEST_VALIDATE_OUT)/findings-NAME.
fuzz-validate fuzz-differential: fuzz-%: $(TEST_VALIDATE_OUT)/fuzz-% \
		$(TEST_VALIDATE_BIN)
	mkdir -p $(TEST_VALIDATE_OUT)/corpus-$* $(TEST_VALIDATE_OUT)/findings-$*
	$(TEST_VALIDATE_BIN) --write-corpus $(TEST_VALIDATE_OUT)/corpus-$*
	$(call fuzz_run,$<,$(TEST_VALIDATE_OUT)/corpus-$*,\
		$(TEST_VALIDATE_OUT)/findings-$*/,-max_len=4096)
