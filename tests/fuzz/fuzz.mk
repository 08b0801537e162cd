# tests/fuzz: libFuzzer target for the ONNX loader (fuzz_onnx.c).
# `make fuzz-onnx` builds it with clang -fsanitize=fuzzer,address,undefined
# and fuzzes for FUZZ_SECONDS (not part of check). The same target is built
# with the normal compiler and a replay driver (replay_main.c); test-rt
# (tests/rt/rt.mk) replays the libonnx-testdata models and mutations of them.

FUZZ_SECONDS ?= 60
FUZZ_CLANG ?= clang
FUZZ_DIR := $(B)/tests/fuzz
FUZZ_BIN := $(FUZZ_DIR)/fuzz-onnx
FUZZ_REPLAY_BIN := $(FUZZ_DIR)/fuzz-replay
FUZZ_CORPUS := $(FUZZ_DIR)/corpus

ALL_TARGETS += $(FUZZ_REPLAY_BIN)

$(FUZZ_REPLAY_BIN): tests/fuzz/fuzz_onnx.c tests/fuzz/replay_main.c \
		$(RT_HEADERS) $(RT_LIB) $(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -Wno-format-truncation $(RT_PUBLIC_CFLAGS) \
		-o $@ tests/fuzz/fuzz_onnx.c tests/fuzz/replay_main.c \
		$(RT_LDFLAGS)

# The fuzzing build compiles the runtime sources itself with the
# sanitizers; the CPU kernels come from their archive.
FUZZ_RT_SOURCES = $(RT_SOURCES) $(RT_GEN_SOURCE)
$(FUZZ_BIN): tests/fuzz/fuzz_onnx.c $(RT_SOURCES) $(RT_HEADERS) \
		$(RT_GEN_SOURCE) $(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CLANG) -std=c11 -D_GNU_SOURCE -g -O1 \
		-fsanitize=fuzzer,address,undefined $(RT_INTERNAL_CFLAGS) \
		-o $@ tests/fuzz/fuzz_onnx.c $(FUZZ_RT_SOURCES) \
		$(RUNTIME_CPU_LIB) -lprotobuf-c -lpthread -lm

.PHONY: fuzz-onnx
fuzz-onnx: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_CORPUS)
	for d in $(CONFORMANCE_DATA)/node/*/; do \
	  n=$$(basename $$d); cp -n $$d/model.onnx $(FUZZ_CORPUS)/$$n.onnx; \
	done
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 \
		-max_len=65536 $(FUZZ_CORPUS)
