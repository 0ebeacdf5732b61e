# host/board: `eqprof board` transports (termios tty, libftdi1) and the
# protocol client over them.
HOST_SRCS += $(wildcard host/board/*.c)
EXTRA_CFLAGS += -isystem /usr/include/libftdi1
EXTRA_LDLIBS += -lftdi1 -lusb-1.0
