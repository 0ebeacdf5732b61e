"""cost.py - gdb script (gdb-multiarch, QEMU's gdb stub): what one sample
costs isr/cortexm's handlers on the Cortex-M3, instruction by instruction.

For the handler named in EQ_HANDLER it stops at its first instruction
EQ_CALLS times, single-steps (QEMU takes no interrupt while stepping) until
the exception returns (IPSR back to the interrupted context's), and prints
each instruction once ("INSN mnemonic") and per call "CALL n" with the
count.  With EQ_QTEST (a qtest socket) it pends the board's IRQ (EQ_IRQ) and
bumps the edge counter (EQ_COUNTER) before each call, as the HIL bridge does.
"""
import os
import socket

import gdb

calls = int(os.environ.get("EQ_CALLS", "20"))
handler = os.environ["EQ_HANDLER"]
qt = None
if os.environ.get("EQ_QTEST"):
    qt = socket.socket(socket.AF_UNIX)
    qt.connect(os.environ["EQ_QTEST"])
    qtf = qt.makefile("rw")
irq = int(os.environ.get("EQ_IRQ", "16"))
counter = int(os.environ.get("EQ_COUNTER", "0"), 0)


def qtest(cmd):
    qtf.write(cmd + "\n")
    qtf.flush()
    return qtf.readline()


def ipsr():
    return int(gdb.parse_and_eval("$xpsr")) & 0x1FF


if os.environ.get("EQ_START"):
    # first to where the application samples (pending bits set before its
    # eqcm_init() would be cleared)
    start = gdb.Breakpoint(os.environ["EQ_START"], internal=True)
    gdb.execute("continue", to_string=True)
    start.delete()
bp = gdb.Breakpoint("*" + handler, type=gdb.BP_HARDWARE_BREAKPOINT, internal=True)
for n in range(calls):
    if qt:
        qtest("writel 0x%x 0x%x" % (counter, n + 1))
        qtest("writel 0x%x 0x%x" % (0xE000E200 + 4 * (irq // 32), 1 << (irq % 32)))
    gdb.execute("continue", to_string=True)
    mine = ipsr()
    steps = 0
    trace = []
    while steps < 5000:
        trace.append(gdb.execute("x/i $pc", to_string=True).split(":", 1)[1].strip())
        gdb.execute("stepi", to_string=True)
        steps += 1
        if ipsr() != mine:
            break
    if n == calls - 1:
        for t in trace:
            print("INSN " + t, flush=True)
    print("CALL %d" % steps, flush=True)
bp.delete()
gdb.execute("kill", to_string=True)
