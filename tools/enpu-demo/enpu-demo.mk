# enpu-demo: a trained int8 CNN on held-out handwritten digits through the
# runtime, on the NPU through the kernel driver with the remainder on the
# CPU (`make demo` runs it in the VM). The model is trained here
# (digits-train, from $(ENPU_CACHE)/digits.csv.gz, which tools/deps.sh
# fetches) and quantized with enpu-quantize, once per build tree.

ENPU_DEMO_DIR := tools/enpu-demo
DEMO_DIR := $(B)/demo
DEMO_DIGITS := $(ENPU_CACHE)/digits.csv.gz
DEMO_TRAIN_BIN := $(B)/bin/digits-train
DEMO_MODEL := $(DEMO_DIR)/digits-int8.onnx

ALL_TARGETS += $(B)/bin/enpu-demo $(DEMO_TRAIN_BIN)

# A thin client of the runtime: the public API only.
$(B)/bin/enpu-demo: $(ENPU_DEMO_DIR)/enpu_demo.c $(RT_HEADERS) $(RT_LIB) \
		$(RUNTIME_CPU_LIB)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(RT_PUBLIC_CFLAGS) -o $@ $< $(RT_LDFLAGS)

$(DEMO_TRAIN_BIN): $(ENPU_DEMO_DIR)/digits_train.c tests/rt/model_builder.c \
		tests/rt/model_builder.h $(RT_HEADERS) $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(RT_INTERNAL_CFLAGS) -Itests/rt -o $@ \
		$(ENPU_DEMO_DIR)/digits_train.c tests/rt/model_builder.c \
		$(RT_LDFLAGS)

$(DEMO_DIGITS):
	@echo "demo: $@ is missing: run tools/deps.sh" >&2
	@exit 1

# Training (float, on the host) writes the model, calibration samples and
# the held-out set; enpu-quantize makes the int8 QDQ model from them.
$(DEMO_DIR)/digits-fp32.onnx: $(DEMO_TRAIN_BIN) $(DEMO_DIGITS)
	rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	$(DEMO_TRAIN_BIN) $(DEMO_DIGITS) $(DEMO_DIR) | tee $(DEMO_DIR)/train.log

$(DEMO_MODEL): $(DEMO_DIR)/digits-fp32.onnx $(B)/bin/enpu-quantize
	$(B)/bin/enpu-quantize $< $(DEMO_DIR)/calib $@

.PHONY: demo-model
demo-model: $(DEMO_MODEL)
demo: demo-model

# The demo is also a test: every output equal to the CPU's bytes, the int8
# accuracy within 2 points of the float model's.
VM_TESTS += vm-test-demo
.PHONY: vm-test-demo
vm-test-demo: all demo-model
	tools/vm/run --timeout 300 -- sh -c \
		'cd $(CURDIR) && $(CURDIR)/$(B)/bin/enpu-demo && \
		 $(CURDIR)/$(B)/bin/enpu-demo --threads 2'
	@echo "enpu-demo: 1 passed, 0 failed"
