#!/usr/bin/env bash
# make bench: the instructions eqprof spends per sample, a regression guard
# that does not depend on time (issue 30): a change that doubles the work
# shows even on a loaded machine whose timings vary by 2x.
#
# Each command runs over recordings of 1 M and 2 M samples (BENCH_INSNS_N
# and twice that) at 4,096 distinct pcs over 5,000 functions; the figure is
# the difference of the two counts divided by the difference of samples,
# so what a run spends once (loading symbols, printing) drops out.
# Counted by `perf stat -e instructions:u` where the machine has counters,
# else by valgrind --tool=callgrind (both count user instructions retired).
# Prints figures; nothing here passes or fails.
. "$(dirname "$0")/../lib.sh"
n=${BENCH_INSNS_N:-1000000}
bench_funcs 5000
"$B/bench/speed_rec" "$work/funcs" "$n" 4096 "$work/a.eqp"
"$B/bench/speed_rec" "$work/funcs" "$((2 * n))" 4096 "$work/b.eqp"

if perf stat -x, -e instructions:u true 2>&1 | grep -q '^[0-9]'; then
	how="perf stat -e instructions:u"
else
	how="valgrind --tool=callgrind"
fi

# count FILE ARGS...: user instructions of eqprof ARGS on FILE.
count() {
	local f=$1
	shift
	if [ "$how" = "valgrind --tool=callgrind" ]; then
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$EQPROF" "$@" "$f" \
			-o "$work/out" 2>&1 >/dev/null | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
	else
		perf stat -x, -e instructions:u "$EQPROF" "$@" "$f" -o "$work/out" 2>&1 >/dev/null |
			sed -n 's/^\([0-9]*\),.*instructions.*/\1/p'
	fi
}

set -f # the words of each command are not globbed
echo "instructions per sample ($how, the difference between $n and $((2 * n)) samples at 4,096 pcs):"
while IFS='|' read -r label args; do
	# shellcheck disable=SC2086  # args are words
	a=$(count "$work/a.eqp" $args)
	# shellcheck disable=SC2086
	b=$(count "$work/b.eqp" $args)
	awk -v l="$label" -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "  %-36s %8.1f\n", l, (b - a) / n }'
done <<'EOF'
report --by proc|report --by proc
report --sort comm,dso,sym|report --sort comm,dso,sym
report --by line|report --by line
report --symbol 'f1*'|report --symbol f1*
export --format chrome|export --format chrome
export --format folded|export --format folded
EOF
