# bench/speed (issue 30): speed.sh makes the table of eqprof beside perf
# (recorder CPU and losses on one program, report and its views against
# reading the file, --children and the Chrome export against perf's), medians
# of interleaved rounds; insns.sh prints the instructions each command spends
# per sample, a guard that does not depend on time.  Figures only.
# ablate.sh (by hand, not in make bench: several builds) times --by proc,
# or --by line against --by proc, with parts of the report taken out
# (ablate/VIEW/*.patch: proc, line, floor, spread): what bounds them.
BENCHES += bench/speed/speed.sh bench/speed/insns.sh
EXTRA_PROGS += $(B)/bench/speed_rec

$(B)/bench/speed_rec: $(B)/obj/bench/speed/speed_rec.o $(B)/obj/bench/speed/perf_data.o \
		$(B)/obj/bench/report/synth_elf.o $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(B)/obj/bench/speed/perf_data.o $(B)/obj/bench/report/synth_elf.o $(LIBS) $(LDLIBS_ALL)
