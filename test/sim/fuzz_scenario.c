/*
 * fuzz_scenario.c - libFuzzer target over the scenario parser: any bytes
 * must give either a scenario or an error message, never a crash, a leak or
 * undefined behaviour.  Run by test/sim/fuzz-scenario.sh over
 * test/sim/corpus; longer by hand:
 *   build/fuzz/fuzz_scenario -max_len=8192 test/sim/corpus
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_scenario sc;
	struct eq_error err;

	if (sim_scenario_parse(&sc, (const char *)data, size, "fuzz.scn", &err) == 0) {
		(void)sim_scenario_duration(&sc);
		sim_scenario_free(&sc);
	} else if (!memchr(err.msg, 0, sizeof(err.msg)) || !err.msg[0]) {
		__builtin_trap(); /* every failure says why */
	}
	return 0;
}
