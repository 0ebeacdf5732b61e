#!/usr/bin/env bash
# demo.sh - `make demo` end to end (scripts/demo into a scratch build
# folder): it finishes, says where its report is, the report has every
# section the issue asks for, every image it shows exists, and every
# estimate in it is within its stated error of the truth.  TAP output.
set -u
: "${EQPROF:?}" "${SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$SRC/test/lib/tap.sh"

B=$tmp EQPROF=$EQPROF "$SRC/scripts/demo" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "scripts/demo exits 0" test "$rc" -eq 0
[ "$rc" -eq 0 ] || tail -n 20 "$tmp/err" | sed 's/^/# /'
check "it prints where the report is" grep -qx "demo report: $tmp/demo/README.md" "$tmp/out"
r=$tmp/demo/README.md
for s in "## Table 4" "## Figures 6 and 7" "## Figure 8" "## Figures 9, 10 and 11" \
	"## Figure 12" "## Figure 13" "## Table 5" "## Device energy to the code" "## Power per procedure by regression" "## Power per state" "## Accuracy"; do
	check "the report has '$s'" grep -q "^$s" "$r"
done
check "Table 4 has a row for each of the 14 benchmarks" \
	test "$(sed -n '/^## Table 4/,/^## Fig/p' "$r" | grep -c '^| [A-Z].* Hz |')" -eq 14
missing=0
for img in $(grep -o '](img/[^)]*)' "$r" | sed 's/](\(.*\))/\1/'); do
	[ -s "$tmp/demo/$img" ] || { echo "# missing $img"; missing=1; }
done
check "every image the report shows exists" test "$missing" -eq 0
check "at least 40 images" test "$(grep -c '](img/' "$r")" -ge 40
check "average power within its stated error in every scenario" \
	grep -q "average power within its stated error in every scenario" "$r"
check "no 'NO' or 'no' verdict anywhere" bash -c "! grep -q '\*\*NO\*\*\|\*\*no\*\*' '$r'"
check "at least 97% of procedure rows inside their 99% interval" python3 - "$r" <<'PY'
import re, sys
m = re.search(r"(\d+) of (\d+) procedure rows", open(sys.argv[1]).read())
sys.exit(0 if m and int(m.group(1)) >= 0.97 * int(m.group(2)) else 1)
PY
tap_plan
