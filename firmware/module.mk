# firmware/portable: counting, jitter, compensation and protocol logic that
# the AVR firmware, the host tools and the simulator all link.
FW_SRCS += $(wildcard firmware/portable/*.c)

# The firmware ELF in simavr (tests, bench, `eqprof sim --firmware`).
SIM_SRCS += firmware/simavr/fwsim.c
EXTRA_CFLAGS += -isystem /usr/include/simavr
EXTRA_LDLIBS += -lsimavr

# `make check` builds the AVR firmware first: the simavr tests run it.
FW_ELF = $(abspath $(B))/firmware/eqfw-simavr.elf
CHECK_EXTRA += firmware-elf
.PHONY: firmware-elf
firmware-elf:
	@$(MAKE) --no-print-directory -C firmware O=$(abspath $(B))/firmware
