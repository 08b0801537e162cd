# tests/bench/e2e.mk: end-to-end latency of the int8 MobileNetV2-shaped
# QDQ model (tests/rt/mobilenet_model.c) through the ENPU runtime next to
# ONNX Runtime (ort_e2e_bench.js), plus a logits cross-check and a
# per-op profile (`make bench-e2e-cpu`, also the last table of `make
# bench-cpu`); then the same model on the NPU in the VM (`make
# bench-e2e-npu`). `make bench-e2e` runs both, in that order, and ends with
# ONNX Runtime and the NPU side by side. Numbers, not verdicts: not part of
# `make check`.

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

.PHONY: bench-e2e bench-e2e-cpu
bench-e2e:
	$(MAKE) --no-print-directory bench-e2e-cpu
	$(MAKE) --no-print-directory bench-e2e-npu

bench-e2e-cpu: $(E2E_BIN) $(E2E_MODEL) $(BENCH_ORT_STAMP)
	NODE_PATH=$(BENCH_NPM)/node_modules node tests/bench/ort_e2e_bench.js \
		$(E2E_MODEL) --runs $(E2E_RUNS) \
		--dump $(B)/tests/bench/ort-e2e-logits.bin \
		>$(B)/tests/bench/ort-e2e.txt
	$(E2E_BIN) --model $(E2E_MODEL) --runs $(E2E_RUNS) --profile \
		--ort $(B)/tests/bench/ort-e2e.txt \
		--compare $(B)/tests/bench/ort-e2e-logits.bin \
		--ort-version "$$(node -p "require('$(BENCH_ORT_MODULE)/package.json').version")"

# The second half, in the VM: the same model on npu,cpu through the driver
# (tests/bench/e2e_npu_bench.c): latency with NPU offload, the overhead
# share measured and TCG-scaled, the MAC share, pipelined vs not, bytes
# copied at seams for a dma-buf input. `make bench-e2e-npu` runs it alone.
E2E_NPU_BIN := $(B)/tests/bench/e2e-npu-bench
E2E_NPU_SOURCES := tests/bench/e2e_npu_bench.c tests/bench/e2e_npu_probe.c \
	tests/rt/mobilenet_model.c \
	tests/rt/model_builder.c tools/enpu-run/run_dmabuf.c \
	$(TOOLS_COMMON_SOURCES)

ALL_TARGETS += $(E2E_NPU_BIN)

$(E2E_NPU_BIN): $(E2E_NPU_SOURCES) tools/enpu-run/run.h $(RT_HEADERS) \
		tests/bench/e2e_npu_probe.h \
		$(TOOLS_COMMON_HEADERS) $(RT_LIB) $(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(RT_INTERNAL_CFLAGS) $(LIBENPU_CFLAGS) -Itests/rt \
		-Itools/enpu-run \
		$(TOOLS_COMMON_CFLAGS) \
		-o $@ $(E2E_NPU_SOURCES) $(RT_LDFLAGS)

.PHONY: bench-e2e-npu
E2E_FRAME_MODEL := $(B)/tests/bench/mobilenetv2-int8-qdq-u8in.onnx
$(E2E_FRAME_MODEL): $(E2E_BIN)
	$(E2E_BIN) --write-model $@ --uint8-input

# ONNX Runtime's numbers of the CPU half (ort-e2e.txt) come along for the
# side-by-side lines; without them (bench-e2e-npu alone) those are skipped.
bench-e2e-npu: all $(E2E_MODEL) $(E2E_FRAME_MODEL) $(TEST_NPU_BIN)
	rm -rf $(B)/tests/bench/npu-models && mkdir -p $(B)/tests/bench/npu-models
	$(TEST_NPU_BIN) --write-models $(B)/tests/bench/npu-models
	spin=$$($(E2E_NPU_BIN) --spin) && sys=$$($(E2E_NPU_BIN) --syscall) && \
	tools/vm/run --fault-relay --timeout 1500 -- $(CURDIR)/$(E2E_NPU_BIN) \
		--model $(CURDIR)/$(E2E_MODEL) --host-spin-ns $$spin \
		--host-syscall-ns $$sys \
		--uint8-model $(CURDIR)/$(E2E_FRAME_MODEL) \
		--runs $(E2E_NPU_RUNS) \
		--small $(CURDIR)/$(B)/tests/bench/npu-models/mixed-ops.onnx \
		$$(test -f $(B)/tests/bench/ort-e2e.txt && echo --ort \
		   $(CURDIR)/$(B)/tests/bench/ort-e2e.txt)

E2E_NPU_RUNS ?= 300
