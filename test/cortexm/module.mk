# test/cortexm: isr/cortexm in QEMU's mps2-an385 (Cortex-M3), mps2-an386
# (Cortex-M4) and microbit (Cortex-M0, ARMv6-M) with the
# example application test/cortexm/demo.c: time-driven shares against the
# application's own path counts, the drains (UART, semihosting), overflow
# and a stalled drain counted exactly, priorities; energy-driven from the
# board firmware in simavr through sim/hil's bridge (docs/target-cortexm.md).
INTEG_TESTS += test/cortexm/qemu.sh
CHECK_EXTRA += cortexm-demo

CM_DEMO_CFLAGS = -mthumb -std=gnu11 -O1 -g -ffreestanding -Wall -Wextra -Werror \
	-Iisr/cortexm -Iisr/core -nostdlib -ffunction-sections -Wl,--gc-sections -Wl,--build-id \
	-Ltest/cortexm

.PHONY: cortexm-demo
cortexm-demo: cortexm-lib
	@mkdir -p $(CORTEXM_O)
	arm-none-eabi-gcc -mcpu=cortex-m3 $(CM_DEMO_CFLAGS) -T test/cortexm/demo.ld -o $(CORTEXM_O)/demo-m3.elf \
		test/cortexm/demo.c $(CORTEXM_O)/m3/libeqcm.a -lgcc
	arm-none-eabi-gcc -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16 $(CM_DEMO_CFLAGS) -T test/cortexm/demo.ld \
		-o $(CORTEXM_O)/demo-m4.elf test/cortexm/demo.c $(CORTEXM_O)/m4/libeqcm.a -lgcc
	@# energy-driven: the ring holds a whole phase (drained in the idle phase only)
	@$(MAKE) --no-print-directory -C isr/cortexm O=$(CORTEXM_O)/m3-r1024 CPU=cortex-m3 RING=1024
	arm-none-eabi-gcc -mcpu=cortex-m3 $(CM_DEMO_CFLAGS) -T test/cortexm/demo.ld -o $(CORTEXM_O)/demo-m3-energy.elf \
		test/cortexm/demo.c $(CORTEXM_O)/m3-r1024/libeqcm.a -lgcc
	@# ARMv6-M: the Cortex-M0 of QEMU's microbit (nRF51822)
	arm-none-eabi-gcc -mcpu=cortex-m0 -DDEMO_NRF51 $(CM_DEMO_CFLAGS) -T test/cortexm/demo-nrf51.ld \
		-o $(CORTEXM_O)/demo-m0.elf test/cortexm/demo.c $(CORTEXM_O)/m0/libeqcm.a -lgcc
