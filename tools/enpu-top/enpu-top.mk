# enpu-top: terminal monitor of ENPU devices from fdinfo, sysfs, debugfs.
# Host tests: tests/enpu-top/ (a fake /proc and /sys tree).

ENPU_TOP_DIR := tools/enpu-top
ENPU_TOP_LIB_OBJECTS := $(B)/obj/enpu-top/enpu_top_sample.o \
	$(B)/obj/enpu-top/enpu_top_report.o
ENPU_TOP_HEADERS := $(ENPU_TOP_DIR)/enpu_top_sample.h \
	$(ENPU_TOP_DIR)/enpu_top_report.h

ALL_TARGETS += $(B)/bin/enpu-top

$(B)/obj/enpu-top/%.o: $(ENPU_TOP_DIR)/%.c $(ENPU_TOP_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -c $< -o $@

# No libenpu: everything comes from files any monitoring user can read.
$(B)/bin/enpu-top: $(B)/obj/enpu-top/enpu_top.o $(ENPU_TOP_LIB_OBJECTS)
	@mkdir -p $(@D)
	$(CC) -o $@ $^
