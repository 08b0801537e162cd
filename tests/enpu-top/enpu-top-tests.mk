# enpu-top tests: host unit tests on a fake /proc + /sys root (built with
# ASan + UBSan), and a VM test with a running job, --once and tmux.

ENPU_TOP_TEST_DIR := tests/enpu-top
ENPU_TOP_TEST := $(B)/tests/enpu-top/test-enpu-top
ENPU_TOP_LOAD := $(B)/tests/enpu-top/enpu-top-load
ENPU_TOP_SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

ALL_TARGETS += $(ENPU_TOP_TEST) $(ENPU_TOP_LOAD)

$(ENPU_TOP_TEST): $(ENPU_TOP_TEST_DIR)/test_enpu_top.c \
		$(ENPU_TOP_DIR)/enpu_top_sample.c $(ENPU_TOP_DIR)/enpu_top_report.c \
		$(ENPU_TOP_HEADERS) tests/unit/unit_test.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(ENPU_TOP_SANITIZE) -I$(ENPU_TOP_DIR) -Itests/unit \
		-DENPU_TOP_BINARY='"$(CURDIR)/$(B)/bin/enpu-top"' \
		$(filter %.c,$^) -o $@

$(ENPU_TOP_LOAD): $(ENPU_TOP_TEST_DIR)/enpu_top_load.c $(B)/lib/libenpu.so \
		$(LIBENPU_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LIBENPU_CFLAGS) $< -o $@ $(LIBENPU_LDFLAGS) \
		-Wl,-rpath,'$$ORIGIN/../../lib'

.PHONY: test-enpu-top vm-test-enpu-top
HOST_TESTS += test-enpu-top
test-enpu-top: $(ENPU_TOP_TEST) $(B)/bin/enpu-top
	$(ENPU_TOP_TEST)

VM_TESTS += vm-test-enpu-top
vm-test-enpu-top: all
	tools/vm/run --timeout 300 -- $(CURDIR)/$(ENPU_TOP_TEST_DIR)/vm-test.sh
