#!/usr/bin/env python3
"""flamegraph.py - an energy (or time) flame graph (SVG) from folded stacks.

    scripts/flamegraph.py FOLDED [-o OUT.svg] [--per-sample 2.952mJ] [--title T]
    scripts/flamegraph.py --eqp FILE.eqp [-o OUT.svg] [--title T] [eqprof export options]

FOLDED is what `eqprof export --format folded` writes (and what perf's
stackcollapse scripts write): one "frame;frame;...;frame COUNT" line per
stack, outermost first.  With --eqp the script runs `eqprof export --format
folded` itself and reads the energy (or time) per sample from `eqprof report
--format json`, so widths are joules.

The picture follows Brendan Gregg's flame graphs: one box per frame, the
stack bottom-up, a frame's width its samples (its energy: in an
energy-driven recording every sample is one quantum), siblings side by
side in name order (the x axis is not time).  Each box has a tooltip
(<title>) with the frame's samples, share and energy.  Colours are a hash of
the name (warm for code, grey for [idle], blue for [kernel] frames and
kernel modules' names in brackets), so one name has one colour in every
picture.  Plain Python, no dependencies; the same input gives the same
bytes.
"""
import argparse
import hashlib
import html
import json
import os
import subprocess
import sys

SI = {"": 1.0, "k": 1e3, "m": 1e-3, "u": 1e-6, "n": 1e-9, "p": 1e-12}


def parse_quantity(text):
    """'2.952mJ' -> (0.002952, 'J')."""
    t = text.strip()
    unit = t[-1] if t and t[-1] in "Js" else ""
    num = t[:-1] if unit else t
    scale = 1.0
    if num and num[-1] in SI and num[-1] != "":
        scale = SI[num[-1]]
        num = num[:-1]
    return float(num) * scale, unit or "J"


def fmt_quantity(v, unit):
    for p, s in (("", 1.0), ("m", 1e-3), ("u", 1e-6), ("n", 1e-9)):
        if abs(v) >= s or p == "n":
            return "%.4g %s%s" % (v / s, p, unit)
    return "%g %s" % (v, unit)


def read_folded(lines):
    """A trie {name: [count, children]} with its root's total."""
    root = [0, {}]
    for no, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if not line.strip():
            continue
        try:
            stack, count = line.rsplit(" ", 1)
            n = int(count)
        except ValueError:
            raise SystemExit("flamegraph.py: line %d: not 'frame;...;frame COUNT': %r" % (no, line[:80]))
        if n < 0:
            raise SystemExit("flamegraph.py: line %d: negative count" % no)
        root[0] += n
        node = root
        for f in stack.split(";"):
            node = node[1].setdefault(f, [0, {}])
            node[0] += n
    return root


def colour(name):
    h = int(hashlib.md5(name.encode()).hexdigest()[:8], 16)
    v1, v2, v3 = (h & 0xff) / 255, ((h >> 8) & 0xff) / 255, ((h >> 16) & 0xff) / 255
    if name == "[idle]":
        g = int(180 + 40 * v1)
        return "rgb(%d,%d,%d)" % (g, g, g)
    if name.startswith("[k") or name.endswith("_[k]") or name == "[kernel.kallsyms]":
        return "rgb(%d,%d,%d)" % (int(80 + 60 * v1), int(130 + 60 * v2), int(200 + 55 * v3))
    # flamegraph.pl's "hot" palette
    return "rgb(%d,%d,%d)" % (int(205 + 50 * v3), int(230 * v1), int(55 * v2))


