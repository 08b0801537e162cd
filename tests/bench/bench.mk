# tests/bench: CPU benchmarks. `make bench-cpu` prints the int8 GEMM table:
# our ISA paths, oneDNN (Debian's libdnnl-dev) and ONNX Runtime's CPU
# provider (npm package onnxruntime-node, installed outside the tree into
# $(ENPU_CACHE)/npm with --ignore-scripts: its install script would try to
# download GPU binaries). Not part of `make check`: numbers, not verdicts.

BENCH_DIR := tests/bench
BENCH_GEMM_BIN := $(B)/tests/bench/gemm-bench
# Listed by name: other benchmarks (bench-dmabuf) live in this directory too.
BENCH_GEMM_OBJECTS := $(patsubst %,$(B)/obj/tests/bench/%.o,\
	gemm_bench bench_peak bench_onednn bench_onednn_run)
# The convolution table: a second binary sharing the peak measurement and
# the oneDNN timing.
BENCH_CONV_BIN := $(B)/tests/bench/conv-bench
BENCH_CONV_OBJECTS := $(patsubst %,$(B)/obj/tests/bench/%.o,\
	conv_bench bench_onednn_conv)
BENCH_NPM := $(ENPU_CACHE)/npm
BENCH_ORT_VERSION := 1.22.0
BENCH_ORT_MODULE := $(BENCH_NPM)/node_modules/onnxruntime-node
BENCH_ORT_STAMP := $(BENCH_NPM)/.onnxruntime-node-$(BENCH_ORT_VERSION)

$(BENCH_GEMM_OBJECTS): $(B)/obj/tests/bench/%.o: $(BENCH_DIR)/%.c $(BENCH_DIR)/bench.h \
		$(BENCH_DIR)/bench_onednn.h $(RUNTIME_CPU_HEADERS) | $(B)/obj/tests/bench/
	$(CC) $(USER_CFLAGS) $(RUNTIME_CPU_CFLAGS) -c $< -o $@

$(BENCH_CONV_OBJECTS): $(B)/obj/tests/bench/%.o: $(BENCH_DIR)/%.c $(BENCH_DIR)/bench.h \
		$(BENCH_DIR)/bench_onednn.h $(BENCH_DIR)/conv_bench.h $(RUNTIME_CPU_HEADERS) | $(B)/obj/tests/bench/
	$(CC) $(USER_CFLAGS) $(RUNTIME_CPU_CFLAGS) -c $< -o $@

BENCH_CONV_SHARED := $(patsubst %,$(B)/obj/tests/bench/%.o,\
	bench_peak bench_onednn_run)
$(BENCH_CONV_BIN): $(BENCH_CONV_OBJECTS) $(BENCH_CONV_SHARED) \
		$(RUNTIME_CPU_LIB) | $(B)/tests/bench/
	$(CC) -o $@ $(BENCH_CONV_OBJECTS) $(BENCH_CONV_SHARED) \
		$(RUNTIME_CPU_LDFLAGS) -ldnnl -lgomp

$(BENCH_GEMM_BIN): $(BENCH_GEMM_OBJECTS) $(RUNTIME_CPU_LIB) \
		| $(B)/tests/bench/
	$(CC) -o $@ $(BENCH_GEMM_OBJECTS) $(RUNTIME_CPU_LDFLAGS) -ldnnl -lgomp

$(BENCH_ORT_STAMP):
	bash tools/deps.sh bench
	mkdir -p $(BENCH_NPM)
	npm install --prefix $(BENCH_NPM) --ignore-scripts --no-audit \
		--no-fund onnxruntime-node@$(BENCH_ORT_VERSION)
	touch $@

.PHONY: bench-cpu bench-deps
# oneDNN and Node.js are needed by the benchmarks only.
bench-deps:
	bash tools/deps.sh bench

bench-cpu: bench-deps $(BENCH_GEMM_BIN) $(BENCH_CONV_BIN) $(BENCH_ORT_STAMP)
	NODE_PATH=$(BENCH_NPM)/node_modules node $(BENCH_DIR)/ort_gemm_bench.js \
		>$(B)/tests/bench/ort-gemm.txt
	$(BENCH_GEMM_BIN) --ort $(B)/tests/bench/ort-gemm.txt \
		--ort-version "$$(node -p "require('$(BENCH_ORT_MODULE)/package.json').version")"
	NODE_PATH=$(BENCH_NPM)/node_modules node $(BENCH_DIR)/ort_conv_bench.js \
		>$(B)/tests/bench/ort-conv.txt
	$(BENCH_CONV_BIN) --ort $(B)/tests/bench/ort-conv.txt \
		--ort-version "$$(node -p "require('$(BENCH_ORT_MODULE)/package.json').version")"
	$(MAKE) --no-print-directory bench-e2e-cpu
	$(MAKE) --no-print-directory bench-float

# The float and int8 end-to-end rows (float_bench.c): three float models
# (float_models.c) and their enpu-quantize QDQ versions, ours vs ONNX
# Runtime measured alternately. `make bench-float` (also in bench-cpu).
FLOAT_BENCH_BIN := $(B)/tests/bench/float-bench
FLOAT_BENCH_DIR := $(B)/tests/bench/float-models
FLOAT_BENCH_SOURCES := tests/bench/float_bench.c tests/bench/float_models.c \
	tests/rt/model_builder.c tests/common/model_io.c
FLOAT_BENCH_RUNS ?= 20

ALL_TARGETS += $(FLOAT_BENCH_BIN)

$(FLOAT_BENCH_BIN): $(FLOAT_BENCH_SOURCES) tests/bench/float_models.h \
		tests/common/model_io.h $(QUANTIZE_HEADERS) $(QUANTIZE_LIB) \
		$(RT_LIB) $(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -Wno-format-truncation $(QUANTIZE_CFLAGS) \
		-Itests/rt -Itests/common \
		-o $@ $(FLOAT_BENCH_SOURCES) $(QUANTIZE_LDFLAGS)

$(FLOAT_BENCH_DIR)/.stamp: $(FLOAT_BENCH_BIN)
	rm -rf $(FLOAT_BENCH_DIR)
	$(FLOAT_BENCH_BIN) --write $(FLOAT_BENCH_DIR)
	touch $@

.PHONY: bench-float
bench-float: $(FLOAT_BENCH_BIN) $(FLOAT_BENCH_DIR)/.stamp $(BENCH_ORT_STAMP)
	NODE_PATH=$(BENCH_NPM)/node_modules $(FLOAT_BENCH_BIN) \
		--dir $(FLOAT_BENCH_DIR) --ort-script tests/common/ort_worker.js \
		--runs $(FLOAT_BENCH_RUNS)
