# tests/cpu: host unit tests of the CPU kernels (userspace/runtime/cpu).
# `make test-cpu` runs every ISA path this machine supports against the
# scalar reference at 1 and 2 threads, plus the requantization vectors.

TEST_CPU_DIR := tests/cpu
TEST_CPU_SOURCES := $(sort $(wildcard $(TEST_CPU_DIR)/*.c))
TEST_CPU_OBJECTS := $(patsubst $(TEST_CPU_DIR)/%.c,$(B)/obj/tests/cpu/%.o,\
	$(TEST_CPU_SOURCES))
TEST_CPU_BIN := $(B)/tests/cpu/test-cpu
# Extra link flags; tests/cpu-arm64 sets -static for qemu-user.
TEST_CPU_LDFLAGS ?=

ALL_TARGETS += $(TEST_CPU_BIN)
HOST_TESTS += test-cpu

$(B)/obj/tests/cpu/%.o: $(TEST_CPU_DIR)/%.c $(wildcard $(TEST_CPU_DIR)/*.h) \
		$(RUNTIME_CPU_HEADERS) | $(B)/obj/tests/cpu/
	$(CC) $(USER_CFLAGS) $(RUNTIME_CPU_CFLAGS) -c $< -o $@

$(TEST_CPU_BIN): $(TEST_CPU_OBJECTS) $(RUNTIME_CPU_LIB) | $(B)/tests/cpu/
	$(CC) -o $@ $(TEST_CPU_OBJECTS) $(RUNTIME_CPU_LDFLAGS) $(TEST_CPU_LDFLAGS)

.PHONY: test-cpu
test-cpu: $(TEST_CPU_BIN)
	$(TEST_CPU_BIN)
