#!/usr/bin/env python3
"""chain-notes.py - what report says about missing callers (issue 28, items
4 and 5), on real recordings of programs whose stacks are known:

  - --call-graph dwarf of callers.c (-O2, shallow) run with an environment of
    12 KB and without address-space randomisation (setarch -R): every stack
    copy fills its 8192 bytes (the environment lies above main's frame), yet
    every chain reaches main, so nothing is said about cut stacks (record
    said "N copies (100%) filled all 8192 bytes: callers ... are cut off").
    With randomisation the kernel leaves a gap of 0-8 KB between the
    argument tables and the environment's strings (arch_align_stack); pages
    wholly inside the gap were never touched, and perf's copy, which may not
    fault, ends at the first of them: copies of 1320-7864 bytes, random per
    run (measured with perf record --call-graph dwarf on kernel 6.18);
  - --call-graph dwarf of a recursion 48 calls deep whose every frame holds a
    512-byte array (at least 24 KB of stack under the leaf, by the C
    program's own declarations): every sample in the leaf has its stack cut
    at the copy's end, and report says so for exactly the samples whose
    chains do not reach main (read from the folded stacks);
  - -g of callers.c built at -O2 without frame pointers: report says why the
    samples have no caller and suggests --call-graph dwarf; -g of the -O0
    frame-pointer build: no such note;
  - --call-graph draws perf's trees (item 10), not 400-character lines:
    under leaf, the branches to b and a with their shares of leaf's samples
    as the folded stacks count them, each line within $COLUMNS;
    --call-graph=caller: b and a under main.

Exact checks on the recordings' own chains: nothing statistical."""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import EQPROF, SRC, Tap  # noqa: E402

DEEP = r"""
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noipa)) void leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
__attribute__((noipa)) void down(int depth, unsigned long n)
{
	volatile char pad[512];   /* 512 bytes a frame at least */

	pad[0] = (char)depth;
	if (depth > 0)
		down(depth - 1, n);
	else
		leaf(n);
	sink += pad[0];
}
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000000;

	down(48, n);
	return 0;
}
"""


def run(args, env=None):
    return subprocess.run(args, capture_output=True, text=True, env=env)


def header(out):
    return [l for l in out.splitlines() if l.startswith("#")]


