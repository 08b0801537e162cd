# userspace/runtime/quantize: post-training quantization library
# (enpu_quantize.h), built to build/lib/libenpu-quantize.a. It reaches into
# the runtime's loader and arena (RT_INTERNAL_CFLAGS) and runs models
# through the public runtime API. Included by tools/enpu-quantize's
# fragment: the top-level Makefile only includes userspace/*/*.mk.

QUANTIZE_DIR := userspace/runtime/quantize
QUANTIZE_SOURCES := $(sort $(wildcard $(QUANTIZE_DIR)/*.c))
QUANTIZE_HEADERS := $(wildcard $(QUANTIZE_DIR)/*.h)
QUANTIZE_OBJECTS := $(patsubst $(QUANTIZE_DIR)/%.c,\
	$(B)/obj/runtime/quantize/%.o,$(QUANTIZE_SOURCES))
QUANTIZE_LIB := $(B)/lib/libenpu-quantize.a

QUANTIZE_CFLAGS = -I$(QUANTIZE_DIR) $(RT_INTERNAL_CFLAGS)
QUANTIZE_LDFLAGS = $(QUANTIZE_LIB) $(RT_LDFLAGS)

ALL_TARGETS += $(QUANTIZE_LIB)

$(B)/obj/runtime/quantize/%.o: $(QUANTIZE_DIR)/%.c $(QUANTIZE_HEADERS) \
		$(RT_HEADERS) $(RT_GEN_HEADER)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(QUANTIZE_CFLAGS) -fPIC -c $< -o $@

$(QUANTIZE_LIB): $(QUANTIZE_OBJECTS) | $(B)/lib/
	rm -f $@
	$(AR) rcs $@ $(QUANTIZE_OBJECTS)
