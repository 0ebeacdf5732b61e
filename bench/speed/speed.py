#!/usr/bin/env python3
"""speed.py EQPROF SPEED_REC WORK - the table of bench/speed/speed.sh.

Runs perf and eqprof in turn, BENCH_SPEED_ROUNDS rounds, and prints the
median CPU seconds (user + system of the command and what it waited for) of
each, their ratios, each figure's goal (issue 30) and whether it is met.
Figures only: nothing here fails on a figure.

perf reads the same samples as eqprof: speed_rec writes each synthetic
recording twice, as .eqp and as perf.data (bench/speed/perf_data.c), and the
script checks that perf report and eqprof report give every (comm, dso, sym)
row the same number of samples before it times them.
"""
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rounds import medians as rounds_medians, run  # noqa: E402

eqprof, speed_rec, work = sys.argv[1:4]
rounds = int(os.environ.get("BENCH_SPEED_ROUNDS", "3"))
big = int(os.environ.get("BENCH_SPEED_BIG", "100000000"))
spread = int(os.environ.get("BENCH_SPEED_SPREAD", "3900000"))
g_rounds = int(os.environ.get("BENCH_SPEED_G_ROUNDS", "216000"))
have_perf = shutil.which("perf") is not None
verdicts = []


def w(name):
    return os.path.join(work, name)


def record(*args):
    """speed_rec ARGS: a recording written, then on disk before anything is
    timed: when speed_rec has written the 100 M recordings (8 GB) some 1.9
    GB are still to be written back, 3 s of the kernel's work here, which
    the first round's first commands would share the machine with."""
    run([speed_rec, *args])
    os.sync()


def medians(cmds, n=None, perf_rounds=None):
    """rounds.medians, BENCH_SPEED_ROUNDS rounds unless n says."""
    return rounds_medians(cmds, n or rounds, perf_rounds)


def secs(v):
    return "%.3f s" % v


def times(r):
    return ("%.3fx" if r < 0.1 else "%.2fx") % r


def row(what, perf, eq, limit=None, limit_name="", goal="", met=None, short=None, wall=None):
    """One line of the table: perf's figure, eqprof's (and its ratio to
    perf's, and its wall time), the limit (and eqprof's ratio to it), the
    goal and the verdict."""
    ps = secs(perf) if perf is not None else "-"
    notes = ([times(eq / perf) + " perf"] if perf else []) + \
        (["wall %.3f s" % wall] if wall is not None else [])
    es = secs(eq) + (" (%s)" % "; ".join(notes) if notes else "")
    ls = "-"
    if limit is not None:
        ls = "%s%s (%s)" % (secs(limit), " " + limit_name if limit_name else "", times(eq / limit))
    verdict = "" if met is None else ("met" if met else "**missed**")
    if met is not None:
        verdicts.append((short or what.split(" (")[0], goal, met))
    print("| %s | %s | %s | %s | %s | %s |" % (what, ps, es, ls, goal, verdict), flush=True)


def eq_header(path):
    """(samples, lost) from the flat view's header (with call chains the
    default view is the tree, whose header does not say them)."""
    run([eqprof, "report", path, "--by", "proc", "--no-children", "-o", w("n.txt")])
    with open(w("n.txt")) as f:
        text = f.read()
    n = re.search(r"# (\d+) samples", text)
    lost = re.search(r"lost (\d+)", text)
    return int(n.group(1)) if n else -1, int(lost.group(1)) if lost else -1


def perf_stats(path):
    """(samples, lost) from perf report --stats."""
    out = subprocess.run(["perf", "report", "--stats", "-i", path], capture_output=True,
                         text=True).stdout
    n = re.search(r"SAMPLE events:\s+(\d+)", out)
    lost = re.search(r"LOST events:\s+(\d+)", out)
    return int(n.group(1)) if n else -1, int(lost.group(1)) if lost else 0


