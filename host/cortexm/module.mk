# host/cortexm: `eqprof record --target cortexm`, the frames of a bare-metal
# Cortex-M target (isr/cortexm) into a recording; the application's ELF
# through elfutils.
HOST_SRCS += $(wildcard host/cortexm/*.c)
