#!/usr/bin/env python3
"""events.py - record --events on this machine (the real kernel test is
test/linux: null_blk, lo and idle CPUs in QEMU with Debian's kernel).

Where the tracepoints can be opened (root or CAP_PERFMON, tracefs mounted),
a program that sends a counted number of UDP datagrams over lo
(test/linux/devload.c) has exactly that many net_dev_xmit requests of its
pid in the recording, of its payload plus 42 bytes of headers, with its
user pc.  Where they cannot (no tracefs, or a user the kernel refuses:
root testing as nobody), the recording is still made, record says once
which events it could not log and why, and the header keeps it
(events_missing).  Bad --events and --quantum values are refused.
"""
import os
import pwd
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import EQPROF, SRC, Tap, eqprof  # noqa: E402

ALL = ("power:cpu_frequency", "power:cpu_idle", "block:block_rq_issue", "block:block_rq_complete",
       "net:net_dev_xmit", "block:block_rq_insert")


def chunks(path):
    d = open(path, "rb").read()
    o = 16
    while o + 16 <= len(d):
        t, _, n = struct.unpack_from("<4sIQ", d, o)
        yield t, d[o + 16:o + 16 + n]
        o = (o + 16 + n + 4 + 7) & ~7


def meta(path):
    for t, p in chunks(path):
        if t == b"HEAD":
            tl = struct.unpack_from("<I", p, 40)[0]
            xl = struct.unpack_from("<I", p, 44 + tl)[0]
            return dict(x.split("=", 1) for x in p[48 + tl:48 + tl + xl].decode().splitlines() if "=" in x)
    return {}


def dreqs(path):
    return [struct.unpack_from("<QQQIIHHI", p, 8 + 40 * i)
            for t, p in chunks(path) if t == b"DREQ" for i in range(struct.unpack_from("<I", p)[0])]


def not_logging(err):
    return [x for x in err.splitlines() if x.startswith("eqprof record: not logging ")]


def main():
    t = Tap()
    with tempfile.TemporaryDirectory() as d:
        prog = os.path.join(d, "devload")
        subprocess.run(["cc", "-O1", "-o", prog, os.path.join(SRC, "test/linux/devload.c")], check=True)
        rec = os.path.join(d, "n.eqp")
        p = subprocess.run([EQPROF, "record", "-t", "--events", "net", "-o", rec, "--",
                            prog, "/dev/null", "0", "4096", "1", "20", "100"], capture_output=True, text=True)
        m = meta(rec) if p.returncode == 0 else {}
        truth = re.search(r"pid=(\d+)", p.stdout)
        t.ok(p.returncode == 0 and truth and "events" in m, "record --events net writes a recording whose header says what was logged",
             (p.returncode, p.stderr, m))
        if m.get("events") == "net:net_dev_xmit":
            devs = {v: int(k[7:]) for k, v in m.items() if k.startswith("device:")}
            lo = [r for r in dreqs(rec) if r[5] == devs.get("lo") and r[3] == int(truth.group(1))]
            t.ok(len(lo) == 20 and all(r[7] == 142 and r[0] == r[1] and r[2] != 0 for r in lo),
                 "20 datagrams of 100 bytes over lo: 20 requests of the sender's pid on device lo, 142 bytes each, with its pc",
                 (devs, lo[:4]))
        else:
            t.ok(len(not_logging(p.stderr)) == 1 and "net:net_dev_xmit" in m.get("events_missing", "") and
                 m.get("events") == "none",
                 "# SKIP tracepoints not available here (%s); record said so once and the header keeps it"
                 % m.get("events_missing", "?")[:120], p.stderr)
        # a user the kernel refuses system-wide tracepoints
        if os.geteuid() == 0 and shutil.which("setpriv"):
            nobody = pwd.getpwnam("nobody")
            os.chmod(d, 0o777)
            recn = os.path.join(d, "nobody.eqp")
            p = subprocess.run(["setpriv", "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid,
                                "--clear-groups", EQPROF, "record", "-t", "--all-user", "--events", "all", "-o", recn,
                                "--", "true"], capture_output=True, text=True)
            m = meta(recn) if p.returncode == 0 else {}
            lines = not_logging(p.stderr)
            miss = m.get("events_missing", "")
            t.ok(p.returncode == 0 and len(lines) == 1 and m.get("events") == "none" and
                 all(e in miss and e in lines[0] for e in ALL) and
                 re.search(r"root or CAP_PERFMON|no tracefs|run as root|need root", miss),
                 "as a user the kernel refuses: recorded anyway; every event named once with why, in the header too",
                 (p.returncode, p.stderr, m))
        else:
            t.ok(True, "# SKIP not root: no refused user to try")
        rc, out, err = eqprof("record", "-t", "--events", "power,disk", "--", "true")
        t.ok(rc == 2 and "'disk' is not an event group (power, block, net, all or none)" in err,
             "--events power,disk: the unknown group named", err)
        rc, out, err = eqprof("record", "-t", "--quantum", "1mJ", "--", "true")
        t.ok(rc == 2 and "--quantum goes with -e" in err, "--quantum without -e refused", err)
        rc, out, err = eqprof("record", "--help")
        t.ok(rc == 0 and "--events LIST" in out and "--no-events" in out and "--quantum E" in out,
             "record --help documents --events, --no-events and --quantum", out[-600:])
    t.done()


main()
