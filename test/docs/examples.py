#!/usr/bin/env python3
"""examples.py - every command the README and docs/ show, run as written
(issue 28 item 9: the guide's examples used scenario files that were not
shipped, and the README's `record ...; eqprof report` reported a previous
recording when the first command failed).

Each document's commands run in order, in one scratch directory of its own
(`scripts`, `docs` and `sim` there are the source tree's), with the eqprof
under test first on PATH, so that a command reads what the commands before
it in the same document wrote.  A command is taken from a fenced block:
the lines after a `$ ` prompt where the block has prompts, else the lines
that begin with a command (`eqprof`, `sudo`, `scripts/`, `make`, `for`).

A command that needs what a test machine has not (root, the board or a
real target, the reader's own program, a RAPL or battery counter, a
browser, the source tree's make targets) is not run: it is reported as a
TAP skip naming what it needs, and a document's text must say the same
(NEEDS below is the list of such needs).  Every other command must exit 0.
Env: EQPROF (the binary), SRC (the source tree).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

EQPROF = os.environ["EQPROF"]
SRC = os.environ.get("SRC", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# (pattern on the command, what it needs): the first that matches wins
NEEDS = [
    (r"^sudo |\bsudo eqprof", "root"),
    (r"\beqprof board\b|board log|--port ", "the eqprof board on USB"),
    (r"--target cortexm|openocd|--uart|semihost", "a Cortex-M target"),
    (r"\brecord\b.*(-e\b|--energy-driven)|insmod|modprobe|/dev/eqprof", "the eqprof kernel module and the board's IRQ wired"),
    (r"(^|\s)\./\w|\bmy-program\b|\bmydaemon\b", "your own program"),
    (r"-- xz .*\bdata\b", "your own data file (data)"),
    (r"/sys/kernel/debug", "root (debugfs)"),
    (r"^B=|\bbench/", "the source tree's build (run in the source tree)"),
    (r"--energy rapl|\bstat\b", "an energy counter (RAPL, a battery gauge)"),
    (r"^make\b|\bmake ", "the source tree's make targets (run in the source tree)"),
    (r"--symfs|scp |ssh |adb ", "a second machine (the target)"),
    (r"\beqprof view\b(?!.*-o )", "a browser (eqprof view opens the page; -o FILE writes it)"),
    (r"\beqprof view\b", "the viewer page built (make viewer: Node.js and npm)"),
    (r"^(callgrind_annotate|kcachegrind|go tool pprof|pprof|chromium|firefox)\b", "a viewer of that format"),
    (r"^\.\./|\bqemu|simavr|ngspice|kicad", "the simulation chain's tools (make hil-demo)"),
]

# files the documents read that a reader has of their own (their recordings)
OWN = re.compile(r"\b(t|run|b|s|rapl|on|off|before\d|after\d|A|B|A\d|B\d|trace|time|energy)\.eqp\b")


def commands(path):
    """(line number, command) in the order the document shows them."""
    out, block, start, inb = [], [], 0, False
    for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if line.lstrip().startswith("```"):
            if inb:
                out += block_commands(block)
            inb, block = not inb, []
            continue
        if inb:
            block.append((n, line))
    return out


def block_commands(block):
    prompted = any(l.startswith("$ ") for _, l in block)
    cmds, cur, first = [], None, 0
    for n, line in block:
        if cur is not None:               # a continued line
            cur += "\n" + line
            if not line.rstrip().endswith("\\"):
                cmds.append((first, cur))
                cur = None
            continue
        if prompted:
            if not line.startswith("$ "):
                continue
            text = line[2:]
        else:
            if not re.match(r"(sudo |eqprof|scripts/|make |for )", line):
                continue
            text = line
        if text.startswith("#"):
            continue
        if text.rstrip().endswith("\\"):
            cur, first = text, n
        else:
            cmds.append((n, text))
    return cmds


def viewer_built():
    here = os.path.dirname(os.path.abspath(EQPROF))
    return bool(os.environ.get("EQPROF_VIEWER")) or \
        os.path.exists(os.path.join(here, "viewer", "viewer.html"))


def need_of(cmd):
    cmd = re.sub(r"(^|\s)#.*", "", cmd)         # what a comment says is no need
    for pat, need in NEEDS:
        if need.startswith("the viewer page") and viewer_built():
            continue
        if re.search(pat, cmd):
            return need
    return None


def synopsis(cmd):
    """A usage line ([--opt], A|B, FILE.eqp...) or a message quoted from a
    run (`eqprof merge: board: ...`): not a command to run."""
    return bool(re.search(r"\[-|\[[A-Z]|\b[A-Z]+[0-9]?\.eqp\b|\.\.\.|^eqprof( [a-z]+)?: ", cmd)) or \
        ("#" not in cmd and re.search(r"\S {3,}[a-z]", cmd) is not None)


INPUT = re.compile(r"(?<![-\w./])((?:[\w.+-]+/)*[\w.+-]+\.(?:eqp|folded|model|maps|csv|txt))\b")


def inputs(cmd):
    """Files a command names that it does not write (-o's and --trace's,
    --hist's and redirections' are written)."""
    written = set(re.findall(r"(?:-o|--output|--trace|--hist|>)\s*(\S+)", cmd))
    files = [f for f in INPUT.findall(cmd) if f not in written]
    # a command that reads a recording, given none, reads eqprof.eqp
    if re.match(r"eqprof (report|power|compare|export|annotate)\b", cmd) and \
            not any(f.endswith(".eqp") for f in files):
        files.append("eqprof.eqp")
    return files


def own_file(work, cmd, unavailable):
    """The first input that neither the tree nor an earlier command of the
    document gives: a bare name (run.eqp) is the reader's own recording, a
    sim run's DIR/energy.eqp must have been made by the document."""
    for f in inputs(cmd):
        if os.path.exists(os.path.join(work, f)):
            continue
        if f in unavailable:
            return "%s, which a command not run here writes" % f
        if "/" not in f:
            return "a recording or file of your own (%s)" % f
    return None


