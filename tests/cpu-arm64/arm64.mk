# tests/cpu-arm64: the CPU kernel tests (tests/cpu) cross-built for aarch64
# and run under qemu-user, so the NEON paths are tested on this x86 host.
# `make test-cpu-arm64` builds build/arm64/lib/libenpu-cpu.a and
# build/arm64/tests/cpu/test-cpu (static) through a sub-make that reuses
# the rules of userspace/runtime/runtime.mk and tests/cpu/cpu.mk with the
# cross compiler, then runs the runner once per emulated CPU model: each
# model has a known feature set, so each run also checks which ISA level
# auto-detection picks (and that the levels above it are refused).

CPU_ARM64_B := $(B)/arm64
CPU_ARM64_CC ?= aarch64-linux-gnu-gcc
CPU_ARM64_AR ?= aarch64-linux-gnu-ar
CPU_ARM64_QEMU ?= qemu-aarch64-static
CPU_ARM64_BIN := $(CPU_ARM64_B)/tests/cpu/test-cpu
# No host include paths (libdrm) in the cross build: the kernels need none.
CPU_ARM64_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -Iuapi
# qemu CPU model : the level auto must choose on it.
CPU_ARM64_MODELS := max:neoni8mm cortex-a76:neondot cortex-a53:neon

HOST_TESTS += test-cpu-arm64

.PHONY: test-cpu-arm64 cpu-arm64-build
cpu-arm64-build:
	@command -v $(CPU_ARM64_CC) >/dev/null && \
	  command -v $(CPU_ARM64_QEMU) >/dev/null || \
	  { echo "test-cpu-arm64: $(CPU_ARM64_CC) or $(CPU_ARM64_QEMU) missing (run tools/deps.sh)"; exit 1; }
	$(MAKE) --no-print-directory B=$(CPU_ARM64_B) CC=$(CPU_ARM64_CC) \
	  AR=$(CPU_ARM64_AR) USER_CFLAGS='$(CPU_ARM64_CFLAGS)' \
	  TEST_CPU_LDFLAGS=-static $(CPU_ARM64_BIN)

# Every model runs the whole runner (each supported ISA at 1 and 2
# threads); the summary line adds the runs up.
test-cpu-arm64: cpu-arm64-build
	@passed=0; failed=0; \
	for entry in $(CPU_ARM64_MODELS); do \
	  model=$${entry%%:*}; isa=$${entry#*:}; \
	  echo "== qemu-aarch64 -cpu $$model (auto isa expected: $$isa)"; \
	  out=$$(ENPU_CPU_TEST_EXPECT_ISA=$$isa \
	    $(CPU_ARM64_QEMU) -cpu $$model $(CPU_ARM64_BIN) 2>&1); rc=$$?; \
	  echo "$$out" | sed 's/^\([0-9]* passed, [0-9]* failed\)$$/  model total: \1/'; \
	  line=$$(echo "$$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$$' | tail -1); \
	  if [ -z "$$line" ]; then echo "  $$model: runner died (status $$rc)"; \
	    failed=$$((failed + 1)); continue; fi; \
	  passed=$$((passed + $${line%% passed*})); \
	  f=$${line#*passed, }; f=$${f%% failed*}; failed=$$((failed + f)); \
	  if [ $$rc -ne 0 ] && [ "$$f" -eq 0 ]; then failed=$$((failed + 1)); fi; \
	done; \
	echo "$$passed passed, $$failed failed"; \
	[ $$failed -eq 0 ]
