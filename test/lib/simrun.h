/*
 * simrun.h - shared by the unit tests of the seed analyses (test/attrib,
 * test/regress, test/states), which check an analysis against the
 * simulator's truth over many seeds: a temporary folder for the group, and
 * one simulated run of a scenario text written to a folder in it.
 *
 * Include after cmocka.h and sim.h.  Each run sets the parameters that
 * switch the simulator's modelled biases off (instruction skew, a long
 * ISR, dead time, voltage without compensation, the fuse and the source's
 * resistance), so what is left between an analysis and the truth is its
 * own sampling error, which the tests' intervals are about.
 */
#ifndef EQ_TEST_SIMRUN_H
#define EQ_TEST_SIMRUN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char simrun_dir[64];

/* cmocka group setup and teardown: simrun_dir is a fresh folder meanwhile */
static int simrun_setup(void **state)
{
	(void)state;
	snprintf(simrun_dir, sizeof(simrun_dir), "/tmp/eq-simrun-XXXXXX");
	return mkdtemp(simrun_dir) ? 0 : -1;
}

static int simrun_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", simrun_dir);
	return system(cmd) == 0 ? 0 : -1;
}

/*
 * Parses `text` (named `name` in messages), runs it with `seed` and the
 * biases off, and writes its recordings and truth to simrun_dir/`sub`;
 * `dir` (at least 600 bytes) gets that path.  sc and r are the caller's to
 * free (sim_result_free, sim_scenario_free).
 */
static void simrun(const char *text, const char *name, uint64_t seed, const char *sub,
		   struct sim_scenario *sc, struct sim_result *r, char *dir, size_t dirsize)
{
	static const char *const unbiased[] = {
		"skew_insns=0", "isr_cycles=20", "dead_time=1ns", "vcomp=on", "r_fuse=0", "r_source=0",
	};
	struct eq_error err;
	char buf[64];
	size_t i;

	assert_int_equal(sim_scenario_parse(sc, text, strlen(text), name, &err), 0);
	snprintf(buf, sizeof(buf), "seed=%llu", (unsigned long long)seed);
	assert_int_equal(sim_scenario_set(sc, buf, &err), 0);
	for (i = 0; i < sizeof(unbiased) / sizeof(unbiased[0]); i++)
		assert_int_equal(sim_scenario_set(sc, unbiased[i], &err), 0);
	assert_int_equal(sim_run(sc, NULL, r, &err), 0);
	snprintf(dir, dirsize, "%s/%s", simrun_dir, sub);
	assert_int_equal(sim_write_outputs(sc, r, dir, &err), 0);
}

#endif
