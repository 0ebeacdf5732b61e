# sim/: the whole-system simulator.
SIM_SRCS += $(wildcard sim/*.c)
# The built-in scenarios are embedded with .incbin: rebuild when they change.
$(B)/obj/sim/builtin_scenarios.o: $(wildcard sim/scenarios/*.scn)
