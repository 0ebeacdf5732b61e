#!/usr/bin/env bash
# How every subcommand writes its outputs (analysis/file/outfile.h), from the
# command line: a device or FIFO given as -o is written into and stays what it
# was, a symlink is written through, an existing file keeps its mode, an
# output that names an input is refused, several outputs of one command are
# all or nothing, and nothing is left behind.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/test/lib/tap.sh"

"$B/test/power/mkrec" steps "$T/run.eqp" >/dev/null || { echo "Bail out! mkrec failed"; exit 1; }
cp "$T/run.eqp" "$T/keep.eqp"
strays() { ls -A "$T" | grep -v -x -e run.eqp -e keep.eqp -e err "$@"; }

# /dev/null as -o: written into, still the character device afterwards
"$EQPROF" report "$T/run.eqp" -o /dev/null && [ -c /dev/null ]
check_status $? "report -o /dev/null writes into the device and leaves it a device"
"$EQPROF" export "$T/run.eqp" --format csv -o /dev/null && [ -c /dev/null ]
check_status $? "export -o /dev/null too"
if [ "$(id -u)" -eq 0 ]; then
	mknod "$T/mynull" c 1 3
	"$EQPROF" report "$T/run.eqp" -o "$T/mynull" && [ -c "$T/mynull" ]
	check_status $? "a device node of our own as -o stays a device node (the audit's 669-byte regular file)"
	rm -f "$T/mynull"
else
	ok "# SKIP mknod needs root"
fi

# a FIFO as -o: its reader gets the output, the FIFO stays
mkfifo "$T/pipe"
cat "$T/pipe" >"$T/from-pipe" &
reader=$!
"$EQPROF" export "$T/run.eqp" --format csv -o "$T/pipe"
st=$?
wait $reader
[ $st -eq 0 ] && [ -p "$T/pipe" ] && head -n1 "$T/from-pipe" | grep -q '^time_s,'
check_status $? "a FIFO as -o is written into and stays a FIFO"
rm -f "$T/pipe" "$T/from-pipe"

# a symlink as -o: written through, the link stays
"$EQPROF" export "$T/run.eqp" --format csv -o "$T/target.csv" &&
	ln -s target.csv "$T/link.csv" && echo old >"$T/target.csv" &&
	"$EQPROF" export "$T/run.eqp" --format csv -o "$T/link.csv" &&
	[ -L "$T/link.csv" ] && head -n1 "$T/target.csv" | grep -q '^time_s,'
check_status $? "a symlink as -o is written through; the link stays a link"
rm -f "$T/link.csv" "$T/target.csv"

# a 0600 output stays 0600
echo secret >"$T/private.csv" && chmod 600 "$T/private.csv"
"$EQPROF" export "$T/run.eqp" --format csv -o "$T/private.csv" &&
	[ "$(stat -c %a "$T/private.csv")" = 600 ]
check_status $? "rewriting a 0600 output keeps it 0600 (was 0644)"
rm -f "$T/private.csv"

# a directory as -o is refused, saying what it is
mkdir "$T/adir"
"$EQPROF" report "$T/run.eqp" -o "$T/adir" 2>"$T/err"
[ $? -ne 0 ] && grep -q "is a directory" "$T/err" && [ -d "$T/adir" ]
check_status $? "a directory as -o is refused as a directory"
rmdir "$T/adir"

# an output that names an input
"$EQPROF" export "$T/run.eqp" --format csv -o "$T/run.eqp" 2>"$T/err"
[ $? -ne 0 ] && grep -q "is the input" "$T/err" && cmp -s "$T/run.eqp" "$T/keep.eqp"
check_status $? "export -o of its own input is refused and the recording is intact"
ln -s run.eqp "$T/alias.eqp"
"$EQPROF" power "$T/run.eqp" --trace "$T/alias.eqp" 2>"$T/err"
[ $? -ne 0 ] && grep -q "is the input" "$T/err" && cmp -s "$T/run.eqp" "$T/keep.eqp"
check_status $? "power --trace through a link to its input is refused"
rm -f "$T/alias.eqp"
"$EQPROF" report "$T/run.eqp" -o "$T/run.eqp" 2>"$T/err"
[ $? -ne 0 ] && cmp -s "$T/run.eqp" "$T/keep.eqp"
check_status $? "report -o of its input is refused"

# several outputs: all or nothing
"$EQPROF" power "$T/run.eqp" --trace "$T/ok.csv" --hist "$T/no-such-dir/h.csv" 2>"$T/err"
[ $? -ne 0 ] && [ ! -e "$T/ok.csv" ]
check_status $? "power --trace ok.csv --hist /bad/h.csv leaves no ok.csv"
echo previous >"$T/ok.csv"
# gnuplot not found: the plot fails after the CSV was written
PATH=/nonexistent "$EQPROF" power "$T/run.eqp" --trace "$T/ok.csv" --hist "$T/h.png" 2>"$T/err"
[ $? -ne 0 ] && [ "$(cat "$T/ok.csv")" = previous ] && [ ! -e "$T/h.png" ]
check_status $? "a failing plot leaves the other outputs as they were"
rm -f "$T/ok.csv"
"$EQPROF" power "$T/run.eqp" --trace "$T/t.csv" --hist "$T/h.csv" --trace "$T/t.svg" &&
	[ -s "$T/t.csv" ] && [ -s "$T/h.csv" ] && grep -q '</svg>' "$T/t.svg"
check_status $? "when every output can be written, all are"
rm -f "$T/t.csv" "$T/h.csv" "$T/t.svg"

[ -z "$(strays)" ]
check_status $? "no temporary file left behind by any of the above ($(strays | tr '\n' ' '))"
tap_plan
