# Trace tests: the converter (tools/trace/enpu-trace-json) on a committed
# capture and on synthetic lines (host), and on a trace captured in the VM
# through tracefs and trace-cmd (vm-test-trace).

TRACE_TEST_DIR := tests/trace
TRACE_LOAD := $(B)/tests/trace/enpu-trace-load
TRACE_VM_OUT := $(B)/tests/trace/vm

ALL_TARGETS += $(TRACE_LOAD)

$(TRACE_LOAD): $(TRACE_TEST_DIR)/enpu_trace_load.c $(B)/lib/libenpu.so \
		$(LIBENPU_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LIBENPU_CFLAGS) $< -o $@ $(LIBENPU_LDFLAGS) \
		-Wl,-rpath,'$$ORIGIN/../../lib'

.PHONY: test-trace vm-test-trace
HOST_TESTS += test-trace
test-trace:
	python3 $(TRACE_TEST_DIR)/test_trace_json.py

VM_TESTS += vm-test-trace
vm-test-trace: all
	rm -rf $(TRACE_VM_OUT)
	tools/vm/run --timeout 300 -- $(CURDIR)/$(TRACE_TEST_DIR)/vm-capture.sh \
		$(CURDIR)/$(TRACE_VM_OUT)
	python3 $(TRACE_TEST_DIR)/check_trace.py --name vm-tracefs \
		--expect-preemption $(TRACE_VM_OUT)/tracefs.txt
	if [ -f $(TRACE_VM_OUT)/trace-cmd.txt ]; then \
		python3 $(TRACE_TEST_DIR)/check_trace.py --name vm-trace-cmd \
			--expect-preemption $(TRACE_VM_OUT)/trace-cmd.txt; fi
