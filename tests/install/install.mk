# SPDX-License-Identifier: GPL-2.0
#
# The install tests (tests/install/README.md):
#   test-install      host: make install into a scratch root, every file
#                     listed and checked, pkg-config consumers, uninstall;
#   test-man          host: a page for every tool naming exactly the
#                     options its --help lists, every libenpu function
#                     named in libenpu(3), groff renders them warning-free;
#   test-dkms         build tier: `dkms add` + `dkms build` of the installed
#                     module source against the 6.1 and the 6.12 headers,
#                     in private DKMS trees (nothing system-wide changes);
#   vm-test-install   VM: the DKMS-built enpu.ko loads, and the installed
#                     enpu-info runs on the installed libenpu only.

INSTALL_TEST_DIR := $(B)/tests/install

.PHONY: test-install test-man test-dkms vm-test-install
HOST_TESTS += test-install test-man
BUILD_CHECKS += test-dkms
VM_TESTS += vm-test-install

test-install: all
	bash tests/install/install-test.sh $(B) $(ENPU_VERSION) $(LIBENPU_VERSION)

test-man: all
	bash tests/install/man-test.sh docs/man $(LIBENPU_DIR)/include/enpu/enpu.h \
		$(ENPU_INSTALL_BINS)

# dkms copies the source tree, runs MAKE[0] of dkms.conf for the kernel
# given and keeps the result in its tree; --sourcetree/--dkmstree/
# --installtree keep all of that under build/. Once per tested kernel
# (6.1: render node; 6.12: accel node), each in a tree of its own, so the
# compile probes run against each kernel the way DKMS runs them on a
# kernel upgrade.
#   ENPU_DKMS_RULES NAME KVER KDIR
define ENPU_DKMS_RULES
.PHONY: test-dkms-$(1)
$(INSTALL_TEST_DIR)/dkms-$(1)/enpu.ko: Kbuild $$(ENPU_MODULE_SOURCES) \
		$$(ENPU_MODULE_HEADERS) $$(ENPU_MODULE_PROBES) \
		$(INSTALL_DIR)/Makefile.dkms $(INSTALL_DIR)/dkms.conf.in
	@command -v dkms >/dev/null || \
		{ echo "dkms missing (run tools/deps.sh)"; exit 1; }
	rm -rf $$(@D)
	mkdir -p $$(@D)/tree $$(@D)/modules
	$$(MAKE) --no-print-directory -s install-module-source \
		DESTDIR=$$(CURDIR)/$$(@D)/root
	dkms add -m enpu -v $$(ENPU_VERSION) \
		--sourcetree $$(CURDIR)/$$(@D)/root/usr/src \
		--dkmstree $$(CURDIR)/$$(@D)/tree \
		--installtree $$(CURDIR)/$$(@D)/modules \
		>$$(@D)/add.log 2>&1 || { cat $$(@D)/add.log; exit 1; }
	dkms build -m enpu -v $$(ENPU_VERSION) -k $(2) --kernelsourcedir $(3) \
		--sourcetree $$(CURDIR)/$$(@D)/root/usr/src \
		--dkmstree $$(CURDIR)/$$(@D)/tree \
		--installtree $$(CURDIR)/$$(@D)/modules \
		>$$(@D)/build.log 2>&1 || \
		{ cat $$(@D)/build.log \
		  $$(@D)/tree/enpu/$$(ENPU_VERSION)/build/make.log; exit 1; }
	cp $$(@D)/tree/enpu/$$(ENPU_VERSION)/$(2)/$$$$(uname -m)/module/enpu.ko $$@

test-dkms-$(1): $(INSTALL_TEST_DIR)/dkms-$(1)/enpu.ko
	@test "$$$$(modinfo -F vermagic $$< | cut -d' ' -f1)" = $(2) || \
		{ echo "test-dkms-$(1): $$< is not built for $(2)"; exit 1; }
	@echo "test-dkms-$(1): dkms build of enpu $$(ENPU_VERSION) for $(2): $$<"
test-dkms: test-dkms-$(1)
endef
$(eval $(call ENPU_DKMS_RULES,6.1,$(ENPU_KVER),$(KDIR)))
$(eval $(call ENPU_DKMS_RULES,6.12,$(ENPU_KVER_6.12),$(KDIR_6.12)))
DKMS_TEST_KO := $(INSTALL_TEST_DIR)/dkms-6.1/enpu.ko

# The default kernel only: the DKMS module is built for it.
vm-test-install: all $(DKMS_TEST_KO)
	rm -rf $(INSTALL_TEST_DIR)/vmroot
	$(MAKE) --no-print-directory -s install \
		DESTDIR=$(CURDIR)/$(INSTALL_TEST_DIR)/vmroot PREFIX=/usr
	tools/vm/run --kernel 6.1 --no-modprobe --timeout 300 -- \
		sh $(CURDIR)/tests/install/vm-install-test.sh \
		$(CURDIR)/$(DKMS_TEST_KO) $(CURDIR)/$(INSTALL_TEST_DIR)/vmroot
