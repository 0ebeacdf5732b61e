#!/bin/bash
# run-tests: long (the board firmware in simavr in real time, fault after fault)
# `eqprof board log` against the firmware in simavr behind a pty
# (test/firmware/ptybridge.c serve), with faults injected while it logs:
# garbage and corrupted bytes on the link, a stall, a board reset, the board
# dying (cable pulled), SIGTERM, SIGKILL at random moments, a request
# corrupted on its way to the board.  Every loss must be counted, flagged
# and written down; the file must survive.  TAP output.
#
# Timing: the board runs paced to real time; the checks never depend on how
# fast anything ran, only on what the file and the messages say.  Random
# SIGKILL moments use $RANDOM (the moment only changes which chunk is the
# last; every moment must pass).
set -u
elf="$B/firmware/eqfw-simavr.elf"
[ -f "$elf" ] || elf="$B/../firmware/eqfw-simavr.elf"
bridge="$B/test/firmware/ptybridge"
export LSAN_OPTIONS="suppressions=$SRC/test/firmware/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
. "$SRC/test/lib/tap.sh"
work=$(mktemp -d /tmp/board-faults.XXXXXX)
bpid=
cleanup() {
	[ -n "$bpid" ] && kill "$bpid" 2>/dev/null && wait "$bpid" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$work" # KEEP=1: leave it for a look
}
trap cleanup EXIT

# The board: 20 kHz of pulses, N=32 J=0 set once (the log takes the board's
# settings): 625 records/s.
mkfifo "$work/ctl"
"$bridge" serve "$elf" "$work/port" "$work/ctl" 20000 2>"$work/bridge.log" &
bpid=$!
for i in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port" 2>/dev/null)
if [ -z "$port" ]; then
	echo "Bail out! ptybridge did not come up: $(cat "$work/bridge.log")"
	exit 1
fi
ctl() { echo "$*" >"$work/ctl"; }
# key=value facts of a recording (ptybridge check).
fact() { sed -n "s/^$2=//p" "$work/$1.check" | head -n 1; }
checkfile() { "$bridge" check "$1" >"$work/$2.check" 2>&1; }
# verdict NAME WHAT: the result of the last command; when it failed, what
# log NAME said and what its file holds follow as TAP comments.
verdict() {
	local r=$? name=$1
	shift
	check_status $r "$@"
	[ $r -eq 0 ] || sed 's/^/#   /' "$work/$name.err" "$work/$name.check" 2>/dev/null | head -n 40
}

"$EQPROF" board config --port "$port" --quantum 32 --jitter 0 >/dev/null 2>&1
check_status $? "board config --quantum 32 --jitter 0 over the pty"

# Starts `board log` in the background: log NAME ARGS...
log() {
	local name=$1
	shift
	"$EQPROF" board log --port "$port" -o "$work/$name.eqp" "$@" \
		>"$work/$name.out" 2>"$work/$name.err" &
	lpid=$!
}
# Waits for it: rc is its exit status.
wait_log() { wait "$lpid"; rc=$?; }
# Waits until the log NAME has written records (at most 10 s): faults are
# injected into a log that is running, however slow the machine.
wait_records() {
	local i n
	for i in $(seq 200); do
		n=$("$bridge" check "$work/$1.eqp.tmp.$lpid" 2>/dev/null | sed -n 's/^records=//p')
		[ -n "$n" ] && [ "$n" -gt 0 ] && return 0
		sleep 0.05
	done
	return 1
}

# --- 1. garbage, corrupted bytes and a stall in one log ----------------------
log faults --duration 4.5s --stall-timeout 0.6s
wait_records faults; sleep 0.3; ctl garbage 2048
sleep 0.5; ctl corrupt 50 6000
sleep 0.8; ctl stall 1.5
wait_log
checkfile "$work/faults.eqp" faults
missing=$(fact faults end_missing); gaps=$(fact faults gaps)
[ "$rc" -eq 0 ]
verdict faults "board log with 2 kB of garbage, 1 byte in 50 corrupted and a 1.5 s stall: exit 0"
[ "$(fact faults open)" = ok ] && [ "$(fact faults warning)" = no ] && [ "$(fact faults segments)" = 1 ]
verdict faults "the recording is complete: one segment, closed"
[ -n "$missing" ] && [ "$missing" -gt 0 ] && [ "$missing" -eq "$gaps" ] &&
	[ "$(fact faults lost_total)" -eq "$missing" ] && [ "$(fact faults unflagged_gaps)" -eq 0 ]
verdict faults "records lost on the link are counted: $missing missing = $gaps in seq gaps = LOST chunks; every record after a gap flagged DROPPED"
bad=$(fact faults seg0_end | sed -n 's/.* bad\([0-9]*\) .*/\1/p')
[ -n "$bad" ] && [ "$bad" -gt 0 ]
verdict faults "frames that did not decode are saved in the segment's end (BEND): $bad"
grep -q "$missing missing" "$work/faults.err" && ! grep -q " 0 missing" "$work/faults.err" &&
	grep -q "$bad bad frames" "$work/faults.err"
