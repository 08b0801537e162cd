# The ENPU delegate of a toy third-party runtime (examples/adapter): built
# the way an outside project would, against libenpu installed into a
# scratch prefix and found with nothing but `pkg-config libenpu` (no
# in-tree include paths). test-adapter (host): the claims; vm-test-adapter:
# graphs run through libenpu on the vnpu against the toy runtime's CPU
# kernels.

ADAPTER_DIR := examples/adapter
ADAPTER_PREFIX := $(CURDIR)/$(B)/examples/adapter/prefix
ADAPTER_PC := $(ADAPTER_PREFIX)/lib/pkgconfig/libenpu.pc
ADAPTER_TEST := $(B)/examples/adapter/enpu-adapter-test
ADAPTER_SOURCES := $(ADAPTER_DIR)/adapter_test.c $(ADAPTER_DIR)/enpu_delegate.c \
	$(ADAPTER_DIR)/toy_runtime.c
ADAPTER_CFLAGS := -std=c11 $(WARN) $(CFLAGS)

$(ADAPTER_PC): $(B)/lib/libenpu.so $(LIBENPU_HEADERS)
	rm -rf $(ADAPTER_PREFIX)
	$(MAKE) --no-print-directory install-libenpu PREFIX=$(ADAPTER_PREFIX) \
		DESTDIR=

$(ADAPTER_TEST): $(ADAPTER_SOURCES) $(wildcard $(ADAPTER_DIR)/*.h) $(ADAPTER_PC)
	@mkdir -p $(@D)
	$(CC) $(ADAPTER_CFLAGS) $(ADAPTER_SOURCES) -o $@ \
		$$(PKG_CONFIG_PATH=$(ADAPTER_PREFIX)/lib/pkgconfig \
			pkg-config --cflags --libs libenpu) -lm \
		-Wl,-rpath,$(ADAPTER_PREFIX)/lib

.PHONY: test-adapter vm-test-adapter
HOST_TESTS += test-adapter
test-adapter: $(ADAPTER_TEST)
	$(ADAPTER_TEST) --claims-only

VM_TESTS += vm-test-adapter
vm-test-adapter: all $(ADAPTER_TEST)
	tools/vm/run --timeout 300 -- $(CURDIR)/$(ADAPTER_TEST)