def folded(rec):
    p = run([EQPROF, "export", rec, "--format", "folded", "-o", "-"])
    stacks = []
    for line in p.stdout.splitlines():
        key, n = line.rsplit(" ", 1)
        stacks.append((key.split(";"), int(n)))
    return stacks


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-chains-") as d:
        callers = os.path.join(SRC, "test/fixtures/callers.c")
        o2 = os.path.join(d, "callers-o2")
        o0 = os.path.join(d, "callers-o0")
        deep = os.path.join(d, "deep")
        with open(deep + ".c", "w") as f:
            f.write(DEEP)
        subprocess.run(["cc", "-O2", "-g", "-o", o2, callers], check=True)
        subprocess.run(["cc", "-O0", "-g", "-fno-omit-frame-pointer", "-o", o0, callers], check=True)
        subprocess.run(["cc", "-O2", "-g", "-o", deep, deep + ".c"], check=True)

        # 1. full copies that cut nothing
        env = dict(os.environ, BIG="x" * 12000)
        rec = os.path.join(d, "full.eqp")
        p = run(["setarch", "-R", EQPROF, "record", "--call-graph", "dwarf", "-o", rec, "--", o2,
                 "1000000", "100"], env)
        t.ok(p.returncode == 0 and "8192 bytes a sample" in p.stderr,
             "dwarf under a 12 KB environment: every copy fills 8192 bytes", p.stderr)
        t.ok("filled all" not in p.stderr and "cut off" not in p.stderr,
             "record does not call full copies cut", p.stderr)
        st = folded(rec)
        busy = [(s, n) for s, n in st if "leaf" in s]
        t.ok(busy and all("main" in s for s, _ in busy), "every chain through leaf reaches main",
             busy[:4])
        p = run([EQPROF, "report", rec])
        t.ok(p.returncode == 0 and not [l for l in header(p.stdout) if "cut off" in l],
             "report says nothing of cut stacks", "\n".join(header(p.stdout)))

        # 2. a recursion deeper than the copy: its leaf's stacks are cut
        rec = os.path.join(d, "deep.eqp")
        p = run([EQPROF, "record", "--call-graph", "dwarf", "-o", rec, "--", deep, "300000000"])
        t.ok(p.returncode == 0, "record --call-graph dwarf of a 48-deep recursion of 512-byte frames",
             p.stderr)
        st = folded(rec)
        cut = sum(n for s, n in st if "main" not in s and "down" in s)
        in_leaf = sum(n for s, n in st if s[-1] == "leaf")
        p = run([EQPROF, "report", rec])
        notes = [l for l in header(p.stdout) if "cut off at the end of its 8192-byte copy" in l]
        t.ok(in_leaf > 0 and cut >= in_leaf and len(notes) == 1 and
             notes[0].startswith("# note: %d samples " % cut) and "--call-graph dwarf,16384" in notes[0],
             "report: the %d samples whose chains stop short of main (all %d in leaf) are said to be cut, "
             "with a larger size to record with" % (cut, in_leaf), (notes, cut, in_leaf, st[:3]))

        # 3. -g without frame pointers, and with them
        rec = os.path.join(d, "fp-o2.eqp")
        p = run([EQPROF, "record", "-g", "-o", rec, "--", o2, "1000000", "100"])
        p = run([EQPROF, "report", rec])
        note = [l for l in header(p.stdout) if "have no caller" in l]
        t.ok(len(note) == 1 and "-fno-omit-frame-pointer" in note[0] and "--call-graph dwarf" in note[0],
             "-g on -O2 code: report says why samples have no caller and what to record with",
             "\n".join(header(p.stdout)))
        rec = os.path.join(d, "fp-o0.eqp")
        p = run([EQPROF, "record", "-g", "-o", rec, "--", o0, "300000", "100"])
        p = run([EQPROF, "report", rec])
        t.ok(p.returncode == 0 and not [l for l in header(p.stdout) if "have no caller" in l] and
             " a\n" in p.stdout and " b\n" in p.stdout,
             "-g on frame-pointer code: callers found, no such note", p.stdout[:1500])
        # 4. the trees
        st = folded(rec)
        through = {f: sum(n for s, n in st if "leaf" in s and f in s) for f in ("a", "b")}
        leaf = sum(n for s, n in st if "leaf" in s)
        p = run([EQPROF, "report", rec, "--call-graph", "--percent-limit", "20"],
                dict(os.environ, COLUMNS="60"))
        lines = p.stdout.splitlines()
        want = ["|--%.2f%%--b" % (100.0 * through["b"] / leaf), " --%.2f%%--a" % (100.0 * through["a"] / leaf)]
        if through["a"] > through["b"]:
            want = ["|--%.2f%%--a" % (100.0 * through["a"] / leaf), " --%.2f%%--b" % (100.0 * through["b"] / leaf)]
        got = [l.strip() for l in lines if "%--" in l]
        t.ok(p.returncode == 0 and got[:2] == [w.strip() for w in want] and "---leaf" in p.stdout,
             "--call-graph: under leaf, branches to its callers with their shares of its samples %s" % want,
             p.stdout[:1500])
        tree = [l for l in lines if l.startswith(" " * 12)]
        t.ok(tree and max(len(l) for l in tree) <= 60 and not [l for l in lines if " > " in l],
             "every line of the trees within $COLUMNS (60), no path on one line",
             max(tree or [""], key=len))
        p = run([EQPROF, "report", rec, "--call-graph=caller", "--percent-limit", "20"])
        tree = p.stdout.split("---main", 1)[1].split("\n\n", 1)[0] if "---main" in p.stdout else ""
        t.ok(p.returncode == 0 and "%--b" in tree and "%--a" in tree and "leaf" in tree,
             "--call-graph=caller: what main called, b and a, then leaf", p.stdout[:1500])
    t.done()


if __name__ == "__main__":
    main()
