#!/usr/bin/env python3
"""board_qemu.py OUT FIRST_TAP_NUMBER - runs and judges the board-over-USB
guest (test/firmware/board-qemu.sh built OUT/initramfs.gz).
board_qemu.py --bench OUT - runs bench/board/usb-qemu.sh's guest and prints
its figures: records/s and the latency from a quantum to its record.

Starts the bridge (sim/hil/hilbridge: the board firmware in simavr, its
UART on a pty) and QEMU with that pty as the chardev of an emulated FT232
(-device usb-serial on qemu-xhci), then serves the guest's requests on its
third serial port: "unplug"/"plug" are QMP device_del/device_add of the
FT232 (the cable), "power-off"/"power-on" the board's USB power (SIGUSR1,
SIGUSR2 to the bridge: a power-on reset when it comes back),
"freeze"/"thaw" stop and continue the bridge (a board that does not
answer), "mark" a numbered mark in the bridge's truth (SIGRTMIN: they
queue, none merge).  Unplugs, plugs and power changes are marked too, so
that each step of the guest has a board cycle.

Then it judges what the guest sent back (OUT/guest) against the bridge's
truth (OUT/truth): the board's IRQ edges as simavr made them, which are the
firmware's own quanta, independent of everything on the USB side.  TAP on
stdout; the driver's own log on stderr.
"""
import json
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ["SRC"], "test", "lib"))
import eqp  # noqa: E402

SERIAL = "EQB00017"
# The bridge's front end draws this power (W): 0.9 W / 46.3 uJ = 19 400
# pulses/s, 304 quanta/s at N = 64 (the guest's moderate rate) and 4 860/s
# at N = 4, more than the 3 636 records/s simavr's UART carries: the
# firmware sends at its full record rate and drops the rest (counted).
POWER = "0.9"
FAST_N = 4
CYCLES_PER_TICK = 8               # 16 MHz MCU, 2 MHz record timestamps

BENCH = sys.argv[1] == "--bench"
OUT = sys.argv[2] if BENCH else sys.argv[1]
tap_n = 0 if BENCH else int(sys.argv[2]) - 1
failed = 0


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def tap(ok, what, detail=""):
    global tap_n, failed
    tap_n += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", tap_n, what))
    if not ok:
        failed += 1
        for line in str(detail).splitlines()[:15]:
            print("# " + line)
    sys.stdout.flush()


def path(*p):
    return os.path.join(OUT, *p)


def text(*p):
    try:
        with open(path(*p), errors="replace") as f:
            return f.read()
    except OSError:
        return ""


# ---- running it -------------------------------------------------------------

