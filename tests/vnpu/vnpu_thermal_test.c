// SPDX-License-Identifier: GPL-2.0
/*
 * Interface 1.5 seen from a driver: the trips, voltages and power the
 * device reports, the power model behind POWER_MW (checked against this
 * file's own formula, written from docs/hw/vnpu.md, not the vnpu's code),
 * the ambient temperature of the control socket, a lower clock cooling a
 * hot device, and the power states runtime PM uses.
 *
 * The tests run on the shared READY device with every vector enabled and
 * leave it that way (at speed 1, OPP 4, ambient 35 degC).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "enpu_cmd.h"
#include "vnpu_check.h"
#include "vnpu_rig.h"

#define T_STREAM	0x200000u
#define ALL_VECTORS	((1u << ENPU_NUM_VECTORS) - 1)

/* docs/hw/vnpu.md, "Interface 1.5": the power model. */
static double model_mw(unsigned int opp, double activity, double temp_c)
{
	static const double mhz[] = { 200, 400, 600, 800, 1000 };
	static const double volts[] = { 0.6, 0.7, 0.8, 0.9, 1.0 };
	double dyn = 2.05e-9 * volts[opp] * volts[opp] * mhz[opp] * 1e6 *
		     activity;

	return (dyn + 0.1 * volts[opp] * exp2((temp_c - 25) / 30)) * 1000;
}

static uint64_t rd64(struct rig *r, uint32_t lo_offset)
{
	uint32_t hi, lo;

	do {
		hi = rd(r, lo_offset + 4);
		lo = rd(r, lo_offset);
	} while (rd(r, lo_offset + 4) != hi);
	return (uint64_t)hi << 32 | lo;
}

static uint32_t nops(uint8_t *p, unsigned int count, uint32_t cycles)
{
	struct enpu_cmd_nop cmd = {
		.hdr = { .opcode = ENPU_CMD_NOP, .size = sizeof(cmd) },
		.cycles = cycles,
	};
	unsigned int i;

	for (i = 0; i < count; i++)
		memcpy(p + i * sizeof(cmd), &cmd, sizeof(cmd));
	return count * (uint32_t)sizeof(cmd);
}

static bool ctl_ok(struct rig *r, const char *cmd)
{
	char reply[256];

	return ctl(r, cmd, reply, sizeof(reply)) == 0 &&
	       !strncmp(reply, "ok", 2);
}

static bool wait_temp(struct rig *r, bool above, uint32_t mc, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;

	while (now_ms() < deadline) {
		uint32_t t = rd(r, ENPU_REG_TEMP_MC);

		if (above ? t > mc : t < mc)
			return true;
		sleep_ms(2);
	}
	return false;
}

/* Idle at speed 100 until below @mc, then speed 1. */
static void cool_down(struct rig *r, uint32_t mc)
{
	CHECK(ctl_ok(r, "speed 100"), "speed 100");
	CHECK(wait_temp(r, false, mc, 5000), "did not cool below %u: %u", mc,
	      rd(r, ENPU_REG_TEMP_MC));
	CHECK(ctl_ok(r, "speed 1"), "speed 1");
}

static void thermal_registers_describe_trips_opps_and_power(struct rig *r)
{
	uint64_t t0, t1, deadline;
	unsigned int i;

	CHECK(rd(r, ENPU_REG_TEMP_PASSIVE_MC) == 85000, "passive %u",
	      rd(r, ENPU_REG_TEMP_PASSIVE_MC));
	CHECK(rd(r, ENPU_REG_TEMP_HOT_MC) == 95000, "hot %u",
	      rd(r, ENPU_REG_TEMP_HOT_MC));
	CHECK(rd(r, ENPU_REG_TEMP_CRIT_MC) == 105000, "critical %u",
	      rd(r, ENPU_REG_TEMP_CRIT_MC));
	CHECK(rd(r, ENPU_REG_POWER_STATE) == ENPU_POWER_ON, "power state %u",
	      rd(r, ENPU_REG_POWER_STATE));
	for (i = 0; i < 5; i++) {
		double want = model_mw(i, 1.0, 85.0);

		CHECK(rd(r, ENPU_REG_OPP_MV(i)) == 600 + 100 * i, "OPP %u: %u mV",
		      i, rd(r, ENPU_REG_OPP_MV(i)));
		CHECK(fabs(rd(r, ENPU_REG_OPP_MW(i)) - want) <= 1,
		      "OPP %u: %u mW, model %.1f", i, rd(r, ENPU_REG_OPP_MW(i)),
		      want);
	}
	/* The device-time counter runs while idle (devfreq's total time). */
	/* Polled: an idle vnpu publishes it when its loop next runs, which a
	 * loaded host may delay well past 50 ms. */
	t0 = rd64(r, ENPU_REG_PERF_DEVICE_NS_LO);
	deadline = now_ms() + 5000;
	do {
		sleep_ms(50);
		t1 = rd64(r, ENPU_REG_PERF_DEVICE_NS_LO);
	} while (t1 - t0 < 40000000u && now_ms() < deadline);
	CHECK(t1 - t0 >= 40000000u && t1 - t0 < 10000000000ull,
	      "device ns advanced %llu", (unsigned long long)(t1 - t0));
}

