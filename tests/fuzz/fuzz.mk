# tests/fuzz: `make fuzz` and the ONNX loader target (fuzz_onnx.c).
#
# Every libFuzzer target of the tree registers its NAME in FUZZ_TARGETS and
# provides a phony `fuzz-NAME` that builds it (clang, FUZZ_SANITIZE) and
# fuzzes for FUZZ_SECONDS through $(call fuzz_run,...), so that
# `make fuzz FUZZ_SECONDS=N` runs them all, one after another, and ends
# with "fuzz: N passed, N failed". `make check` runs the same with
# FUZZ_CHECK_RUNS inputs per target (check-fuzz). tests/fuzz/README.md.
#
# The ONNX target is also built with the normal compiler and a replay
# driver (replay_main.c); test-rt (tests/rt/rt.mk) replays the
# libonnx-testdata models and mutations of them.

FUZZ_SECONDS ?= 60
FUZZ_SEED ?= 1
# With FUZZ_RUNS set, a target stops after that many inputs (FUZZ_SECONDS
# still caps it) and adds its finds to a scratch copy of the corpus, so a
# run depends only on the seeds: check-fuzz is deterministic.
FUZZ_RUNS ?=
FUZZ_CHECK_RUNS ?= 20000
FUZZ_CHECK_SECONDS ?= 120
FUZZ_CLANG ?= clang
FUZZ_SANITIZE := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_DIR := $(B)/tests/fuzz
FUZZ_BIN := $(FUZZ_DIR)/fuzz-onnx
FUZZ_REPLAY_BIN := $(FUZZ_DIR)/fuzz-replay
FUZZ_CORPUS := $(FUZZ_DIR)/corpus

FUZZ_TARGETS += onnx
ALL_TARGETS += $(FUZZ_REPLAY_BIN)
HOST_TESTS += check-fuzz

# $(call fuzz_run,BINARY,CORPUS_DIR,ARTIFACT_PREFIX,EXTRA_FLAGS): the one
# way every target runs libFuzzer: FUZZ_SECONDS of wall time (or FUZZ_RUNS
# inputs) from seed FUZZ_SEED, 10 s per input at most, findings (crash-*,
# timeout-*, oom-*) under ARTIFACT_PREFIX, new inputs added to CORPUS_DIR
# (with FUZZ_RUNS: to CORPUS_DIR.scratch, emptied first).
fuzz_run = $(if $(FUZZ_RUNS),rm -rf $(2).scratch && mkdir -p $(2).scratch &&) \
	$(1) -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) \
	$(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS)) \
	-timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
	-artifact_prefix=$(3) $(4) $(if $(FUZZ_RUNS),$(2).scratch) $(2)

$(FUZZ_REPLAY_BIN): tests/fuzz/fuzz_onnx.c tests/fuzz/replay_main.c \
		$(RT_HEADERS) $(RT_LIB) $(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -Wno-format-truncation $(RT_PUBLIC_CFLAGS) \
		-o $@ tests/fuzz/fuzz_onnx.c tests/fuzz/replay_main.c \
		$(RT_LDFLAGS)

# The fuzzing build compiles the runtime sources itself with the
# sanitizers; the CPU kernels come from their archive.
FUZZ_RT_SOURCES = $(RT_SOURCES) $(RT_GEN_SOURCE)
# backend/npu includes libenpu's header and links its archive.
$(FUZZ_BIN): tests/fuzz/fuzz_onnx.c $(RT_SOURCES) $(RT_HEADERS) \
		$(RT_GEN_SOURCE) $(RUNTIME_CPU_LIB) $(LIBENPU_STATIC)
	@mkdir -p $(dir $@)
	$(FUZZ_CLANG) -std=c11 -D_GNU_SOURCE -g -O1 $(FUZZ_SANITIZE) \
		$(RT_INTERNAL_CFLAGS) $(LIBENPU_CFLAGS) -Iuapi \
		$(shell pkg-config --cflags libdrm) \
		-o $@ tests/fuzz/fuzz_onnx.c $(FUZZ_RT_SOURCES) \
		$(RUNTIME_CPU_LIB) $(LIBENPU_STATIC) -lprotobuf-c \
		$(LIBDRM_LIBS) -lpthread -lm

.PHONY: fuzz fuzz-onnx check-fuzz
fuzz-onnx: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_CORPUS) $(FUZZ_DIR)/findings-onnx
	for d in $(CONFORMANCE_DATA)/node/*/; do \
	  n=$$(basename $$d); cp -n $$d/model.onnx $(FUZZ_CORPUS)/$$n.onnx; \
	done
	$(call fuzz_run,$(FUZZ_BIN),$(FUZZ_CORPUS),$(FUZZ_DIR)/findings-onnx/,\
		-max_len=65536)

# Targets run one after another (each may use a whole core); a failing
# one does not stop the others.
fuzz:
	@passed=0; failed=0; \
	for t in $(sort $(FUZZ_TARGETS)); do \
	  echo "== fuzz-$$t: $(if $(FUZZ_RUNS),$(FUZZ_RUNS) inputs or )$(FUZZ_SECONDS) s"; \
	  if $(MAKE) --no-print-directory fuzz-$$t \
	       FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS); then \
	    passed=$$((passed + 1)); \
	  else \
	    failed=$$((failed + 1)); echo "FAIL fuzz-$$t"; \
	  fi; \
	done; \
	echo "fuzz: $$passed passed, $$failed failed"; test $$failed = 0

check-fuzz:
	@$(MAKE) --no-print-directory fuzz FUZZ_RUNS=$(FUZZ_CHECK_RUNS) \
	  FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS)
