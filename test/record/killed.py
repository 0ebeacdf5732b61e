#!/usr/bin/env python3
"""killed.py - writers killed at random moments, and what they leave.

- `eqprof record` killed with SIGKILL at random moments: the unfinished
  recording OUT.tmp.PID is readable by `eqprof report` (which says it is
  unfinished) and by an independent reader (test/lib/eqp.py); its samples are
  a gap-free prefix of what was recorded (seq 0..n-1), and every sampled
  process has its maps and name: all but the last chunk survive.
- SIGINT and SIGTERM stop the recording: the command is ended, the file is
  finished (END chunk, final name), nothing is left behind.
- `import` and `export` killed (SIGKILL, SIGTERM, SIGINT) at random moments
  leave either the complete output or nothing, never a temporary file, and an
  older output stays whole until the new one replaces it.

The moments are random (seeded and printed); the checks hold at any moment,
so they assert on nothing that depends on the machine's speed.
"""
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "analysis"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import eqp  # noqa: E402
from eqtest import EQPROF, SRC, Tap  # noqa: E402

t = Tap()
seed = int(os.environ.get("KILL_SEED", time.time_ns() % 1000000))
rng = random.Random(seed)
print("# seed %d (KILL_SEED=%d reproduces the moments)" % (seed, seed))
work = tempfile.mkdtemp(prefix="eqprof-killed-")
spin = os.path.join(work, "spin")
subprocess.run(["cc", "-O1", "-g", "-pthread", "-o", spin,
                os.path.join(SRC, "test", "record", "spin.c")], check=True)