verdict faults "the closing line says $missing missing and $bad bad frames (never 0 missing)"
grep -q "no data from the board for" "$work/faults.err" &&
	grep -q "answered again after" "$work/faults.err" &&
	grep -q "^marker=board silent" "$work/faults.check" &&
	fact faults seg0_end | grep -q "stalls[1-9]"
verdict faults "the stall is warned about while it lasts, when it ends, and marked in the file"
# A board log holds energy over time and no samples: not an error (power
# reads it); report says what it holds and where to look.
"$EQPROF" report "$work/faults.eqp" >"$work/faults.report" 2>&1 &&
	grep -q "lost $missing" "$work/faults.report" &&
	grep -q "holds $(fact faults records) board records (.* J in .* s) and no samples" "$work/faults.report"
verdict faults "eqprof report's loss line: lost $missing; it says the board's records are there and no samples"
"$EQPROF" report -q "$work/faults.eqp" 2>&1 | grep -q "lost $missing"
verdict faults "report -q keeps the loss line"
# Its heading says what the file holds, as the note does: no "0 samples
# ... = 0 J" above a note giving its energy.
"$EQPROF" report "$work/faults.eqp" 2>/dev/null >"$work/faults.heading" &&
	head -n 1 "$work/faults.heading" | grep -q "^# board log .*faults.eqp: $(fact faults records) board records (.* J in .* s) and no samples; lost $missing\$" &&
	! grep -q "0 samples\|= 0 J" "$work/faults.heading"
verdict faults "report's heading says what the board log holds (its records, joules and losses), not 0 samples = 0 J"
"$EQPROF" export --format chrome -o "$work/faults.json" "$work/faults.eqp" 2>"$work/faults.export"
[ $? -eq 1 ] && grep -q "no samples, only the board's $(fact faults records) energy records" "$work/faults.export"
verdict faults "export, which needs samples, refuses it naming the board's records"
"$EQPROF" power "$work/faults.eqp" --format csv >"$work/faults.power" 2>&1 &&
	[ "$(sed -n 2p "$work/faults.power" | cut -d, -f6)" = "$missing" ]
verdict faults "eqprof power's lost column: $missing"
[ $rc -eq 0 ] || sed 's/^/# /' "$work/faults.err"

# --- 2. a board reset: a new segment, re-configured ---------------------------
log reset --duration 3s
wait_records reset; sleep 0.5; ctl reset
wait_log
checkfile "$work/reset.eqp" reset
[ "$rc" -eq 0 ]
verdict reset "board log across a board reset: exit 0 (it went on)"
grep -q "the board reset (external reset, seen by a BOOT message)" "$work/reset.err"
verdict reset "the reset is named, with its cause, as it happens"
[ "$(fact reset segments)" = 2 ] && fact reset seg0 | grep -q "^N32 J0 .* end2" &&
	fact reset seg1 | grep -q "^N32 J0 vcomp0 boot2 " && [ "$(fact reset out_of_order)" = 0 ]
verdict reset "two segments, both N=32 J=0 (settings restored after the reset), the second begun by an external reset; times keep growing"
grep -q "^marker=board reset (external reset): segment follows" "$work/reset.check"
verdict reset "the reset is marked in the file"
"$EQPROF" power "$work/reset.eqp" >/dev/null 2>&1
verdict reset "eqprof power reads the two-segment recording"

# --- 3. a reset with --on-reset stop -------------------------------------------
log rstop --on-reset stop --duration 10s
wait_records rstop; sleep 0.3; ctl reset
wait_log
checkfile "$work/rstop.eqp" rstop
[ "$rc" -eq 1 ] && grep -q "reset during the log and --on-reset stop" "$work/rstop.err" &&
	[ "$(fact rstop segments)" = 1 ] && fact rstop seg0 | grep -q "end2$"
verdict rstop "--on-reset stop: exit 1, the reset named, one segment ending with the reset"
"$EQPROF" board config --port "$port" --quantum 32 --jitter 0 >/dev/null 2>&1

# --- 4. SIGTERM: a clean stop ----------------------------------------------------
log term --duration 10s
wait_records term; sleep 0.5; kill -TERM "$lpid"
wait_log
checkfile "$work/term.eqp" term
n=$(fact term records)
[ "$rc" -eq 0 ] && [ "$(fact term warning)" = no ] && fact term seg0 | grep -q "end1$" &&
	[ "$n" -gt 0 ] && [ "$(fact term end_missing)" -eq 0 ]
verdict term "SIGTERM: exit 0, STOP and STATUS sent, the file committed with nothing missing ($n records)"

# --- 5. the board freezes at the end: STOP unanswered ----------------------------
log frozen --duration 1.5s --stall-timeout 0.5s
wait_records frozen; ctl freeze
wait_log
checkfile "$work/frozen.eqp" frozen
n=$(fact frozen records)
[ "$rc" -eq 1 ] && grep -q "no reply to STOP" "$work/frozen.err" && [ "$(fact frozen warning)" = no ] &&
	fact frozen seg0 | grep -q "end4$" && [ "$n" -gt 0 ]
