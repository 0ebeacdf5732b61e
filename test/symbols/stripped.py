#!/usr/bin/env python3
"""stripped.py - stripped code is never one [unknown] row; debug info is found
through /usr/lib/debug/.build-id (here beneath --symfs) and through
debuginfod servers (DEBUGINFOD_URLS, a local `debuginfod` started here).

test/fixtures/callers.c (-O2 -g, no frame pointers) runs one leaf under a()
with n and b() with 3n iterations of the same code.  A stripped copy keeps
its .eh_frame: --call-graph dwarf still unwinds it, and each function is a
row named by its start as a file offset ("callers-s+0x11d0", never after
a symbol before it, which is another function),
the starts taken here from nm on the unstripped copy.  perf record
--call-graph dwarf samples the same run (test/symbols/perfcmp.py), and
perf, given the unstripped copy (same build-id) through --symfs, names
its stacks: b's row's share of a+b is held to perf's b() (Z = 4.9, about
1e-6: the one statistical check of the file), not to the iteration
counts' 3/4 (how long an iteration takes is the machine's); where perf
cannot run it is skipped, saying so.  With
the debug file (objcopy --only-keep-debug) at its build-id path, or served
by debuginfod, the same samples are named leaf, a and b; and so they are
from MiniDebugInfo (.gnu_debugdata, Fedora's xz-compressed symbol table).
(Debian's stripped programs and libraries: test/symbols/cfi.py, against
readelf and perf.)
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from eqtest import SRC, Elf, eqprof, run  # noqa: E402
from perfcmp import Sampled, start as perf_start  # noqa: E402

def perf_stacks(perfdata, symfs):
    """perf script's call chains of perfdata, frames outermost first, the
    binaries' symbols read beneath symfs."""
    out = run(["perf", "script", "-i", perfdata, "--symfs", symfs, "-F", "comm,ip,sym"]).stdout
    stacks = []
    for block in out.split("\n\n"):
        lines = [x for x in block.splitlines() if x.strip()]
        if not lines or lines[0].strip() == "eqprof":
            continue
        fr = [re.sub(r"\+0x[0-9a-f]+$", "", m.group(1)) for m in
              (re.match(r"^\s*[0-9a-f]+\s+(.*?)\s*$", x) for x in lines[1:]) if m]
        stacks.append(list(reversed(fr)))
    return stacks


