# SPDX-License-Identifier: GPL-2.0
#
# `make install` / `make uninstall` (tools/install/README.md): everything a
# driver package lays out, under $(DESTDIR). PREFIX (default /usr/local,
# userspace/libenpu/libenpu.mk) places the libraries, headers, tools and
# man pages; the module source, firmware and udev rule go where the kernel,
# DKMS and udev look for them whatever PREFIX is.

ENPU_VERSION := 0.4.0
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
ENPU_DOCDIR ?= $(PREFIX)/share/doc/enpu
ENPU_SRCDIR ?= /usr/src/enpu-$(ENPU_VERSION)
FIRMWAREDIR ?= /lib/firmware
UDEVRULESDIR ?= /lib/udev/rules.d
INSTALL_DIR := tools/install

# The module source: what ./Kbuild compiles for enpu.ko (one list of
# objects; the kselftests' exporter module under tests/ stays out), every
# header of the kernel-side rooms, and the compile probes DKMS runs per
# kernel (tools/install/Makefile.dkms becomes the tree's Makefile).
ENPU_MODULE_SOURCES = $(filter-out tests/%,$(patsubst %.o,%.c,$(shell \
	grep -o '[a-z/-]*/[a-z0-9_]*\.o' Kbuild)))
ENPU_MODULE_HEADERS = $(sort $(wildcard kernel/*.h scheduler/*.h \
	firmware-loader/*.h uapi/*.h))
ENPU_MODULE_PROBES = $(sort $(wildcard kernel/conftest/*.c)) \
	kernel/conftest/run.sh
# Every program `make` builds into build/bin, each with its page in
# docs/man (test-man fails a program without one), but for two that only
# make sense in the source tree: digits-train makes the demo's model at
# build time, enpu-stress drives the VM rig's fault relay.
ENPU_NOINSTALL_BINS = $(B)/bin/digits-train $(B)/bin/enpu-stress
ENPU_INSTALL_BINS = $(sort $(filter-out $(ENPU_NOINSTALL_BINS),\
	$(filter $(B)/bin/%,$(ALL_TARGETS))))
ENPU_MAN1 = $(sort $(wildcard docs/man/*.1))
ENPU_MAN3 = $(sort $(wildcard docs/man/*.3))
RT_PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' \
	-e 's|@LIBDIR@|$(call PC_DIR,$(LIBENPU_LIBDIR))|' \
	-e 's|@INCLUDEDIR@|$(call PC_DIR,$(LIBENPU_INCLUDEDIR))|' \
	-e 's|@VERSION@|$(ENPU_VERSION)|' $(INSTALL_DIR)/enpu-rt.pc.in

.PHONY: install-module-source install-firmware install-udev install-runtime \
	install-tools install-man uninstall uninstall-libenpu
install: install-module-source install-firmware install-udev \
	install-runtime install-tools install-man

install-module-source:
	@set -e; for f in Kbuild $(ENPU_MODULE_SOURCES) $(ENPU_MODULE_HEADERS) \
		$(ENPU_MODULE_PROBES); do \
		install -D -m 0644 $$f $(DESTDIR)$(ENPU_SRCDIR)/$$f; done
	install -m 0644 $(INSTALL_DIR)/Makefile.dkms $(DESTDIR)$(ENPU_SRCDIR)/Makefile
	sed 's|@VERSION@|$(ENPU_VERSION)|' $(INSTALL_DIR)/dkms.conf.in \
		>$(DESTDIR)$(ENPU_SRCDIR)/dkms.conf

install-firmware: $(ENPU_FW_V1)
	install -D -m 0644 $(ENPU_FW_V1) \
		$(DESTDIR)$(FIRMWAREDIR)/enpu/$(notdir $(ENPU_FW_V1))

install-udev:
	install -D -m 0644 $(INSTALL_DIR)/70-enpu.rules \
		$(DESTDIR)$(UDEVRULESDIR)/70-enpu.rules
	install -D -m 0644 $(INSTALL_DIR)/examples/modules-load.d-enpu.conf \
		$(DESTDIR)$(ENPU_DOCDIR)/examples/modules-load.d/enpu.conf
	install -D -m 0644 $(INSTALL_DIR)/examples/modprobe.d-enpu.conf \
		$(DESTDIR)$(ENPU_DOCDIR)/examples/modprobe.d/enpu.conf

install-runtime: $(RT_LIB) $(RUNTIME_CPU_LIB)
	install -d $(DESTDIR)$(LIBENPU_LIBDIR)/pkgconfig \
		$(DESTDIR)$(LIBENPU_INCLUDEDIR)/enpu
	install -m 0644 $(RT_LIB) $(RUNTIME_CPU_LIB) $(DESTDIR)$(LIBENPU_LIBDIR)/
	install -m 0644 $(RT_DIR)/include/enpu/enpu_rt.h \
		$(DESTDIR)$(LIBENPU_INCLUDEDIR)/enpu/
	$(RT_PC_SED) >$(DESTDIR)$(LIBENPU_LIBDIR)/pkgconfig/enpu-rt.pc

# The tools find libenpu through their $ORIGIN/../lib rpath, which is
# $(PREFIX)/lib once installed.
install-tools: all
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(ENPU_INSTALL_BINS) $(DESTDIR)$(BINDIR)/

install-man:
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	install -m 0644 $(ENPU_MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(ENPU_MAN3) $(DESTDIR)$(MANDIR)/man3/

# Removes exactly what install laid out (the same lists; libenpu's own
# files by uninstall-libenpu), then the directories that are ENPU's alone.
uninstall:
	rm -rf $(DESTDIR)$(ENPU_SRCDIR)
	rm -f $(DESTDIR)$(FIRMWAREDIR)/enpu/$(notdir $(ENPU_FW_V1)) \
		$(DESTDIR)$(UDEVRULESDIR)/70-enpu.rules \
		$(DESTDIR)$(ENPU_DOCDIR)/examples/modules-load.d/enpu.conf \
		$(DESTDIR)$(ENPU_DOCDIR)/examples/modprobe.d/enpu.conf \
		$(DESTDIR)$(LIBENPU_LIBDIR)/$(notdir $(RT_LIB)) \
		$(DESTDIR)$(LIBENPU_LIBDIR)/$(notdir $(RUNTIME_CPU_LIB)) \
		$(DESTDIR)$(LIBENPU_INCLUDEDIR)/enpu/enpu_rt.h \
		$(DESTDIR)$(LIBENPU_LIBDIR)/pkgconfig/enpu-rt.pc \
		$(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(ENPU_INSTALL_BINS))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(ENPU_MAN1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(ENPU_MAN3)))
	rmdir $(DESTDIR)$(FIRMWAREDIR)/enpu \
		$(DESTDIR)$(ENPU_DOCDIR)/examples/modules-load.d \
		$(DESTDIR)$(ENPU_DOCDIR)/examples/modprobe.d \
		$(DESTDIR)$(ENPU_DOCDIR)/examples $(DESTDIR)$(ENPU_DOCDIR) \
		$(DESTDIR)$(LIBENPU_INCLUDEDIR)/enpu 2>/dev/null || true
