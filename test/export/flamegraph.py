#!/usr/bin/env python3
"""flamegraph.py - scripts/flamegraph.py draws what the folded stacks say:
every frame a box whose width is its samples' share of the picture, on top
of its caller's box and inside its width; tooltips with samples, share and
energy; from a file, from standard input and from a recording (--eqp, the
energy per sample read from eqprof report); bad input named.  Exact
comparisons: nothing here is statistical."""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import EQPROF, SRC, Tap  # noqa: E402

SCRIPT = os.path.join(SRC, "scripts", "flamegraph.py")
NS = "{http://www.w3.org/2000/svg}"
FOLDED = """app;main;work;memcpy 30
app;main;work 50
app;main;ui 15
[idle];[idle];[idle] 5
"""


def boxes(svg):
    root = ET.fromstring(svg)
    out = []
    for g in root.iter(NS + "g"):
        title = g.find(NS + "title").text
        r = g.find(NS + "rect")
        out.append((title, float(r.get("x")), float(r.get("width")), float(r.get("y"))))
    return out


def svg_title(path):
    root = ET.fromstring(open(path).read())
    return next(root.iter(NS + "text")).text


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-flame-") as d:
        src = os.path.join(d, "f.folded")
        with open(src, "w") as f:
            f.write(FOLDED)
        out = os.path.join(d, "f.svg")
        p = subprocess.run([sys.executable, SCRIPT, src, "-o", out, "--per-sample", "2mJ"],
                           capture_output=True, text=True)
        t.ok(p.returncode == 0 and os.path.exists(out), "renders folded stacks", p.stderr)
        b = boxes(open(out).read())
        by = {}
        for title, x, w, y in b:
            m = re.match(r"(.+): (\d+) samples \(([\d.]+)%\), ([\d.]+) mJ$", title)
            t.ok(m is not None, "tooltip names samples, share and energy: %s" % title)
            by.setdefault(m.group(1), []).append((int(m.group(2)), x, w, y, float(m.group(4))))
        allb = by["all"][0]
        scale = allb[2] / 100
        bad = [(n, v) for n, vs in by.items() for v in vs if abs(v[2] - v[0] * scale) > 0.01 or
               abs(v[4] - 2 * v[0]) > 1e-6]
        t.ok(not bad, "every box as wide as its samples, energy = samples x 2 mJ", bad)
        t.eq((by["work"][0][0], by["memcpy"][0][0], by["main"][0][0], by["app"][0][0]),
             (80, 30, 95, 95), "a frame's samples are those of every stack through it")
        w, m, mc = by["work"][0], by["main"][0], by["memcpy"][0]
        t.ok(m[1] - 1e-6 <= w[1] and w[1] + w[2] <= m[1] + m[2] + 1e-6 and w[3] < m[3] and
             w[1] - 1e-6 <= mc[1] and mc[1] + mc[2] <= w[1] + w[2] + 1e-6 and mc[3] < w[3],
             "callees sit on their caller, inside its width", (m, w, mc))
        p2 = subprocess.run([sys.executable, SCRIPT, "-", "--per-sample", "2mJ"], input=FOLDED,
                            capture_output=True, text=True)
        t.eq(p2.stdout, open(out).read(), "standard input gives the same bytes")
        for bad_in, needle in (("a;b x\n", "line 1"), ("", "no samples")):
            p3 = subprocess.run([sys.executable, SCRIPT, "-"], input=bad_in, capture_output=True,
                                text=True)
            t.ok(p3.returncode != 0 and needle in p3.stderr, "bad input named: %r" % bad_in, p3.stderr)
        p4 = subprocess.run([sys.executable, SCRIPT, os.path.join(d, "missing")], capture_output=True,
                            text=True)
        t.ok(p4.returncode != 0 and "missing" in p4.stderr, "a missing file named", p4.stderr)
        # --eqp: a recording made by eqprof import, 3 mJ a sample
        csvp = os.path.join(d, "s.csv")
        with open(csvp, "w") as f:
            f.write("time_ns,pc,pid,tid,cpu,flags\n")
            for i in range(40):
                f.write("%d,0x1000,%d,%d,0,4\n" % (1000 * (i + 1), 1 + (i % 4 == 0), 1 + (i % 4 == 0)))
        rec = os.path.join(d, "r.eqp")
        subprocess.run([EQPROF, "import", "--samples", csvp, "--energy", "3mJ", "--comm", "1=one",
                        "--comm", "2=two", "-o", rec], check=True, capture_output=True)
        p5 = subprocess.run([sys.executable, SCRIPT, "--eqp", rec, "-o", os.path.join(d, "r.svg")],
                            capture_output=True, text=True, env=dict(os.environ, EQPROF=EQPROF))
        b5 = {x[0].split(":")[0]: x[0] for x in boxes(open(os.path.join(d, "r.svg")).read())} \
            if p5.returncode == 0 else {}
        t.ok(b5.get("one", "").endswith("30 samples (75.00%), 90 mJ") and
             b5.get("two", "").endswith("10 samples (25.00%), 30 mJ"),
             "--eqp: stacks and the quantum from the recording", (p5.stderr, b5))
        t.ok(svg_title(os.path.join(d, "r.svg")) == "Energy flame graph", "an energy recording's title",
             p5.stderr)
        # a time-driven recording (1 kHz): titled as what the widths are,
        # and a process name with a space keeps it (folded stacks split
        # the count at the last space only, as flamegraph.pl does)
        rect = os.path.join(d, "t.eqp")
        subprocess.run([EQPROF, "import", "--samples", csvp, "--time", "1000", "--comm", "1=my app",
                        "--comm", "2=two", "-o", rect], check=True, capture_output=True)
        tsvg = os.path.join(d, "t.svg")
        p6 = subprocess.run([sys.executable, SCRIPT, "--eqp", rect, "-o", tsvg],
                            capture_output=True, text=True, env=dict(os.environ, EQPROF=EQPROF))
        b6 = {x[0].rsplit(":", 1)[0]: x[0] for x in boxes(open(tsvg).read())} if p6.returncode == 0 else {}
        t.ok(svg_title(tsvg) == "Time flame graph" and "box width = time" in open(tsvg).read(),
             "a time recording is titled a time flame graph", (p6.stderr, svg_title(tsvg) if b6 else None))
        t.ok(b6.get("my app", "").endswith("30 samples (75.00%), 30 ms") and "my_app" not in b6,
             "a name with a space keeps its space", b6)
        # real call chains (record -g of a program whose name has a space):
        # the folded frames keep it too
        prog = os.path.join(d, "my app")
        subprocess.run(["cc", "-O0", "-fno-omit-frame-pointer", "-o", prog,
                        os.path.join(SRC, "test/fixtures/callers.c")], check=True)
        recg = os.path.join(d, "g.eqp")
        pr = subprocess.run([EQPROF, "record", "-g", "-o", recg, "--", prog, "200000", "20"],
                            capture_output=True, text=True)
        px = subprocess.run([EQPROF, "export", recg, "--format", "folded", "-o", "-"],
                            capture_output=True, text=True)
        t.ok(pr.returncode == 0 and px.returncode == 0 and
             any(line.startswith("my app;") for line in px.stdout.splitlines()) and
             "my_app" not in px.stdout,
             "export --format folded of call chains keeps spaces in names", (pr.stderr, px.stdout[:400]))
    t.done()


if __name__ == "__main__":
    main()
