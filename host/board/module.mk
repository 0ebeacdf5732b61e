# host/board: `eqprof board` transports (termios tty, libftdi1), finding
# boards on USB (libusb-1.0), the protocol client over them, the logger.
HOST_SRCS += $(wildcard host/board/*.c)
EXTRA_CFLAGS += -isystem /usr/include/libftdi1 -isystem /usr/include/libusb-1.0
EXTRA_LDLIBS += -lftdi1 -lusb-1.0
