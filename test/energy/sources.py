#!/usr/bin/env python3
"""eqprof sources, and every way an energy source can be bad.

  - this machine (no RAPL, no battery, no hwmon here): sources says so,
    per driver, and exits 0;
  - trees of real machines (energytree.c): what sources lists, with
    resolution, update period, wrap range and readability;
  - perf's power PMU: parsed from a tree, refused by the kernel with a
    clear reason; on a machine that has the PMU, read for real (else
    skipped, saying why);
  - bad sources give a clear message, a failing status and no output:
    unknown source, missing tree, permission denied (the test drops to
    nobody when it runs as root), a counter that goes backwards, a battery
    that charges, a failing command.
"""
import json
import os
import shutil
import subprocess
import tempfile

from etree import EQPROF, TREE, Machine, Tap, run, stat_json

tap = Tap()
work = tempfile.mkdtemp(prefix="eqprof-sources-")
os.chmod(work, 0o755)


def eqprof(*args, user=None):
    cmd = [EQPROF] + list(args)
    if user:
        cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"] + cmd
    return run(cmd, check=False)


def sources_json(sysfs):
    p = eqprof("sources", "--sysfs", sysfs, "--format", "json")
    return (json.loads(p.stdout) if p.returncode == 0 else None), p


def tree(machine):
    d = os.path.join(work, machine)
    if not os.path.exists(d):
        run([TREE, "make", machine, d])
    return d


# ---- nothing here -----------------------------------------------------------
empty = os.path.join(work, "empty")
os.mkdir(empty)
p = eqprof("sources", "--sysfs", empty)
tap.ok(p.returncode == 0 and "No energy source on this machine" in p.stdout and
       all(x in p.stdout for x in ("rapl", "battery", "hwmon", "board")),
       "sources on a machine with nothing says so for each driver and exits 0", p.stdout + p.stderr)
p = eqprof("sources")
tap.ok(p.returncode == 0 and p.stdout, "sources on this machine's real /sys exits 0 and says what it found",
       p.stderr)
js, p = sources_json(empty)
tap.ok(js is not None and js["sources"] == [] and js["none"]["rapl"], "--format json: no sources, and why",
       p.stdout + p.stderr)

# ---- real machines' trees ----------------------------------------------------
js, p = sources_json(tree("intel-laptop"))
if tap.ok(js is not None, "sources on the Intel laptop tree", p.stderr):
    by = {s["spec"]: s for s in js["sources"]}
    tap.eq(sorted(by), ["battery:BAT0", "rapl:core-0", "rapl:dram-0", "rapl:package-0", "rapl:psys",
                        "rapl:uncore-0"],
           "RAPL domains per socket, psys, the battery (not the mouse's, not AC, not the MMIO "
           "duplicate, not hwmon's battery voltage)")
    pk = by["rapl:package-0"]
    tap.ok(pk["range_j"] == 262143.32885 and pk["resolution"] == 1e-6 and pk["update_s"] == 1e-3 and
           pk["readable"] and pk["type"] == "counter" and pk["kind"] == "package",
           "package-0: counter, 1 uJ, 1 ms, wraps at max_energy_range_uj", pk)
    b = by["battery:BAT0"]
    tap.ok(b["via"] == "energy_now" and b["type"] == "store" and b["update_s"] is None,
           "BAT0 is read from energy_now, a store whose update period is detected", b)
js, p = sources_json(tree("laptop-charge"))
tap.ok(js is not None and [s["via"] for s in js["sources"]] == ["charge_now x voltage_now"],
       "a battery without energy_now is read as charge_now x voltage_now", p.stdout + p.stderr)
js, p = sources_json(tree("jetson"))
tap.ok(js is not None and [s["spec"] for s in js["sources"]] ==
       ["hwmon:ina3221:POM_5V_IN", "hwmon:ina3221:POM_5V_GPU", "hwmon:ina3221:POM_5V_CPU"] and
       all(s["update_s"] == 0.026 and s["type"] == "power" for s in js["sources"]),
       "INA3221: three labelled rails, curr x in, update_interval 26 ms", p.stdout + p.stderr)
js, p = sources_json(tree("intel-server"))
tap.ok(js is not None and [s["spec"] for s in js["sources"]] ==
       ["rapl:package-0", "rapl:dram-0", "rapl:package-1", "rapl:dram-1"],
       "two sockets: package and dram of each", p.stdout + p.stderr)

# ---- perf's power PMU ---------------------------------------------------------
js, p = sources_json(tree("perf-fake"))
tap.ok(js is not None and {s["spec"] for s in js["sources"]} ==
       {"rapl:perf:package-0", "rapl:perf:core-0", "rapl:perf:dram-0", "rapl:perf:psys"} and
       all(not s["readable"] and "no PMU of type 97" in s["why"] for s in js["sources"]) and
       abs(js["sources"][0]["resolution"] - 2.3283064365386962890625e-10) < 1e-24,
       "perf power PMU events and scales are read from sysfs; the kernel's refusal is explained",
       p.stdout + p.stderr)
