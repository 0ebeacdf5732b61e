# bench/cortexm: isr/cortexm's cost per sample (instructions stepped in
# QEMU's gdb stub, cycles from the Cortex-M3 TRM's timings) and its sizes.
BENCHES += bench/cortexm/cost.sh
