# SPDX-License-Identifier: GPL-2.0
#
# The KUnit tier (tests/kunit/README.md): `make check-kunit` links
# KUNIT_SOURCES into a UML kernel built from linux-source-6.1 and runs the
# suites with kunit.py (tests/kunit/run.sh). A fragment adds a suite with
#   KUNIT_SOURCES += <code under test>.c tests/kunit/<suite>_kunit.c
# and, if it needs them, KUNIT_CONFIGS += <Kconfig fragment> and
# KUNIT_INCLUDES += <header directory>. KUNIT_FILTER=GLOB runs only the
# matching suites (kunit.py's filter_glob, e.g. 'enpu_fw*').

KUNIT_SOURCES += kernel/enpu_validate.c tests/kunit/enpu_validate_kunit.c \
	firmware-loader/enpu_fw_image.c tests/kunit/enpu_fw_image_kunit.c
KUNIT_INCLUDES += tests/firmware
KUNIT_FILTER ?=

.PHONY: check-kunit
check-kunit:
	bash tests/kunit/run.sh $(B)/tests/kunit \
		$(foreach f,$(KUNIT_CONFIGS),--config $(f)) \
		$(foreach d,$(KUNIT_INCLUDES),--include $(d)) \
		$(if $(KUNIT_FILTER),--filter '$(KUNIT_FILTER)') \
		-- $(sort $(KUNIT_SOURCES))