out = os.path.join(work, "perf.json")
p = eqprof("stat", "--energy", "rapl:perf", "--sysfs", tree("perf-fake"), "-o", out, "--", "true")
tap.ok(p.returncode == 1 and "perf_event_open" in p.stderr and "type 97" in p.stderr and
       not os.path.exists(out), "stat --energy rapl:perf on a foreign tree fails clearly, no output",
       p.stderr)
pmu = "/sys/bus/event_source/devices/power"
if os.path.exists(pmu):
    res, p = stat_json(["--energy", "rapl:perf:package-0", "--", "sleep", "0.5"], tap,
                       "stat --energy rapl:perf reads this machine's power PMU")
    if res:
        d = res["domains"][0]
        tap.ok(0 < d["runs"][0]["energy_j"] < 1000 and d["readings"] > 10,
               "the package used some energy while sleep ran", d)
else:
    have = " ".join(sorted(os.listdir("/sys/bus/event_source/devices")))
    tap.ok(True, "# SKIP no perf power PMU on this machine (/sys/bus/event_source/devices has: %s)" % have)

# ---- bad sources: clear message, status 1, no output ------------------------
nobody = 65534


def refused(args, words, what, user=None):
    out = os.path.join(work, "out.json")
    if os.path.exists(out):
        os.unlink(out)
    p = eqprof(*(["stat", "-q", "--format", "json", "-o", out] + args), user=user)
    tap.ok(p.returncode == 1 and all(w in p.stderr for w in words) and not os.path.exists(out) and
           p.stdout == "", what, "status %d\n%s" % (p.returncode, p.stderr))


refused(["--energy", "nosuch", "--", "true"], ["no such energy source", "rapl, battery, hwmon, board"],
        "an unknown source is named, with the ones there are")
refused(["--energy", "rapl", "--sysfs", empty, "--", "true"], ["no RAPL", "powercap"],
        "RAPL missing: says where it looked")
refused(["--energy", "battery", "--sysfs", empty, "--", "true"], ["no battery"], "no battery: says so")
refused(["--energy", "hwmon:ina226", "--sysfs", tree("jetson"), "--", "true"], ["no chip or channel"],
        "a sensor that is not there")
refused(["--sysfs", empty, "--", "true"], ["no energy source can be read", "eqprof sources"],
        "without --energy and nothing readable, stat says what each source lacked")

laptop = tree("intel-laptop")
if os.geteuid() == 0:
    refused(["--energy", "rapl", "--sysfs", laptop, "--", "true"],
            ["permission denied", "root only", "CVE-2020-8694"],
            "energy_uj readable by root only: permission denied, what to do", user=nobody)
    p = eqprof("sources", "--sysfs", laptop, "--format", "json", user=nobody)
    js = json.loads(p.stdout) if p.returncode == 0 else None
    tap.ok(js is not None and not {s["spec"]: s for s in js["sources"]}["rapl:package-0"]["readable"],
           "sources (as nobody) marks RAPL unreadable and says why", p.stdout + p.stderr)
else:
    f = os.path.join(laptop, "devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj")
    os.chmod(f, 0)
    refused(["--energy", "rapl:package-0", "--sysfs", laptop, "--", "true"], ["cannot be read"],
            "an unreadable energy_uj: permission denied, what to do")
    os.chmod(f, 0o400)
    tap.ok(True, "# SKIP sources as another user needs root to switch users")

# ---- a domain that cannot be read (issue 23 item 5) --------------------------
# The real reason (missing, garbage, permission) with the domain and its
# file; a domain asked for by name is an error, one left out of "every
# domain" a warning that -q does not hide, in the JSON too.
def zone_file(tree_dir, zone):
    return os.path.join(os.path.realpath(os.path.join(tree_dir, "class/powercap", zone)), "energy_uj")


broken = os.path.join(work, "broken")
run([TREE, "make", "intel-laptop", broken])
os.unlink(zone_file(broken, "intel-rapl:0:2"))                  # dram-0: missing
with open(zone_file(broken, "intel-rapl:0:1"), "w") as f:       # uncore-0: garbage
    f.write("n/a\n")
dram_path = os.path.join(broken, "class/powercap/intel-rapl:0:2/energy_uj")
js, p = sources_json(broken)
by = {s["spec"]: s for s in js["sources"]} if js else {}
tap.ok(js is not None and not by["rapl:dram-0"]["readable"] and "missing" in by["rapl:dram-0"]["why"] and
       dram_path in by["rapl:dram-0"]["why"] and "permission" not in by["rapl:dram-0"]["why"] and
       "not a number" in by["rapl:uncore-0"]["why"] and by["rapl:package-0"]["readable"],
       "sources: a missing energy_uj is missing, a garbage one not a number, with its path",
       p.stdout + p.stderr)
out = os.path.join(work, "left-out.json")
p = eqprof("stat", "-q", "--format", "json", "-o", out, "--energy", "rapl", "--sysfs", broken,
           "--", "true")
