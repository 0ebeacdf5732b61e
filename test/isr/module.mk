# test/isr: the sample ring, single-threaded and under two-thread stress.
UNIT_TESTS += test/isr/test_ring test/isr/test_ring_stress

# The stress test once more under ThreadSanitizer (cannot share a binary with
# ASan, so it gets its own rule; built before the tests by make check).
RING_TSAN = $(B)/test/isr/test_ring_stress_tsan
CHECK_EXTRA += $(RING_TSAN)
INTEG_TESTS += test/isr/ring-tsan.sh test/isr/ring-freestanding.sh

$(RING_TSAN): test/isr/test_ring_stress.c isr/core/eq_ring.h isr/core/eq_sample.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  TSAN    $@")
	$(Q)$(CC) $(CSTD) $(WARN) -O2 -g $(INCLUDES) -fsanitize=thread -o $@ $< -lcmocka -lpthread
