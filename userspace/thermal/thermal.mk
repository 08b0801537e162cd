# SPDX-License-Identifier: MIT
#
# Runtime thermal hooks (userspace/thermal/README.md): the sysfs reader,
# the monitor and the plan policy, built to build/lib/libenpu-thermal.a.
# tests/thermal builds the same sources again with ASan and UBSan.

THERMAL_DIR := userspace/thermal
THERMAL_SRCS := $(sort $(wildcard $(THERMAL_DIR)/th_*.c))
THERMAL_OBJS := $(patsubst $(THERMAL_DIR)/%.c,$(B)/obj/thermal/%.o,$(THERMAL_SRCS))
THERMAL_LIB := $(B)/lib/libenpu-thermal.a
THERMAL_CFLAGS = -I$(THERMAL_DIR) -Iuserspace/runtime/include
# Sources that need only libc (the unit tests build these with sanitizers).
THERMAL_CORE_SRCS := $(filter-out $(THERMAL_DIR)/th_plans.c,$(THERMAL_SRCS))
THERMAL_HEADERS := $(wildcard $(THERMAL_DIR)/*.h)

ALL_TARGETS += $(THERMAL_LIB)

# th_plans.c drives runtime sessions; the rest needs nothing but libc.
$(B)/obj/thermal/%.o: $(THERMAL_DIR)/%.c $(THERMAL_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I$(RT_DIR)/include -fPIC -c -o $@ $<

$(THERMAL_LIB): $(THERMAL_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^
