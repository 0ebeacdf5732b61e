#!/usr/bin/env bash
# view-cli.sh - eqprof view on the command line: the page is written whole
# (atomically, beside the recording by default), needs the viewer page and
# says how to build it when it is missing, refuses bad options with one
# line, never opens a browser without a display, and puts the recording's
# strings into the page so that they cannot end its script element.
set -u
. "$SRC/test/lib/tap.sh"
EQPROF=${EQPROF:-build/eqprof}
failed=0
t() { # CONDITION (non-empty: true) WHAT
	if [ -n "$1" ]; then ok "$2"; else not_ok "$2"; failed=$((failed + 1)); fi
}
viewer=
for p in "${EQPROF_VIEWER:-}" "$B/viewer/viewer.html" "$B/../viewer/viewer.html" "$SRC/build/viewer/viewer.html"; do
	if [ -n "$p" ] && [ -f "$p" ]; then viewer=$p; break; fi
done
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

t "$([ -n "$viewer" ] && echo 1)" "the viewer page is built (make viewer)"
"$EQPROF" sim Music -o "$d/m" -q 2>/dev/null
t "$([ -f "$d/m/energy.eqp" ] && echo 1)" "eqprof sim Music"

# default output: beside the recording, .eqp -> .html; no display, no browser
env -u DISPLAY -u WAYLAND_DISPLAY EQPROF_VIEWER="$viewer" "$EQPROF" view "$d/m/energy.eqp" >"$d/out" 2>"$d/err"
rc=$?
t "$([ $rc -eq 0 ] && [ -s "$d/m/energy.html" ] && echo 1)" "eqprof view FILE writes FILE.html beside it (rc $rc)"
t "$(grep -q "wrote $d/m/energy.html" "$d/err" && echo 1)" "and says where, as nothing opened it"
t "$([ "$(grep -c '"__EQPROF_VIEW_DATA__"' "$d/m/energy.html")" = 0 ] && grep -q '"eqprof_view": 1' "$d/m/energy.html" && echo 1)" \
	"the data replaced the template's placeholder"
t "$(python3 - "$d/m/energy.html" <<'PY' && echo 1
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script id="eqprof-data" type="application/json">(.*?)</script>', html, re.S)
doc = json.loads(m.group(1))
r = doc["runs"][0]
assert r["mode"] == "energy" and r["basis"] == "samples" and r["nsamples"] > 10000, r
assert len(r["groups"]) == 3 and r["groups"][2]["by"] == "proc"
# nothing to fetch: no src/href to anything but the page itself
assert not re.search(r'(src|href)\s*=\s*["\']?(https?:|//)', html), "an external resource"
PY
)" "the page holds the recording's data, and loads nothing from outside"

# -o: written there; two of one kind -> diff, time + energy -> compare
EQPROF_VIEWER="$viewer" "$EQPROF" view "$d/m/time.eqp" "$d/m/energy.eqp" -o "$d/two.html" -q 2>"$d/err"
t "$([ $? -eq 0 ] && grep -q '"compare": {"a": 0, "b": 1' "$d/two.html" && echo 1)" "a time and an energy recording: the page compares them"
"$EQPROF" sim Music -o "$d/m2" -q --seed 2 2>/dev/null
EQPROF_VIEWER="$viewer" "$EQPROF" view "$d/m/energy.eqp" "$d/m2/energy.eqp" -o "$d/diff.html" -q 2>"$d/err"
t "$([ $? -eq 0 ] && grep -q '"diff": {"a": 0, "b": 1' "$d/diff.html" && echo 1)" "two energy recordings: the page diffs them"

# no viewer page: one line that says how to build it, no output file
EQPROF_VIEWER="$d/none.html" "$EQPROF" view "$d/m/energy.eqp" -o "$d/x.html" 2>"$d/err"
rc=$?
t "$([ $rc -eq 1 ] && grep -q "make viewer" "$d/err" && [ ! -e "$d/x.html" ] && echo 1)" \
	"without the viewer page: exit 1, says 'make viewer', writes nothing"
# bad options and inputs
"$EQPROF" view 2>"$d/err"; rc=$?
t "$([ $rc -eq 2 ] && [ "$(wc -l <"$d/err")" -le 2 ] && echo 1)" "no recording: usage error in two lines"
"$EQPROF" view "$d/m/energy.eqp" --buckets 3 2>"$d/err"; rc=$?
t "$([ $rc -eq 2 ] && grep -q -- "--buckets" "$d/err" && echo 1)" "--buckets 3 is refused"
EQPROF_VIEWER="$viewer" "$EQPROF" view "$d/nope.eqp" -o "$d/y.html" 2>"$d/err"; rc=$?
t "$([ $rc -eq 1 ] && grep -q "nope.eqp" "$d/err" && [ ! -e "$d/y.html" ] && echo 1)" "a missing recording: named, nothing written"
echo "old" >"$d/keep.html"
EQPROF_VIEWER="$d/m/energy.eqp" "$EQPROF" view "$d/m/energy.eqp" -o "$d/keep.html" 2>"$d/err"; rc=$?
t "$([ $rc -eq 1 ] && [ "$(cat "$d/keep.html")" = old ] && grep -q "placeholder" "$d/err" && echo 1)" \
	"a template without the placeholder: refused, the old output untouched"
EQPROF_VIEWER="$viewer" "$EQPROF" view "$d/m/energy.eqp" -o "$d/m/energy.eqp" 2>"$d/err"; rc=$?
t "$([ $rc -eq 1 ] && [ -s "$d/m/energy.eqp" ] && echo 1)" "-o the recording itself is refused"

# a name with <script> and <!-- in it stays inside the data
cp "$d/m/energy.eqp" "$d/a<script><!--b.eqp"
EQPROF_VIEWER="$viewer" "$EQPROF" view "$d/a<script><!--b.eqp" -o "$d/esc.html" -q 2>"$d/err"
t "$([ $? -eq 0 ] && [ "$(grep -o '<script' "$d/esc.html" | wc -l)" = "$(grep -o '<script' "$viewer" | wc -l)" ] &&
	! grep -q '<!--b' "$d/esc.html" && echo 1)" "a recording named a<script><!--b.eqp stays inside the page's data"
tap_plan
[ "$failed" = 0 ]
