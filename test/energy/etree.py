"""etree.py - the energy-source tests' side of energytree.c: sysfs trees of
real machines, their driver (a process that advances the counters from the
workload's CPU time per phase) and the driver's log, which is the truth:
every tick, the time and every domain's true cumulative energy.

The driver is a user process on a shared machine: it updates its files
later than real hardware would when the machine is loaded.  eqprof's bounds
assume the source's nominal update period (RAPL 1 ms, the INA3221's
update_interval); lag_tolerance() measures from the log how much later the
fake was near a given time and converts that into the energy the bounds
could not have known about.  The tests add it: it is the fake's error, not
eqprof's.
"""
import bisect
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import Tap, EQPROF, SRC, run  # noqa: E402,F401

B = os.environ.get("B", os.path.join(SRC, "build"))
TREE = os.path.join(B, "test", "energy", "energytree")

# Each machine's domains: (idle W, [hot, warm, cool] W per CPU second),
# as in energytree.c; the tests need the largest power a domain can draw.
POWER = {
    "intel-laptop": {"package-0": (1.5, [14, 7, 2.5]), "core-0": (0.4, [11, 5, 1.5]),
                     "uncore-0": (0.1, [0.3, 0.2, 0.1]), "dram-0": (0.3, [1.2, 0.8, 0.4]),
                     "psys": (4, [18, 9, 3.5]), "BAT0": (6, [18, 9, 3.5])},
    "amd-desktop": {"package-0": (18, [40, 25, 20]), "core-0": (2, [20, 10, 4])},
    "amd-lowidle": {"package-0": (0.05, [40, 25, 10]), "core-0": (0.02, [20, 10, 4])},
    "laptop-charge": {"BAT1": (5, [16, 8, 3])},
    "jetson": {"ina3221:POM_5V_IN": (1.8, [5, 2.5, 1]), "ina3221:POM_5V_GPU": (0.25, [0, 0, 0]),
               "ina3221:POM_5V_CPU": (0.4, [3.5, 1.7, 0.6])},
}
UPDATE = {"intel-laptop": 1e-3, "amd-desktop": 1e-3, "amd-lowidle": 1e-3, "laptop-charge": 15.0, "jetson": 26e-3}


def p_max(machine, dom):
    idle, w = POWER[machine][dom]
    return idle + max(w)


class Machine:
    """A tree being driven: `with Machine("intel-laptop") as m:`."""

    def __init__(self, name, backwards_at=None, workdir=None):
        self.name = name
        self.dir = workdir or tempfile.mkdtemp(prefix="eqprof-energy-")
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(self.dir, 0o755)
        self.sysfs = os.path.join(self.dir, name)
        self.shm = os.path.join(self.dir, name + ".shm")
        self.logpath = os.path.join(self.dir, name + ".log")
        run([TREE, "make", name, self.sysfs])
        args = [TREE, "drive", name, self.sysfs, self.shm, self.logpath]
        if backwards_at is not None:
            args += ["--backwards-at", str(backwards_at)]
        self.proc = subprocess.Popen(args)
        for _ in range(500):
            if os.path.exists(self.logpath) and os.path.getsize(self.logpath) > 0:
                break
            time.sleep(0.01)
        time.sleep(0.05)
        self.t = self.cols = None

    def work(self, *phases):
        return [TREE, "work", self.shm] + list(phases)

    def stop(self):
        if self.proc:
            run([TREE, "stop", self.shm])
            self.proc.wait()
            self.proc = None
        self.load()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()
            self.proc = None

    def load(self):
        with open(self.logpath) as f:
            head = f.readline().split()[1:]
            self.cols = {n: i for i, n in enumerate(head)}
            self.t, self.e = [], []
            for line in f:
                v = line.split()
                if len(v) != len(head) + 1:
                    continue  # a tick cut short by the stop
                self.t.append(float(v[0]))
                self.e.append([float(x) for x in v[1:]])

    def energy(self, dom, t):
        """True cumulative energy of dom at time t (linear between ticks)."""
        c = self.cols[dom]
        i = bisect.bisect_right(self.t, t) - 1
        if i < 0:
            return self.e[0][c]
        if i + 1 >= len(self.t):
            return self.e[-1][c]
        f = (t - self.t[i]) / (self.t[i + 1] - self.t[i])
        return self.e[i][c] + f * (self.e[i + 1][c] - self.e[i][c])

    def between(self, dom, t0, t1):
        return self.energy(dom, t1) - self.energy(dom, t0)

    def energy_bounds(self, dom, t):
        """Where the true energy at t lies: within the driver's tick holding
        t, the idle power flows for sure and the rest could come at any
        moment of the tick."""
        c = self.cols[dom]
        idle = POWER[self.name][dom][0]
        i = bisect.bisect_right(self.t, t) - 1
        if i < 0 or i + 1 >= len(self.t):
            e = self.energy(dom, t)
            return e, e
        return (self.e[i][c] + idle * (t - self.t[i]),
                self.e[i + 1][c] - idle * (self.t[i + 1] - t))

    def between_bounds(self, dom, t0, t1):
        a0, b0 = self.energy_bounds(dom, t0)
        a1, b1 = self.energy_bounds(dom, t1)
        return a1 - b0, b1 - a0

    def max_gap(self, t, span=0.2):
        """The longest time between the driver's ticks within +-span of t."""
        i0 = max(bisect.bisect_left(self.t, t - span) - 1, 1)
        i1 = min(bisect.bisect_right(self.t, t + span) + 1, len(self.t) - 1)
        return max((self.t[i] - self.t[i - 1] for i in range(i0, i1 + 1)), default=0.0)

    def lag_tolerance(self, dom, t):
        """Energy the fake could have withheld at t beyond a source that keeps
        its nominal update period (see the module's comment)."""
        u = 15.0 if dom.startswith("BAT") else UPDATE[self.name]
        if dom.startswith("ina"):
            # a power sensor's value is published up to one tick after its
            # window ends: the bounds [I(t), I(t + 2U)] shift by that much
            return p_max(self.name, dom) * self.max_gap(t)
        return p_max(self.name, dom) * max(0.0, self.max_gap(t) - u)


def stat_json(args, tap, what):
    """Runs eqprof stat ... --format json -o FILE; returns the parsed result."""
    fd, out = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    p = run([EQPROF, "stat", "-q", "--format", "json", "-o", out] + args, check=False)
    ok = tap.ok(p.returncode == 0, what, p.stderr)
    res = None
    if ok:
        with open(out) as f:
            res = json.load(f)
    os.unlink(out)
    return res, p


# Two-sided 95% quantiles of Student's t (the test's own table, from
# standard tables, not eqprof's).
T95 = {1: 12.706205, 2: 4.302653, 3: 3.182446, 4: 2.776445, 5: 2.570582, 6: 2.446912,
       7: 2.364624, 8: 2.306004, 9: 2.262157, 10: 2.228139, 11: 2.200985, 12: 2.178813,
       13: 2.160369, 14: 2.144787, 15: 2.131450}
