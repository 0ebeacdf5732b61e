# isr/cortexm: the bare-metal Cortex-M sampler (docs/target-cortexm.md),
# cross-compiled with arm-none-eabi-gcc by its own Makefile, for the
# Cortex-M3 (QEMU's mps2-an385), the Cortex-M4 with its FPU (mps2-an386)
# and the Cortex-M0, ARMv6-M (microbit).
# `make check` builds all three and the example application before the tests
# (test/cortexm/module.mk); nothing here goes into the eqprof binary.
CORTEXM_O = $(abspath $(B))/cortexm
CHECK_EXTRA += cortexm-lib
.PHONY: cortexm-lib
cortexm-lib:
	@$(MAKE) --no-print-directory -C isr/cortexm O=$(CORTEXM_O)/m3 CPU=cortex-m3
	@$(MAKE) --no-print-directory -C isr/cortexm O=$(CORTEXM_O)/m4 CPU=cortex-m4 FLOAT=hard
	@$(MAKE) --no-print-directory -C isr/cortexm O=$(CORTEXM_O)/m0 CPU=cortex-m0
