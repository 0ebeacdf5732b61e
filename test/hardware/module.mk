# The board: ERC, DRC, fabrication outputs, SPICE sweep, one source of truth.
INTEG_TESTS += test/hardware/board-check test/hardware/tools-selftest