res = json.load(open(out)) if p.returncode == 0 and os.path.exists(out) else None
tap.ok(p.returncode == 0 and "warning" in p.stderr and "dram-0" in p.stderr and dram_path in p.stderr and
       "missing" in p.stderr and "uncore-0" in p.stderr and "root only" not in p.stderr,
       "stat -q --energy rapl: the left-out domains are a warning -q does not hide, with reasons",
       p.stderr)
tap.ok(res is not None and "dram-0" in res["sources"][0]["left_out"] and
       sorted(d["name"] for d in res["domains"]) == ["core-0", "package-0", "psys"],
       "stat JSON: the source says what it left out; the domains read are the rest",
       res and (res["sources"], [d["name"] for d in res["domains"]]))
refused(["--energy", "rapl:dram-0", "--sysfs", broken, "--", "true"], ["dram-0", dram_path, "missing"],
        "a domain asked for by name that is missing is an error naming it and its file")
refused(["--energy", "rapl:uncore-0", "--sysfs", broken, "--", "true"], ["uncore-0", "not a number"],
        "a domain asked for by name that holds garbage is an error")
rec = os.path.join(work, "left-out.eqp")
p = eqprof("record", "-q", "-t", "1000", "--energy", "rapl", "--energy-settle", "0.2s", "--sysfs", broken,
           "-o", rec, "--", "true")
tap.ok(p.returncode == 0 and "warning" in p.stderr and "dram-0" in p.stderr and "missing" in p.stderr and
       os.path.exists(rec), "record -q -t --energy rapl: the left-out domain is a warning -q does not hide",
       p.stderr)
# one domain private to root, the others readable by all: as another user
private = os.path.join(work, "private")
run([TREE, "make", "intel-laptop", private])
for z in ("intel-rapl:0", "intel-rapl:0:0", "intel-rapl:0:1", "intel-rapl:1"):
    os.chmod(zone_file(private, z), 0o444)
if os.geteuid() == 0:
    shared = os.path.join(work, "for-nobody")
    os.mkdir(shared)
    os.chmod(shared, 0o777)
    p = eqprof("stat", "-q", "--format", "json", "-o", os.path.join(shared, "priv.json"), "--energy", "rapl",
               "--sysfs", private, "--", "true", user=nobody)
    tap.ok(p.returncode == 0 and "dram-0" in p.stderr and "permission denied" in p.stderr and
           "CVE-2020-8694" in p.stderr and "package-0" not in p.stderr,
           "as another user, a root-only energy_uj is left out with the permission reason", p.stderr)
    refused(["--energy", "rapl:dram-0", "--sysfs", private, "--", "true"],
            ["dram-0", "permission denied", "CVE-2020-8694"],
            "as another user, a root-only domain asked for by name is an error", user=nobody)
else:
    tap.ok(True, "# SKIP switching users needs root")
    tap.ok(True, "# SKIP switching users needs root")

# ---- a counter that never changes (issue 23 item 9) ---------------------------
# A static tree: RAPL updates every 1 ms, so a counter unchanged for 100
# periods counted nothing; stat neither waits the whole --settle for it nor
# calls it a rarely updating source.
p = eqprof("stat", "--energy", "rapl:psys", "--sysfs", tree("intel-laptop"), "--", "true")
tap.ok(p.returncode == 0 and "did not change" in p.stderr and "updates rarely" not in p.stderr and
       "0 J [0 J, 1 uJ]" in p.stderr and "within --settle" not in p.stderr,
       "stat on a counter that never changes: says so, bounds it, does not call it rare", p.stderr)
# (the wait for an update after the runs skips exactly the domains marked so)
res, p = stat_json(["--energy", "rapl:psys", "--sysfs", tree("intel-laptop"), "--", "true"], tap,
                   "stat --format json on a counter that never changes")
tap.ok(res is not None and res["domains"][0]["counted_nothing"] and res["domains"][0]["changes"] == 0,
       "JSON: counted_nothing", res and res["domains"])

bat = os.path.join(work, "charging")
run([TREE, "make", "intel-laptop", bat])
with open(os.path.join(bat, "devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/BAT0/status"), "w") as f:
    f.write("Charging\n")
refused(["--energy", "battery", "--sysfs", bat, "--", "true"], ["BAT0 is charging", "unplug the charger"],
        "a charging battery is refused: its gauge does not see the machine")

with Machine("intel-laptop", backwards_at=0.2,  # in the first run's CPU time
             workdir=tempfile.mkdtemp(prefix="eqprof-back-")) as m:
    refused(["-r", "3", "--energy", "rapl", "--sysfs", m.sysfs, "--"] + m.work("hot:0.4"),
            ["package-0", "went backwards", "no wrap-around explains", "nothing was measured"],
            "a counter that goes backwards (not a wrap-around) stops stat with no output")
    refused(["--energy", "rapl", "--sysfs", m.sysfs, "--", "false"], ["exited with status 1"],
            "a failing command: nothing is reported")
    m.stop()

shutil.rmtree(work, ignore_errors=True)
tap.done()
