# Kselftests of the ENPU uapi. Built on the host against the kernel's
# kselftest harness (used in place from linux-source-6.1, never copied),
# run in the VM by tests/kselftest/run.sh.

KSELFTEST_DIR := tests/kselftest
KSELFTEST_NAMES := enpu_device_test enpu_param_test enpu_debugfs_test \
	enpu_bo_test enpu_submit_test enpu_prime_test enpu_dynamic_import_test \
	enpu_layers_test \
	enpu_layer_validation_test enpu_context_test enpu_job_wait_test \
	enpu_limits_test \
	enpu_completion_test enpu_recovery_test enpu_faults_test enpu_failslab_test \
	enpu_watchdog_test \
	enpu_fdinfo_test enpu_lifetime_test enpu_sched_test enpu_thermal_test \
	enpu_node_test enpu_fw_boot_test \
	enpu_module_test
# Shared by every test binary.
KSELFTEST_HELPERS := enpu_selftest enpu_buffers enpu_jobs enpu_kreports
KSELFTEST_BINARIES := $(addprefix $(B)/tests/kselftest/,$(KSELFTEST_NAMES))
# The harness's TEST() wrappers have parameters a test need not use, and
# it longjmp()s out of failed asserts; the kernel builds selftests without
# -Wextra, which is what warns about both.
# vgem_drm.h (the vgem fence ioctls) is not in the installed uapi headers;
# -idirafter keeps every other header coming from the system first.
KSELFTEST_CFLAGS = $(USER_CFLAGS) $(LIBENPU_CFLAGS) \
	-I$(ENPU_KSRC)/tools/testing/selftests -Wno-unused-parameter \
	-Wno-clobbered -idirafter $(ENPU_KSRC)/include/uapi/drm \
	$(RUNTIME_CPU_CFLAGS) $(TOOLS_COMMON_CFLAGS)

ALL_TARGETS += $(KSELFTEST_BINARIES)
# Kept so that relinking one test does not recompile the others.
KSELFTEST_HELPER_OBJECTS := $(patsubst %,$(B)/obj/kselftest/%.o,\
	$(KSELFTEST_HELPERS)) $(B)/obj/kselftest/drm_card.o \
	$(B)/obj/kselftest/vnpu_relay.o
.SECONDARY: $(patsubst %,$(B)/obj/kselftest/%.o,$(KSELFTEST_NAMES)) \
	$(KSELFTEST_HELPER_OBJECTS)

$(B)/obj/kselftest/drm_card.o $(B)/obj/kselftest/vnpu_relay.o: \
		$(B)/obj/kselftest/%.o: $(TOOLS_COMMON_DIR)/%.c $(TOOLS_COMMON_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(KSELFTEST_CFLAGS) -c $< -o $@

$(B)/obj/kselftest/%.o: $(KSELFTEST_DIR)/%.c \
		$(KSELFTEST_DIR)/enpu_selftest.h \
		$(KSELFTEST_DIR)/enpu_buffers.h $(KSELFTEST_DIR)/enpu_jobs.h \
		$(KSELFTEST_DIR)/enpu_kreports.h $(TOOLS_COMMON_HEADERS) \
		$(LIBENPU_HEADERS) $(RUNTIME_CPU_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(KSELFTEST_CFLAGS) -c $< -o $@

$(B)/tests/kselftest/%: $(B)/obj/kselftest/%.o \
		$(KSELFTEST_HELPER_OBJECTS) $(B)/lib/libenpu.so
	@mkdir -p $(@D)
	$(CC) -o $@ $< $(KSELFTEST_HELPER_OBJECTS) \
		$(LIBENPU_LDFLAGS) -pthread -Wl,-rpath,'$$ORIGIN/../../lib'

# The layer tests compare with the CPU reference kernels.
$(B)/tests/kselftest/enpu_layers_test: $(B)/obj/kselftest/enpu_layers_test.o \
		$(KSELFTEST_HELPER_OBJECTS) $(B)/lib/libenpu.so $(RUNTIME_CPU_LIB)
	@mkdir -p $(@D)
	$(CC) -o $@ $< $(KSELFTEST_HELPER_OBJECTS) \
		$(LIBENPU_LDFLAGS) $(RUNTIME_CPU_LDFLAGS) \
		-Wl,-rpath,'$$ORIGIN/../../lib'

# The second run moves the vnpu off its defaults so that no value can be
# hard-coded on either side of GET_PARAM.
.PHONY: vm-test-kselftest
VM_TESTS += vm-test-kselftest
# Slab poisoning on the driver's own caches lets the storm tests see
# writes to freed objects on the stock kernels too (no KASAN there). The
# debug kernel debugs every cache already, and slub_debug= would narrow
# that to ours.
ENPU_SLAB_POISON_ARG = $(if $(filter debug,$(KERNEL)),,\
	--kernel-arg slub_debug=FZPU,enpu_context,enpu_fence)
KSELFTEST_VM_ARGS = --timeout 900 --fault-relay $(ENPU_SLAB_POISON_ARG)
# The second configuration runs even when the first failed, so that one
# finding (a report on the debug kernel fails the whole VM run) does not
# hide the other run's results; the recipe fails if either did.
vm-test-kselftest: all
	status=0; \
	tools/vm/run $(KSELFTEST_VM_ARGS) -- \
		$(CURDIR)/$(KSELFTEST_DIR)/run.sh || status=$$?; \
	tools/vm/run $(KSELFTEST_VM_ARGS) \
		--vnpu-arg --device-id --vnpu-arg 4660 \
		--vnpu-arg --queues --vnpu-arg 2 \
		-- $(CURDIR)/$(KSELFTEST_DIR)/run.sh || status=$$?; \
	exit $$status
