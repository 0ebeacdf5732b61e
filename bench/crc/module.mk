# bench/crc (issue 30): eq_crc32c's speed, GB/s for each implementation the
# CPU has, and the instructions a byte each spends (crc.sh).  Figures only.
BENCHES += bench/crc/crc.sh
EXTRA_PROGS += $(B)/bench/crc_bench

$(B)/bench/crc_bench: $(B)/obj/bench/crc/crc_bench.o $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIBS) $(LDLIBS_ALL)
