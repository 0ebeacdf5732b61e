# bench/isr: the Linux target's sampling cost (handler instructions per
# sample, the recorder's own share) in Debian's kernel under QEMU.
BENCHES += bench/isr/isr-bench.sh
