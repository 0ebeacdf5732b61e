# test/linux: the eqprof kernel module (isr/linux) in Debian's kernel under
# QEMU: energy- and time-driven sampling, overflow, unload, symbolization,
# and eqprof record in the guest.  Plus the recorder's process-tree filter,
# a unit test linked with the host objects it tests (the libraries are named
# here: $(LIBS) is not yet defined when module.mk files are read).
INTEG_TESTS += test/linux/qemu.sh
UNIT_TESTS += test/linux/test_tree_filter

$(B)/test/linux/test_tree_filter: $(B)/obj/test/linux/test_tree_filter.o \
		$(B)/obj/host/record/tree_filter.o \
		$(B)/libeqsim.a $(B)/libeqanalysis.a $(B)/libeqfw.a $(B)/libeqcore.a
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lcmocka $(LDLIBS_ALL)
