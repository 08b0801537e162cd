# tests/conformance: the ONNX conformance runner over Debian's
# libonnx-testdata. `make test-conformance` runs it (part of check);
# `make docs-ops` regenerates docs/ops.md from the same run, and
# test-conformance fails when the committed docs/ops.md differs from what
# the registry and the suite give now (an op added without regenerating
# it). --strict:
# anything unsupported (not a documented skip) fails the target. Messages
# are cut to their buffers on purpose, hence -Wno-format-truncation.

CONFORMANCE_BIN := $(B)/tests/conformance/conformance
CONFORMANCE_DATA ?= /usr/share/libonnx-testdata/data
CONFORMANCE_SUITES := $(addprefix $(CONFORMANCE_DATA)/,node \
	pytorch-converted pytorch-operator simple)

ALL_TARGETS += $(CONFORMANCE_BIN)
HOST_TESTS += test-conformance

$(CONFORMANCE_BIN): tests/conformance/conformance.c $(RT_HEADERS) $(RT_LIB) \
		$(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -Wno-format-truncation $(RT_INTERNAL_CFLAGS) \
		-o $@ $< $(RT_LDFLAGS)

.PHONY: test-conformance docs-ops
test-conformance: $(CONFORMANCE_BIN)
	$(CONFORMANCE_BIN) --strict --ops-md $(B)/tests/conformance/ops.md \
		$(CONFORMANCE_SUITES)
	@diff -u docs/ops.md $(B)/tests/conformance/ops.md || \
		{ echo "test-conformance: docs/ops.md is stale; run make docs-ops"; \
		false; }

docs-ops: $(CONFORMANCE_BIN)
	$(CONFORMANCE_BIN) --ops-md docs/ops.md $(CONFORMANCE_SUITES) || true
