"""cycles.py NAME < cost.py's output: instructions per sample and the cycles
the Cortex-M3 TRM's timings give them (ARM DDI 0337, "Processor instruction
timings"; zero wait states, pipeline refill P = 2, N registers moved)."""
import re
import statistics
import sys

P = 2


def cycles(insn):
    m = insn.split()[0].rstrip(".nw").lower() if insn.split() else ""
    ops = insn[len(insn.split()[0]):] if insn.split() else ""
    nregs = len(re.findall(r"r\d+|lr|pc|sp|ip|fp|sl", ops.split("{")[1])) if "{" in ops else 0
    base = re.sub(r"(eq|ne|cs|cc|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)$", "", m) if m not in ("bls", "bhi") else "b"
    if base in ("push", "stmia", "stmdb", "stm"):
        return 1 + nregs
    if base in ("pop", "ldmia", "ldm"):
        return 1 + nregs + (P if "pc" in ops else 0)
    if base in ("ldrd", "strd"):
        return 3
    if base.startswith("ldr") or base.startswith("str"):
        return 2
    if base in ("b", "bl", "bx", "blx") or m.startswith("b") and len(m) <= 4 and base == "b":
        return 1 + P
    if base in ("cbz", "cbnz"):
        return 1 + P
    if base in ("umull", "smull", "umlal", "smlal"):
        return 5
    if base in ("udiv", "sdiv"):
        return 12
    if base in ("mrs", "msr"):
        return 2
    if base in ("dmb", "dsb", "isb"):
        return 4
    return 1


name = sys.argv[1]
insns, calls = [], []
for line in sys.stdin:
    if line.startswith("INSN "):
        insns.append(line[5:].strip())
    elif line.startswith("CALL "):
        calls.append(int(line.split()[1]))
if not calls:
    print("bench/cortexm %s: no handler call was stepped" % name)
    sys.exit(0)
body = sum(cycles(i) for i in insns)
print("bench/cortexm %s handler: %d..%d instructions a sample (median %d of %d samples); "
      "about %d cycles by the Cortex-M3 TRM (%d in the handler + 12 entry + 10 return)"
      % (name, min(calls), max(calls), statistics.median(calls), len(calls), body + 22, body))
