#!/usr/bin/env python3
"""make-merge-corpus.py - the seeds of fuzz_merge (test/format/corpus-merge):
pairs of a target recording (energy-driven samples) and a board log of the
same crafted run, as a u32 length of the target's bytes, the target, the
board.  'timing': samples matched by their intervals (a GPIO line), one
counted loss; 'numbered': an ivshmem source numbering its samples with the
board's quanta, two counted losses.  Both merge cleanly with eqprof merge.
Run from anywhere: writes next to itself."""
import os
import random
import struct
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from eqpcraft import Recording, binf, brec  # noqa: E402

QUANTA = 60
EDGE_TO_SAMPLE_NS = (1000, 4000)  # the interrupt's latency, drawn per sample
OFFSET_NS = 5_000_000             # the target's clock ahead of the board's


def pair(seed, numbered, drop):
    """A board log of QUANTA quanta about 1 ms apart (16 MHz clock) and the
    target's samples of them; `drop`: quanta the target counted as lost."""
    random.seed(seed)
    bt = [int(16e6 * (0.01 + 0.001 * i + random.uniform(0, 2e-4))) for i in range(QUANTA)]
    recs = [(t, i, 64, 4000000, 0) for i, t in enumerate(bt)]
    board = Recording(mode=1, quantum=46e-6 * 64, clock=16e6).add(binf()).add(brec(recs))
    k = 0 if numbered else 3       # a GPIO target starts numbering at its own 0
    samples = [(OFFSET_NS + int(t / 16e6 * 1e9) + random.randint(*EDGE_TO_SAMPLE_NS),
                0x401000 + 8 * (i % 5), 100, 100, i - k, 0, 4)
               for i, t in enumerate(bt) if i >= k and i not in drop]
    extra = b"sampler=eqprof.ko ivshmem\n" if numbered else b""
    target = Recording(mode=1, quantum=0, clock=1e9, extra=extra).samples(samples)
    return target.bytes(), board.bytes()


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus-merge")
os.makedirs(out, exist_ok=True)
for name, (tb, bb) in {"timing": pair(7, False, {20}), "numbered": pair(8, True, {30, 31})}.items():
    with open(os.path.join(out, name + ".seed"), "wb") as f:
        f.write(struct.pack("<I", len(tb)) + tb + bb)
