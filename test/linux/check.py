#!/usr/bin/env python3
"""check.py - judges what the QEMU guest (guest-init.sh) left in OUT.

    check.py OUT ROOT FIRST_TAP_NUMBER

OUT is the guest's /out, ROOT the initramfs tree (the guest's files, for
symbolization), FIRST_TAP_NUMBER where this script's TAP numbering starts.
Prints TAP lines (no plan) and exits 0; the caller prints the plan.

Expected values come from what the guest counted independently of the
module (edges fired by eqedge, toggles made by the shell) or from the
configuration (rate and jitter), never from how fast the guest ran.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guestcheck import *  # noqa: E402,F401,F403  (the shared checks)
import guestcheck  # noqa: E402

guestcheck.init(sys.argv[1], sys.argv[2], int(sys.argv[3]))
OUT, ROOT, EQPROF = guestcheck.OUT, guestcheck.ROOT, guestcheck.EQPROF


# ---- 1. energy-driven, hard-irq edges while the spinner runs --------------
st = kv("energy.stats")
smp = samples("energy.bin")
fired = st.get("fired", -1)
tap(fired == 2000 and st.get("samples", 0) + st.get("dropped", 0) == fired and len(smp) == st.get("samples"),
    f"energy: {fired} edges gave {len(smp)} samples + {st.get('dropped')} counted losses",
    open(path("energy.stats")).read() if os.path.exists(path("energy.stats")) else "no energy.stats")
bad = seq_problems(smp, st) if st else ["no statistics"]
tap(not bad, "energy: seq complete on every CPU ring, every gap flagged EQ_F_LOST", "\n".join(bad))
tap(smp and all(x["flags"] & F_ENERGY and not x["flags"] & F_APPROX for x in smp),
    "energy: every sample EQ_F_ENERGY with the interrupted registers (no EQ_F_PC_APPROX)")
tap(st.get("irq_threaded") == 0 and "hardirq" in str(st.get("source_name")),
    f"energy: the GPIO IRQ is taken in hard interrupt context ({st.get('source_name')})")
pid = pid_of("espin.pid")
rows, raw = report("energy.bin", "espin.maps", pid, "spinner")
tap(rows is not None and spin_share_ok(rows, smp, pid),
    f"energy: eqprof report puts the spinner's samples in its functions ({spin_summary(rows, smp, pid)})", raw)

# ---- 2. energy-driven through gpio-sim's own pull path (irq_work) ----------
st = kv("pull.stats")
smp = samples("pull.bin")
tap(st.get("toggled") == 200 and st.get("samples", 0) + st.get("dropped", 0) == 200 and len(smp) == st.get("samples"),
    f"gpio-sim pull: {st.get('toggled')} edges gave {len(smp)} samples + {st.get('dropped')} losses")
bad = seq_problems(smp, st) if st else ["no statistics"]
tap(not bad, "gpio-sim pull: seq complete", "\n".join(bad))
napprox = sum(1 for x in smp if x["flags"] & F_APPROX)
tap(napprox == st.get("approx") and all(x["pc"] or x["flags"] & F_KERNEL for x in smp),
    f"gpio-sim pull: {napprox} samples without interrupt registers, flagged EQ_F_PC_APPROX and counted")

# ---- 3. a reader that dies --------------------------------------------------
busy = open(path("busy.txt")).read() if os.path.exists(path("busy.txt")) else ""
tap("busy" in busy.lower(), "a second open of /dev/eqprof is refused while a reader holds it", busy)
st = kv("afterkill.stats")
tap(st.get("running") == 0 and st.get("samples", 0) > 0,
    "a reader killed with SIGKILL stops its session; the module stays usable", str(st))

n = kv("pollwait.txt").get("woke_with")
tap(n is not None and 1 <= n < 256,
    f"poll(2) with no timeout wakes on wake_ms, with {n} samples waiting (fewer than wake_samples)")

# ---- 4. time-driven: rate, idle, kernel symbols ----------------------------
st = kv("idle.stats")
smp = samples("idle.bin")
bad = rate_problems(smp, st, 300, 5) if st else ["no statistics"]
tap(not bad, "time 300 Hz +-5%: every CPU's rate (missed periods counted) inside 285-315 Hz", "\n".join(bad))
bad = seq_problems(smp, st) if st else ["no statistics"]
tap(not bad, "time: seq complete", "\n".join(bad))
idle = [x for x in smp if x["flags"] & F_IDLE]
tap(len(idle) >= 0.5 * len(smp) and all(x["pid"] == 0 and x["flags"] & F_KERNEL for x in idle),
    f"time, idle guest: {len(idle)} of {len(smp)} samples flagged idle (pid 0, kernel)")
syms = kallsyms()
names = [symbol(syms, x["pc"]) or "" for x in idle]
n_idle_fn = sum(1 for n in names if "idle" in n or "halt" in n)
tap(idle and n_idle_fn >= 0.9 * len(idle),
    f"time, idle guest: {n_idle_fn} of {len(idle)} idle pcs are in the kernel's idle functions",
    "\n".join(sorted(set(names))[:20]))

st = kv("tspin.stats")
smp = samples("tspin.bin")
bad = rate_problems(smp, st, 1000, 5) if st else ["no statistics"]
tap(not bad, "time 1 kHz +-5%: every CPU's rate inside 950-1050 Hz", "\n".join(bad))
pid = pid_of("tspin.stats")
rows, raw = report("tspin.bin", "tspin.maps", pid, "spinner", ["--exclude-idle"])
tap(rows is not None and spin_share_ok(rows, smp, pid),
    f"time: eqprof report puts the spinner's samples in its functions ({spin_summary(rows, smp, pid)})", raw)
kern = {k: v for k, v in (rows or {}).items() if v[0] == "[kernel.kallsyms]"}
nk = sum(1 for x in smp if x["flags"] & F_KERNEL and not x["flags"] & F_IDLE)
named = sum(v[1] for k, v in kern.items() if not k.startswith("0x") and k != "[unknown]")
tap(nk > 0 and named == nk,
    f"time: all {nk} non-idle kernel samples symbolize to kernel functions on the host "
    f"({', '.join(sorted(kern)[:5])}...)", raw)

# ---- 5. overflow: a 32-sample ring, no reader ------------------------------
s1, s2 = kv("ovf1.stats"), kv("ovf2.stats")
f1, f2 = kv("ovf1.fire").get("fired"), kv("ovf2.fire").get("fired")
b1, b2 = samples("ovf1.bin"), samples("ovf2.bin")
tap(f1 == 500 and s1.get("samples") == 32 and s1.get("dropped") == 468,
    f"overflow: 500 edges into a 32-sample ring: {s1.get('samples')} stored, {s1.get('dropped')} dropped and counted")
tap([x["seq"] for x in b1] == list(range(32)) and not any(x["flags"] & F_LOST for x in b1),
    "overflow: the stored samples are seq 0-31")
tap(f2 == 10 and s2.get("samples") == 42 and s2.get("dropped") == 468 and
    [x["seq"] for x in b2] == list(range(500, 510)) and
    [bool(x["flags"] & F_LOST) for x in b2] == [True] + [False] * 9,
    "overflow: after draining, the next sample is seq 500 flagged EQ_F_LOST: the loss is visible in seq, flag and count",
    f"{s2} {[(x['seq'], x['flags']) for x in b2]}")

# ---- 6. unload while sampling, and the kernel log --------------------------
log = open(path("guest.log")).read() if os.path.exists(path("guest.log")) else ""
tap(all(m in log for m in ("UNLOADED-ENERGY", "UNLOADED-TIME", "RELOADED")),
    "unload while edges and hrtimers fire, then reload: every step succeeded")
dmesg = open(path("dmesg.txt")).read() if os.path.exists(path("dmesg.txt")) else ""
splat = [line for line in dmesg.splitlines()
         if re.search(r"BUG:|Oops|WARNING:|cut here|lockdep|possible circular|Call Trace|general protection|"
                      r"scheduling while atomic|sleeping function called|nobody cared|stack-protector", line)]
tap(dmesg and not splat, "the guest's kernel log has no BUG, Oops, WARNING or lockdep splat", "\n".join(splat))

# ---- 7. eqprof record inside the guest, eqprof report on the host ----------


log = text("rec-e.log")
fired = kv("rec-e.out").get("fired")
rows, raw = report_file("rec-e.eqp")
kept = sum(v[1] for v in rows.values()) if rows else None
other = summary_number(log, r"(\d+) samples of other processes not kept")
lost = summary_number(log, r"lost (\d+) \(ring drops")
tap("rec-e=0" in text("guest.log") and rows is not None and fired == 1500 and
    kept is not None and other is not None and lost is not None and kept + other + lost == fired,
    f"record -e in the guest: {fired} edges = {kept} samples kept + {other} of other processes + {lost} lost",
    log + raw)
# (as spin_share_ok: its user samples, whatever share of all its samples
# the machine's interrupt work leaves them)
fn_ok, n_fn, n_user = user_fn_ok(rows)
tap(fn_ok,
    f"record -e: eqprof report on the host puts {n_fn} of the spinner's {n_user} user samples "
    f"({kept} in all) in its functions", raw)
tap("own share" in log and "gpio eqsim:3 rising hardirq" in log,
    "record -e reports its source, losses and its own share of the samples", log)

log = text("rec-lossy.log")
fired = kv("rec-lossy.out").get("fired")
rows, raw = report_file("rec-lossy.eqp")
m = re.search(r"lost (\d+) \(ring drops (\d+), seq gaps (\d+)\)", log)
lost, drops, gaps = (int(x) for x in m.groups()) if m else (None, None, None)
# the table header counts every sample (the rows leave out those right after a loss)
r = subprocess.run([EQPROF, "report", path("rec-lossy.eqp")], capture_output=True, text=True)
in_file = re.search(r"lost (\d+)", r.stdout)
m = re.search(r"# (\d+) samples", r.stdout)
kept = int(m.group(1)) if m else None
tap("rec-lossy=0" in text("guest.log") and fired == 3000 and kept is not None and lost is not None and
    kept + lost == fired and lost == drops == gaps and in_file and int(in_file.group(1)) == lost,
    f"record -e -a, 20 kHz edges into 32-sample rings: {fired} edges = {kept} samples + {lost} lost; "
    f"ring drops {drops} = seq gaps {gaps} = the recording's lost count", log + raw + r.stdout[:300])

log = text("rec-ta.log")
rows, raw = report_file("rec-ta.eqp")
tap("rec-ta=0" in text("guest.log") and rows is not None and "eqprof module's hrtimers" in log,
    "record -t -a --duration in the guest uses the module's hrtimers and writes a recording", log + str(raw))
rows = rows or {}
kern = {k: v for k, v in rows.items() if v[0] == "[kernel.kallsyms]"}
unnamed = sum(v[1] for k, v in kern.items() if k.startswith("0x") or k == "[unknown]")
tap(len(kern) >= 3 and unnamed == 0,
    f"record -t -a: kernel samples symbolize on the host through the embedded kallsyms ({len(kern)} functions, e.g. {', '.join(sorted(kern)[:4])})",
    raw)
n_fn = sum(v[1] for k, v in rows.items() if k in ("spin_heavy", "spin_light"))
tap(n_fn > 0 and rows.get("[idle]", (0, 0))[1] > 0,
    f"record -t -a: the whole system: spinner functions ({n_fn}), idle ({rows.get('[idle]', (0, 0))[1]}) and the kernel", raw)
share = re.search(r"own share: ([0-9.]+)%", log)
tap(share is not None and float(share.group(1)) < 50,
    f"record -t -a reports its own share of the samples ({share.group(1) if share else '?'}%)", log)

log = text("rec-perf.log")
rows, raw = report_file("rec-perf.eqp")
fn_ok, n_fn, n_user = user_fn_ok(rows)
tap("rec-perf=0" in text("guest.log") and "perf's cpu-clock" in log and fn_ok,
    f"record -t with the module unloaded says it uses perf's cpu-clock; {n_fn} of the spinner's "
    f"{n_user} user samples in its functions", log + str(raw))

# 8. record --events: power states and device requests from the
# tracepoints, against what devload (test/linux/devload.c) says it did.
CHUNK = struct.Struct("<4sIQ")


def eqp_chunks(name):
    try:
        d = open(path(name), "rb").read()
    except OSError:
        return
    o = 16
    while o + 16 <= len(d):
        t, _, n = CHUNK.unpack_from(d, o)
        yield t, d[o + 16:o + 16 + n]
        o = (o + 16 + n + 4 + 7) & ~7
        if t == b"END ":
            break


def eqp_meta(name):
    for t, p in eqp_chunks(name):
        if t == b"HEAD":
            tl = struct.unpack_from("<I", p, 40)[0]
            xl = struct.unpack_from("<I", p, 44 + tl)[0]
            extra = p[48 + tl:48 + tl + xl].decode()
            return dict(line.split("=", 1) for line in extra.splitlines() if "=" in line)
    return {}


DREQ = struct.Struct("<QQQIIHHI")
PSTA = struct.Struct("<QHHI")


def dreqs(name):
    return [dict(zip(("issue", "complete", "pc", "pid", "tid", "device", "flags", "bytes"),
                     DREQ.unpack_from(p, 8 + 40 * i)))
            for t, p in eqp_chunks(name) if t == b"DREQ" for i in range(struct.unpack_from("<I", p)[0])]


def pstates(name):
    return [dict(zip(("time", "cpu", "kind", "value"), PSTA.unpack_from(p, 8 + 16 * i)))
            for t, p in eqp_chunks(name) if t == b"PSTA" for i in range(struct.unpack_from("<I", p)[0])]


def truth_of(name):
    m = re.search(r"pid=(\d+) tid=(\d+) writes=(\d+) write_bytes=(\d+) dgrams=(\d+) dgram_payload=(\d+)",
                  text(name))
    return dict(zip(("pid", "tid", "writes", "write_bytes", "dgrams", "payload"),
                    map(int, m.groups()))) if m else None


ALL_EVENTS = ("power:cpu_frequency,power:cpu_idle,block:block_rq_issue,block:block_rq_complete,"
              "net:net_dev_xmit,block:block_rq_insert")
NULLB_NS = 250000   # null_blk completion_nsec in guest-init.sh
# devload's requests wait in its plug until it sleeps; a kblockd worker
# issues them: the cause is the task that queued them (block_rq_insert)
for rec, what in (("rec-ev", "record -t -a"), ("rec-eva", "record -e -a")):
    tr = truth_of(rec + ".out")
    meta = eqp_meta(rec + ".eqp")
    devs = {v: int(k[7:]) for k, v in meta.items() if k.startswith("device:")}
    log = text(rec + ".log")
    tap(f"{rec}=0" in text("guest.log") and tr is not None and meta.get("events") == ALL_EVENTS and
        "nullb0" in devs and "lo" in devs and "events_missing" not in meta,
        f"{what}: every event logged, devices named in the header ({', '.join(f'{n}={d}' for n, d in sorted(devs.items(), key=lambda x: x[1]))})",
        log + str(meta))
    if tr is None or "nullb0" not in devs or "lo" not in devs:
        continue
    rq = dreqs(rec + ".eqp")
    blk = [r for r in rq if r["device"] == devs["nullb0"]]
    mine = [r for r in blk if r["pid"] == tr["pid"]]
    # O_DIRECT writes waited for one at a time, 4 KiB each (below null_blk's
    # max_sectors): nothing to merge or split, so the counts are exact
    tap(len(mine) == tr["writes"] == len(blk) and sum(r["bytes"] for r in mine) == tr["write_bytes"] and
        all(r["flags"] & 1 and r["bytes"] == 4096 and r["tid"] == tr["tid"] for r in mine),
        f"{what}: {len(mine)} nullb0 requests of devload's pid {tr['pid']} ({sum(r['bytes'] for r in mine)} bytes, "
        f"all writes), devload made {tr['writes']} ({tr['write_bytes']} bytes); {len(blk) - len(mine)} of other pids",
        str(blk[:5]) + " ... " + log)
    svc = sorted(r["complete"] - r["issue"] for r in blk)
    # null_blk's timer completes a request completion_nsec after its issue
    tap(svc and svc[0] >= NULLB_NS and all(r["complete"] >= r["issue"] for r in rq),
        f"{what}: every completion at or after its issue; nullb0 service {svc[0] / 1e3 if svc else 0:.0f} us to "
        f"{svc[-1] / 1e3 if svc else 0:.0f} us (median {svc[len(svc) // 2] / 1e3 if svc else 0:.0f} us), "
        f"none under null_blk's {NULLB_NS / 1e3:.0f} us", svc[:10])
    pcs = [r["pc"] for r in mine]
    tap(pcs and all(0x400000 <= pc < 0x1000000 for pc in pcs),
        f"{what}: each request's pc is devload's user pc (static, non-PIE: 0x400000 up; "
        f"{len(set(pcs))} distinct, e.g. 0x{pcs[0] if pcs else 0:x})", [hex(p) for p in pcs[:10]])
    lo = [r for r in rq if r["device"] == devs["lo"] and r["pid"] == tr["pid"]]
    # on lo each datagram is one packet: payload + UDP (8) + IPv4 (20) +
    # the Ethernet header lo carries (14)
    tap(len(lo) == tr["dgrams"] and all(r["bytes"] == tr["payload"] + 42 and r["issue"] == r["complete"]
                                        for r in lo),
        f"{what}: {len(lo)} lo packets of devload of {lo[0]['bytes'] if lo else 0} bytes; devload sent "
        f"{tr['dgrams']} datagrams of {tr['payload']} bytes (+ 42 bytes of headers)", str(lo[:3]))
    ps = pstates(rec + ".eqp")
    idle = [p for p in ps if p["kind"] == 2]
    per_cpu = {c: sum(1 for p in idle if p["cpu"] == c) for c in (0, 1)}
    # cpu0 runs the spinner (it may never idle), cpu1 idles between requests
    tap(per_cpu[1] > 2 * tr["writes"] and all(p["kind"] in (1, 2) for p in ps) and
        {p["value"] for p in idle} == {0, 1},
        f"{what}: {len(idle)} cpu_idle events ({per_cpu[0]} on cpu0 of the spinner, {per_cpu[1]} on cpu1; "
        f"no cpufreq in QEMU: {len(ps) - len(idle)} frequency events), states C0 and C1 (default_idle)",
        str(ps[:10]))

r = subprocess.run([EQPROF, "report", path("rec-ev.eqp"), "--by", "exe,cstate", "--format", "csv"],
                   capture_output=True, text=True)
rows = {}
for line in r.stdout.splitlines()[1:]:
    f = line.split(",")
    rows[f[0]] = int(f[2])
spin_c0 = rows.get("spinner [C0]", 0)
spin_other = sum(v for k, v in rows.items() if k.startswith("spinner [") and k != "spinner [C0]")
idle_c1 = rows.get("[idle] [C1]", 0)
idle_all = sum(v for k, v in rows.items() if k.startswith("[idle] ["))
# an idle sample is in C0 only between cpu_idle's exit and the next entry,
# "idle" (depth not logged) only before a CPU's first event
tap(r.returncode == 0 and spin_c0 > 100 and spin_other == 0 and idle_all > 100 and idle_c1 >= 0.9 * idle_all,
    f"report --by exe,cstate on record -t -a: the spinner's {spin_c0} samples in C0, "
    f"{idle_c1} of the idle task's {idle_all} in C1", r.stdout + r.stderr)

meta = eqp_meta("rec-eva.eqp")
tr = truth_of("rec-eva.out")
with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "devices.model")
    with open(model, "w") as f:
        for k, v in meta.items():
            if k.startswith("device:"):
                f.write(f"{v} active {'2W' if v == 'nullb0' else '0W'} tail 0s 0W idle 0W\n")
    r = subprocess.run([EQPROF, "report", path("rec-eva.eqp"), "--attribute", "async",
                        "--device-model", model, "--format", "json"], capture_output=True, text=True)
try:
    a = json.loads(r.stdout)
except ValueError:
    a = {"rows": [], "moves": [], "devices": []}
dev = [d for d in a["devices"] if d["name"] == "nullb0"]
blk = [q for q in dreqs("rec-eva.eqp") if "device:%d" % q["device"] in meta and
       meta["device:%d" % q["device"]] == "nullb0"]
# the model's energy, computed here from the requests: 2 W while one is in
# service (they do not overlap: each write is waited for)
want = 2.0 * sum(q["complete"] - q["issue"] for q in blk) / 1e9
to = {}
for m in a["moves"]:
    to[m["to"]] = to.get(m["to"], 0) + m["energy_j"]
rows = {x["name"]: x for x in a["rows"]}
tap(r.returncode == 0 and dev and abs(dev[0]["energy_j"] - want) <= 0.01 * want and dev[0]["requests"] == len(blk),
    f"report --attribute async on record -e -a: nullb0's modelled energy {dev[0]['energy_j'] if dev else 0:.4f} J "
    f"= 2 W x its {len(blk)} requests' service ({want:.4f} J)", r.stdout[:800] + r.stderr)
dl = rows.get("devload", {})
own = dl.get("before_j", 0)
tap(dev and to.get("devload", 0) >= 0.5 * dev[0]["energy_j"] and "spinner" not in to and
    rows.get("spinner", {}).get("moved_out_j", 0) > 0 and set(to) == {"devload"},
    f"report --attribute async: {to.get('devload', 0):.4f} J of the disk's {dev[0]['energy_j'] if dev else 0:.4f} J "
    f"moved to devload (the writer), {rows.get('spinner', {}).get('moved_out_j', 0):.4f} J of it from the spinner; "
    f"nothing moved to the spinner", str(a["moves"]) + r.stderr)
