# Host unit tests of libenpu and enpu-info (no driver needed).

UNIT_DIR := tests/unit
UNIT_SOURCES := $(filter-out $(UNIT_DIR)/install_consumer.c,\
	$(sort $(wildcard $(UNIT_DIR)/*.c)))
UNIT_OBJECTS := $(patsubst $(UNIT_DIR)/%.c,$(B)/obj/unit/%.o,$(UNIT_SOURCES))
UNIT_BINARY := $(B)/tests/unit/enpu-unit-tests

$(B)/obj/unit/%.o: $(UNIT_DIR)/%.c $(UNIT_DIR)/unit_test.h \
		$(LIBENPU_HEADERS) tools/enpu-info/enpu_info_format.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LIBENPU_CFLAGS) -Itools/enpu-info \
		-DENPU_INFO_BINARY='"$(CURDIR)/$(B)/bin/enpu-info"' -c $< -o $@

# Linked against the shared library, so the tests see exactly its exports.
$(UNIT_BINARY): $(UNIT_OBJECTS) $(B)/obj/enpu-info/enpu_info_format.o \
		$(B)/lib/libenpu.so
	@mkdir -p $(@D)
	$(CC) -o $@ $(UNIT_OBJECTS) $(B)/obj/enpu-info/enpu_info_format.o \
		$(LIBENPU_LDFLAGS) -Wl,-rpath,'$$ORIGIN/../../lib'

.PHONY: test-unit
HOST_TESTS += test-unit
test-unit: $(UNIT_BINARY) $(B)/bin/enpu-info
	$(UNIT_BINARY)

# Installs libenpu into a scratch prefix and builds a program against it
# with nothing but `pkg-config libenpu`, then runs it.
UNIT_INSTALL_PREFIX := $(CURDIR)/$(B)/tests/unit/install
.PHONY: test-libenpu-install
HOST_TESTS += test-libenpu-install
test-libenpu-install: $(UNIT_DIR)/install_consumer.c
	rm -rf $(UNIT_INSTALL_PREFIX)
	$(MAKE) --no-print-directory install-libenpu \
		PREFIX=$(UNIT_INSTALL_PREFIX) DESTDIR=
	test -L $(UNIT_INSTALL_PREFIX)/lib/libenpu.so.0
	test -f $(UNIT_INSTALL_PREFIX)/lib/libenpu.a
	$(CC) -std=c11 $(WARN) $< -o $(UNIT_INSTALL_PREFIX)/consumer \
		$$(PKG_CONFIG_PATH=$(UNIT_INSTALL_PREFIX)/lib/pkgconfig \
			pkg-config --cflags --libs libenpu) \
		-Wl,-rpath,$(UNIT_INSTALL_PREFIX)/lib
	test "$$($(UNIT_INSTALL_PREFIX)/consumer)" = "1.2.3 dvfs"
	@echo "test-libenpu-install: installed libenpu builds and runs a consumer"
