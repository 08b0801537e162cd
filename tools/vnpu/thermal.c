// SPDX-License-Identifier: GPL-2.0
/*
 * Operating points and the first-order thermal model
 *   C dT/dt = P - (T - T_ambient) / R
 * integrated exactly over whole device milliseconds with P held constant
 * over each update (the busy share of the interval at full OPP power, the
 * rest at idle power). Crossing a trip point in either direction raises
 * ENPU_VEC_EVENT; above the critical trip the device halts in ERROR.
 */
#include <math.h>

#include "shm_access.h"
#include "vnpu.h"

static const uint32_t opp_table_khz[VNPU_OPP_COUNT] = {
	200000, 400000, 600000, 800000, 1000000,
};

/* Roughly V^2 f scaling; 1000 MHz at full load settles near 90 degC,
 * above the first trip and below critical. */
static const uint32_t opp_table_mw[VNPU_OPP_COUNT] = {
	300, 650, 1100, 1700, 2500,
};

#define AMBIENT_C		35.0
#define R_C_PER_W		22.0
#define TAU_S			2.0	/* R * C */
#define IDLE_SHARE		0.05
#define TRIP_CRITICAL_MC	105000u

static const uint32_t trips_mc[] = { 85000, 95000, TRIP_CRITICAL_MC };

uint32_t opp_khz(uint32_t index)
{
	return opp_table_khz[index < VNPU_OPP_COUNT ? index : 0];
}

uint32_t opp_mw(uint32_t index)
{
	return opp_table_mw[index < VNPU_OPP_COUNT ? index : 0];
}

uint32_t thermal_mc(const struct vnpu *v)
{
	double mc = v->temp_c * 1000.0;

	return mc <= 0 ? 0 : (uint32_t)lround(mc);
}

void thermal_init(struct vnpu *v)
{
	v->temp_c = AMBIENT_C;
	shm_write32(v->shm, ENPU_REG_TEMP_CRIT_MC, TRIP_CRITICAL_MC);
	shm_write32(v->shm, ENPU_REG_TEMP_MC, thermal_mc(v));
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

void thermal_advance(struct vnpu *v, uint64_t device_ns, uint64_t busy_ns)
{
	uint64_t steps;
	double full_w, power_w, busy_share, steady, before;
	uint32_t before_mc;

	v->thermal_acc_ns += device_ns;
	v->thermal_busy_ns += busy_ns;
	if (v->thermal_acc_ns < 1000000u)
		return;
	steps = v->thermal_acc_ns / 1000000u;
	busy_share = (double)v->thermal_busy_ns / (double)v->thermal_acc_ns;
	if (busy_share > 1)
		busy_share = 1;
	v->thermal_acc_ns %= 1000000u;
	v->thermal_busy_ns = 0;

	full_w = opp_mw(v->opp) / 1000.0;
	power_w = full_w * (IDLE_SHARE + (1 - IDLE_SHARE) * busy_share);
	steady = AMBIENT_C + power_w * R_C_PER_W;
	before = v->temp_c;
	before_mc = thermal_mc(v);
	v->temp_c = steady + (before - steady) * exp(-(double)steps * 1e-3 / TAU_S);
	if (thermal_mc(v) != before_mc)
		temperature_changed(v, before_mc);
}

void thermal_add(struct vnpu *v, double delta_c)
{
	uint32_t before_mc = thermal_mc(v);

	v->temp_c += delta_c;
	temperature_changed(v, before_mc);
}
