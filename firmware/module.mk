# firmware/portable: counting, jitter, compensation and protocol logic that
# the AVR firmware, the host tools and the simulator all link.
FW_SRCS += $(wildcard firmware/portable/*.c)
