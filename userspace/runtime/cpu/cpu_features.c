// SPDX-License-Identifier: MIT
/*
 * Which kernel families this machine can run: the CPU must report the
 * instructions (CPUID) and the OS must save the register state (XCR0), or
 * the first vector instruction faults. On arm64 the kernel answers both
 * questions at once through the auxiliary vector (AT_HWCAP, AT_HWCAP2).
 */
#include "cpu_internal.h"

/* CPUID.1:ECX: the OS enabled XGETBV (and saves what XCR0 names); FMA. */
#define X86_LEAF1_OSXSAVE (1u << 27)
#define X86_LEAF1_FMA (1u << 12)

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t read_xcr0(void)
{
	uint32_t low, high;

	__asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
	return ((uint64_t)high << 32) | low;
}

/*
 * The reader: CPUID leaf 7 and XGETBV exist only when leaf 0 says so and
 * OSXSAVE is set (XGETBV faults otherwise), so they stay 0 without.
 */
static struct enpu_cpu_x86_words read_x86(void)
{
	struct enpu_cpu_x86_words words = { 0 };
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		return words;
	words.leaf1_ecx = ecx;
	words.max_leaf = __get_cpuid_max(0, NULL);
	if (!(ecx & X86_LEAF1_OSXSAVE) || words.max_leaf < 7)
		return words;
	words.xcr0 = read_xcr0();
	__cpuid_count(7, 0, eax, ebx, ecx, edx);
	words.leaf7_ebx = ebx;
	words.leaf7_ecx = ecx;
	return words;
}

static int x86_has(unsigned int level)
{
	struct enpu_cpu_x86_words words = read_x86();

	return !!(enpu_cpu_x86_levels(&words) & level);
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

unsigned int enpu_cpu_x86_levels(const struct enpu_cpu_x86_words *w)
{
	unsigned int levels = 0;
	int fma = !!(w->leaf1_ecx & X86_LEAF1_FMA);

	if (!(w->leaf1_ecx & X86_LEAF1_OSXSAVE) || w->max_leaf < 7)
		return 0;
	/* XCR0 bits 1,2: SSE and AVX state. */
	if ((w->xcr0 & 0x6) == 0x6 && ((w->leaf7_ebx >> 5) & 1) && fma)
		levels |= ENPU_CPU_X86_AVX2;
	/* Bits 5..7: opmask and the upper ZMM halves. AVX512F, BW, VL, VNNI. */
	if ((levels & ENPU_CPU_X86_AVX2) && (w->xcr0 & 0xe0) == 0xe0 &&
	    ((w->leaf7_ebx >> 16) & 1) && ((w->leaf7_ebx >> 30) & 1) &&
	    ((w->leaf7_ebx >> 31) & 1) && ((w->leaf7_ecx >> 11) & 1))
		levels |= ENPU_CPU_X86_AVX512_VNNI;
	/* Leaf 7 ECX bit 1: VBMI (vpermb, vpermi2b), same register state. */
	if ((levels & ENPU_CPU_X86_AVX512_VNNI) && ((w->leaf7_ecx >> 1) & 1))
		levels |= ENPU_CPU_X86_AVX512_VBMI;
	return levels;
}

int enpu_cpu_detect_isa_support(enum enpu_cpu_isa isa)
{
	switch (isa) {
	case ENPU_CPU_ISA_AUTO:
	case ENPU_CPU_ISA_SCALAR:
		return 1;
#if defined(__x86_64__)
	case ENPU_CPU_ISA_AVX2:
		return x86_has(ENPU_CPU_X86_AVX2);
	case ENPU_CPU_ISA_AVX512_VNNI:
		return x86_has(ENPU_CPU_X86_AVX512_VNNI);
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

int enpu_cpu_detect_avx512_vbmi(void)
{
#if defined(__x86_64__)
	return x86_has(ENPU_CPU_X86_AVX512_VBMI);
#else
	return 0;
#endif
}

int enpu_cpu_isa_supported(enum enpu_cpu_isa isa)
{
	return enpu_cpu_detect_isa_support(isa);
}
