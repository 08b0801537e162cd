/* SPDX-License-Identifier: MIT */
/*
 * e2e_npu_probe.c: what the guest itself spends on a frame, for
 * e2e-npu-bench. CPU time of this process and of every other task of the
 * guest (kernel threads: the driver's IRQ thread, workers), and the cost
 * of the driver primitives a frame uses, each timed alone.
 */
#ifndef E2E_NPU_PROBE_H
#define E2E_NPU_PROBE_H

#include <stdint.h>

/* ms of CPU time of this process (all threads, user + system). */
double probe_process_cpu_ms(void);
/* The median of @v[0..n) (sorts it). */
double probe_median(double *v, int n);
/*
 * The spread of @n per-frame values: quartiles (q1, median, q3: the
 * values at ranks n/4, n/2 and 3n/4 of the sorted copy, as
 * probe_median() picks its median) and the mean. @v is left as it was.
 */
struct probe_spread {
	double q1, median, q3, mean;
};
int probe_spread(const double *v, int n, struct probe_spread *out);
/*
 * Every other task of the system (kernel threads: the driver's IRQ
 * thread, workers), its schedstat file opened once: the sum of their CPU
 * time in ms now; the close prints the busiest since the open, per frame.
 * Tasks started after the open are missed.
 */
struct probe_tasks;
struct probe_tasks *probe_tasks_open(void);
double probe_tasks_cpu_ms(struct probe_tasks *s);
void probe_tasks_close(struct probe_tasks *s, int frames);
/* ns per iteration of a loop of small read() system calls; @host: CPU
 * time, else wall time (as spin_ns_per_iteration in e2e_npu_bench.c). */
double probe_syscall_ns(int host);
/*
 * Times the primitives of one NPU job round trip on the first ENPU device
 * and prints one line each (median of @runs): a 1-cycle NOP job submitted
 * and waited for as the NPU backend does it, and its pieces alone.
 */
void probe_primitives(int runs);

/*
 * The NPU's devfreq device with min_freq raised to max_freq: the clock at
 * the top OPP for the whole benchmark. simple_ondemand would otherwise
 * clock the device down, because in the VM it sits idle most of the wall
 * time (the guest is slow, the vnpu computes on the host); on silicon a
 * device busy 95 % of the time runs at the top. Restored after.
 */
struct probe_clock {
	char dir[300];
	char saved_min[32], top[32];
	int pinned;
};
int probe_pin_top_clock(struct probe_clock *c);
void probe_restore_clock(const struct probe_clock *c);

#endif /* E2E_NPU_PROBE_H */
