#!/bin/sh
# The ring stress test under ThreadSanitizer (built by test/isr/module.mk
# into $B/test/isr/test_ring_stress_tsan).  TSan reports a data race as a
# failure (exit code 66), which run-tests counts.
set -u
bin=$B/test/isr/test_ring_stress_tsan
if [ ! -x "$bin" ]; then
	echo "not ok 1 - $bin missing: run make check (CHECK_EXTRA builds it)"
	exit 1
fi
CMOCKA_MESSAGE_OUTPUT=TAP TSAN_OPTIONS="halt_on_error=1 exitcode=66" exec "$bin"
