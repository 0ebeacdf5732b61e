#!/usr/bin/env python3
"""speed.py EQPROF SPEED_REC WORK - the table of bench/speed/speed.sh.

Runs perf and eqprof in turn, BENCH_SPEED_ROUNDS rounds, and prints the
median CPU seconds (user + system of the command and what it waited for) of
each, their ratio and each figure's goal (issue 30).  Figures only.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys

eqprof, speed_rec, work = sys.argv[1:4]
rounds = int(os.environ.get("BENCH_SPEED_ROUNDS", "3"))
big = int(os.environ.get("BENCH_SPEED_BIG", "100000000"))
spread = int(os.environ.get("BENCH_SPEED_SPREAD", "3900000"))
have_perf = shutil.which("perf") is not None


def w(name):
    return os.path.join(work, name)


def run(cmd, env=None):
    """CPU seconds of cmd (and its children), its stderr."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         env=env)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("speed.py: %s failed (%d): %s" % (" ".join(cmd), p.returncode, err[-2000:]))
    return ru.ru_utime + ru.ru_stime, err


def medians(cmds):
    """{label: median CPU seconds} of the commands run in turn each round."""
    got = {k: [] for k in cmds}
    for _ in range(rounds):
        for k, cmd in cmds.items():
            got[k].append(run(cmd)[0])
    return {k: statistics.median(v) for k, v in got.items()}


def row(what, perf, eq, limit, goal):
    ps = "%.3f s" % perf if perf is not None else "-"
    ratio = " (%.2fx)" % (eq / perf) if perf else ""
    ls = limit if isinstance(limit, str) else "%.3f s" % limit
    print("| %s | %s | %.3f s%s | %s | %s |" % (what, ps, eq, ratio, ls, goal))


def eq_lost(path):
    # (the flat view's header says the losses; with call chains the
    # default view is the tree, whose header does not)
    out = subprocess.run([eqprof, "report", path, "--by", "proc", "--no-children", "-o",
                          w("lost.txt")],
                         capture_output=True, text=True, check=True)
    with open(w("lost.txt")) as f:
        m = re.search(r"lost (\d+)", f.read())
    return int(m.group(1)) if m else -1


def eq_samples(path):
    with open(w("n.txt"), "w"):
        pass
    subprocess.run([eqprof, "report", path, "--by", "proc", "--no-children", "-o", w("n.txt")],
                   check=True,
                   capture_output=True)
    with open(w("n.txt")) as f:
        m = re.search(r"# (\d+) samples", f.read())
    return int(m.group(1))


def perf_lost(path):
    out = subprocess.run(["perf", "report", "--stats", "-i", path], capture_output=True,
                         text=True).stdout
    m = re.search(r"LOST events:\s+(\d+)", out)
    return int(m.group(1)) if m else 0


def recorder(label, perf_opts, eq_opts, out_perf, out_eq):
    """Recorder CPU: the run's CPU less the program's own (it prints it)."""
    load = [w("load")]
    cost = {"perf": [], "eqprof": []}
    for _ in range(rounds):
        for tool, cmd in (("perf", ["perf", "record", "-q", *perf_opts, "-o", out_perf, "--", *load]),
                          ("eqprof", [eqprof, "record", "-q", *eq_opts, "-o", out_eq, "--", *load])):
            if tool == "perf" and not have_perf:
                continue
            cpu, err = run(cmd)
            m = re.search(r"load cpu ([0-9.]+)", err)
            cost[tool].append(cpu - float(m.group(1)))
    pc = statistics.median(cost["perf"]) if cost["perf"] else None
    ec = statistics.median(cost["eqprof"])
    lost = "lost %d of %d" % (eq_lost(out_eq), eq_samples(out_eq))
    if have_perf:
        lost += ", perf lost %d" % perf_lost(out_perf)
    row("recorder CPU, %s (%s)" % (label, lost), pc, ec, "<= perf, 0 lost", "<= perf")


print("bench/speed: eqprof beside perf, median CPU seconds of %d interleaved rounds" % rounds)
print("| what | perf | eqprof | limit | goal |")
print("|---|---|---|---|---|")

recorder("--call-graph dwarf at 4 kHz", ["-F", "4000", "--call-graph", "dwarf"],
         ["-t", "4000", "--call-graph", "dwarf"], w("dwarf.data"), w("dwarf.eqp"))
recorder("-g at 20 kHz", ["-F", "20000", "-g"], ["-t", "20000", "-g"], w("g.data"), w("g.eqp"))


def report_vs_read(label, path, n):
    m = medians({"read": [speed_rec, "--read", path],
                 "proc": [eqprof, "report", path, "--by", "proc", "-o", w("r.txt")]})
    row("`report --by proc`, %s (%.1f M samples/s)" % (label, n / m["proc"] / 1e6), None,
        m["proc"], m["read"], "<= %s reading the file" % ("1.5x" if "64" in label else "5x"))
    return m["proc"]


run([speed_rec, w("funcs"), str(big), "64", w("big.eqp")])
report_vs_read("%d M samples at 64 pcs" % (big // 1000000), w("big.eqp"), big)
os.unlink(w("big.eqp"))

run([speed_rec, w("funcs"), str(spread), "320000", w("spread.eqp")])
proc = report_vs_read("%.1f M samples over 5,000 functions (320 k pcs)" % (spread / 1e6),
                      w("spread.eqp"), spread)
views = {"--sort comm,dso,sym": ["--sort", "comm,dso,sym"], "--by line": ["--by", "line"],
         "--symbol 'f1*'": ["--symbol", "f1*"]}
m = medians({k: [eqprof, "report", w("spread.eqp"), *v, "-o", w("r.txt")]
             for k, v in views.items()})
for k in views:
    row("`report %s`, the same" % k, None, m[k], proc, "<= 2x --by proc")

# The -g recording at 20 kHz: --children and the Chrome export.
pc = {}
if have_perf:
    pc = medians({"children": ["perf", "report", "--children", "-i", w("g.data"), "--stdio"],
                  "json": ["perf", "data", "convert", "-i", w("g.data"), "--force",
                           "--to-json", w("g.json")]})
m = medians({"proc": [eqprof, "report", w("g.eqp"), "--by", "proc", "--no-children", "-o",
                       w("r.txt")],
             "children": [eqprof, "report", w("g.eqp"), "--children", "-o", w("r.txt")],
             "chrome": [eqprof, "export", w("g.eqp"), "--format", "chrome", "-o", w("c.json")]})
n = eq_samples(w("g.eqp"))
row("`report --children`, %d samples with -g" % n, pc.get("children"), m["children"],
    m["proc"], "<= 2x --by proc")
row("`export --format chrome` of it (perf: `perf data convert --to-json`)", pc.get("json"),
    m["chrome"], "-", "<= perf")
