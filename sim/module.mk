# sim/: the whole-system simulator.
SIM_SRCS += $(wildcard sim/*.c)
