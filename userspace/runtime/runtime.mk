# ENPU runtime, CPU part: the int8 and float kernels of the CPU fallback
# (userspace/runtime/cpu), built as a static archive that the runtime,
# tests and benchmarks link. Each ISA family's file gets its own -m flags;
# the dispatcher only calls it after CPUID/XCR0 (x86) or the hwcaps (arm64)
# say the CPU can run it. Which ISA files exist in the build depends on the
# compiler's target: *_avx*.c on x86-64, *_neon*.c on aarch64, neither
# elsewhere (the portable kernels always). tests/cpu-arm64 reuses these
# rules in a sub-make with CC set to the aarch64 cross compiler.

RUNTIME_CPU_DIR := userspace/runtime/cpu
RUNTIME_CPU_ARCH := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine)))
RUNTIME_CPU_X86_SOURCES := $(wildcard $(RUNTIME_CPU_DIR)/*_avx*.c)
RUNTIME_CPU_ARM64_SOURCES := $(wildcard $(RUNTIME_CPU_DIR)/*_neon*.c)
RUNTIME_CPU_ISA_SOURCES_x86_64 := $(RUNTIME_CPU_X86_SOURCES)
RUNTIME_CPU_ISA_SOURCES_aarch64 := $(RUNTIME_CPU_ARM64_SOURCES)
RUNTIME_CPU_SOURCES := $(sort \
	$(filter-out $(RUNTIME_CPU_X86_SOURCES) $(RUNTIME_CPU_ARM64_SOURCES),\
		$(wildcard $(RUNTIME_CPU_DIR)/*.c)) \
	$(RUNTIME_CPU_ISA_SOURCES_$(RUNTIME_CPU_ARCH)))
RUNTIME_CPU_OBJECTS := $(patsubst $(RUNTIME_CPU_DIR)/%.c,\
	$(B)/obj/runtime/cpu/%.o,$(RUNTIME_CPU_SOURCES))
RUNTIME_CPU_HEADERS := $(wildcard $(RUNTIME_CPU_DIR)/*.h)
RUNTIME_CPU_LIB := $(B)/lib/libenpu-cpu.a
# What programs in the tree use to compile and link against the CPU kernels.
RUNTIME_CPU_CFLAGS = -I$(RUNTIME_CPU_DIR)
RUNTIME_CPU_LDFLAGS = $(RUNTIME_CPU_LIB) -lpthread -lm

RUNTIME_CPU_ISA_FLAGS_gemm_avx2 := -mavx2 -mfma
RUNTIME_CPU_ISA_FLAGS_gemm_avx512_vnni := -mavx2 -mfma -mavx512f \
	-mavx512bw -mavx512vl -mavx512dq -mavx512vnni
# Convolution, pooling and elementwise kernels: the same two families.
RUNTIME_CPU_AVX2_FLAGS := -mavx2 -mfma
RUNTIME_CPU_AVX512_FLAGS := $(RUNTIME_CPU_ISA_FLAGS_gemm_avx512_vnni)
RUNTIME_CPU_ISA_FLAGS_dwconv_avx2 := $(RUNTIME_CPU_AVX2_FLAGS)
RUNTIME_CPU_ISA_FLAGS_dwconv_avx512_vnni := $(RUNTIME_CPU_AVX512_FLAGS)
RUNTIME_CPU_ISA_FLAGS_pool_avx2 := $(RUNTIME_CPU_AVX2_FLAGS)
RUNTIME_CPU_ISA_FLAGS_pool_avx512 := $(RUNTIME_CPU_AVX512_FLAGS)
RUNTIME_CPU_ISA_FLAGS_eltwise_avx2 := $(RUNTIME_CPU_AVX2_FLAGS)
RUNTIME_CPU_ISA_FLAGS_eltwise_avx512 := $(RUNTIME_CPU_AVX512_FLAGS)
RUNTIME_CPU_ISA_FLAGS_lookup_avx512 := $(RUNTIME_CPU_AVX512_FLAGS) -mavx512vbmi
# Float kernels: the same two x86 families.
RUNTIME_CPU_ISA_FLAGS_sgemm_avx2 := $(RUNTIME_CPU_AVX2_FLAGS)
RUNTIME_CPU_ISA_FLAGS_sgemm_avx512 := $(RUNTIME_CPU_AVX512_FLAGS)
RUNTIME_CPU_ISA_FLAGS_fmath_avx2 := $(RUNTIME_CPU_AVX2_FLAGS)
RUNTIME_CPU_ISA_FLAGS_fmath_avx512 := $(RUNTIME_CPU_AVX512_FLAGS)
RUNTIME_CPU_ISA_FLAGS_fdwconv_avx2 := $(RUNTIME_CPU_AVX2_FLAGS) -ffp-contract=fast
RUNTIME_CPU_ISA_FLAGS_fdwconv_avx512 := $(RUNTIME_CPU_AVX512_FLAGS) -ffp-contract=fast
RUNTIME_CPU_ISA_FLAGS_fconv_taps_avx2 := $(RUNTIME_CPU_AVX2_FLAGS)
RUNTIME_CPU_ISA_FLAGS_fdwconv_blocked_avx2 := $(RUNTIME_CPU_AVX2_FLAGS)
RUNTIME_CPU_ISA_FLAGS_fconv_taps_avx512 := $(RUNTIME_CPU_AVX512_FLAGS)
# arm64: NEON is baseline; the dot-product kernels need the extensions.
RUNTIME_CPU_ISA_FLAGS_gemm_neon_dot := -march=armv8.2-a+dotprod
RUNTIME_CPU_ISA_FLAGS_gemm_neon_i8mm := -march=armv8.2-a+dotprod+i8mm

ALL_TARGETS += $(RUNTIME_CPU_LIB)

$(B)/obj/runtime/cpu/%.o: $(RUNTIME_CPU_DIR)/%.c $(RUNTIME_CPU_HEADERS) \
		| $(B)/obj/runtime/cpu/
	$(CC) $(USER_CFLAGS) -O3 $(RUNTIME_CPU_ISA_FLAGS_$*) -fPIC \
		-c $< -o $@

$(RUNTIME_CPU_LIB): $(RUNTIME_CPU_OBJECTS) | $(B)/lib/
	rm -f $@
	$(AR) rcs $@ $(RUNTIME_CPU_OBJECTS)
