#!/usr/bin/env bash
# Every command's --help, as the user reads it: printed to standard output,
# exit 0, and no printf escape left in it ("95%%", a stray "%s": help texts
# printed with fputs keep their "%%").  The commands are the ones `eqprof`
# lists, so a new one is checked without editing this file.
set -u
. "$SRC/test/lib/tap.sh"
cmds=$("$EQPROF" 2>&1 | sed -n 's/^  \([a-z][a-z-]*\) \{1,\}[a-z].*/\1/p')
[ -n "$cmds" ]; check_status $? "eqprof lists its commands ($(echo $cmds | wc -w))"
for c in $cmds; do
	out=$("$EQPROF" "$c" --help 2>/dev/null); rc=$?
	bad=$(printf '%s\n' "$out" | grep -n -E '%%|%[-0-9.]*[sdufgzl]' | head -n 3)
	if [ $rc -eq 0 ] && [ -n "$out" ] && [ -z "$bad" ]; then
		ok "eqprof $c --help: exit 0, no printf escape in it"
	else
		not_ok "eqprof $c --help: exit $rc, escapes: $bad"
	fi
done
tap_plan
