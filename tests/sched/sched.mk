# SPDX-License-Identifier: GPL-2.0
#
# tests/sched: the scheduling policy (scheduler/enpu_sched_policy.c) built
# for userspace with the KUnit shim (kunit_user.h), under ASan and UBSan.
# `make test-sched` runs every suite; the same suite sources are KUnit
# suites for `make check-kunit` (see README.md).

TEST_SCHED_DIR := tests/sched
TEST_SCHED_BIN := $(B)/tests/sched/test-sched
TEST_SCHED_SUITES := $(TEST_SCHED_DIR)/enpu_sched_policy_test.c
TEST_SCHED_SRCS := $(TEST_SCHED_DIR)/kunit_user_main.c $(TEST_SCHED_SUITES) \
	scheduler/enpu_sched_policy.c
TEST_SCHED_CFLAGS = $(USER_CFLAGS) -Ischeduler -I$(TEST_SCHED_DIR) \
	-fsanitize=address,undefined -fno-sanitize-recover=all

ALL_TARGETS += $(TEST_SCHED_BIN)
HOST_TESTS += test-sched

$(TEST_SCHED_BIN): $(TEST_SCHED_SRCS) scheduler/enpu_sched_policy.h \
		$(TEST_SCHED_DIR)/kunit_user.h | $(B)/tests/sched/
	$(CC) $(TEST_SCHED_CFLAGS) -o $@ $(TEST_SCHED_SRCS)

.PHONY: test-sched
# The simulations loop on the policy's timer: a broken rule could spin.
test-sched: $(TEST_SCHED_BIN)
	timeout 120 $(TEST_SCHED_BIN)

# The same suites in the KUnit tier (tests/kunit/README.md).
KUNIT_SOURCES += scheduler/enpu_sched_policy.c $(TEST_SCHED_SUITES) \
	kernel/enpu_limits.c $(TEST_SCHED_DIR)/enpu_sched_limits_kunit.c
KUNIT_INCLUDES += scheduler kernel