def recorder(label, perf_opts, eq_opts, name, cmd=None):
    """Recorder CPU: the run's CPU less the program's own (it prints it;
    `sleep`, for the whole machine, uses next to none)."""
    load = cmd or [w("load")]
    cost = {"perf": [], "eqprof": []}
    out_perf, out_eq = w(name + ".data"), w(name + ".eqp")
    for _ in range(rounds):
        for tool, cmd in (("perf", ["perf", "record", "-q", *perf_opts, "-o", out_perf, "--", *load]),
                          ("eqprof", [eqprof, "record", "-q", *eq_opts, "-o", out_eq, "--", *load])):
            if tool == "perf" and not have_perf:
                continue
            cpu, err = run(cmd)
            m = re.search(r"load cpu ([0-9.]+)", err)
            cost[tool].append(cpu - (float(m.group(1)) if m else 0))
    pc = statistics.median(cost["perf"]) if cost["perf"] else None
    ec = statistics.median(cost["eqprof"])
    n, lost = eq_header(out_eq)
    what = "recorder CPU, %s: eqprof lost %d of %d samples" % (label, lost, n)
    met = lost == 0
    if have_perf:
        pn, plost = perf_stats(out_perf)
        what += ", perf %d of %d" % (plost, pn)
        met = ec <= pc and (lost == 0 or plost > 0)
    row(what, pc, ec, goal="<= perf, none lost where perf loses none", met=met,
        short="recorder " + label)


def same_shares(perf_out, eq_path):
    """perf report -n --sort comm,dso,sym's rows against eqprof's: the
    same samples in every row?  Returns a sentence."""
    p = {}
    with open(perf_out) as f:
        for line in f:
            m = re.match(r"\s+[\d.]+%\s+(\d+)\s+(\S+)\s+(\S+)\s+\[.\]\s+(\S+)", line)
            if m:
                p[(m[2], m[3], m[4])] = int(m[1])
    run([eqprof, "report", eq_path, "--sort", "comm,dso,sym", "--format", "csv", "-o",
         w("s.csv")])
    with open(w("s.csv")) as f:
        e = {(r["comm"], r["dso"], r["sym"]): int(r["samples"]) for r in csv.DictReader(f)}
    if p == e:
        return "perf report and eqprof report agree: %d (comm, dso, sym) rows, %d samples" % (
            len(e), sum(e.values()))
    diff = sorted(k for k in set(p) | set(e) if p.get(k) != e.get(k))
    return "**perf report and eqprof report DIFFER** in %d of %d rows, e.g. %s: perf %s, eqprof %s" % (
        len(diff), len(set(p) | set(e)), diff[0], p.get(diff[0]), e.get(diff[0]))


def synthetic(label, path, data, n, proc_goal, read_goal, perf_views):
    """report and its views on path beside perf report on its twin data
    (perf_views False: perf only for --by proc and --sort comm,dso,sym, the
    issue's figures, in the first round only: perf report takes a minute or
    two of CPU a view at 100 M samples, 50 times eqprof's)."""
    eq = lambda *a: [eqprof, "report", path, *a, "-o", w("r.txt")]
    pf = lambda *a: ["perf", "report", "-i", data, "--stdio", *a] if have_perf else None
    views = [  # (label, eqprof's options, perf's options)
        ("`report --sort comm,dso,sym`", ["--sort", "comm,dso,sym"], ["-n", "--sort", "comm,dso,sym"]),
        ("`report --sort sym`", ["--sort", "sym"], ["--sort", "sym"]),
        ("`report --comm funcs` (perf: `--comms funcs --sort dso,sym`)", ["--comm", "funcs"],
         ["--comms", "funcs", "--sort", "dso,sym"]),
        ("`report --symbol 'f1*'` (perf has no glob)", ["--symbol", "f1*"], None),
        ("`report --by line` (perf: see below)", ["--by", "line"], None),
    ]
    cmds = {"read": [speed_rec, "--read", path], "proc": eq("--by", "proc"),
            "perf proc": pf("--sort", "dso,sym")}
    for i, (k, eo, po) in enumerate(views):
        cmds[k] = eq(*eo)
        cmds["perf " + k] = pf(*po) if po and (perf_views or i == 0) else None
    sort = "perf " + views[0][0]
    cmds[sort] = (cmds[sort], w("perf-sort.txt")) if have_perf else None
    m = medians(cmds, perf_rounds=None if perf_views else 1)
    if have_perf:
        print("| %s: %s | | | | | |" % (label, same_shares(w("perf-sort.txt"), path)), flush=True)
    rate = n / m["proc"] / 1e6
    met = m["proc"] <= read_goal * m["read"] and (proc_goal is None or rate >= proc_goal)
    once = "" if perf_views else ", 1 round"
    row("`report --by proc`, %s (%.1f M samples/s of CPU, %.1f M/s of wall time; perf: "
        "`--sort dso,sym`%s)" % (label, rate, n / m["proc wall"] / 1e6, once),
        m.get("perf proc"), m["proc"], m["read"], "reading the file",
        "%s<= %gx reading the file" % (">= %d M samples/s, " % proc_goal if proc_goal else "",
                                      read_goal), met, "`report --by proc` on " + label,
        m["proc wall"])
    for i, (k, _, _) in enumerate(views):
        row("%s, the same%s" % (k, " (perf: 1 round)" if once and i == 0 else ""),
            m.get("perf " + k), m[k], m["proc"], "`--by proc`", "<= 2x `--by proc`",
            m[k] <= 2 * m["proc"], "%s on %s" % (k.split(" (")[0], label), m[k + " wall"])


