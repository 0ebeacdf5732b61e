# Board firmware benchmark (simavr): loss-free rate, IRQ latency, stream capacity, flash/RAM.
EXTRA_PROGS += $(B)/bench/firmware/fwbench
BENCHES += bench/firmware/run.sh

$(B)/bench/firmware/fwbench: $(B)/obj/bench/firmware/fwbench.o $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIBS) $(LDLIBS_ALL)
