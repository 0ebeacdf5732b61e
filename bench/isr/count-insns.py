"""count-insns.py - gdb script: instructions executed per call of a function.

Run inside gdb attached to QEMU's gdbstub with the module's symbols loaded.
For each function in EQ_FUNCS (env, comma-separated), it stops at the
function's first instruction N times (EQ_CALLS), single-steps to its return
(QEMU masks interrupts while single-stepping, so nothing else is counted),
and prints "INSNS name min median max".  After each function it sets the
guest module's wake_ms parameter to EQ_WAKE_BASE + index, which ends that
phase of the guest's benchmark script.
"""
import os

import gdb

calls = int(os.environ.get("EQ_CALLS", "20"))
base = int(os.environ.get("EQ_WAKE_BASE", "101"))


def count_one(sp0, ret):
    steps = 0
    while steps < 200000:
        gdb.execute("stepi", to_string=True)
        steps += 1
        if int(gdb.parse_and_eval("$pc")) == ret and int(gdb.parse_and_eval("$sp")) > sp0:
            return steps
    return -1


for i, fn in enumerate(os.environ["EQ_FUNCS"].split(",")):
    bp = gdb.Breakpoint("*" + fn, type=gdb.BP_HARDWARE_BREAKPOINT, internal=True)
    counts = []
    while len(counts) < calls:
        gdb.execute("continue", to_string=True)
        sp0 = int(gdb.parse_and_eval("$sp"))
        ret = int(gdb.parse_and_eval("*(unsigned long *)$sp"))
        counts.append(count_one(sp0, ret))
    bp.delete()
    counts.sort()
    print("INSNS %s %d %d %d" % (fn, counts[0], counts[len(counts) // 2], counts[-1]), flush=True)
    gdb.execute("set var wake_ms = %d" % (base + i), to_string=True)
gdb.execute("detach", to_string=True)
