# host/: the eqprof command (main + one builtin-NAME.c per subcommand).
HOST_SRCS += $(wildcard host/*.c)
EXTRA_CFLAGS += -DEQPROF_VERSION='"0.1"'
