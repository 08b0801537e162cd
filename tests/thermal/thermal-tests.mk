# SPDX-License-Identifier: MIT
#
# tests/thermal: the runtime thermal hooks (userspace/thermal) on fake sysfs
# trees, built from the library's sources with ASan and UBSan.

TEST_THERMAL_BIN := $(B)/tests/thermal/test-thermal

ALL_TARGETS += $(TEST_THERMAL_BIN)
HOST_TESTS += test-thermal

$(TEST_THERMAL_BIN): tests/thermal/test_thermal.c $(THERMAL_CORE_SRCS) \
		$(THERMAL_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(THERMAL_CFLAGS) -fsanitize=address,undefined \
		-fno-sanitize-recover=all -o $@ tests/thermal/test_thermal.c \
		$(THERMAL_CORE_SRCS) -lm

.PHONY: test-thermal
test-thermal: $(TEST_THERMAL_BIN)
	$(TEST_THERMAL_BIN)

# Plan switching with real runtime sessions (the runtime libraries are
# not instrumented; this file and the hooks are).
TEST_THERMAL_PLANS_BIN := $(B)/tests/thermal/test-thermal-plans
THERMAL_TEST_MODEL := $(CONFORMANCE_DATA)/node/test_relu/model.onnx
ALL_TARGETS += $(TEST_THERMAL_PLANS_BIN)
HOST_TESTS += test-thermal-plans

$(TEST_THERMAL_PLANS_BIN): tests/thermal/test_plans.c $(THERMAL_SRCS) \
		$(THERMAL_HEADERS) $(RT_HEADERS) $(RT_LIB) $(RUNTIME_CPU_LIB)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(THERMAL_CFLAGS) $(RT_PUBLIC_CFLAGS) \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-o $@ tests/thermal/test_plans.c $(THERMAL_SRCS) $(RT_LDFLAGS)

.PHONY: test-thermal-plans
test-thermal-plans: $(TEST_THERMAL_PLANS_BIN)
	$(TEST_THERMAL_PLANS_BIN) $(THERMAL_TEST_MODEL)
