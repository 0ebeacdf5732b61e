# bench/sim: simulated seconds per wall-clock second (eqprof sim).
BENCHES += bench/sim/sim.sh
