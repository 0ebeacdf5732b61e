# bench/report: eqprof report --by proc over 10M samples (make bench prints
# samples/s, peak memory and the ratio to reading the file; never pass/fail).
BENCHES += bench/report/report.sh
EXTRA_PROGS += $(B)/bench/report_bench

$(B)/bench/report_bench: $(B)/obj/bench/report/report_bench.o $(B)/obj/bench/report/synth_elf.o $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(B)/obj/bench/report/synth_elf.o $(LIBS) $(LDLIBS_ALL)

# bench/report/scale.sh: 100k processes (report, export) and 50M samples out
# of time order (report, power, every export): time and peak memory.
BENCHES += bench/report/scale.sh
EXTRA_PROGS += $(B)/bench/scale_bench

$(B)/bench/scale_bench: $(B)/obj/bench/report/scale_bench.o $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIBS) $(LDLIBS_ALL)
