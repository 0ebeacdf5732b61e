#!/usr/bin/env bash
# make bench: eqprof at the scale of a busy machine.
#   - 100,000 processes (a system-wide recording), ten samples each:
#     report and the exports; process lookup is by hash, so time grows with
#     the number of processes, not its square;
#   - 50 M samples out of time order (four CPUs' rings drained in turn):
#     the profiles (report, callgrind, pprof, folded) stream the file as it
#     is, with flat memory; power, csv and chrome need time order and build
#     a sorted index (8 bytes a sample).
# Prints wall time and peak anonymous memory (what is not the mapped
# recording itself); nothing here passes or fails on time.
# BENCH_PROCS and BENCH_UNSORTED change the sizes.
set -eu
: "${EQPROF:?}" "${B:?}"
procs=${BENCH_PROCS:-100000}
unsorted=${BENCH_UNSORTED:-50000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/f.c" <<'EOF'
int f0(int x) { int a = x; for (int i = 0; i < x; i++) a = a * 31 + i; return a; }
int f1(int x) { int a = x; for (int i = 0; i < x; i++) a = a * 37 + i; return a; }
int main(void) { return f0(1) + f1(2); }
EOF
cc -O0 -g -fPIE -pie -o "$work/f" "$work/f.c"

# run LABEL ARGS...: wall seconds and peak RssAnon of one eqprof run.
run() {
	local label=$1
	shift
	python3 - "$label" "$EQPROF" "$@" <<'PY'
import subprocess, sys, time
label, cmd = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
peak = 0
while p.poll() is None:
    try:
        with open("/proc/%d/status" % p.pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    peak = max(peak, int(line.split()[1]))
    except OSError:
        pass
    time.sleep(0.005)
wall = time.monotonic() - t0
err = p.stderr.read().decode(errors="replace").strip()
if p.returncode:
    print("  %-34s FAILED (%d): %s" % (label, p.returncode, err.splitlines()[-1:]))
else:
    print("  %-34s %7.2f s   peak anonymous %7.1f MiB" % (label, wall, peak / 1024))
sys.stdout.flush()
PY
}

for n in $((procs / 4)) $((procs / 2)) "$procs"; do
	"$B/bench/scale_bench" procs "$n" "$work/f" "$work/procs.eqp"
	echo "$n processes, $((n * 10)) samples:"
	run "report --by proc" report "$work/procs.eqp" --by proc -o "$work/out"
	run "report --by pid" report "$work/procs.eqp" --by pid -o "$work/out"
	for fmt in pprof folded chrome; do
		run "export --format $fmt" export "$work/procs.eqp" --format "$fmt" -o "$work/out"
	done
done
rm -f "$work/procs.eqp" "$work/out"

"$B/bench/scale_bench" unsorted "$unsorted" "$work/unsorted.eqp"
echo "$((unsorted / 1000000)) M samples out of time order ($(($(stat -c %s "$work/unsorted.eqp") >> 20)) MiB file):"
run "report --by proc" report "$work/unsorted.eqp" --by proc -o "$work/out"
for fmt in callgrind pprof folded; do
	run "export --format $fmt" export "$work/unsorted.eqp" --format "$fmt" -o "$work/out"
done
run "power --summary" power "$work/unsorted.eqp" --summary -o "$work/out"

