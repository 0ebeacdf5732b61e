#!/usr/bin/env bash
# make bench: eqprof report --by proc (and --sort comm,dso,sym, --symbol f1*)
# over 1M and 10M samples spread over a
# generated ELF with 1500 functions (samples/s, peak memory, ratio to just
# reading the file).  Figures only; nothing here passes or fails on time.
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/funcs.c" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1500):
        f.write("int f%d(int x)\n{\n\tint a = x * %d;\n\n\tfor (int i = 0; i < x; i++)\n"
                "\t\ta = a * 31 + i;\n\treturn a + %d;\n}\n\n" % (i, i + 3, i))
    f.write("int main(void)\n{\n\treturn f0(1) + f1499(2);\n}\n")
PY
cc -O0 -g -fPIE -pie -o "$work/funcs" "$work/funcs.c"
"$B/bench/report_bench" "$work/funcs" "$EQPROF" "$work"
