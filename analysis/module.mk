# analysis/: the library behind report, compare, power and export.
ANALYSIS_SRCS += $(wildcard analysis/*.c)
