#!/usr/bin/env bash
# sim.sh - how fast the simulator runs: simulated seconds per wall-clock
# second at a realistic pulse rate (1.2 W: ~26,000 front-end pulses/s, the
# paper's Game benchmark), at the paper's quantum (64 pulses) and at the
# smallest quantum of its sensitivity study (2 pulses = 92 uJ: 32x more
# interrupts), for the built-in Movie benchmark, and with the firmware ELF
# counting in simavr (--firmware) when it is built, and the peak memory of
# a 900 s and a 3600 s Game (the issue-16 figure of how memory grows with a
# scenario's length).  Prints figures; never fails on time.
set -eu
: "${EQPROF:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$EQPROF" sim --print Game | sed 's/^phase Game 54s$/phase Game 600s/' >"$tmp/game600.scn"

run() { # label, scenario, extra args...
	local label=$1 scn=$2 line sim wall pulses
	shift 2
	line=$("$EQPROF" sim "$scn" -o "$tmp/out" "$@")
	sim=$(sed -n 's/.*: \([0-9.]*\) s simulated in \([0-9.]*\) s.*/\1/p' <<<"$line")
	wall=$(sed -n 's/.*: \([0-9.]*\) s simulated in \([0-9.]*\) s.*/\2/p' <<<"$line")
	pulses=$(python3 -c "import json; print(json.load(open('$tmp/out/truth.json'))['pulses'])")
	awk -v l="$label" -v s="$sim" -v w="$wall" -v p="$pulses" 'BEGIN {
		if (w <= 0) w = 0.001
		printf "  %-44s %7.0f s simulated in %6.2f s: %7.0f simulated s/s, %5.1f M pulses/s\n",
			l, s, w, s / w, p / w / 1e6 }'
}
echo "simulator speed (simulated seconds per wall-clock second; writing the recordings included)"
echo "(eqprof sim runs the workload twice: the energy- and the time-driven run)"
run "Game x600 s, N=64 (2.95 mJ quantum)" "$tmp/game600.scn"
run "Game x600 s, N=2 (92 uJ quantum)" "$tmp/game600.scn" --set quantum_pulses=2
run "Movie (built-in, 110 s)" Movie
# The counter stage on the real firmware in simavr (when it has been built:
# make check or make -C firmware builds $B/firmware/eqfw-simavr.elf, the build
# for simavr).
if [ -n "${B:-}" ] && [ -f "$B/firmware/eqfw-simavr.elf" ]; then
	"$EQPROF" sim --print Game | sed 's/^phase Game 54s$/phase Game 10s/' >"$tmp/game10.scn"
	run "Game x10 s, N=64, --firmware (simavr)" "$tmp/game10.scn" --firmware "$B/firmware/eqfw-simavr.elf"
else
	echo "  (no \$B/firmware/eqfw-simavr.elf: the simavr counter stage is not measured)"
fi

# Peak memory against the scenario's length (GNU time's maximum resident set).
if [ -x /usr/bin/time ]; then
	echo "simulator memory (maximum resident set of eqprof sim, Game)"
	for len in 900 3600; do
		"$EQPROF" sim --print Game | sed "s/^phase Game 54s$/phase Game ${len}s/" >"$tmp/game$len.scn"
		/usr/bin/time -f "%M %e" -o "$tmp/time" "$EQPROF" sim "$tmp/game$len.scn" -o "$tmp/out" -q
		read -r kb wall <"$tmp/time"
		awk -v l="$len" -v k="$kb" -v w="$wall" 'BEGIN {
			printf "  Game x%-5d s: %7.1f MB peak, %6.1f s wall (writing included)\n", l, k / 1024, w }'
	done
else
	echo "  (no /usr/bin/time: memory not measured)"
fi
