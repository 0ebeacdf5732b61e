#!/usr/bin/env python3
"""calls.py - the simulator writes call stacks ("calls" in a scenario).

A copy of the built-in Game scenario (20 s, more memcpy) gains a call
structure: memcpy is called by game_logic (weight 1) and render_sprites
(weight 3), both by main_loop.  The simulated recordings must carry a chain
for every sample of those procedures: main_loop's inclusive samples are
exactly game_logic's plus render_sprites' (every chain through them ends
there), render_sprites' share of memcpy's samples is 3/4 within 3.89
binomial standard errors (false-failure rate 1e-4), the folded stacks add
up to the report, a scenario without "calls" writes no chains, and bad
"calls" lines are refused with their file and line.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import Tap, eqprof  # noqa: E402

Z = 3.89
CALLS = """
calls game_logic memcpy 1
calls render_sprites memcpy 3
calls main_loop game_logic
calls main_loop render_sprites
"""


def scenario(d, extra, with_main=True):
    rc, text, err = eqprof("sim", "--print", "Game")
    assert rc == 0, err
    text = text.replace("phase Game 54s", "phase Game 20s").replace("run xmasrush memcpy 3", "run xmasrush memcpy 30")
    if with_main:
        text = text.replace("  proc mix_sound ", "  proc main_loop          0x08000 0x0200 700mW\n  proc mix_sound ", 1)
    path = os.path.join(d, "g%d.scn" % len(os.listdir(d)))
    with open(path, "w") as f:
        f.write(text + extra)
    return path


def main():
    t = Tap()
    d = tempfile.mkdtemp(prefix="eqprof-simcalls-")
    scn = scenario(d, CALLS)
    out = os.path.join(d, "out")
    rc, _, err = eqprof("sim", scn, "-o", out, "-q", "--seed", "7")
    t.ok(rc == 0, "eqprof sim of a scenario with calls", err)
    for kind in ("energy", "time"):
        rec = os.path.join(out, kind + ".eqp")
        rc, o, err = eqprof("report", rec, "--format", "json")
        doc = json.loads(o) if rc == 0 else {"rows": []}
        rows = {r["name"]: r for r in doc["rows"]}

        def kids(n):
            return rows.get(n, {}).get("children_samples", 0)

        def own(n):
            return rows.get(n, {}).get("self_samples", 0)
        t.ok(doc.get("children") is True and kids("main_loop") == kids("game_logic") + kids("render_sprites") > 0,
             "%s: main_loop's inclusive samples are exactly game_logic's plus render_sprites'" % kind,
             {k: (own(k), kids(k)) for k in rows})
        via_r, via_g, n = kids("render_sprites") - own("render_sprites"), kids("game_logic") - own("game_logic"), \
            own("memcpy")
        se = math.sqrt(0.75 * 0.25 / max(n, 1))
        t.ok(n >= 200 and via_r + via_g == n and abs(via_r / n - 0.75) <= Z * se,
             "%s: render_sprites has 3/4 of memcpy's samples (%d of %d, bound %.4f)" % (kind, via_r, n, Z * se))
        fo = os.path.join(d, kind + ".folded")
        rc, _, err = eqprof("export", rec, "--format", "folded", "-o", fo)
        stacks = {}
        for line in open(fo) if rc == 0 else []:
            k, c = line.rsplit(" ", 1)
            stacks[k] = int(c)
        t.ok(rc == 0 and sum(c for k, c in stacks.items() if k.endswith(";main_loop;render_sprites;memcpy")) == via_r,
             "%s: folded stacks ...;main_loop;render_sprites;memcpy add up to the report" % kind, err)

    # the same seed, the same chains
    out2 = os.path.join(d, "out2")
    eqprof("sim", scn, "-o", out2, "-q", "--seed", "7")
    a = eqprof("export", os.path.join(out, "energy.eqp"), "--format", "folded", "-o", "-")[1]
    b = eqprof("export", os.path.join(out2, "energy.eqp"), "--format", "folded", "-o", "-")[1]
    t.ok(a and a == b, "a run is repeatable: the same seed gives the same stacks")

    # no calls: no chains
    plain = os.path.join(d, "plain")
    rc, _, err = eqprof("sim", scenario(d, "", False), "-o", plain, "-q")
    rc2, o, _ = eqprof("report", os.path.join(plain, "energy.eqp"), "--format", "json")
    t.ok(rc == 0 and rc2 == 0 and "children" not in json.loads(o), "a scenario without calls writes no chains", err)

    for line, want in (("calls nosuch memcpy", "no proc named 'nosuch'"),
                       ("calls memcpy memcpy", "calling itself"),
                       ("calls game_logic memcpy -1", "weight '-1' is not a number above 0"),
                       ("calls game_logic", "usage: calls CALLER CALLEE [WEIGHT]")):
        bad = scenario(d, "\n" + line + "\n")
        rc, _, err = eqprof("sim", bad, "-o", os.path.join(d, "bad"), "-q")
        t.ok(rc != 0 and want in err and os.path.basename(bad) in err and not os.path.exists(os.path.join(d, "bad")),
             "'%s' is refused: %s" % (line, want), err)
    shutil.rmtree(d)
    t.done()


main()
