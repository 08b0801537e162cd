# libenpu: the uapi library. Builds the shared library (versioned SONAME),
# the static archive and the pkg-config file; `make install` installs them.

LIBENPU_VERSION := 0.7.0
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

.PHONY: install-libenpu uninstall-libenpu test-libenpu-symbols \
	test-libenpu-abi update-libenpu-abi
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

# The ABI check: the exported symbols with their version nodes, and the
# types they take (abidw's record of the DWARF: struct layouts, enums,
# prototypes), compared with what is committed in abi/. Removing, renaming
# or re-versioning a symbol, or changing a public struct, fails make check;
# so does an addition until it is recorded. After a deliberate change (a
# new function in a new version node, a field appended where the contract
# allows it): `make update-libenpu-abi`, and the diff shows what changed.
LIBENPU_ABI_DIR := $(LIBENPU_DIR)/abi
LIBENPU_ABIDW = abidw --no-corpus-path --no-comp-dir-path --no-show-locs \
	--type-id-style hash
LIBENPU_SYMBOLS = nm -D --defined-only $(LIBENPU_SHARED) | \
	awk '$$2 == "T" { print $$3 }' | sed 's/@@*/@/' | sort
HOST_TESTS += test-libenpu-abi
test-libenpu-abi: $(LIBENPU_SHARED)
	@command -v abidiff >/dev/null || \
		{ echo "test-libenpu-abi: abidiff missing (run tools/deps.sh)"; exit 1; }
	@fail=0; \
	test "$$(readelf -d $(LIBENPU_SHARED) | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" = \
		"$$(cat $(LIBENPU_ABI_DIR)/soname)" && echo "ok   SONAME is $$(cat $(LIBENPU_ABI_DIR)/soname)" || \
		{ echo "FAIL SONAME differs from $(LIBENPU_ABI_DIR)/soname"; fail=$$((fail + 1)); }; \
	if $(LIBENPU_SYMBOLS) | diff -u $(LIBENPU_ABI_DIR)/symbols - ; then \
		echo "ok   exported symbols and versions match $(LIBENPU_ABI_DIR)/symbols"; \
	else echo "FAIL exported symbols differ from $(LIBENPU_ABI_DIR)/symbols (- lost, + new)"; \
		fail=$$((fail + 1)); fi; \
	if abidiff $(LIBENPU_ABI_DIR)/libenpu.abi $(LIBENPU_SHARED); then \
		echo "ok   abidiff: no ABI change against $(LIBENPU_ABI_DIR)/libenpu.abi"; \
	else echo "FAIL abidiff: the ABI changed (above); make update-libenpu-abi if deliberate"; \
		fail=$$((fail + 1)); fi; \
	echo "test-libenpu-abi: $$((3 - fail)) passed, $$fail failed"; test $$fail = 0

update-libenpu-abi: $(LIBENPU_SHARED)
	@mkdir -p $(LIBENPU_ABI_DIR)
	echo $(LIBENPU_SONAME) >$(LIBENPU_ABI_DIR)/soname
	$(LIBENPU_SYMBOLS) >$(LIBENPU_ABI_DIR)/symbols
	$(LIBENPU_ABIDW) --out-file $(LIBENPU_ABI_DIR)/libenpu.abi $(LIBENPU_SHARED)
