# bench/board: the board over emulated USB (QEMU FT232 in a Debian guest):
# records/s and the latency from a quantum to its record.
BENCHES += bench/board/usb-qemu.sh
