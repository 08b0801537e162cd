# tests/asan: the host tests again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer in their own build directory ($(ASAN_B)), by
# a sub-make that reuses every room's rules with CC carrying the flags (so
# compiles and links alike get them). Part of `make check` (check-asan).
# tests/asan/README.md says what runs and what it costs.

ASAN_B := $(B)/asan
ASAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow \
	-fno-sanitize-recover=all \
	-fno-omit-frame-pointer
# test-validate is built with the sanitizers already; test-cpu-arm64 runs
# under qemu-user, where ASan cannot.
ASAN_TESTS := test-cpu test-rt test-quantize test-unit test-vnpu \
	test-npu test-conformance
# What those runners need built (their own prerequisites), by path.
ASAN_PROGRAMS = $(ASAN_B)/tests/cpu/test-cpu $(ASAN_B)/tests/rt/test-rt \
	$(ASAN_B)/tests/fuzz/fuzz-replay $(ASAN_B)/tests/quantize/test-quantize \
	$(ASAN_B)/tests/unit/enpu-unit-tests $(ASAN_B)/bin/enpu-info \
	$(ASAN_B)/tests/vnpu/vnpu-test $(ASAN_B)/bin/vnpu \
	$(ASAN_B)/bin/enpu-fwpack $(ASAN_B)/firmware/enpu/enpu-fw-v1.bin \
	$(ASAN_B)/tests/conformance/conformance $(ASAN_B)/tests/npu/test-npu
ASAN_OPTIONS_CHECK := detect_leaks=1:strict_init_order=1:abort_on_error=0
UBSAN_OPTIONS_CHECK := print_stacktrace=1

HOST_TESTS += check-asan
.PHONY: check-asan

# Every runner ends with "N passed, N failed"; the sub-make's are shown
# as "asan/NAME: ..." (or "asan: ..." for a runner without a name) so that
# they read apart from the plain runs and the summary of `make check`
# still adds them up (its awk takes the number before "passed").
# The programs are built in parallel, the runners then run one at a time:
# they run beside the other host tests already, and sanitized code is slow.
# make does not see a change of flags: a build made with other ones is
# thrown away first.
ASAN_FRESH = echo '$(CC) $(ASAN_FLAGS)' | cmp -s - $(ASAN_B)/flags 2>/dev/null || \
	  { rm -rf $(ASAN_B); mkdir -p $(ASAN_B); \
	    echo '$(CC) $(ASAN_FLAGS)' >$(ASAN_B)/flags; }
check-asan:
	@$(ASAN_FRESH)
	@$(MAKE) --no-print-directory B=$(ASAN_B) CC='$(CC) $(ASAN_FLAGS)' \
	  $(ASAN_PROGRAMS)
	@set -o pipefail; ASAN_OPTIONS=$(ASAN_OPTIONS_CHECK) \
	  UBSAN_OPTIONS=$(UBSAN_OPTIONS_CHECK) \
	  $(MAKE) -j1 --no-print-directory B=$(ASAN_B) \
	    CC='$(CC) $(ASAN_FLAGS)' $(ASAN_TESTS) 2>&1 | \
	  sed -E 's|^([0-9]+ passed, [0-9]+ failed)|asan: \1|; t; s|^([^ ]*:? *[0-9]+ passed, [0-9]+ failed)|asan/\1|'

# One runner alone, built and run as check-asan does (asan-test-cpu,
# asan-test-rt, asan-test-quantize, ...): the tiers of tools/mutation.
ASAN_ONE := $(addprefix asan-,$(ASAN_TESTS))
.PHONY: $(ASAN_ONE)
$(ASAN_ONE): asan-%:
	@$(ASAN_FRESH)
	@ASAN_OPTIONS=$(ASAN_OPTIONS_CHECK) UBSAN_OPTIONS=$(UBSAN_OPTIONS_CHECK) \
	  $(MAKE) --no-print-directory B=$(ASAN_B) CC='$(CC) $(ASAN_FLAGS)' $*
