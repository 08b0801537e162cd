# enpu-demo: a small int8 CNN through the kernel driver, checked bit for
# bit against the CPU kernels (`make demo` runs it in the VM).

ENPU_DEMO_DIR := tools/enpu-demo
ENPU_DEMO_SOURCES := $(sort $(wildcard $(ENPU_DEMO_DIR)/*.c))
ENPU_DEMO_OBJECTS := $(patsubst $(ENPU_DEMO_DIR)/%.c,$(B)/obj/enpu-demo/%.o,\
	$(ENPU_DEMO_SOURCES))
ENPU_DEMO_HEADERS := $(wildcard $(ENPU_DEMO_DIR)/*.h)

ALL_TARGETS += $(B)/bin/enpu-demo

$(B)/obj/enpu-demo/%.o: $(ENPU_DEMO_DIR)/%.c $(ENPU_DEMO_HEADERS) \
		$(LIBENPU_HEADERS) $(RUNTIME_CPU_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LIBENPU_CFLAGS) $(RUNTIME_CPU_CFLAGS) \
		-c $< -o $@

# $ORIGIN/../lib finds build/lib/libenpu.so.0 from build/bin, as for
# enpu-info; the CPU kernels are linked statically.
$(B)/bin/enpu-demo: $(ENPU_DEMO_OBJECTS) $(B)/lib/libenpu.so \
		$(RUNTIME_CPU_LIB)
	@mkdir -p $(@D)
	$(CC) -o $@ $(ENPU_DEMO_OBJECTS) $(RUNTIME_CPU_LDFLAGS) \
		$(LIBENPU_LDFLAGS) -Wl,-rpath,'$$ORIGIN/../lib'

# The demo is also a test: the network through the driver must equal the
# CPU kernels bit for bit, on two seeds and two threads counts.
VM_TESTS += vm-test-demo
.PHONY: vm-test-demo
vm-test-demo: all
	tools/vm/run --timeout 300 -- sh -c \
		'$(CURDIR)/$(B)/bin/enpu-demo --runs 3 && \
		 $(CURDIR)/$(B)/bin/enpu-demo --seed 7 --threads 2 \
			--priority high'
	@echo "enpu-demo: 1 passed, 0 failed"