verdict frozen "a board that stops answering: exit 1 with the reason, the file committed ($n records), its end says silent"
ctl die
wait "$bpid"; bpid=

# --- 6. the board dies mid-log (cable pulled) --------------------------------------
rm -f "$work/port"
"$bridge" serve "$elf" "$work/port" "$work/ctl" 20000 2>>"$work/bridge.log" &
bpid=$!
for i in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
log dead --duration 10s
wait_records dead; sleep 0.3; ctl die
wait "$bpid"; bpid=
wait_log
checkfile "$work/dead.eqp" dead
n=$(fact dead records)
[ "$rc" -eq 1 ] && grep -q "went away" "$work/dead.err" && grep -q "records received are in" "$work/dead.err" &&
	[ "$(fact dead warning)" = no ] && fact dead seg0 | grep -q "end3$" && [ "$n" -gt 0 ]
verdict dead "the board dies mid-log: exit 1 saying the device went away, the file committed ($n records), its end says link"

# --- 7. SIGKILL at random moments ------------------------------------------------------
rm -f "$work/port"
"$bridge" serve "$elf" "$work/port" "$work/ctl" 20000 2>>"$work/bridge.log" &
bpid=$!
for i in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
for k in 1 2 3; do
	log "kill$k" --duration 20s
	wait_records "kill$k"
	t=$((RANDOM % 1200))
	sleep "$(printf '%d.%03d' $((t / 1000)) $((t % 1000)))"
	kill -KILL "$lpid"
	wait "$lpid" 2>/dev/null
	tmp=$(ls "$work/kill$k.eqp.tmp."* 2>/dev/null | head -n 1)
	checkfile "$tmp" "kill$k"
	n=$(fact "kill$k" records)
	[ -n "$tmp" ] && [ "$(fact "kill$k" open)" = ok ] && [ "$(fact "kill$k" warning)" = yes ] &&
		[ "$(fact "kill$k" segments)" = 1 ] && [ "$(fact "kill$k" out_of_order)" = 0 ] &&
		[ "$(fact "kill$k" lost_total)" -le "$(fact "kill$k" gaps)" ] && [ "$n" -gt 0 ]
	verdict "kill$k" "SIGKILL $t ms after the first records: the .tmp file is readable as unfinished, $n records in order, LOST chunks within the seq gaps"
	"$EQPROF" report -q "$tmp" >/dev/null 2>"$work/kill$k.rep" && grep -q "unfinished recording" "$work/kill$k.rep"
	verdict "kill$k" "eqprof report -q reads it and says it is unfinished"
	# The board was left counting: the next log stops it first.
done

# --- 8. a request corrupted on its way: resent at once, not after 300 ms --------------
# The 6th byte of the first request (INFO: the leading delimiter, COBS code,
# version, type, tag, CRC...) gets a bit flipped: a CRC mismatch, tag intact.
ctl corrupt-in 6
sleep 0.2
EQPROF_BOARD_TRACE=1 "$EQPROF" board info --port "$port" >"$work/cin.out" 2>"$work/cin.err"
rc=$?
[ "$rc" -eq 0 ] && grep -q "ERR tag 0: CRC mismatch of INFO (detail 1)" "$work/cin.err" &&
	grep -q "arrived corrupt: sending it again" "$work/cin.err"
verdict cin "a request that reaches the board corrupted: the board's error echoes its tag and the host resends at once"
EQPROF_BOARD_REPLY_MS=5x "$EQPROF" board info --port "$port" >"$work/rms.out" 2>"$work/rms.err"
rc=$?
[ "$rc" -eq 0 ] && grep -q "EQPROF_BOARD_REPLY_MS='5x' is not 10 to 60000 (milliseconds); waiting 300 ms per try" "$work/rms.err"
verdict rms "a bad EQPROF_BOARD_REPLY_MS is named, and the default used"

# --- 9. overload: LATE quanta and records the board dropped ---------------------
# 1 MHz of pulses at N=32: far more quanta than the firmware counts exactly
# (LATE) or the line carries (dropped); most LATE quanta have no record, and
# only STATUS knows them.
ctl rate 1000000
# The simulated board at 1 MHz of pulses falls behind real time on a busy
# host; a STOP that waits in its queue must not count as a dead board.
export EQPROF_BOARD_REPLY_MS=5000
log late --duration 1s
wait_log
unset EQPROF_BOARD_REPLY_MS
ctl rate 20000
checkfile "$work/late.eqp" late
end=$(fact late seg0_end)
lu=$(echo "$end" | sed -n 's/.*late_unrecorded\([0-9]*\).*/\1/p')
dr=$(echo "$end" | sed -n 's/.*dropped\([0-9]*\) .*/\1/p')
[ "$rc" -eq 0 ] && [ -n "$lu" ] && [ "$lu" -gt 0 ] && [ -n "$dr" ] && [ "$dr" -gt 0 ] &&
	grep -q "of them with no record" "$work/late.err" && grep -q "$dr dropped by the board" "$work/late.err"
verdict late "overload: $dr records dropped by the board and $lu LATE quanta without a record, saved in BEND and in the closing line"

ctl die
wait "$bpid"; bpid=
tap_plan
