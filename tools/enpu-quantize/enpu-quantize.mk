# tools/enpu-quantize: post-training quantization command line over
# userspace/runtime/quantize (whose fragment this includes).

include userspace/runtime/quantize/quantize.mk

ENPU_QUANTIZE_BIN := $(B)/bin/enpu-quantize

ALL_TARGETS += $(ENPU_QUANTIZE_BIN)

$(ENPU_QUANTIZE_BIN): tools/enpu-quantize/enpu-quantize.c $(QUANTIZE_HEADERS) \
		$(QUANTIZE_LIB) $(RT_LIB) $(RUNTIME_CPU_LIB) | $(B)/bin/
	$(CC) $(USER_CFLAGS) $(QUANTIZE_CFLAGS) -o $@ $< $(QUANTIZE_LDFLAGS)