def children(rec, env=None, *extra):
    p = subprocess.run([os.environ.get("EQPROF", "eqprof"), "report", rec, "--format", "json"] + list(extra),
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return {}, p.stderr
    doc = json.loads(p.stdout)
    return {r["name"]: r["children_samples"] for r in doc["rows"]}, p.stderr


def minidebuginfo(full, debug, out, work):
    """out: full stripped, with a .gnu_debugdata section as Fedora's
    find-debuginfo.sh (add_minidebug) makes it: the debug file's function
    symbols not already in .dynsym, sections stripped, xz-compressed."""
    run(["strip", "-o", out, full])
    dyn = {l.split()[0] for l in run(["nm", "-D", "--format=posix", "--defined-only", out],
                                     check=False).stdout.splitlines() if l.strip()}
    funcs = set()
    for line in run(["nm", "--format=sysv", "--defined-only", debug]).stdout.splitlines():
        f = line.split("|")
        if len(f) > 3 and "FUNC" in f[3]:
            funcs.add(f[0].strip())
    keep = os.path.join(work, "keep_symbols")
    with open(keep, "w") as f:
        f.write("".join(n + "\n" for n in sorted(funcs - dyn)))
    mini = os.path.join(work, "mini_debuginfo")
    run(["objcopy", "-S", "--remove-section", ".gdb_index", "--remove-section", ".comment",
         "--keep-symbols=" + keep, debug, mini])
    run(["xz", "-f", mini])
    run(["objcopy", "--add-section", ".gnu_debugdata=" + mini + ".xz", out])


def other_modules(rec, symfs, prog):
    """Every module rec maps but prog (ld.so, libc) copied beneath symfs.
    A view that reads the recording with --symfs must unwind through them
    as the view without it does: else a sample in ld.so or libc called
    from main (main's first call of a libc function, which ld.so binds
    lazily: seen in CI, once for each of the two views by --symfs) stops
    at them and loses main from its stack in that view only."""
    p = subprocess.run([os.environ.get("EQPROF", "eqprof"), "report", rec, "--by", "module",
                        "--format", "json", "-q"], capture_output=True, text=True, env=clean_env())
    for r in json.loads(p.stdout)["rows"] if p.returncode == 0 else []:
        m = r["name"]
        if m.startswith("/") and m != prog and os.path.isfile(m):
            os.makedirs(os.path.dirname(symfs + m), exist_ok=True)
            shutil.copy(m, symfs + m)


def clean_env():
    env = dict(os.environ)
    env.pop("DEBUGINFOD_URLS", None)
    return env


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    t, cmp, d, use_perf = perf_start("eqprof-stripped-")
    full = os.path.join(d, "callers")
    run(["cc", "-O2", "-g", "-fomit-frame-pointer", "-o", full, os.path.join(SRC, "test", "fixtures", "callers.c")])
    prog = os.path.join(d, "callers-s")
    run(["strip", "-o", prog, full])
    debug = os.path.join(d, "callers.debug")
    run(["objcopy", "--only-keep-debug", full, debug])
    bid = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", prog]).stdout).group(1)
    e = Elf(full)
    start = {f: e.text_vaddr_to_offset(e.syms[f][0]) for f in ("leaf", "a", "b", "main")}

    sm = Sampled(d, "s", [prog, "2000000", "100"], use_perf, hz=4000, callgraph="dwarf")
    rec, rc, err = sm.eqp, sm.status, sm.stderr
    t.ok(rc == 0, "record --call-graph dwarf of the stripped copy", err)

    # 1. no symbols: one row a function, named by its start
    rows, err = children(rec, clean_env())
    named = {f: [k for k in rows if re.match(r"^callers-s\+0x%x$" % start[f], k)]
             for f in start}
    ka = rows.get(named["a"][0], 0) if named["a"] else 0
    kb = rows.get(named["b"][0], 0) if named["b"] else 0
    t.ok(all(len(v) == 1 for v in named.values()) and "[unknown]" not in rows,
         "stripped: leaf, a, b and main are rows named by their starts (nm of the unstripped copy)",
         (named, list(rows)[:8]))
    if use_perf:
        # perf's stacks of the same run, named from the unstripped copy
        perfsym = os.path.join(d, "perfsym")
        os.makedirs(perfsym + d)
        shutil.copy(full, perfsym + prog)
        pst = perf_stacks(sm.perf, perfsym)
        pa = sum(1 for fr in pst if "leaf" in fr and "a" in fr)
        pb = sum(1 for fr in pst if "leaf" in fr and "b" in fr)
        cmp.share("stripped: the rows of a() and b() share a+b as perf's a() and b() of the same run",
                  kb, ka + kb, pb, pa + pb)
    else:
        t.ok(True, "# SKIP stripped: a() and b()'s shares: perf (the reference) cannot run here")
    _, table, _ = eqprof("report", rec, "--no-children", "-v")  # -v: why, in full
    t.ok("stripped (only .dynsym)" in table and "/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:]) in table,
         "the header says the file is stripped and where the debug file was looked for", table[:600])

    # 2. the debug file at its build-id path (beneath --symfs)
    symfs = os.path.join(d, "symfs")
    os.makedirs(os.path.join(symfs, "usr/lib/debug/.build-id", bid[:2]))
    shutil.copy(debug, os.path.join(symfs, "usr/lib/debug/.build-id", bid[:2], bid[2:] + ".debug"))
    os.makedirs(symfs + d)
    shutil.copy(prog, symfs + prog)
    other_modules(rec, symfs, prog)
    stripped_rows = rows
    rows, err = children(rec, clean_env(), "--symfs", symfs)
    # the same recording: each function's samples by its name here are the
    # samples its start named without the debug file (exact)
    pairs = {f: (rows.get(f, 0), stripped_rows.get("callers-s+0x%x" % start[f], 0)) for f in start}
    t.ok(all(x == y and x > 0 for x, y in pairs.values()),
         "debug file from .build-id/%s/%s.debug: leaf, a, b and main by name, with the samples their "
         "starts named without it %s" % (bid[:2], bid[2:], pairs), (rows, err))

    # 3. the debug file from a debuginfod server
    server = shutil.which("debuginfod")
    if server:
        srv = os.path.join(d, "srv")
        os.makedirs(srv)
        shutil.copy(debug, srv)
        port = free_port()
        log = open(os.path.join(d, "debuginfod.log"), "w")
        p = subprocess.Popen([server, "-p", str(port), "-d", os.path.join(d, "db.sqlite"), "-F", srv],
                             stdout=log, stderr=subprocess.STDOUT)
        url = "http://127.0.0.1:%d" % port
        ready = False
        try:
            for _ in range(600):  # its first scan: up to 60 s on a loaded machine
                try:
                    with urllib.request.urlopen("%s/buildid/%s/debuginfo" % (url, bid), timeout=5) as r:
                        ready = r.status == 200
                except Exception:
                    pass
                if ready or p.poll() is not None:
                    break
                time.sleep(0.1)
            env = clean_env()
            env["DEBUGINFOD_URLS"] = url
            env["DEBUGINFOD_CACHE_PATH"] = os.path.join(d, "cache")
            rows, err = children(rec, env)
            # exact: the samples each start named without the debug file
            pairs = {f: (rows.get(f, 0), stripped_rows.get("callers-s+0x%x" % start[f], 0)) for f in start}
            t.ok(ready and all(x == y and x > 0 for x, y in pairs.values()),
                 "DEBUGINFOD_URLS: the debug file comes from a local debuginfod; leaf, a, b and main by name, "
                 "with the samples their starts named without it", (ready, pairs, rows, err))
            env["DEBUGINFOD_URLS"] = "http://127.0.0.1:%d" % free_port()   # nobody there
            env["DEBUGINFOD_CACHE_PATH"] = os.path.join(d, "cache2")          # nothing cached
            table = subprocess.run([os.environ.get("EQPROF", "eqprof"), "report", rec, "--no-children", "-v"],
                                   capture_output=True, text=True, env=env).stdout
            t.ok("asked the DEBUGINFOD_URLS servers" in table and "callers-s+0x%x" % start["leaf"] in table,
                 "a server without the file: the header says it was asked; functions by their starts", table[:700])
        finally:
            p.terminate()
            p.wait()
            log.close()
    else:
        t.ok(True, "# SKIP debuginfod (the server) is not installed: scripts/deps installs it")
        t.ok(True, "# SKIP debuginfod is not installed")

    # 4. MiniDebugInfo: .gnu_debugdata made the way Fedora's find-debuginfo
    # does, its function symbols read through elfutils (libdwfl decompresses
    # it).  The same recording reported with a plain stripped copy of the
    # program under --symfs (same build-id) is named by function starts:
    # each function's samples are the same samples under either name (an
    # exact check, the starts from nm of the unstripped build).
    mini = os.path.join(d, "callers-m")
    minidebuginfo(full, debug, mini, d)
    plain = os.path.join(d, "symfs-plain") + mini
    os.makedirs(os.path.dirname(plain))
    run(["objcopy", "--remove-section", ".gnu_debugdata", mini, plain])
    rec = os.path.join(d, "m.eqp")
    rc, _, err = eqprof("record", "--call-graph", "dwarf", "--all-user", "-t", "4kHz", "-q", "-o", rec,
                        "--", mini, "2000000", "100")
    other_modules(rec, os.path.join(d, "symfs-plain"), mini)
    named, err = children(rec, clean_env())
    starts, err2 = children(rec, clean_env(), "--symfs", os.path.join(d, "symfs-plain"))
    pairs = {f: (named.get(f, 0), starts.get("callers-m+0x%x" % start[f], 0)) for f in start}
    t.ok(rc == 0 and all(x == y and x > 0 for x, y in pairs.values()),
         "MiniDebugInfo (.gnu_debugdata, xz): leaf, a, b and main by name, each with the samples "
         "its start names without it (name: samples by name, by start) %s" % pairs,
         (err, err2, sorted(named.items())[:8], sorted(starts.items())[:8]))
    _, table, _ = eqprof("report", rec, "--no-children")
    t.ok(rc == 0 and "have no symbol" not in table,
         "MiniDebugInfo: no sample of the program is left without a symbol", table[:600])

    shutil.rmtree(d)
    t.done()


main()
