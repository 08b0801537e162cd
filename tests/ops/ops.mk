# tests/ops: op semantics the ONNX suite does not pin down (NaN through
# Relu, fused and not), the loader's unsupported-op report, and
# regression tests of op bugs. `make test-ops` (part of check).

TEST_OPS_BIN := $(B)/tests/ops/test-ops
TEST_OPS_SOURCES := tests/ops/test_ops.c tests/rt/model_builder.c

ALL_TARGETS += $(TEST_OPS_BIN)
HOST_TESTS += test-ops

$(TEST_OPS_BIN): $(TEST_OPS_SOURCES) tests/rt/model_builder.h tests/rt/rt_open.h \
		$(RT_HEADERS) \
		$(RT_LIB) $(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(RT_INTERNAL_CFLAGS) -Itests/rt -o $@ \
		$(TEST_OPS_SOURCES) $(RT_LDFLAGS)

.PHONY: test-ops
test-ops: $(TEST_OPS_BIN)
	$(TEST_OPS_BIN)
