# host/energy: energy sources (board, rapl, battery, hwmon; one driver a
# file behind energy.h) and the meter that reads them for stat and record.
HOST_SRCS += $(wildcard host/energy/*.c)
