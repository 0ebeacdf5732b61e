#!/usr/bin/env bash
# make bench: eqprof beside perf (issue 30's table, made again).
#
#   - the recorders: perf record and eqprof record on the same program,
#     plain at 4 and 20 kHz, -g at 20 kHz, --call-graph dwarf at 4 kHz and
#     the whole machine (-a, at 4 kHz during `sleep 2`): the
#     recorder's own CPU (the run's CPU less what the program says it used)
#     and samples lost by each;
#   - report over synthetic recordings, BENCH_SPEED_BIG samples (default
#     100 M) at 64 distinct pcs and BENCH_SPEED_SPREAD (default 3.9 M) over
#     5,000 functions (~320 k distinct pcs), each written twice by speed_rec:
#     as .eqp and as perf.data with the same samples (bench/speed/perf_data.c;
#     both on disk, sync, before any is timed),
#     checked by comparing perf report's and eqprof report's samples in
#     every (comm, dso, sym) row: --by proc against reading the file (every
#     word of it mapped and summed) and against perf report --sort dso,sym;
#     --sort comm,dso,sym, --sort sym, --comm, --symbol and --by line against
#     --by proc and against perf's equivalents;
#   - --by line beside perf report --sort srcline on BENCH_SPEED_SRCLINE
#     samples (default 50 k; perf runs addr2line for every sample);
#   - report --children and the exports of the -g recording against perf
#     report --children, perf data convert --to-json (chrome), perf script
#     report stackcollapse (folded) and perf script (csv);
#   - report --children at the issue's scale: the same program run
#     BENCH_SPEED_G_ROUNDS rounds (default 216,000: about 843 k samples at
#     20 kHz, the issue's figure), recorded with -g by each tool (perf
#     report --children in the first round only).
#
# Disk: the 100 M recordings take 3.2 GB (.eqp) and 4.8 GB (perf.data)
# together in $TMPDIR (mktemp -d).  perf report reads 100 M samples in about
# two minutes of CPU: above 20 M samples perf runs --sort dso,sym and
# comm,dso,sym only, in the first round only (its other views and all
# rounds on the spread recording).
#
# Each figure is the median of BENCH_SPEED_ROUNDS (default 3) rounds, the
# tools run in turn within a round.  CPU seconds (user + system) are what is
# compared: this machine is shared and wall time waits for the others.
# Prints figures and whether each goal is met, never fails on them.
. "$(dirname "$0")/../lib.sh"

# A program for the recorders: 64 functions, each calling the next, busy
# for about 3 s of CPU (16,000 rounds; its argument, if any, is the
# rounds); it prints its own CPU seconds on stderr.
python3 - "$work/load.c" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("#include <stdio.h>\n#include <stdlib.h>\n#include <sys/resource.h>\n")
    f.write("volatile unsigned sink;\n")
    for i in range(63, -1, -1):
        f.write("__attribute__((noinline)) unsigned g%d(unsigned x)\n{\n\tunsigned a = x;\n\n"
                "\tfor (int i = 0; i < 2000; i++)\n\t\ta = a * 31 + i;\n" % i)
        f.write("\treturn %s;\n}\n" % ("a" if i == 63 else "g%d(a) + a" % (i + 1)))
    f.write("int main(int argc, char **argv)\n{\n\tstruct rusage ru;\n"
            "\tunsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 16000;\n\n"
            "\tfor (unsigned long r = 0; r < rounds; r++)\n\t\tsink += g0((unsigned)r);\n"
            "\tgetrusage(RUSAGE_SELF, &ru);\n"
            "\tfprintf(stderr, \"load cpu %.6f\\n\", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +"
            " ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);\n\treturn 0;\n}\n")
PY
cc -O1 -g -fno-omit-frame-pointer -o "$work/load" "$work/load.c"

# A large program for the spread recording: 5,000 functions.
bench_funcs 5000

exec python3 "$SRC/bench/speed/speed.py" "$EQPROF" "$B/bench/speed_rec" "$work"
