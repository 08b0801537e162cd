# enpu-info: prints every ENPU device and its parameters.

ENPU_INFO_DIR := tools/enpu-info
ENPU_INFO_OBJECTS := $(B)/obj/enpu-info/enpu_info.o \
	$(B)/obj/enpu-info/enpu_info_format.o

ALL_TARGETS += $(B)/bin/enpu-info

$(B)/obj/enpu-info/%.o: $(ENPU_INFO_DIR)/%.c \
		$(ENPU_INFO_DIR)/enpu_info_format.h $(LIBENPU_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(LIBENPU_CFLAGS) -c $< -o $@

# $ORIGIN/../lib finds build/lib/libenpu.so.0 from build/bin without
# LD_LIBRARY_PATH, and the installed library next to an installed binary.
$(B)/bin/enpu-info: $(ENPU_INFO_OBJECTS) $(B)/lib/libenpu.so
	@mkdir -p $(@D)
	$(CC) -o $@ $(ENPU_INFO_OBJECTS) $(LIBENPU_LDFLAGS) \
		-Wl,-rpath,'$$ORIGIN/../lib'