def main():
    docs = [os.path.join(SRC, "README.md")] + sorted(glob.glob(os.path.join(SRC, "docs", "*.md")))
    bindir = tempfile.mkdtemp(prefix="docs-bin.")
    os.symlink(os.path.abspath(EQPROF), os.path.join(bindir, "eqprof"))
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"])
    n = 0
    try:
        for doc in docs:
            rel = os.path.relpath(doc, SRC)
            work = tempfile.mkdtemp(prefix="docs-run.")
            # read from the tree; docs/ a copy (the guide writes its pictures)
            for d in ("scripts", "sim", "test"):
                os.symlink(os.path.join(os.path.abspath(SRC), d), os.path.join(work, d))
            shutil.copytree(os.path.join(SRC, "docs"), os.path.join(work, "docs"))
            unavailable = set()
            for line, cmd in commands(doc):
                if synopsis(cmd):
                    continue
                n += 1
                what = "%s:%d: %s" % (rel, line, cmd.replace("\n", " ")[:160])
                need = need_of(cmd) or own_file(work, cmd, unavailable)
                if need:
                    unavailable |= set(re.findall(r"(?:-o|--output)\s+(\S+)", cmd))
                    if re.search(r"\beqprof record\b", cmd) and not re.search(r"-o\s", cmd):
                        unavailable.add("eqprof.eqp")
                    print("ok %d - %s # skip needs %s" % (n, what, need))
                    continue
                r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=work, env=env,
                                   capture_output=True, text=True, timeout=600,
                                   stdin=subprocess.DEVNULL)
                if r.returncode == 0:
                    print("ok %d - %s" % (n, what))
                else:
                    print("not ok %d - %s (exit %d)" % (n, what, r.returncode))
                    for l in (r.stderr or r.stdout).strip().split("\n")[-6:]:
                        print("#   " + l)
            shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(bindir, ignore_errors=True)
    print("1..%d" % n)


if __name__ == "__main__":
    main()
