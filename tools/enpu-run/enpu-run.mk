# tools/enpu-run: command-line runner of ONNX models (tools/enpu-run/README.md).

ENPU_RUN_BIN := $(B)/bin/enpu-run
ENPU_RUN_SOURCES := $(sort $(wildcard tools/enpu-run/*.c))

ALL_TARGETS += $(ENPU_RUN_BIN)

$(ENPU_RUN_BIN): $(ENPU_RUN_SOURCES) tools/enpu-run/run.h $(RT_HEADERS) \
		$(TOOLS_COMMON_SOURCES) $(TOOLS_COMMON_HEADERS) \
		$(RT_LIB) $(RUNTIME_CPU_LIB) $(THERMAL_LIB) $(THERMAL_HEADERS) | $(B)/bin/
	$(CC) $(USER_CFLAGS) $(RT_INTERNAL_CFLAGS) $(THERMAL_CFLAGS) \
		$(TOOLS_COMMON_CFLAGS) -o $@ $(ENPU_RUN_SOURCES) \
		$(TOOLS_COMMON_SOURCES) $(THERMAL_LIB) $(RT_LDFLAGS)
