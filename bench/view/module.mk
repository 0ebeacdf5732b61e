# bench/view: eqprof view's page over 100k to 100M samples: its size, build
# and load times, the time per interaction in headless Chromium.
BENCHES += bench/view/view.sh
EXTRA_PROGS += $(B)/bench/view_mkrec

$(B)/bench/view_mkrec: $(B)/obj/bench/view/view_mkrec.o $(LIBS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIBS) $(LDLIBS_ALL)
