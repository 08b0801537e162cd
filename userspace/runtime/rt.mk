# ENPU runtime core: ONNX loader (protobuf-c code generated at build time
# from Debian's onnx.proto), graph IR and passes, executor, public API
# (include/enpu/enpu_rt.h) and the ops registered in ops/op_families.h.
# Built as build/lib/libenpu-rt.a; links the CPU kernels archive
# (runtime.mk) and libprotobuf-c.

RT_DIR := userspace/runtime
RT_GEN_DIR := $(B)/gen
RT_ONNX_PROTO ?= /usr/include/onnx/onnx.proto
RT_GEN_SOURCE := $(RT_GEN_DIR)/onnx.pb-c.c
RT_GEN_HEADER := $(RT_GEN_DIR)/onnx.pb-c.h

RT_SUBDIRS := common onnx graph engine ops backend backend/cpu backend/npu \
	partition
RT_SOURCES := $(sort $(foreach d,$(RT_SUBDIRS),$(wildcard $(RT_DIR)/$(d)/*.c)))
RT_OBJECTS := $(patsubst $(RT_DIR)/%.c,$(B)/obj/runtime/rt/%.o,\
	$(RT_SOURCES)) $(B)/obj/runtime/rt/gen/onnx.pb-c.o
# runtime.mk sorts after this file, so name the CPU headers directly.
RT_HEADERS := $(foreach d,$(RT_SUBDIRS) include/enpu cpu,\
	$(wildcard $(RT_DIR)/$(d)/*.h))
RT_LIB := $(B)/lib/libenpu-rt.a

# Public: what a program using enpu_rt.h needs.
RT_PUBLIC_CFLAGS = -I$(RT_DIR)/include
# The NPU backend is the only runtime code on libenpu (linked statically).
RT_LDFLAGS = $(RT_LIB) $(RUNTIME_CPU_LIB) $(LIBENPU_STATIC) -lprotobuf-c \
	$(LIBDRM_LIBS) -lpthread -lm
# Internal: tests and tools that reach into the IR and the ops.
RT_INTERNAL_CFLAGS = $(RT_PUBLIC_CFLAGS) $(RUNTIME_CPU_CFLAGS) \
	$(foreach d,$(RT_SUBDIRS),-I$(RT_DIR)/$(d)) -I$(RT_GEN_DIR)

ALL_TARGETS += $(RT_LIB)
CLEAN_FILES += $(RT_GEN_DIR)

$(RT_GEN_SOURCE) $(RT_GEN_HEADER) &: $(RT_ONNX_PROTO)
	@mkdir -p $(RT_GEN_DIR)
	protoc-c --c_out=$(RT_GEN_DIR) --proto_path=$(dir $(RT_ONNX_PROTO)) \
		$(notdir $(RT_ONNX_PROTO))

# Generated code is not ours to keep warning-clean under -Wextra.
$(B)/obj/runtime/rt/gen/onnx.pb-c.o: $(RT_GEN_SOURCE) $(RT_GEN_HEADER)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(CFLAGS) -fPIC -I$(RT_GEN_DIR) \
		-c $< -o $@

$(B)/obj/runtime/rt/%.o: $(RT_DIR)/%.c $(RT_HEADERS) $(RT_GEN_HEADER)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(RT_INTERNAL_CFLAGS) -fPIC -c $< -o $@

# Only backend/npu sees libenpu's header.
$(B)/obj/runtime/rt/backend/npu/%.o: $(RT_DIR)/backend/npu/%.c $(RT_HEADERS) \
		$(RT_GEN_HEADER) $(LIBENPU_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(RT_INTERNAL_CFLAGS) $(LIBENPU_CFLAGS) -fPIC \
		-c $< -o $@

# Whatever links RT_LDFLAGS needs libenpu.a built first.
$(RT_LIB): $(RT_OBJECTS) $(LIBENPU_STATIC) | $(B)/lib/
	rm -f $@
	$(AR) rcs $@ $(RT_OBJECTS)