class Qmp:
    def __init__(self, sock_path):
        for _ in range(200):
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(sock_path)
                break
            except OSError:
                time.sleep(0.05)
        self.buf = b""
        self.events = []
        self.read()                      # greeting
        self.cmd("qmp_capabilities")

    def read(self):
        while b"\n" not in self.buf:
            d = self.s.recv(65536)
            if not d:
                raise EOFError("QMP closed")
            self.buf += d
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def cmd(self, name, **args):
        self.s.sendall(json.dumps({"execute": name, "arguments": args}).encode() + b"\n")
        while True:
            m = self.read()
            if "event" in m:
                self.events.append(m)
            elif "return" in m or "error" in m:
                return m

    def wait_event(self, name, device, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            for m in self.events:
                if m["event"] == name and m.get("data", {}).get("device") == device:
                    self.events.remove(m)
                    return True
            self.s.settimeout(max(0.1, end - time.time()))
            try:
                self.events.append(self.read())
            except socket.timeout:
                pass
            finally:
                self.s.settimeout(None)
        return False


def run(marks):
    """The bridge, QEMU and the guest's requests; the steps in order, and in
    marks the name of each mark the bridge wrote, in order."""
    env = os.environ
    b = env["B"]
    kabi = subprocess.run([os.path.join(env["SRC"], "test/linux/kernel-abi.sh")],
                          capture_output=True, text=True, check=True).stdout
    vmlinuz = re.search(r"^VMLINUZ=(\S+)", kabi, re.M).group(1)
    work = tempfile.mkdtemp(prefix="/tmp/eqbq.")
    # The firmware is built once, in the plain build: a sanitizer build's B
    # is beside it (as board-faults.sh and run-loop.sh find it).
    elf = os.path.join(b, "firmware/eqfw-simavr.elf")
    if not os.path.exists(elf):
        elf = os.path.join(b, "..", "firmware/eqfw-simavr.elf")
    bridge = subprocess.Popen([os.path.join(b, "sim/hil/hilbridge"), elf, work,
                               "--powers", POWER, "--life", "1500"],
                              stderr=open(path("bridge.log"), "w"))
    for _ in range(400):
        if os.path.exists(os.path.join(work, "port")) and open(os.path.join(work, "port")).read():
            break
        if bridge.poll() is not None:
            break
        time.sleep(0.05)
    if not os.path.exists(os.path.join(work, "port")):
        sys.exit("board-qemu: the bridge gave no port (exit %s): see %s" % (bridge.poll(), path("bridge.log")))
    pty = open(os.path.join(work, "port")).read().strip()[len("tty:"):]
    # port 1 each time: the cable goes back into the same socket
    ft = "usb-serial,id=ft,chardev=board,bus=xhci.0,port=1,serial=" + SERIAL
    # the bench reads the host's clock in the bridge's shared memory
    ivshmem = ["-chardev", "socket,path=%s/ivshmem.sock,id=ivs" % work,
               "-device", "ivshmem-doorbell,chardev=ivs,vectors=1"] if BENCH else []
    qemu = subprocess.Popen(
        ["qemu-system-x86_64", "-accel", "tcg", "-smp", "1", "-m", "512", "-no-reboot",
         "-kernel", vmlinuz, "-initrd", path("initramfs.gz"),
         "-append", "console=ttyS0 panic=-1 no_timer_check eqserial=%s eqrate=%d" % (SERIAL, FAST_N),
         "-display", "none", "-monitor", "none",
         "-device", "qemu-xhci,id=xhci",
         "-chardev", "serial,id=board,path=" + pty, "-device", ft,
         "-qmp", "unix:%s/qmp.sock,server=on,wait=off" % work,
         "-chardev", "socket,id=ctl,path=%s/ctl.sock,server=on,wait=off" % work,
         "-serial", "file:" + path("console.log"), "-serial", "file:%s/out.tar" % work,
         "-serial", "chardev:ctl"] + ivshmem,
        stdout=open(path("qemu.log"), "w"), stderr=subprocess.STDOUT)
    steps = []                           # the guest's requests, in order
    frozen = False

    def mark(name):
        """A numbered mark in the bridge's truth, once the bridge has written
        it (its log says so): what follows comes after it.  Not while the
        bridge is stopped."""
        if frozen:
            return
        marks.append(name)
        bridge.send_signal(signal.SIGRTMIN)
        said = "hilbridge: mark %d at cycle" % len(marks)
        end = time.time() + 60
        while said not in text("bridge.log") and time.time() < end:
            time.sleep(0.02)

    try:
        qmp = Qmp(work + "/qmp.sock")
        ctl = socket.socket(socket.AF_UNIX)
        for _ in range(200):
            try:
                ctl.connect(work + "/ctl.sock")
                break
            except OSError:
                time.sleep(0.05)
        buf = b""
        end = time.time() + 1200
        done = False
        while not done and time.time() < end and qemu.poll() is None:
            r, _, _ = select.select([ctl], [], [], 1.0)
            if not r:
                continue
            d = ctl.recv(4096)
            if not d:
                break
            buf += d
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                req = line.decode(errors="replace").strip()
                if not req:
                    continue
                steps.append(req)
                ok = True
                if req == "unplug":
                    mark("unplug")
                    # QEMU 7.2 race: bytes its chardev reads in the main-loop
                    # turn that runs device_del reach usb_serial_read() after
                    # the FT232 left its bus, and usb_wakeup() dereferences a
                    # NULL bus (segfault at usb_wakeup+0x4b, seen here).  With
                    # the bridge held for a moment the pty is empty (or the
                    # FT232's buffer full) when the device goes.
                    if not frozen:
                        bridge.send_signal(signal.SIGSTOP)
                        time.sleep(0.1)
                    rep = qmp.cmd("device_del", id="ft")
                    ok = "return" in rep and qmp.wait_event("DEVICE_DELETED", "ft")
                    if not frozen:
                        bridge.send_signal(signal.SIGCONT)
                    mark("unplugged")
                elif req == "plug":
                    mark("plug")
                    rep = qmp.cmd("device_add", driver="usb-serial", id="ft", chardev="board",
                                  bus="xhci.0", port="1", serial=SERIAL)
                    ok = "return" in rep
                elif req == "power-off":
                    mark("power-off")
                    bridge.send_signal(signal.SIGUSR1)
                elif req == "power-on":
                    mark("power-on")
                    bridge.send_signal(signal.SIGUSR2)
                elif req == "freeze":
                    mark("freeze")
                    bridge.send_signal(signal.SIGSTOP)
                    frozen = True
                elif req == "thaw":
                    bridge.send_signal(signal.SIGCONT)
                    frozen = False
                elif req == "mark":
                    mark("mark")
                elif req == "done":
                    done = True
                else:
                    ok = False
                time.sleep(0.05)
                log("%.1f step %d: %s -> %s" % (time.time(), len(steps), req, ok))
                ctl.sendall(("ok %s\n" % req if ok else "failed %s\n" % req).encode())
        qemu.wait(timeout=300)
    finally:
        if qemu.poll() is None:
            qemu.kill()
            qemu.wait()
        bridge.send_signal(signal.SIGCONT)
        bridge.send_signal(signal.SIGTERM)
        bridge.wait()
    os.makedirs(path("guest"), exist_ok=True)
    try:
        with tarfile.open(work + "/out.tar") as t:
            t.extractall(path("guest"))
    except (OSError, tarfile.TarError) as e:
        log("no results from the guest: %s" % e)
    for f in ("truth", "edgetimes"):
        if os.path.exists(os.path.join(work, f)):
            os.replace(os.path.join(work, f), path(f))
    subprocess.run(["rm", "-rf", work])
    return steps


# ---- judging ----------------------------------------------------------------

def read_truth():
    t = {"edges": [], "marks": {}, "power": []}
    for line in text("truth").splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "edge":
            t["edges"].append(int(w[2]))
        elif w[0] == "mark":
            t["marks"][int(w[1])] = int(w[2])
        elif w[0] == "usbpower":
            t["power"].append((w[1], int(w[2])))
        elif w[0] == "lost_unpowered_bytes":
            t["lost_unpowered"] = int(w[1])
    return t


class Board:
    """A board recording: its segments, each with BINF, records and BEND."""

    def __init__(self, file):
        self.file = file
        self.segs = []
        self.marks = []
        self.error = None
        try:
            rec = eqp.read(file)
        except (OSError, ValueError) as e:
            self.error = str(e)
            return
        self.complete = rec.has_end
        for ctype, _, p in rec.chunks:
            if ctype == "BINF":
                (flen,) = struct.unpack_from("<I", p, 28)
                seg, cause, offset = struct.unpack_from("<IIQ", p, 48 + flen)
                self.segs.append({"n": seg, "cause": cause, "offset": offset, "recs": [],
                                  "end": None, "quantum": struct.unpack_from("<I", p, 16)[0]})
            elif ctype == "BREC":
                (n,) = struct.unpack_from("<I", p, 0)
                for i in range(n):
                    t, seq, pulses, uv, fl, _ = struct.unpack_from("<QIIIHH", p, 8 + 24 * i)
                    self.segs[-1]["recs"].append((t, seq, pulses, fl))
            elif ctype == "BEND":
                v = struct.unpack_from("<II9Q", p, 0)
                self.segs[-1]["end"] = dict(zip(
                    ("segment", "reason", "records", "missing", "dropped", "bad_frames",
                     "quanta", "late", "late_unrecorded", "rx_errors", "stalls"), v))
            elif ctype == "MARK":
                (t,) = struct.unpack_from("<Q", p, 8)
                self.marks.append((t, p[16:].decode(errors="replace")))

    def records(self):
        return sum(len(s["recs"]) for s in self.segs)


def match(seg, edges, base, calib):
    """Each record of a segment to the edge it stands for: its time in
    cycles (ticks x 8, less the segment's time offset, plus the cycle the
    firmware booted at, less calib: where the firmware's clock started) to
    the nearest of the bridge's edges.  Returns (edge index of each record,
    offsets record - edge in cycles), or (None, a reason)."""
    import bisect
    idx, offs = [], []
    for t, seq, _, _ in seg["recs"]:
        c = (t - seg["offset"]) * CYCLES_PER_TICK + base - calib
        i = bisect.bisect_left(edges, c)
        if i == len(edges) or (i > 0 and c - edges[i - 1] < edges[i] - c):
            i -= 1
        if i < 0:
            return None, "record seq %d at cycle %d comes before every edge" % (seq, c)
        idx.append(i)
        offs.append(c - edges[i])
    return idx, offs


def calibrate(seg, edges, base):
    """Where the firmware's clock starts against simavr's cycles (it sets
    Timer0 up some thousands of cycles after its reset): the median offset
    of a segment at N = 64, whose quanta are ~52 000 cycles apart, so that
    the nearest edge is its own as long as the clock starts within 26 000
    cycles of the reset."""
    _, offs = match(seg, edges, base, 0)
    return sorted(offs)[len(offs) // 2] if offs else 0


def consistent(seg, idx, offs):
    """The records map to edges one to one: each record's edge is as far from
    the previous record's as their seq numbers, at one interrupt latency."""
    recs = seg["recs"]
    if not recs:
        return False, "no records"
    bad = [k for k in range(1, len(recs)) if idx[k] - idx[k - 1] != recs[k][1] - recs[k - 1][1]]
    # the firmware stamps the edge from its compare interrupt: entry and
    # register saves, 6..63 cycles in bench/firmware, plus simavr's one
    # input edge: within 400 cycles (25 us) of the calibrated offset; a
    # record matched to the wrong edge is a whole quantum (>= 4 900 cycles
    # at N = 6) off
    ok = not bad and max(abs(o) for o in offs) < 400
    return ok, ("%d records, seq %d..%d = edges %d..%d, record-edge offsets %d..%d cycles%s" %
                (len(recs), recs[0][1], recs[-1][1], idx[0], idx[-1], min(offs), max(offs),
                 "" if not bad else "; seq and edge steps differ at %d records, first at seq %d"
                 % (len(bad), recs[bad[0]][1])))


def edges_between(edges, lo, hi):
    import bisect
    return bisect.bisect_left(edges, hi) - bisect.bisect_right(edges, lo)


def judge(steps, names):
    truth = read_truth()
    edges = truth["edges"]
    marks = truth["marks"]
    g = lambda *p: text("guest", *p)  # noqa: E731
    guest = g("guest.log")
    tap(os.path.exists(path("truth")) and "GUEST-DONE" in g("guest.log") and
        "EQPROF-BOARD-DONE" in text("console.log"),
        "the guest booted, ran every step and sent its results; the bridge wrote its truth "
        "(%d steps, %d IRQ edges)" % (len(steps), len(edges)),
        guest[-2000:] + text("driver.log")[-1000:])
    if "GUEST-DONE" not in guest:
        return

    # the cycle of the k-th mark of a name ("mark", "unplug" before device_del,
    # "unplugged" after it, "plug", "power-off", "power-on", "freeze")
    def cyc(name, k=0):
        n = [i + 1 for i, m in enumerate(names) if m == name]
        return marks.get(n[k]) if k < len(n) else None

    # 1. the board on USB
    lst = g("list.txt")
    usbdev = g("usbdev.txt")
    node = re.search(r"node=(\S+)", usbdev)
    tap(re.search(r"^tty:/dev/ttyUSB0 +FT232R 0403:6001 \"QEMU USB SERIAL\", serial %s, "
                  r"USB 1-1 \(bus 1, port 1, %s\)" % (SERIAL, re.escape(node.group(1) if node else "?")),
                  lst, re.M) is not None,
        "board list (libusb): the FT232 by its tty, vendor:product 0403:6001, product, serial, "
        "bus, port and usbfs node", lst + usbdev)
    for t in ("tty", "ftdi"):
        info = g("info-%s.txt" % t)
        tap("rc=0" in info and "board          eqfw atmega328p" in info and
            "link 1000000 Bd" in info,
            "board info over %s: INFO, STATUS and the calibration through the emulated FT232"
            % ("/dev/ttyUSB0 (ftdi_sio)" if t == "tty" else "ftdi:%s (libftdi1)" % SERIAL), info)
    during, after = g("during-ftdi.txt"), g("after-ftdi-log.txt") + g("after-ftdi.txt")
    # sampled every 0.3 s while the log ran: at least once usbfs and no tty
    tap(re.search(r"^sample .*driver=usbfs tty=$", during, re.M) is not None and
        after.count("driver=ftdi_sio") == 2,
        "libftdi1 detaches ftdi_sio while it holds the board (usbfs has it, no ttyUSB0) and "
        "gives it back when eqprof closes it (ftdi_sio bound again)", during + after)

    # 2. and 3. logs over each transport, record by record against the edges
    first = Board(path("guest", "log-tty.eqp"))
    calib = calibrate(first.segs[0], edges, 0) if first.segs else 0
    for name, req_k, fast in (("log-tty", 0, False), ("log-ftdi", 1, False),
                              ("fast-tty", 2, True), ("fast-ftdi", 3, True)):
        f = Board(path("guest", name + ".eqp"))
        err = g(name + ".err")
        lo, hi = cyc("mark", req_k), cyc("mark", req_k + 1)
        if f.error or len(f.segs) != 1 or lo is None or hi is None:
            tap(False, "%s: one segment from the log" % name, (f.error or "") + err)
            continue
        s = f.segs[0]
        idx, offs = match(s, edges, 0, calib)
        if idx is None:
            tap(False, "%s: records match the firmware's edges" % name, offs)
            continue
        good, why = consistent(s, idx, offs)
        e = s["end"] or {}
        # the board counted from START to STOP, between the marks around the log
        window = edges_between(edges, lo, hi)
        link_lost = e.get("missing", -1) - e.get("dropped", 0)
        secs = (s["recs"][-1][0] - s["recs"][0][0]) / 2e6 if len(s["recs"]) > 1 else 0
        # At 300 records/s nothing may be lost on the link: the pty and the
        # FT232 hold 0.5 s of them, far longer than the guest ever stalls.
        # At the full rate a guest under TCG on a loaded machine may fall
        # behind (make bench measures it): there every loss must be counted.
        tap(good and "rc=0" in err and e.get("quanta") == window and
            e.get("records", -1) + e.get("missing", -1) == window and
            (fast or link_lost == 0),
            "%s: every one of the %d quanta the firmware made (simavr's edges) is a record "
            "or counted: %d records, %d missing, %d of them dropped by the board, %d lost on "
            "the link; %.0f records/s%s" %
            (name, window, e.get("records", -1), e.get("missing", -1), e.get("dropped", -1),
             link_lost, len(s["recs"]) / secs if secs else 0,
             " (quantum %d pulses: the firmware's full record rate)" % s["quantum"] if fast else ""),
            why + "\n" + str(e) + "\n" + err)

    # 4. the cable pulled mid-log: the log ends, keeps what came, names the pull
    for t, k in (("tty", 0), ("ftdi", 1)):
        f = Board(path("guest", "pull-%s.eqp" % t))
        err = g("pull-%s.err" % t)
        pull, gone = cyc("unplug", k), cyc("unplugged", k)
        if f.error or len(f.segs) != 1 or pull is None:
            tap(False, "pull-%s: a recording of one segment" % t, (f.error or "") + err)
            continue
        s = f.segs[0]
        idx, offs = match(s, edges, 0, calib)
        good, why = consistent(s, idx, offs) if idx is not None else (False, offs)
        e = s["end"] or {}
        # what was on its way when the cable went: the edges after the last
        # record up to the pull (the bridge's mark once QEMU said the FT232
        # was gone)
        last = edges[idx[-1]] if idx else 0
        in_flight = edges_between(edges, last, gone)
        made_before = edges_between(edges, (edges[idx[0]] - 1) if idx else 0, gone)
        tap(good and "rc=3" in err and e.get("reason") == 3 and
            e.get("records") == len(s["recs"]) and
            any(lbl == "board unplugged" for _, lbl in f.marks) and
            "the board was unplugged (%s went away)" %
            ("tty:/dev/ttyUSB0" if t == "tty" else "ftdi:" + SERIAL) in err and
            "records written to" in err,
            "cable pulled mid-log over %s: exit status 3, the unplug named and marked, the "
            "segment ended as 'link failed'; %d records kept of the %d quanta made before "
            "the pull (%d were on their way)" % (t, len(s["recs"]), made_before, in_flight),
            why + "\n" + str(e) + "\n" + err)
        # nothing received was lost: the records up to the pull, no gap
        tap(idx is not None and e.get("missing", -1) >= 0 and
            sum(1 for k2 in range(1, len(s["recs"])) if s["recs"][k2][1] != s["recs"][k2 - 1][1] + 1) == 0
            and in_flight <= edges_between(edges, pull - 16000000 // 4, gone),
            "pull-%s: the file has every record from the first to the last before the pull "
            "(no gap), and the ones lost with the cable are only those made in the last 250 ms "
            "before device_del or during it (%d)" % (t, in_flight), why)

    # 5. --wait: link down and up with the board's power on (tty), then the
    # cable with the board's power (ftdi)
    f = Board(path("guest", "wait-tty.eqp"))
    err = g("wait-tty.err")
    lo, hi = cyc("mark", 6), cyc("mark", 7)   # 0-3: the logs; 4, 5: the pulls
    unpl, plug = cyc("unplugged", 2), cyc("plug", 2)
    if not f.error and len(f.segs) == 1 and None not in (lo, hi, unpl, plug):
        s = f.segs[0]
        idx, offs = match(s, edges, 0, calib)
        good, why = consistent(s, idx, offs) if idx is not None else (False, offs)
        e = s["end"] or {}
        window = edges_between(edges, lo, hi)
        gaps = [(s["recs"][k][1] - s["recs"][k - 1][1] - 1) for k in range(1, len(s["recs"]))
                if s["recs"][k][1] != s["recs"][k - 1][1] + 1]
        away = edges_between(edges, unpl, plug)
        tap(good and "rc=0" in err and e.get("quanta") == window and
            e.get("records", -1) + e.get("missing", -1) == window and
            # the time away is one gap; a frame cut at the replug (bytes
            # of it held in QEMU's chardev) is a bad frame, each costing
            # at most one record of its own: under the sanitizers 2 bad
            # frames, 2 more gaps, all counted
            len(gaps) <= 1 + e.get("bad_frames", 0) and
            [lbl.split(" after")[0] for _, lbl in f.marks] == ["board unplugged", "board back"] and
            all("kept counting" in lbl for _, lbl in f.marks[1:]) and
            "kept counting" in err and "unplugged 1 time" in err,
            "log --wait over tty, the link down %d quanta and back with the board still "
            "counting: one segment goes on, the records lost meanwhile are one seq gap "
            "(%d: the rest waited in QEMU's chardev), counted; every one of the %d quanta "
            "is a record or counted missing" % (away, gaps[0] if gaps else 0, window),
            why + "\n" + str(e) + "\n" + err + "\n" + str(f.marks))
    else:
        tap(False, "wait-tty: one segment", (f.error or "") + err)

    f = Board(path("guest", "wait-ftdi.eqp"))
    err = g("wait-ftdi.err")
    lo, hi = cyc("mark", 7), cyc("freeze", 0)
    off_c = [c for w, c in truth["power"] if w == "off"]
    on_c = [c for w, c in truth["power"] if w == "on"]
    if not f.error and len(f.segs) == 2 and None not in (lo, hi) and off_c and on_c:
        s0, s1 = f.segs
        i0, o0 = match(s0, edges, 0, calib)
        # segment 1's clock started at the power-on reset (N = 64 again)
        i1, o1 = match(s1, edges, on_c[0], calibrate(s1, edges, on_c[0]))
        g0 = consistent(s0, i0, o0) if i0 is not None else (False, o0)
        g1 = consistent(s1, i1, o1) if i1 is not None else (False, o1)
        e0, e1 = s0["end"] or {}, s1["end"] or {}
        after = edges_between(edges, on_c[0], hi)
        tap(g0[0] and g1[0] and "rc=0" in err and e0.get("reason") == 3 and
            s1["recs"][0][1] == 0 and e1.get("quanta") == after and
            e1.get("records", -1) + e1.get("missing", -1) == after and
            edges_between(edges, off_c[0], on_c[0]) == 0 and
            any(lbl.startswith("board away") and "restarted" in lbl for _, lbl in f.marks) and
            "had restarted" in err and s1["offset"] > s0["recs"][-1][0],
            "log --wait over ftdi, the cable pulled with the board's power: segment 0 ends "
            "'link failed' with %d records, nothing counted while away (0 edges), segment 1 "
            "after the power-on reset has all %d quanta (%d records), its times after "
            "segment 0's" % (len(s0["recs"]), after, len(s1["recs"])),
            g0[1] + "\n" + g1[1] + "\n" + str(e0) + str(e1) + "\n" + err + "\n" + str(f.marks))
    else:
        tap(False, "wait-ftdi: two segments", (f.error or "%d segments" % len(f.segs)) + err)

    # 6. unplugged while board info waits
    for t in ("tty", "ftdi"):
        info = g("info-pull-%s.txt" % t)
        tap("rc=3" in info and "the board went away while eqprof waited for its reply to "
            "INFO" in info,
            "board info over %s waiting for a silent board, cable pulled: exit status 3 at "
            "once (not the 60 s timeout), 'the board went away while eqprof waited for "
            "its reply to INFO'" % t, info)

    # 7. hot-plug
    for t, how in (("noudev", "rescanning every second: udev is not running"),
                   ("udev", "libusb hot-plug")):
        w = g("watch-%s.txt" % t)
        tap(how in w and re.search(r"^left +USB 1-1 .*serial %s" % SERIAL, w, re.M) and
            re.search(r"^arrived +USB 1-1 .*serial %s, /dev/ttyUSB0" % SERIAL,
                      w.split("\nleft", 1)[-1], re.M) is not None and "rc=0" in w,
            "board list --watch %s: the pull and the plug reported (%s)" %
            ("without udevd" if t == "noudev" else "with udevd", how), w)

    # 8. permissions
    pf, pt, pl = g("perm-ftdi.txt"), g("perm-tty.txt"), g("perm-list.txt")
    nodes = g("perm-nodes.txt")
    rules = "/share/eqprof/60-eqprof-board.rules"
    hint = ("sudo cp %s /etc/udev/rules.d/ && sudo udevadm control --reload-rules && "
            "sudo udevadm trigger" % rules)
    tap("rc=1" in pf and re.search(r"ftdi:%s: permission denied opening /dev/bus/usb/001/\d{3} "
                                   r"\(crw-rw-r-- root root\)" % SERIAL, pf) and hint in pf and
        "permission denied" in pl,
        "a user without the udev rule: ftdi:SERIAL names the usbfs node, its rights, the rule "
        "file and the command that installs it; board list says the same", pf + pl + nodes)
    tap("rc=1" in pt and "/dev/ttyUSB0: permission denied opening /dev/ttyUSB0 (crw-rw---- "
        "root dialout)" in pt and "dialout group" in pt and hint in pt,
        "a user outside group dialout: the tty names its node, its rights, the group, the rule "
        "file and the command", pt)
    tap("rc=0" in g("perm-tty-dialout.txt"),
        "a user in group dialout opens the tty with Debian's default rules alone",
        g("perm-tty-dialout.txt"))
    after = g("perm-nodes-rules.txt")
    tap("rc=0" in g("perm-cmd.txt") and "rc=0" in g("perm-ftdi-rules.txt") and
        "rc=0" in g("perm-tty-rules.txt") and
        re.search(r"crw-rw---- +1 root +plugdev .*/dev/bus/usb/001/", after) is not None and
        "/dev/eqprof-board-%s" % SERIAL in after,
        "the command from the message installs the rule; replugged, the user (plugdev, "
        "dialout) opens the board through libftdi1 and /dev/eqprof-board-%s" % SERIAL,
        g("perm-cmd.txt") + after + g("perm-ftdi-rules.txt") + g("perm-tty-rules.txt"))

    splat = re.findall(r".*(?:BUG:|Oops|WARNING:|Call Trace).*", g("dmesg.txt") + text("console.log"))
    tap(not splat, "the guest's kernel log shows no BUG, Oops or WARNING", "\n".join(splat[:10]))


# ---- the bench ----------------------------------------------------------------

def offset_ns(lines):
    """Host clock minus guest clock, from hilclock's "GUEST HOST" lines: the
    host wrote HOST before the guest read it and then read its own clock,
    so the offset is at least HOST - GUEST on every line; the largest is
    short by the bridge's turn at most.  Returns (offset, spread of the
    lines within 1 ms of it: how often the bridge wrote)."""
    d = [int(h) - int(g) for g, h in (ln.split() for ln in lines if ln.strip())]
    if not d:
        return None, None
    best = max(d)
    near = sorted(best - x for x in d if best - x < 1000000)
    return best, near[len(near) // 2] if near else None


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def bench(names):
    truth = read_truth()
    edges = truth["edges"]
    host = {}
    for line in text("edgetimes").splitlines():
        if line and line[0] != "#":
            k, t = line.split()
            host[int(k)] = float(t)
    s0, j0 = offset_ns(text("guest", "sync0.txt").splitlines())
    s1, j1 = offset_ns(text("guest", "sync1.txt").splitlines())
    if s0 is None or s1 is None or not edges:
        print("board over USB bench: the guest sent no results (see %s)" % path("console.log"))
        return 1
    print("board over USB: firmware in simavr -> pty -> QEMU usb-serial (FT232) on qemu-xhci -> "
          "Debian guest (TCG) -> eqprof board log")
    print("  guest clock to host clock: offset moved %.3f ms over the run; the bridge wrote its "
          "clock every %.3f ms (median) (latencies below are good to about that)" %
          ((s1 - s0) / 1e6, max(j0 or 0, j1 or 0) / 1e6))
    print("  %-22s %8s %11s %10s %9s   %s" % ("transport", "quantum", "records/s", "link lost",
                                            "dropped", "latency quantum -> record in eqprof: "
                                            "median  p90  p99  max"))
    first = Board(path("guest", "b-tty-64.eqp"))
    calib = calibrate(first.segs[0], edges, 0) if first.segs else 0
    for n in (64, FAST_N):
        for t in ("tty", "ftdi"):
            f = Board(path("guest", "b-%s-%d.eqp" % (t, n)))
            if f.error or not f.segs or not f.segs[0]["recs"]:
                print("  %s N=%d: no recording (%s)" % (t, n, f.error))
                continue
            seg = f.segs[0]
            arr = {}
            for line in text("guest", "b-%s-%d.trace" % (t, n)).splitlines():
                m = re.match(r"board: <- RECORD seq (\d+) at ([\d.]+)", line)
                if m:
                    arr.setdefault(int(m.group(1)), float(m.group(2)))
            idx, _ = match(seg, edges, 0, calib)
            lat = []
            for k, r in enumerate(seg["recs"]):
                if idx and r[1] in arr and idx[k] in host:
                    # arrival on the host's clock, less when the bridge made the edge
                    tg = arr[r[1]] * 1e9
                    off = s0 + (s1 - s0) * 0.5
                    lat.append((tg + off) / 1e9 - host[idx[k]])
            e = seg["end"] or {}
            secs = (seg["recs"][-1][0] - seg["recs"][0][0]) / 2e6
            ms = [x * 1e3 for x in lat]
            print("  %-22s %8d %11.0f %10d %9d   %6.2f %6.2f %6.2f %6.2f ms (%d records)" %
                  ("/dev/ttyUSB0 (ftdi_sio)" if t == "tty" else "ftdi:SERIAL (libftdi1)", n,
                   len(seg["recs"]) / secs if secs > 0 else 0,
                   e.get("missing", 0) - e.get("dropped", 0), e.get("dropped", 0),
                   pct(ms, 0.5), pct(ms, 0.9), pct(ms, 0.99), max(ms) if ms else float("nan"),
                   len(ms)))
    behind = re.search(r"max_behind_s ([\d.]+)", text("truth"))
    queue = re.search(r"max_line_queue_bytes (\d+)", text("truth"))
    print("  (quantum 64: %s W into the front end, about 300 quanta/s; quantum %d: more quanta "
          "than the board's UART carries, the firmware's full record rate.  The bridge ran at "
          "most %.1f ms behind real time, and what it made while catching up waited for the "
          "line: up to %d bytes, %.1f ms; on a machine where it keeps up that is below 1 ms)" %
          (POWER, FAST_N, float(behind.group(1)) * 1e3 if behind else -1,
           int(queue.group(1)) if queue else -1,
           int(queue.group(1)) * 11e3 / 1e6 if queue else -1))
    return 0


def main():
    names = []
    if os.environ.get("BOARD_QEMU_JUDGE_ONLY"):
        # judge OUT again as it is (when changing the checks)
        with open(path("steps.json")) as f:
            steps, names = json.load(f)
    else:
        steps = run(names)
        with open(path("steps.json"), "w") as f:
            json.dump([steps, names], f)
    log("steps: %s" % steps)
    log("marks: %s" % names)
    if BENCH:
        return bench(names)
    judge(steps, names)
    print("# truth: %d edges" % len(read_truth()["edges"]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