def wait_for(pred, limit=60.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return False


def leftovers(d, keep=()):
    return sorted(x for x in os.listdir(d) if x not in keep)


def no_leftovers(d, keep, sig, pid, out):
    """After SIGTERM or SIGINT nothing is left; SIGKILL leaves no chance to
    clean up, so at most the killed process's own OUT.tmp.PID (named, so
    that it is never taken for another run's), removed here so that the
    next round starts clean.  A run that ended before the signal leaves
    nothing either way (how often depends on the machine's load)."""
    left = leftovers(d, keep)
    own = "%s.tmp.%d" % (os.path.basename(out), pid)
    if sig == signal.SIGKILL and left == [own]:
        os.unlink(os.path.join(d, own))
        return True
    return left == []


def start_record(out, ms, mode="no"):
    # its own process group, so that the workload can be cleaned up too
    return subprocess.Popen([EQPROF, "record", "-t", "1kHz", "-q", "-o", out, "--", spin,
                             str(ms), mode], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)


def check_prefix(rec, what):
    seqs = [s[4] for s in rec.samples]
    t.ok(len(seqs) > 0 and seqs == list(range(len(seqs))),
         what + ": the samples are a gap-free prefix (seq 0..%d)" % (len(seqs) - 1),
         "first seqs %r" % seqs[:10])
    pids = {s[2] for s in rec.samples}
    t.ok(all(p in rec.maps and p in rec.comm for p in pids),
         what + ": every sampled process has maps and a name",
         "pids %r, maps %r, comm %r" % (pids, list(rec.maps), list(rec.comm)))
    t.ok(spin in rec.buildids, what + ": the build-id of the program is there",
         repr(rec.buildids))


# ---- record, SIGKILL at random moments -------------------------------------
for k in range(3):
    out = os.path.join(work, "k%d.eqp" % k)
    p = start_record(out, 8000, "fork" if k == 2 else "no")
    tmp = "%s.tmp.%d" % (out, p.pid)
    # wait until the file holds at least one sample chunk, then a random moment
    wait_for(lambda: os.path.exists(tmp) and os.path.getsize(tmp) > 40000)
    time.sleep(rng.uniform(0.0, 1.5))
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    what = "record killed with SIGKILL (moment %d)" % k
    t.ok(os.path.exists(tmp) and not os.path.exists(out),
         what + ": the unfinished recording is %s" % os.path.basename(tmp),
         repr(os.listdir(work)))
    r = subprocess.run([EQPROF, "report", tmp, "--by", "proc", "--format", "csv"],
                       capture_output=True, text=True)
    t.ok(r.returncode == 0 and "unfinished recording" in r.stderr and "heavy" in r.stdout,
         what + ": eqprof report reads it and says it is unfinished", r.stderr + r.stdout[:500])
    rec = eqp.read(tmp)
    t.ok(not rec.has_end, what + ": no END chunk (it was not closed)")
    check_prefix(rec, what)
    os.unlink(tmp)

# ---- record, SIGINT and SIGTERM stop it cleanly --------------------------------
for sig in (signal.SIGINT, signal.SIGTERM):
    name = signal.Signals(sig).name
    out = os.path.join(work, "stop-%s.eqp" % name)
    truth = os.path.join(work, "truth-%s" % name)
    env = dict(os.environ, SPIN_TRUTH=truth)
    p = subprocess.Popen([EQPROF, "record", "-t", "1kHz", "-q", "-o", out, "--", spin,
                          "60000"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=env, start_new_session=True)
    tmp = "%s.tmp.%d" % (out, p.pid)
    wait_for(lambda: os.path.exists(tmp) and os.path.getsize(tmp) > 40000)
    time.sleep(rng.uniform(0.0, 1.0))
    os.kill(p.pid, sig)  # the recorder only, not its process group
    try:
        _, err = p.communicate(timeout=60)
        stopped = True
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        stopped = False
    what = "record stopped with %s" % name
    t.ok(stopped, what + ": the recorder stops instead of waiting for the command")
    t.ok(p.returncode == 128 + sig, what + ": exit status %d" % (128 + sig),
         "status %r: %s" % (p.returncode, err.decode()))
    t.ok(subprocess.run(["pgrep", "-s", str(p.pid)], capture_output=True).returncode != 0,
         what + ": the command it started was ended")
    t.ok(os.path.exists(out) and not os.path.exists(tmp), what + ": the recording has its final name")
    rec = eqp.read(out) if os.path.exists(out) else eqp.Recording()
    t.ok(rec.has_end, what + ": and is finished (END chunk)")
    check_prefix(rec, what)

# ---- import and export killed at random moments -------------------------------
# A CSV big enough that the kill often comes mid-write; when the writer was
# faster, the output is complete, which is also right.
csv = os.path.join(work, "s.csv")
with open(csv, "w") as f:
    f.write("time_ns,pc,pid,tid,cpu,flags\n")
    for i in range(600000):
        f.write("%d,0x%x,1,1,0,4\n" % (1000 * i, 0x1000 + (i % 97) * 4))
conv = os.path.join(work, "conv")
os.mkdir(conv)
ref = os.path.join(conv, "ref.eqp")
subprocess.run([EQPROF, "import", "--samples", csv, "--energy", "1mJ", "-o", ref], check=True)
ref_bytes = open(ref, "rb").read()
for k, sig in enumerate([signal.SIGKILL, signal.SIGTERM, signal.SIGINT] * 2):
    name = signal.Signals(sig).name
    out = os.path.join(conv, "out.eqp")
    with open(out, "w") as f:
        f.write("the previous output\n")
    p = subprocess.Popen([EQPROF, "import", "--samples", csv, "--energy", "1mJ", "-o", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(rng.uniform(0.0, 0.6))
    p.send_signal(sig)
    p.wait()
    got = open(out, "rb").read()
    t.ok(got in (b"the previous output\n", ref_bytes),
         "import killed with %s: the output is the old one or the complete new one" % name)
    left = leftovers(conv)
    t.ok(no_leftovers(conv, ("ref.eqp", "out.eqp"), sig, p.pid, out),
         "import killed with %s: no temporary file left (SIGKILL: at most its own %s.tmp.PID)"
         % (name, os.path.basename(out)), left)
# the complete export, to compare a killed one with: a signal can come after
# the output was renamed into place and before the process exited, so a
# killed export may leave the complete file (never a part of it)
ref_csv = os.path.join(work, "ref.csv")
subprocess.run([EQPROF, "export", ref, "--format", "csv", "-o", ref_csv], check=True)
ref_csv_bytes = open(ref_csv, "rb").read()
for k, sig in enumerate([signal.SIGKILL, signal.SIGTERM, signal.SIGINT]):
    name = signal.Signals(sig).name
    out = os.path.join(conv, "out.csv")
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.Popen([EQPROF, "export", ref, "--format", "csv", "-o", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(rng.uniform(0.0, 0.6))
    p.send_signal(sig)
    p.wait()
    t.ok(not os.path.exists(out) or open(out, "rb").read() == ref_csv_bytes,
         "export killed with %s: a complete output or none" % name,
         "exit %d, %d bytes of %d" % (p.returncode, os.path.getsize(out) if os.path.exists(out) else 0,
                                      len(ref_csv_bytes)))
    left = leftovers(conv)
    t.ok(no_leftovers(conv, ("ref.eqp", "out.eqp", "out.csv"), sig, p.pid, out),
         "export killed with %s: no temporary file left (SIGKILL: at most its own %s.tmp.PID)"
         % (name, os.path.basename(out)), left)

subprocess.run(["rm", "-rf", work])
t.done()
