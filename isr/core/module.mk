# isr/core: the sample record and ring buffer, built for the host so tests,
# the recorder and the simulator use the very code the target runs.
CORE_SRCS += $(wildcard isr/core/*.c)
