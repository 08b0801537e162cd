# tests/quantize: post-training quantization tests (models built in the
# test, calibration sets written to build/tests/quantize/work).
# `make test-quantize` runs them; `make bench-quantize-ort` is the optional
# ONNX Runtime cross-check (needs node and the ORT npm package that
# `make bench-cpu` installs; not part of check).

TEST_QUANTIZE_BIN := $(B)/tests/quantize/test-quantize
TEST_QUANTIZE_WORK := $(B)/tests/quantize/work
TEST_QUANTIZE_SOURCES := tests/quantize/test_quantize.c \
	tests/quantize/test_quantize_rules.c tests/quantize/test_quantize_edges.c \
	tests/quantize/qtest_model.c

ALL_TARGETS += $(TEST_QUANTIZE_BIN)
HOST_TESTS += test-quantize

$(TEST_QUANTIZE_BIN): $(TEST_QUANTIZE_SOURCES) tests/quantize/qtest_model.h \
		tests/quantize/test_quantize.h \
		$(QUANTIZE_HEADERS) $(QUANTIZE_LIB) $(RT_LIB) $(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(QUANTIZE_CFLAGS) -Itests/quantize -o $@ \
		$(TEST_QUANTIZE_SOURCES) $(QUANTIZE_LDFLAGS)

.PHONY: test-quantize bench-quantize-ort
test-quantize: $(TEST_QUANTIZE_BIN)
	rm -rf $(TEST_QUANTIZE_WORK)
	$(TEST_QUANTIZE_BIN) $(TEST_QUANTIZE_WORK)

bench-quantize-ort: test-quantize $(B)/bin/enpu-quantize
	bash tests/quantize/ort_check.sh $(TEST_QUANTIZE_WORK)
