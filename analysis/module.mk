# analysis/: the library behind report, compare, power and export, one
# folder per concern:
#   file/     the .eqp recording (reader, writer, CRC), atomic outputs, CSV import
#   symbols/  maps, ELF and DWARF symbolization (elfutils), embedded symbol tables
#   profile/  aggregation, statistics, tables, time/energy comparison
#   power/    power summaries, traces, histograms, regions, gnuplot plots
#   export/   pprof, callgrind, folded, Chrome trace, CSV
#   annotate/ energy per instruction and source line beside the disassembly
#   util/     errors and SI quantities, used by every stage
#   energy/   energy-source readings: granularity bounds, runs, charging samples
#   align/    board records against energy samples: loss cross-check, clock alignment
#   attrib/   asynchronous device energy moved to the code that caused it (seed 000)
#   regress/  power per procedure by regression on the board's intervals (seed 002)
#   view/     the viewer's data: time buckets of power and of per-row counts (eqprof view)
#   states/   power states (CPU frequency, idle state): timelines, profiles split by state, cpu, mode
ANALYSIS_DIRS := file symbols profile power export annotate util energy align states regress attrib view
ANALYSIS_SRCS += $(foreach d,$(ANALYSIS_DIRS),$(wildcard analysis/$(d)/*.c))
# Headers are included by path from analysis/ (#include "profile/profile.h"),
# through the one -Ianalysis of the top Makefile's INCLUDES.
