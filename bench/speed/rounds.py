"""rounds.py - the bench/speed scripts' timing: commands run in turn, round
after round, each round's CPU seconds (user + system of the command and
what it waited for) kept, their medians given (speed.py, ablate.sh).

A command that fails stops the script, named after sys.argv[0]."""
import os
import statistics
import subprocess
import sys
import time


def run(cmd, out=None, wall=None):
    """CPU seconds of cmd (and its children), its stderr; stdout to out;
    its wall seconds appended to the list wall."""
    with open(out or os.devnull, "w") as o:
        t = time.monotonic()
        p = subprocess.Popen(cmd, stdout=o, stderr=subprocess.PIPE, text=True)
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        if wall is not None:
            wall.append(time.monotonic() - t)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit("%s: %s failed (%d): %s" % (os.path.basename(sys.argv[0]), " ".join(cmd), code,
                                             err[-2000:]))
    return ru.ru_utime + ru.ru_stime, err


def medians(cmds, n, perf_rounds=None):
    """{label: median CPU seconds} of the commands run in turn each of n
    rounds (those labelled "perf ..." in the first perf_rounds only), and the
    median wall seconds of each as "LABEL wall"; a command given as
    (cmd, out) keeps its first round's stdout in out."""
    got = {k: [] for k in cmds}
    walls = {k + " wall": [] for k in cmds}
    for r in range(n):
        for k, cmd in cmds.items():
            if cmd is None or (perf_rounds is not None and k.startswith("perf ") and
                               r >= perf_rounds):
                continue
            cmd, out = cmd if isinstance(cmd, tuple) else (cmd, None)
            got[k].append(run(cmd, out if r == 0 else None, walls[k + " wall"])[0])
    got.update(walls)
    return {k: statistics.median(v) if v else None for k, v in got.items()}
