# bench/power: power trace and histogram over 10 million intervals.
BENCHES += $(B)/bench/power/power_bench
EXTRA_PROGS += $(B)/bench/power/power_bench

$(B)/bench/power/power_bench: $(B)/obj/bench/power/power_bench.o $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIBS) $(LDLIBS_ALL)