def render(root, title, per_sample, unit, width=1200, frame_h=16, font=12):
    total = root[0]
    depth = 0

    def measure(node, d):
        nonlocal depth
        depth = max(depth, d)
        for child in node[1].values():
            measure(child, d + 1)

    measure(root, 0)
    pad_top, pad_bottom, side = 50, 30, 10
    height = pad_top + (depth + 1) * frame_h + pad_bottom
    scale = (width - 2 * side) / total if total else 0
    out = ['<?xml version="1.0" standalone="no"?>',
           '<svg version="1.1" width="%d" height="%d" viewBox="0 0 %d %d" '
           'xmlns="http://www.w3.org/2000/svg">' % (width, height, width, height),
           '<rect x="0" y="0" width="%d" height="%d" fill="#f8f8f0"/>' % (width, height),
           '<text x="%d" y="24" font-family="Verdana,sans-serif" font-size="17" '
           'text-anchor="middle">%s</text>' % (width // 2, html.escape(title))]
    what = "energy" if unit == "J" else "time"
    sub = "%d samples" % total
    if per_sample:
        sub += " = %s; box width = %s" % (fmt_quantity(total * per_sample, unit), what)
    out.append('<text x="%d" y="42" font-family="Verdana,sans-serif" font-size="12" '
               'text-anchor="middle" fill="#555">%s</text>' % (width // 2, html.escape(sub)))

    def box(name, count, x, d):
        w = count * scale
        if w < 0.1:
            return
        y = height - pad_bottom - (d + 1) * frame_h
        info = "%s: %d samples (%.2f%%)" % (name, count, 100.0 * count / total)
        if per_sample:
            info += ", %s" % fmt_quantity(count * per_sample, unit)
        out.append('<g><title>%s</title><rect x="%.2f" y="%d" width="%.2f" height="%d" '
                   'fill="%s" rx="2" ry="2"/>' % (html.escape(info), x, y, w, frame_h - 1,
                                                  colour(name)))
        chars = int((w - 6) / (font * 0.59))
        if chars >= 3:
            label = name if len(name) <= chars else name[:chars - 2] + ".."
            out.append('<text x="%.2f" y="%d" font-family="Verdana,sans-serif" '
                       'font-size="%d">%s</text>' % (x + 3, y + frame_h - 4, font,
                                                      html.escape(label)))
        out.append('</g>')

    def walk(node, x, d):
        for name in sorted(node[1]):
            child = node[1][name]
            box(name, child[0], x, d)
            walk(child, x, d + 1)
            x += child[0] * scale

    box("all", total, side, 0)
    walk(root, side, 1)
    out.append('</svg>')
    return "\n".join(out) + "\n"


def from_eqp(path, extra):
    eqprof = os.environ.get("EQPROF", "eqprof")
    p = subprocess.run([eqprof, "export", path, "--format", "folded", "-o", "-", "-q"] + extra,
                       capture_output=True, text=True)
    if p.returncode:
        raise SystemExit("flamegraph.py: eqprof export failed: " + p.stderr.strip())
    r = subprocess.run([eqprof, "report", path, "--format", "json", "-q", "--no-children"],
                       capture_output=True, text=True)
    per, unit = 0.0, "J"
    if r.returncode == 0:
        doc = json.loads(r.stdout)
        unit = "J" if doc.get("mode") == "energy" else "s"
        per = doc.get("quantum_j") if unit == "J" else doc.get("period_s")
    return p.stdout.splitlines(True), per or 0.0, unit


def main():
    ap = argparse.ArgumentParser(description="An energy or time flame graph (SVG) from folded stacks.")
    ap.add_argument("folded", nargs="?", help="folded stacks ('-': standard input)")
    ap.add_argument("--eqp", help="a recording: export its folded stacks and quantum with eqprof")
    ap.add_argument("-o", "--output", default="-", help="the SVG (default: standard output)")
    ap.add_argument("--per-sample", help="energy (or time) a sample stands for, e.g. 2.952mJ")
    ap.add_argument("--title", help="default: 'Energy flame graph' or 'Time flame graph' by what a "
                    "sample stands for, else 'Flame graph'")
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--exclude-idle", action="store_true", help="with --eqp: no idle samples")
    a = ap.parse_args()
    if bool(a.folded) == bool(a.eqp):
        ap.error("give folded stacks or --eqp FILE.eqp (one of them)")
    per, unit, known = 0.0, "J", False
    if a.eqp:
        lines, per, unit = from_eqp(a.eqp, ["--exclude-idle"] if a.exclude_idle else [])
        known = True
    elif a.folded == "-":
        lines = sys.stdin.readlines()
    else:
        try:
            with open(a.folded) as f:
                lines = f.readlines()
        except OSError as e:
            raise SystemExit("flamegraph.py: %s: %s" % (a.folded, e.strerror))
    if a.per_sample:
        try:
            per, unit = parse_quantity(a.per_sample)
            known = True
        except ValueError:
            raise SystemExit("flamegraph.py: --per-sample %s: give an energy or time, e.g. 2.952mJ"
                             % a.per_sample)
    root = read_folded(lines)
    if not root[0]:
        raise SystemExit("flamegraph.py: no samples in the folded stacks")
    title = a.title
    if title is None:
        title = "Flame graph" if not known else "Energy flame graph" if unit == "J" else "Time flame graph"
    svg = render(root, title, per, unit, width=a.width)
    if a.output == "-":
        sys.stdout.write(svg)
        return
    tmp = a.output + ".tmp"
    with open(tmp, "w") as f:
        f.write(svg)
    os.replace(tmp, a.output)


if __name__ == "__main__":
    main()
