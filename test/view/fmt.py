#!/usr/bin/env python3
"""fmt.py - the page prints numbers as eqprof's C code prints them.

analysis/view/web/src/fmt.js rounds a double's exact value half to even,
as glibc's printf does; JavaScript's own toFixed/toPrecision round ties
away from zero (1.125 -> "1.13", printf gives "1.12").  Expected strings
come from Python's %-formatting, which also rounds the exact binary value
correctly (David Gay's dtoa), independently of glibc and of the page:
%.2f (shares), %.4g and %.3g (quantities), %.17g, and eq_format_quantity's
prefixes, over 20000 values with many exact ties.
"""
import json
import os
import random
import struct
import subprocess
import sys

SRC = os.environ.get("SRC", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
random.seed(7)
vals = []
for i in range(20000):
    k = random.random()
    if k < 0.25:
        v = random.uniform(-1000, 1000)
    elif k < 0.5:   # ratios of counts: many exact ties at 2 decimals
        v = 100 * random.randint(0, 100000) / random.choice([8, 16, 64, 800, 1000, 10000, 3, 2048])
    elif k < 0.7:
        v = 10 ** random.uniform(-14, 14) * random.choice([1, -1])
    elif k < 0.8:
        v = round(random.uniform(0, 100), random.randint(0, 4)) + random.choice([0, 0.005, 0.0005, 0.125, 0.5])
    else:
        v = struct.unpack("<d", struct.pack("<Q", random.getrandbits(63)))[0]
        if v != v or v in (float("inf"), float("-inf")):
            continue
    vals.append(v)
# exact ties far from 1 (the page's fast path must see them): k + 1/8 etc.
vals += [random.randint(0, 10 ** random.randint(1, 13)) + random.choice([0.5, 0.25, 0.125, 0.375, 0.0625])
         for _ in range(3000)]
vals += [(random.randint(0, 10 ** 6) + 0.5) * 10 ** random.randint(-8, 8) for _ in range(2000)]
vals += [0.0, -0.0, 1.125, 0.125, 2.5, 0.5, 1.5, 99.995, 999.95, 9.9995, 1e-5, 0.0001, 123456.5, 1e16, 5e-324]


def quantity(v, unit, sig):
    """analysis/util/units.c eq_format_quantity_sig (the spec: its comment)."""
    a = abs(v)
    if a == 0 or a != a or a == float("inf"):
        return "%g %s" % (v, unit)
    pre = [("G", 1e9), ("M", 1e6), ("k", 1e3), ("", 1.0), ("m", 1e-3), ("u", 1e-6), ("n", 1e-9), ("p", 1e-12)]
    thr = 0.995 if sig <= 3 else 0.9995
    for i, (sym, sc) in enumerate(pre[:-1]):
        if a >= sc * thr:
            break
    else:
        i = len(pre) - 1
    sym, sc = pre[i]
    return ("%." + str(sig) + "g %s%s") % (v / sc, sym, unit)


want = [["%.2f" % v, "%.4g" % v, "%.3g" % v, "%.17g" % v, quantity(v, "J", 4), quantity(v, "W", 3)] for v in vals]
js = ("import(process.argv[1]).then((F) => { const vals = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
      " console.log(JSON.stringify(vals.map((v) => [F.fixed(v, 2), F.general(v, 4), F.general(v, 3), F.general(v, 17),"
      " F.quantity(v, 'J', 4), F.quantity(v, 'W', 3)]))); });")
p = subprocess.run(["node", "-e", js, os.path.join(SRC, "analysis/view/web/src/fmt.js")],
                   input=json.dumps([repr(v) for v in vals]).replace('"', ""), capture_output=True, text=True)
n = 0
if p.returncode != 0:
    print("not ok 1 - node ran fmt.js\n# " + p.stderr.replace("\n", "\n# "))
    print("1..1")
    sys.exit(1)
got = json.loads(p.stdout)
names = ["%.2f", "%.4g", "%.3g", "%.17g", "eq_format_quantity (4 digits)", "eq_format_quantity_sig (3 digits)"]
failed = 0
for c, name in enumerate(names):
    bad = [(vals[i], got[i][c], want[i][c]) for i in range(len(vals)) if got[i][c] != want[i][c]]
    n += 1
    print("%s %d - %s of %d values, ties to even" % ("ok" if not bad else "not ok", n, name, len(vals)))
    for b in bad[:5]:
        print("#   %r: page %r, printf %r" % b)
    failed += bool(bad)
ties = sum(1 for v in vals if ("%.3f" % v).endswith("5") and "%.2f" % v != "%.2f" % (v + 1e-9 * abs(v) + 1e-12))
n += 1
print("ok %d - the values hold %d near-ties at 2 decimals" % (n, ties) if ties > 50 else "not ok %d - too few ties" % n)
print("1..%d" % n)
sys.exit(1 if failed else 0)
