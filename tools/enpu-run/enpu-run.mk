# tools/enpu-run: command-line runner of ONNX models on the CPU runtime.

ENPU_RUN_BIN := $(B)/bin/enpu-run

ALL_TARGETS += $(ENPU_RUN_BIN)

$(ENPU_RUN_BIN): tools/enpu-run/enpu-run.c $(RT_HEADERS) $(RT_LIB) \
		$(RUNTIME_CPU_LIB) | $(B)/bin/
	$(CC) $(USER_CFLAGS) $(RT_INTERNAL_CFLAGS) -o $@ $< $(RT_LDFLAGS)
