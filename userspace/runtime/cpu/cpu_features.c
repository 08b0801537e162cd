// SPDX-License-Identifier: MIT
/*
 * Which kernel families this machine can run: the CPU must report the
 * instructions (CPUID) and the OS must save the register state (XCR0), or
 * the first vector instruction faults. On arm64 the kernel answers both
 * questions at once through the auxiliary vector (AT_HWCAP, AT_HWCAP2).
 */
#include "cpu_internal.h"

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t read_xcr0(void)
{
	uint32_t low, high;

	__asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
	return ((uint64_t)high << 32) | low;
}

struct x86_features {
	int avx2;
	int avx512_vnni;
};

static struct x86_features detect_x86(void)
{
	struct x86_features features = { 0, 0 };
	unsigned int eax, ebx, ecx, edx;
	uint64_t xcr0;
	int osxsave, fma;

	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		return features;
	osxsave = (ecx >> 27) & 1;
	fma = (ecx >> 12) & 1;
	if (!osxsave || __get_cpuid_max(0, NULL) < 7)
		return features;
	xcr0 = read_xcr0();
	__cpuid_count(7, 0, eax, ebx, ecx, edx);
	/* XCR0 bits 1,2: SSE and AVX state. */
	if ((xcr0 & 0x6) == 0x6 && ((ebx >> 5) & 1) && fma)
		features.avx2 = 1;
	/* Bits 5..7: opmask and the upper ZMM halves. AVX512F, BW, VL, VNNI. */
	if (features.avx2 && (xcr0 & 0xe0) == 0xe0 && ((ebx >> 16) & 1) &&
	    ((ebx >> 30) & 1) && ((ebx >> 31) & 1) && ((ecx >> 11) & 1))
		features.avx512_vnni = 1;
	return features;
}
#endif

#if defined(__aarch64__)
#include <sys/auxv.h>

/* Bit numbers of the arm64 ELF hwcaps (arch/arm64/include/uapi/asm/hwcap.h). */
#define ENPU_HWCAP_ASIMD (1UL << 1)
#define ENPU_HWCAP_ASIMDDP (1UL << 20)
#define ENPU_HWCAP2_I8MM (1UL << 13)

static int arm64_has(enum enpu_cpu_isa isa)
{
	unsigned long hwcap = getauxval(AT_HWCAP);
	unsigned long hwcap2 = getauxval(AT_HWCAP2);

	if (!(hwcap & ENPU_HWCAP_ASIMD))
		return 0;
	if (isa == ENPU_CPU_ISA_NEON)
		return 1;
	if (!(hwcap & ENPU_HWCAP_ASIMDDP))
		return 0;
	if (isa == ENPU_CPU_ISA_NEON_DOTPROD)
		return 1;
	/* Built with +dotprod+i8mm: ask for both (every i8mm core has both). */
	return isa == ENPU_CPU_ISA_NEON_I8MM && (hwcap2 & ENPU_HWCAP2_I8MM);
}
#endif

int enpu_cpu_detect_isa_support(enum enpu_cpu_isa isa)
{
	switch (isa) {
	case ENPU_CPU_ISA_AUTO:
	case ENPU_CPU_ISA_SCALAR:
		return 1;
#if defined(__x86_64__)
	case ENPU_CPU_ISA_AVX2:
		return detect_x86().avx2;
	case ENPU_CPU_ISA_AVX512_VNNI:
		return detect_x86().avx512_vnni;
#endif
#if defined(__aarch64__)
	case ENPU_CPU_ISA_NEON:
	case ENPU_CPU_ISA_NEON_DOTPROD:
	case ENPU_CPU_ISA_NEON_I8MM:
		return arm64_has(isa);
#endif
	default:
		return 0;
	}
}

int enpu_cpu_isa_supported(enum enpu_cpu_isa isa)
{
	return enpu_cpu_detect_isa_support(isa);
}
