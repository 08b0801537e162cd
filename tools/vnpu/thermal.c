// SPDX-License-Identifier: GPL-2.0
/*
 * Operating points, the power model and the first-order thermal model
 *
 *   P = Ceff * V^2 * f * activity + P_leak0 * V * 2^((T - 25 degC) / 30)
 *   C dT/dt = P - (T - T_ambient) / R
 *
 * Activity is the busy share of the interval (a clock-gated idle engine
 * keeps IDLE_ACTIVITY of it); leakage grows with voltage and doubles
 * every 30 degC, which is what makes a hot device hotter and a hot
 * ambient dangerous. A power-gated device (ENPU_POWER_OFF) draws nothing.
 * The model is integrated exactly over steps of at most STEP_NS of device
 * time with P held constant over each step (P is re-evaluated at the
 * temperature each step starts at). Crossing a trip in either direction
 * raises ENPU_VEC_EVENT; above the critical trip the device halts in ERROR.
 */
#include <math.h>

#include "shm_access.h"
#include "vnpu.h"

static const uint32_t opp_table_khz[VNPU_OPP_COUNT] = {
	200000, 400000, 600000, 800000, 1000000,
};

static const uint32_t opp_table_mv[VNPU_OPP_COUNT] = {
	600, 700, 800, 900, 1000,
};

/* Ceff: 2.05 W of dynamic power at 1000 MHz, 1.0 V and full activity;
 * with leakage, full load at the top OPP settles near 90 degC in a 35 degC
 * ambient (between the passive and hot trips, below critical). */
#define CEFF_F			2.05e-9
#define LEAK0_W			0.10	/* at 1 V and 25 degC */
#define LEAK_DOUBLING_C		30.0
#define IDLE_ACTIVITY		0.05
#define R_C_PER_W		22.0
#define TAU_S			2.0	/* R * C */
#define STEP_NS			10000000u	/* 10 ms of device time */
#define OPP_MW_AT_C		85.0	/* OPP_MW(i): full load at this temp */

#define TRIP_PASSIVE_MC		85000u
#define TRIP_HOT_MC		95000u
#define TRIP_CRITICAL_MC	105000u

static const uint32_t trips_mc[] = {
	TRIP_PASSIVE_MC, TRIP_HOT_MC, TRIP_CRITICAL_MC,
};

uint32_t opp_khz(uint32_t index)
{
	return opp_table_khz[index < VNPU_OPP_COUNT ? index : 0];
}

uint32_t opp_mv(uint32_t index)
{
	return opp_table_mv[index < VNPU_OPP_COUNT ? index : 0];
}

/* Power in watts at OPP @index, @activity (0..1), temperature @temp_c. */
double power_model_w(uint32_t index, double activity, double temp_c)
{
	double volts = opp_mv(index) / 1000.0;
	double hz = opp_khz(index) * 1000.0;
	double dynamic = CEFF_F * volts * volts * hz * activity;
	double leak = LEAK0_W * volts * exp2((temp_c - 25.0) / LEAK_DOUBLING_C);

	return dynamic + leak;
}

uint32_t opp_mw(uint32_t index)
{
	return (uint32_t)lround(power_model_w(index, 1.0, OPP_MW_AT_C) * 1000.0);
}

uint32_t thermal_mc(const struct vnpu *v)
{
	double mc = v->temp_c * 1000.0;

	return mc <= 0 ? 0 : (uint32_t)lround(mc);
}

void thermal_init(struct vnpu *v)
{
	v->temp_c = v->ambient_c;
	v->power_w = 0;
	shm_write32(v->shm, ENPU_REG_TEMP_CRIT_MC, TRIP_CRITICAL_MC);
	shm_write32(v->shm, ENPU_REG_TEMP_PASSIVE_MC, TRIP_PASSIVE_MC);
	shm_write32(v->shm, ENPU_REG_TEMP_HOT_MC, TRIP_HOT_MC);
	shm_write32(v->shm, ENPU_REG_TEMP_MC, thermal_mc(v));
	shm_write32(v->shm, ENPU_REG_POWER_MW, 0);
}

static void temperature_changed(struct vnpu *v, uint32_t before_mc)
{
	uint32_t after_mc = thermal_mc(v);
	bool crossed = false;
	unsigned int i;

	shm_write32(v->shm, ENPU_REG_TEMP_MC, after_mc);
	for (i = 0; i < sizeof(trips_mc) / sizeof(trips_mc[0]); i++)
		if ((before_mc < trips_mc[i]) != (after_mc < trips_mc[i]))
			crossed = true;
	if (after_mc > TRIP_CRITICAL_MC &&
	    (v->status == ENPU_STATUS_READY || v->status == ENPU_STATUS_BOOTING)) {
		vnpu_log(v, "temperature %u mC above critical, halting", after_mc);
		regs_set_error(v, ENPU_STATUS_ERROR, ENPU_ERR_THERMAL, after_mc);
		device_raise_vector(v, ENPU_VEC_ERROR);
	}
	if (crossed) {
		vnpu_log(v, "temperature %u -> %u mC crossed a trip", before_mc,
			 after_mc);
		device_raise_vector(v, ENPU_VEC_EVENT);
	}
}

/* One step of @ns device ns at a constant @activity. */
static void thermal_step(struct vnpu *v, uint64_t ns, double activity)
{
	double steady;
	uint32_t before_mc = thermal_mc(v);

	if (v->power_state == ENPU_POWER_OFF)
		v->power_w = 0;
	else
		v->power_w = power_model_w(v->opp, activity, v->temp_c);
	steady = v->ambient_c + v->power_w * R_C_PER_W;
	v->temp_c = steady + (v->temp_c - steady) *
		    exp(-(double)ns * 1e-9 / TAU_S);
	if (thermal_mc(v) != before_mc)
		temperature_changed(v, before_mc);
}

void thermal_advance(struct vnpu *v, uint64_t device_ns, uint64_t busy_ns)
{
	uint64_t ns, step;
	double busy_share, activity;

	v->thermal_acc_ns += device_ns;
	v->thermal_busy_ns += busy_ns;
	if (v->thermal_acc_ns < 1000000u)
		return;
	/* Whole milliseconds; the remainder waits for the next call. */
	ns = v->thermal_acc_ns - v->thermal_acc_ns % 1000000u;
	busy_share = (double)v->thermal_busy_ns / (double)v->thermal_acc_ns;
	if (busy_share > 1)
		busy_share = 1;
	/* The remainder keeps its share of the busy time. */
	v->thermal_acc_ns -= ns;
	v->thermal_busy_ns = (uint64_t)(busy_share * (double)v->thermal_acc_ns);
	activity = IDLE_ACTIVITY + (1 - IDLE_ACTIVITY) * busy_share;
	for (; ns; ns -= step) {
		step = ns < STEP_NS ? ns : STEP_NS;
		thermal_step(v, step, activity);
	}
	shm_write32(v->shm, ENPU_REG_POWER_MW,
		    (uint32_t)lround(v->power_w * 1000.0));
}

void thermal_add(struct vnpu *v, double delta_c)
{
	uint32_t before_mc = thermal_mc(v);

	v->temp_c += delta_c;
	temperature_changed(v, before_mc);
}

void thermal_set_ambient(struct vnpu *v, double ambient_c)
{
	vnpu_log(v, "ambient %.3f -> %.3f degC", v->ambient_c, ambient_c);
	v->ambient_c = ambient_c;
}