def beside(path, n):
    """--by proc over the spread recording's samples made harder for the
    fast loops, beside --by proc over it: with the program gone (renamed
    after recording: no sample has a symbol, build.c's unres_by_row), and
    half of them idle (speed_rec idle: with the mixed recording's kernel
    samples, losses, runs and threads).  perf resolves nothing in the first
    and has no idle task in its twin of the second: not timed."""
    shutil.copy(w("funcs"), w("gone"))
    record(w("gone"), str(n), "320000", w("gone.eqp"))
    os.unlink(w("gone"))
    record(w("funcs"), str(n), "320000", w("idle.eqp"), "idle")
    eq = lambda f: [eqprof, "report", f, "--by", "proc", "-o", w("r.txt")]
    m = medians({"proc": eq(path), "gone": eq(w("gone.eqp")), "idle": eq(w("idle.eqp"))})
    for k, what in (("gone", "with the program gone (no symbol)"),
                    ("idle", "half of them idle (and kernel samples, losses, 4 threads)")):
        row("`report --by proc`, the same %s" % what, None, m[k], m["proc"],
            "`--by proc` as above", "<= 2x `--by proc`", m[k] <= 2 * m["proc"],
            "`report --by proc` %s" % what.split(" (")[0], m[k + " wall"])
        os.unlink(w(k + ".eqp"))


