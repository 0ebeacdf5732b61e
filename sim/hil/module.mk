# sim/hil: the hardware-in-the-loop bridge (docs/hil.md): the board firmware
# in simavr, its pulse input driven by the simulator's front end, its IRQ
# edges delivered into a QEMU guest through an ivshmem doorbell (a Linux
# guest) or through QEMU's qtest socket into the NVIC (a Cortex-M guest,
# docs/target-cortexm.md), its USB stream on a pty for `eqprof board`.
# Not part of the eqprof binary.
HILBRIDGE = $(B)/sim/hil/hilbridge
EXTRA_PROGS += $(HILBRIDGE)

$(HILBRIDGE): $(B)/obj/sim/hil/hilbridge.o $(B)/obj/sim/hil/qtest.o $(B)/libeqsim.a $(B)/libeqanalysis.a $(B)/libeqfw.a $(B)/libeqcore.a
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) $(LIBS) $(LDLIBS_ALL)