/* POWER_MW against the model while busy and while idle, at two OPPs. */
static void power_is_v2f_activity_plus_leakage(struct rig *r)
{
	static const unsigned int opps[] = { 0, 4 };
	unsigned int i;
	struct cqe c;

	for (i = 0; i < 2; i++) {
		unsigned int opp = opps[i];
		double temp, want, got;
		uint32_t len;

		CHECK(mbox(r, ENPU_MBOX_SET_OPP, opp, 0, 0, NULL, 1000) == 0,
		      "OPP %u", opp);
		/* 200 ms of device time at this clock */
		len = nops(r->ram + T_STREAM, 1, opp == 0 ? 40000000u : 200000000u);
		submit(r, 0, T_STREAM, len, 0, 0xe00 + opp);
		sleep_ms(60);
		temp = rd(r, ENPU_REG_TEMP_MC) / 1000.0;
		got = rd(r, ENPU_REG_POWER_MW);
		want = model_mw(opp, 1.0, temp);
		CHECK(fabs(got - want) <= want * 0.03 + 2,
		      "OPP %u busy at %.1f degC: %.0f mW, model %.0f", opp, temp,
		      got, want);
		CHECK(wait_cqe(r, &c, 3000) && c.tag == 0xe00 + opp, "job");
		sleep_ms(30);
		temp = rd(r, ENPU_REG_TEMP_MC) / 1000.0;
		got = rd(r, ENPU_REG_POWER_MW);
		want = model_mw(opp, 0.05, temp);
		CHECK(fabs(got - want) <= want * 0.03 + 2,
		      "OPP %u idle at %.1f degC: %.0f mW, model %.0f", opp, temp,
		      got, want);
	}
	drain_vectors(r);
}

static void ambient_sets_where_the_device_settles(struct rig *r)
{
	char reply[256];
	double want = 70.0;
	int i;

	CHECK(ctl(r, "ambient 200000", reply, sizeof(reply)) == 0 &&
	      !strncmp(reply, "error ambient", 13), "out of range: %s", reply);
	CHECK(ctl(r, "ambient hot", reply, sizeof(reply)) == 0 &&
	      !strncmp(reply, "error ambient", 13), "not a number: %s", reply);
	CHECK(ctl(r, "ambient 70000", reply, sizeof(reply)) == 0 &&
	      !strcmp(reply, "ok ambient_mc=70000"), "reply %s", reply);
	CHECK(ctl(r, "status", reply, sizeof(reply)) == 0 &&
	      strstr(reply, " ambient_mc=70000 ") && strstr(reply, " power=on"),
	      "status %s", reply);
	/* Idle at OPP 4 settles where 22 degC/W of idle power puts it. */
	for (i = 0; i < 50; i++)
		want = 70.0 + 22.0 * model_mw(4, 0.05, want) / 1000.0;
	CHECK(ctl_ok(r, "speed 100"), "speed");
	CHECK(wait_temp(r, true, (uint32_t)(want * 1000) - 1500, 5000),
	      "idle did not settle near %.1f degC: %u mC", want,
	      rd(r, ENPU_REG_TEMP_MC));
	sleep_ms(100);	/* 10 s of device time: settled */
	CHECK(fabs(rd(r, ENPU_REG_TEMP_MC) / 1000.0 - want) < 1.0,
	      "settled at %u mC, model %.2f degC", rd(r, ENPU_REG_TEMP_MC), want);
	CHECK(ctl_ok(r, "ambient 35000"), "ambient back");
	cool_down(r, 45000);
	drain_vectors(r);
}

/*
 * In a 50 degC ambient, full load at 1 GHz heads for ~109 degC (above
 * critical): the 85 degC trip fires; 400 MHz then cools the device below
 * it while the job goes on, and the job completes on a READY device.
 */
static void hot_ambient_crosses_passive_and_a_lower_clock_cools(struct rig *r)
{
	uint32_t len;
	struct cqe c;

	drain_vectors(r);
	CHECK(ctl_ok(r, "ambient 50000"), "ambient");
	len = nops(r->ram + T_STREAM, 4, 3000000000u);	/* 12 s at 1 GHz */
	/* 85 -> 105 degC takes ~4.7 s of device time: 235 ms at speed 20 */
	CHECK(ctl_ok(r, "speed 20"), "speed");
	submit(r, 0, T_STREAM, len, 0, 0xe10);
	CHECK(wait_temp(r, true, 85000, 5000), "never above 85 degC: %u",
	      rd(r, ENPU_REG_TEMP_MC));
	CHECK(wait_vector(r, ENPU_VEC_EVENT, 1000), "no vector 2 at the trip");
	CHECK(mbox(r, ENPU_MBOX_SET_OPP, 1, 0, 0, NULL, 1000) == 0, "OPP 1");
	CHECK(wait_temp(r, false, 84000, 5000), "400 MHz did not cool: %u",
	      rd(r, ENPU_REG_TEMP_MC));
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_READY, "status %u",
	      rd(r, ENPU_REG_STATUS));
	CHECK(rd(r, ENPU_REG_POWER_MW) < 1000, "power at 400 MHz %u mW",
	      rd(r, ENPU_REG_POWER_MW));
	CHECK(wait_cqe(r, &c, 10000) && c.tag == 0xe10 && c.status == 0,
	      "job did not complete at the lower clock");
	CHECK(ctl_ok(r, "ambient 35000"), "ambient back");
	CHECK(mbox(r, ENPU_MBOX_SET_OPP, 4, 0, 0, NULL, 1000) == 0, "OPP 4");
	cool_down(r, 45000);
	drain_vectors(r);
}

