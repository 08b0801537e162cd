# tests/bench/e2e.mk: end-to-end latency of the int8 MobileNetV2-shaped
# QDQ model (tests/rt/mobilenet_model.c) through the ENPU runtime next to
# ONNX Runtime (ort_e2e_bench.js), plus a logits cross-check and a
# per-op profile. `make bench-e2e`; also the last table of `make bench-cpu`.
# Numbers, not verdicts: not part of `make check`.

E2E_BIN := $(B)/tests/bench/e2e-bench
E2E_SOURCES := tests/bench/e2e_bench.c tests/rt/mobilenet_model.c \
	tests/rt/model_builder.c
E2E_MODEL := $(B)/tests/bench/mobilenetv2-int8-qdq.onnx
E2E_RUNS ?= 50

ALL_TARGETS += $(E2E_BIN)

$(E2E_BIN): $(E2E_SOURCES) tests/rt/mobilenet_model.h \
		tests/rt/model_builder.h $(RT_HEADERS) $(RT_LIB) \
		$(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(RT_INTERNAL_CFLAGS) -Itests/rt -o $@ \
		$(E2E_SOURCES) $(RT_LDFLAGS)

$(E2E_MODEL): $(E2E_BIN)
	$(E2E_BIN) --write-model $@

.PHONY: bench-e2e
bench-e2e: $(E2E_BIN) $(E2E_MODEL) $(BENCH_ORT_STAMP)
	NODE_PATH=$(BENCH_NPM)/node_modules node tests/bench/ort_e2e_bench.js \
		$(E2E_MODEL) --runs $(E2E_RUNS) \
		--dump $(B)/tests/bench/ort-e2e-logits.bin \
		>$(B)/tests/bench/ort-e2e.txt
	$(E2E_BIN) --model $(E2E_MODEL) --runs $(E2E_RUNS) --profile \
		--ort $(B)/tests/bench/ort-e2e.txt \
		--compare $(B)/tests/bench/ort-e2e-logits.bin \
		--ort-version "$$(node -p "require('$(BENCH_ORT_MODULE)/package.json').version")"