def srcline(label, pcs):
    """--by line beside perf report --sort srcline, on a small recording:
    perf 6.1 runs addr2line for every sample (about 150 us each here), so
    100 M samples would take hours; eqprof's --by line beside it."""
    n = int(os.environ.get("BENCH_SPEED_SRCLINE", "50000"))
    record(w("funcs"), str(n), str(pcs), w("l.eqp"), "--perf", w("l.data"))
    m = medians({"perf": ["perf", "report", "-i", w("l.data"), "--stdio", "--sort", "srcline"],
                 "line": [eqprof, "report", w("l.eqp"), "--by", "line", "-o", w("r.txt")],
                 "proc": [eqprof, "report", w("l.eqp"), "--by", "proc", "-o", w("r.txt")]}, 1)
    row("`report --by line`, %d k samples %s (perf: `--sort srcline`, 1 round)" % (n // 1000, label),
        m["perf"], m["line"], m["proc"], "`--by proc`")


print("bench/speed: eqprof beside perf, median CPU seconds (user + system) of %d interleaved rounds;"
      " report's wall seconds beside (one thread, the default: docs/guide.md, --jobs)" % rounds, flush=True)
print("| what | perf | eqprof | limit | goal | verdict |")
print("|---|---|---|---|---|---|")

recorder("plain at 4 kHz", ["-F", "4000"], ["-t", "4000"], "plain")
recorder("plain at 20 kHz", ["-F", "20000"], ["-t", "20000"], "plain20")
recorder("`-g` at 20 kHz", ["-F", "20000", "-g"], ["-t", "20000", "-g"], "g")
recorder("`--call-graph dwarf` at 4 kHz", ["-F", "4000", "--call-graph", "dwarf"],
         ["-t", "4000", "--call-graph", "dwarf"], "dwarf")
recorder("the whole machine (`-a`) at 4 kHz for 2 s", ["-a", "-F", "4000"], ["-a", "-t", "4000"],
         "all", ["sleep", "2"])

record(w("funcs"), str(big), "64", w("big.eqp"), "--perf", w("big.data"))
synthetic("%d M samples at 64 pcs" % (big // 1000000), w("big.eqp"), w("big.data"), big, 100,
          1.5, big <= 20000000)
os.unlink(w("big.eqp"))
os.unlink(w("big.data"))

record(w("funcs"), str(spread), "320000", w("spread.eqp"), "--perf", w("spread.data"))
synthetic("%.1f M samples over 5,000 functions (320 k pcs)" % (spread / 1e6), w("spread.eqp"),
          w("spread.data"), spread, None, 5, True)
os.unlink(w("spread.data"))
beside(w("spread.eqp"), spread)
if have_perf:
    srcline("at 64 pcs", 64)
    srcline("over 5,000 functions", 320000)

# The -g recording at 20 kHz: --children and the exports beside perf's peers.
g, gd = w("g.eqp"), w("g.data")
ex = lambda fmt, out: [eqprof, "export", g, "--format", fmt, "-o", w(out)]
pcmds = {}
if have_perf:
    pcmds = {"children": ["perf", "report", "--children", "-i", gd, "--stdio"],
             "chrome": ["perf", "data", "convert", "-i", gd, "--force", "--to-json", w("g.json")],
             "folded": ["perf", "script", "report", "stackcollapse", "-i", gd],
             "csv": ["perf", "script", "-i", gd, "-F", "comm,pid,tid,time,ip,sym,dso"]}
m = medians({"proc": [eqprof, "report", g, "--by", "proc", "--no-children", "-o", w("r.txt")],
             "children": [eqprof, "report", g, "--children", "-o", w("r.txt")],
             "chrome": ex("chrome", "c.json"), "folded": ex("folded", "f.txt"),
             "csv": ex("csv", "s.csv"), "pprof": ex("pprof", "p.pb.gz"),
             "callgrind": ex("callgrind", "callgrind.out"),
             **{"perf " + k: v for k, v in pcmds.items()}})
n, _ = eq_header(g)
row("`report --children`, %d samples with -g (perf: `perf report --children`)" % n,
    m.get("perf children"), m["children"], m["proc"], "`--by proc --no-children`",
    "<= 2x `--by proc`", m["children"] <= 2 * m["proc"])
for fmt, peer in (("chrome", "`perf data convert --to-json`"),
                  ("folded", "`perf script report stackcollapse`"),
                  ("csv", "`perf script -F comm,pid,tid,time,ip,sym,dso`"),
                  ("pprof", None), ("callgrind", None)):
    p = m.get("perf " + fmt) if peer else None
    row("`export --format %s` of it (perf: %s)" % (fmt, peer or "none"), p, m[fmt],
        goal="<= perf" if peer else "", met=(m[fmt] <= p) if p is not None else None)

# --children where stacks are many: the 843 k samples (the same
# program, more rounds; stacks up to 66 procedures deep), against --by proc.
gl, gld = w("gl.eqp"), w("gl.data")
run([eqprof, "record", "-q", "-t", "20000", "-g", "-o", gl, "--", w("load"), str(g_rounds)])
if have_perf:
    run(["perf", "record", "-q", "-F", "20000", "-g", "-o", gld, "--", w("load"), str(g_rounds)])
m = medians({"proc": [eqprof, "report", gl, "--by", "proc", "--no-children", "-o", w("r.txt")],
             "children": [eqprof, "report", gl, "--children", "-o", w("r.txt")],
             "perf children": ["perf", "report", "--children", "-i", gld, "--stdio"]
             if have_perf else None}, perf_rounds=1)
n, _ = eq_header(gl)
row("`report --children`, %d samples with -g, the program run %d rounds (perf: `perf report "
    "--children`, 1 round)" % (n, g_rounds), m.get("perf children"), m["children"], m["proc"],
    "`--by proc --no-children`", "<= 2x `--by proc`", m["children"] <= 2 * m["proc"])
for path in (gl, gld):
    if os.path.exists(path):
        os.unlink(path)

print("\n%d of %d goals met%s" % (sum(v[2] for v in verdicts), len(verdicts),
                                  "; missed: " + "; ".join(v[0] for v in verdicts if not v[2])
                                  if not all(v[2] for v in verdicts) else ""))
