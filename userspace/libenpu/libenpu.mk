# libenpu: the uapi library. Builds the shared library (versioned SONAME),
# the static archive and the pkg-config file; `make install` installs them.

LIBENPU_VERSION := 0.4.0
LIBENPU_SONAME := libenpu.so.0
LIBENPU_DIR := userspace/libenpu
LIBENPU_SOURCES := $(sort $(wildcard $(LIBENPU_DIR)/src/*.c))
LIBENPU_OBJECTS := $(patsubst $(LIBENPU_DIR)/src/%.c,$(B)/obj/libenpu/%.o,\
	$(LIBENPU_SOURCES))
LIBENPU_HEADERS := $(LIBENPU_DIR)/include/enpu/enpu.h uapi/enpu_accel.h \
	uapi/enpu_cmd.h
LIBENPU_SHARED := $(B)/lib/libenpu.so.$(LIBENPU_VERSION)
LIBENPU_STATIC := $(B)/lib/libenpu.a
LIBENPU_PC := $(B)/lib/pkgconfig/libenpu.pc
# What programs in the tree use to compile and link against libenpu.
LIBENPU_CFLAGS = -I$(LIBENPU_DIR)/include
LIBENPU_LDFLAGS = -L$(B)/lib -lenpu $(LIBDRM_LIBS)

PREFIX ?= /usr/local
LIBENPU_LIBDIR ?= $(PREFIX)/lib
LIBENPU_INCLUDEDIR ?= $(PREFIX)/include

ALL_TARGETS += $(LIBENPU_SHARED) $(B)/lib/libenpu.so.0 $(B)/lib/libenpu.so \
	$(LIBENPU_STATIC) $(LIBENPU_PC)

$(B)/obj/libenpu/%.o: $(LIBENPU_DIR)/src/%.c $(LIBENPU_HEADERS) \
		$(LIBENPU_DIR)/src/enpu_internal.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LIBENPU_CFLAGS) -fPIC -fvisibility=hidden \
		-c $< -o $@

$(LIBENPU_SHARED): $(LIBENPU_OBJECTS) $(LIBENPU_DIR)/libenpu.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(LIBENPU_SONAME) -Wl,--no-undefined \
		-Wl,--version-script=$(LIBENPU_DIR)/libenpu.map \
		-o $@ $(LIBENPU_OBJECTS) $(LIBDRM_LIBS)

$(B)/lib/libenpu.so.0: $(LIBENPU_SHARED)
	ln -sf libenpu.so.$(LIBENPU_VERSION) $@

$(B)/lib/libenpu.so: $(B)/lib/libenpu.so.0
	ln -sf libenpu.so.0 $@

$(LIBENPU_STATIC): $(LIBENPU_OBJECTS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $(LIBENPU_OBJECTS)

# The pkg-config file names the install prefix, so it is written again at
# install time with the PREFIX given then; this copy describes a default
# install for inspection.
# Directories under the prefix are written relative to it, so that the
# file relocates (pkg-config --define-prefix, a staged install).
PC_DIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
LIBENPU_PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' \
	-e 's|@LIBDIR@|$(call PC_DIR,$(LIBENPU_LIBDIR))|' \
	-e 's|@INCLUDEDIR@|$(call PC_DIR,$(LIBENPU_INCLUDEDIR))|' \
	-e 's|@VERSION@|$(LIBENPU_VERSION)|' $(LIBENPU_DIR)/libenpu.pc.in

$(LIBENPU_PC): $(LIBENPU_DIR)/libenpu.pc.in $(LIBENPU_DIR)/libenpu.mk
	@mkdir -p $(@D)
	$(LIBENPU_PC_SED) >$@

.PHONY: install-libenpu uninstall-libenpu test-libenpu-symbols
install: install-libenpu
install-libenpu: $(LIBENPU_SHARED) $(B)/lib/libenpu.so.0 $(B)/lib/libenpu.so \
		$(LIBENPU_STATIC)
	install -d $(DESTDIR)$(LIBENPU_LIBDIR)/pkgconfig \
		$(DESTDIR)$(LIBENPU_INCLUDEDIR)/enpu
	install -m 0755 $(LIBENPU_SHARED) $(DESTDIR)$(LIBENPU_LIBDIR)/
	cp -P $(B)/lib/libenpu.so.0 $(B)/lib/libenpu.so \
		$(DESTDIR)$(LIBENPU_LIBDIR)/
	install -m 0644 $(LIBENPU_STATIC) $(DESTDIR)$(LIBENPU_LIBDIR)/
	$(LIBENPU_PC_SED) >$(DESTDIR)$(LIBENPU_LIBDIR)/pkgconfig/libenpu.pc
	install -m 0644 $(LIBENPU_HEADERS) $(DESTDIR)$(LIBENPU_INCLUDEDIR)/enpu/

uninstall: uninstall-libenpu
uninstall-libenpu:
	rm -f $(addprefix $(DESTDIR)$(LIBENPU_LIBDIR)/,$(notdir \
		$(LIBENPU_SHARED) $(LIBENPU_STATIC)) libenpu.so.0 libenpu.so \
		pkgconfig/libenpu.pc) \
		$(addprefix $(DESTDIR)$(LIBENPU_INCLUDEDIR)/enpu/,$(notdir \
		$(LIBENPU_HEADERS)))

# The .so must export exactly the functions the public header declares.
HOST_TESTS += test-libenpu-symbols
test-libenpu-symbols: $(LIBENPU_SHARED)
	@sed -n 's/^ENPU_PUBLIC [^(]*[ *]\(enpu_[a-z0-9_]*\)(.*/\1/p' \
		$(LIBENPU_DIR)/include/enpu/enpu.h | sort >$(B)/obj/libenpu/declared
	@nm -D --defined-only $(LIBENPU_SHARED) | \
		awk '$$2 != "A" { sub(/@.*/, "", $$3); print $$3 }' | \
		sort >$(B)/obj/libenpu/exported
	@if diff -u $(B)/obj/libenpu/declared $(B)/obj/libenpu/exported; then \
		echo "test-libenpu-symbols: $$(wc -l <$(B)/obj/libenpu/exported) exported symbols match enpu.h"; \
	else \
		echo "test-libenpu-symbols: exported symbols differ from enpu.h" >&2; \
		exit 1; \
	fi