static void power_off_drops_work_and_power_on_needs_firmware(struct rig *r)
{
	uint32_t data = 99, len, hb;
	char reply[256];
	struct cqe c;

	len = nops(r->ram + T_STREAM, 1, 2000000000u);	/* 2 s */
	submit(r, 0, T_STREAM, len, 0, 0xe20);
	sleep_ms(5);
	CHECK(mbox(r, ENPU_MBOX_SET_POWER, 2, 0, 0, NULL, 1000) ==
	      ENPU_ERR_BAD_ARGUMENT, "power state 2");
	CHECK(mbox(r, ENPU_MBOX_SET_POWER, ENPU_POWER_OFF, 0, 0, &data, 1000) ==
	      ENPU_ERR_NONE && data == ENPU_POWER_OFF, "power off: data %u", data);
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_OFF, "status %u",
	      rd(r, ENPU_REG_STATUS));
	CHECK(rd(r, ENPU_REG_POWER_STATE) == ENPU_POWER_OFF, "power state");
	CHECK(rd(r, ENPU_REG_SQ_HEAD(0)) == 0 && rd(r, ENPU_REG_FW_VERSION) == 0,
	      "rings and firmware not dropped");
	CHECK(mbox(r, ENPU_MBOX_RESET, 0, 0, 0, NULL, 1000) == ENPU_ERR_BAD_STATE,
	      "RESET while off");
	CHECK(mbox(r, ENPU_MBOX_BOOT, 0, 0, 4096, NULL, 1000) == ENPU_ERR_BAD_STATE,
	      "BOOT while off");
	CHECK(mbox(r, ENPU_MBOX_SET_POWER, ENPU_POWER_OFF, 0, 0, &data, 1000) ==
	      ENPU_ERR_NONE, "off again is a no-op");
	driver_reset_rings(r);
	hb = rd(r, ENPU_REG_HEARTBEAT);
	/* Nothing is consumed, nothing completes, the heartbeat is still. */
	submit(r, 0, T_STREAM, 0, 0, 0xe21);
	sleep_ms(50);
	CHECK(rd(r, ENPU_REG_SQ_HEAD(0)) == 0, "a job was consumed while off");
	CHECK(!wait_cqe(r, &c, 10), "a completion while off");
	CHECK(rd(r, ENPU_REG_HEARTBEAT) == hb, "heartbeat while off");
	CHECK(rd(r, ENPU_REG_POWER_MW) == 0, "draws %u mW while off",
	      rd(r, ENPU_REG_POWER_MW));
	CHECK(ctl(r, "status", reply, sizeof(reply)) == 0 &&
	      strstr(reply, "state=OFF") && strstr(reply, " power_mw=0 ") &&
	      strstr(reply, " power=off"), "status %s", reply);
	driver_reset_rings(r);
	CHECK(mbox(r, ENPU_MBOX_SET_POWER, ENPU_POWER_ON, 0, 0, &data, 1000) ==
	      ENPU_ERR_NONE && data == ENPU_POWER_ON, "power on");
	CHECK(rd(r, ENPU_REG_STATUS) == ENPU_STATUS_WAIT_FW, "status %u",
	      rd(r, ENPU_REG_STATUS));
	CHECK(recover(r), "boot after power on");
	sleep_ms(5);
	CHECK(rd(r, ENPU_REG_POWER_MW) > 0, "no power after power on");
	len = nops(r->ram + T_STREAM, 1, 1000);
	submit(r, 0, T_STREAM, len, 0, 0xe22);
	CHECK(wait_cqe(r, &c, 1000) && c.tag == 0xe22 && c.status == 0,
	      "job after power on");
	CHECK(mbox(r, ENPU_MBOX_SET_IRQ_MASK, ALL_VECTORS, 0, 0, NULL, 1000) == 0,
	      "vectors");
	drain_vectors(r);
}

const struct test thermal_tests[] = {
#define T(fn) { #fn, fn }
	T(thermal_registers_describe_trips_opps_and_power),
	T(power_is_v2f_activity_plus_leakage),
	T(ambient_sets_where_the_device_settles),
	T(hot_ambient_crosses_passive_and_a_lower_clock_cools),
	T(power_off_drops_work_and_power_on_needs_firmware),
#undef T
};

const size_t thermal_test_count = sizeof(thermal_tests) / sizeof(thermal_tests[0]);
