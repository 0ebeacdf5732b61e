# sim/: the whole-system simulator.
SIM_SRCS += $(wildcard sim/*.c)
# The built-in scenarios are embedded with .incbin: rebuild when they change.
$(B)/obj/sim/builtin_scenarios.o: $(wildcard sim/scenarios/*.scn)
# counter_stage_simavr_open() is referenced weakly (a build without simavr
# still links); a weak reference does not pull an archive member in, so when
# the simavr counter stage exists, ask the linker for it explicitly.
ifneq ($(wildcard sim/counter_simavr.c),)
EXTRA_LDFLAGS += -Wl,-u,counter_stage_simavr_open
endif
