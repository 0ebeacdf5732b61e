#!/usr/bin/env python3
"""edges.py - the board's IRQ edges on the arm64 guest's PL061, from outside.

    edges.py QMP_SOCK QTEST_SOCK CONSOLE LOG NAME=COUNT...

QEMU runs the guest under TCG with a QMP socket and a qtest socket (QEMU
7.2 serves qtest beside TCG: `-accel tcg -qtest unix:...`).  QMP finds the
virt machine's PL061 (its QOM path, by type, and its MMIO base, from `info
mtree`); qtest's set_irq_in drives its input lines as the board's wire
would.  The guest (test/arm/guest-init.sh) prints "EQ-READY NAME" on its
console when a scenario listens; this script then sends COUNT rising edges
on line 1 and raises line 2 (DONE), waits for "EQ-GOT NAME" and lowers
DONE.  Before each edge it reads the PL061's raw interrupt status (GPIORIS,
offset 0x414, a read without side effects) until the guest's handler has
acknowledged the previous edge: an edge is never merged with the last one
in the controller, so each edge the host sends is one interrupt in the
guest, which the module must turn into one sample or one counted loss.

LOG gets one line "NAME sent=COUNT" per scenario.  Ends when the console
says EQPROF-GUEST-DONE (exit 0) or after the guest went silent too long.
"""
import json
import os
import re
import socket
import sys
import time

EDGE, DONE = 1, 2
GPIORIS = 0x414
ACK_TIMEOUT = 30.0      # seconds for the guest to take one edge (TCG, loaded host)
READY_TIMEOUT = 900.0   # seconds for the next scenario to start
PERIOD = 0.001          # at most one edge a millisecond: the spinner runs between


def connect(path, tries=200):
    for _ in range(tries):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            return s
        except OSError:
            time.sleep(0.05)
    sys.exit(f"edges.py: cannot connect to {path}")


class Qmp:
    def __init__(self, path):
        self.f = connect(path).makefile("rw")
        self.f.readline()
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        self.f.flush()
        while True:
            r = json.loads(self.f.readline())
            if "return" in r:
                return r["return"]
            if "error" in r:
                sys.exit(f"edges.py: QMP {name}: {r['error']}")

    def find(self, qtype, path="/machine"):
        for e in self.cmd("qom-list", path=path):
            if e["type"].startswith("child<"):
                p = path.rstrip("/") + "/" + e["name"]
                if e["type"] == f"child<{qtype}>":
                    return p
                found = self.find(qtype, p)
                if found:
                    return found
        return None


class Qtest:
    def __init__(self, path):
        self.f = connect(path).makefile("rw")

    def q(self, line):
        self.f.write(line + "\n")
        self.f.flush()
        while True:
            r = self.f.readline().strip()
            if r.startswith("OK") or r.startswith("FAIL") or r.startswith("ERR"):
                break   # asynchronous "IRQ raise/lower" notices are skipped
        if not r.startswith("OK"):
            sys.exit(f"edges.py: qtest {line}: {r}")
        return r


class Console:
    """The guest's console file, line by line as it grows."""

    def __init__(self, path):
        self.path, self.pos, self.lines = path, 0, []

    def next(self, timeout):
        end = time.monotonic() + timeout
        while not self.lines:
            try:
                with open(self.path, "rb") as f:
                    f.seek(self.pos)
                    data = f.read()
            except OSError:
                data = b""
            cut = data.rfind(b"\n") + 1
            self.pos += cut
            self.lines = data[:cut].decode(errors="replace").splitlines()
            if not self.lines:
                if time.monotonic() > end:
                    return None
                time.sleep(0.05)
        return self.lines.pop(0)


def main():
    qmp_path, qtest_path, console, log = sys.argv[1:5]
    plan = dict((k, int(v)) for k, v in (a.split("=") for a in sys.argv[5:]))
    qmp = Qmp(qmp_path)
    dev = qmp.find("pl061")
    mtree = qmp.cmd("human-monitor-command", **{"command-line": "info mtree"})
    m = re.search(r"([0-9a-f]{16})-[0-9a-f]{16} \(prio \d+, i/o\): pl061", mtree)
    if not dev or not m:
        sys.exit("edges.py: the machine has no PL061 (QOM type pl061 / 'info mtree')")
    ris = int(m.group(1), 16) + GPIORIS
    qt = Qtest(qtest_path)

    def pin(line, level):
        qt.q(f"set_irq_in {dev} unnamed-gpio-in {line} {level}")

    def wait_acked(what):
        end = time.monotonic() + ACK_TIMEOUT
        while True:
            v = int(qt.q(f"readl 0x{ris:x}").split()[1], 16)
            if not v >> EDGE & 1:
                return
            if time.monotonic() > end:
                sys.exit(f"edges.py: {what}: the guest left the PL061's edge unacknowledged for {ACK_TIMEOUT:.0f} s")
            time.sleep(0.0002)

    con = Console(console)
    out = open(log, "a")
    while True:
        line = con.next(READY_TIMEOUT)
        if line is None:
            sys.exit("edges.py: the guest said nothing for too long")
        if "EQPROF-GUEST-DONE" in line:
            return 0
        r = re.search(r"EQ-READY (\S+)", line)
        if not r:
            continue
        name = r.group(1)
        n = plan.get(name, 0)
        t0 = time.monotonic()
        for i in range(n):
            wait_acked(f"{name} edge {i}")
            pin(EDGE, 1)
            pin(EDGE, 0)
            time.sleep(PERIOD)
        wait_acked(f"{name} last edge")
        pin(DONE, 1)
        print(f"{name} sent={n} seconds={time.monotonic() - t0:.2f}", file=out, flush=True)
        while True:
            line = con.next(READY_TIMEOUT)
            if line is None or "EQPROF-GUEST-DONE" in line:
                sys.exit(f"edges.py: the guest never confirmed {name}")
            if f"EQ-GOT {name}" in line:
                break
        pin(DONE, 0)


if __name__ == "__main__":
    sys.exit(main())
