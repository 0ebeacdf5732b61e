# bench/lib.sh - what the bench scripts share, sourced as
# `. "$(dirname "$0")/../lib.sh"` (bench/speed/insns.sh, bench/speed/speed.sh,
# bench/report/report.sh):
#
#   errors stop the script (set -eu); EQPROF and B must be set (make bench
#   sets them); SRC is the source tree; $work is a directory of its own,
#   removed at exit;
#   bench_funcs N      $work/funcs: a program of N functions f0..f{N-1}
#                      (PIE, -O0 -g), for recordings spread over many symbols

set -eu
: "${EQPROF:?}" "${B:?}"
SRC=${SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bench_funcs()
{
	python3 - "$work/funcs.c" "$1" <<'PY'
import sys
n = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    for i in range(n):
        f.write("int f%d(int x)\n{\n\tint a = x * %d;\n\n\tfor (int i = 0; i < x; i++)\n"
                "\t\ta = a * 31 + i;\n\treturn a + %d;\n}\n\n" % (i, i + 3, i))
    f.write("int main(void)\n{\n\treturn f0(1) + f%d(2);\n}\n" % (n - 1))
PY
	cc -O0 -g -fPIE -pie -o "$work/funcs" "$work/funcs.c"
}
