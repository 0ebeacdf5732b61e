"""eqpcraft.py - .eqp recordings made byte by byte from docs/format.md,
independently of eqprof's own writer, so tests can hold the reader to the
spec and craft what no writer makes (infinite clocks, damaged lengths).

    rec = Recording(mode=1, quantum=1e-3, clock=1e9)
    rec.samples([(time, pc, pid, tid, seq, cpu, flags), ...])
    data = rec.bytes()          # HEAD, the chunks, END
"""
import struct

MAGIC = b"\x89EQP\r\n\x1a\n"


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    """CRC-32C (Castagnoli), as docs/format.md specifies; crc32c(b"123456789") = 0xE3069283."""
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def chunk(ctype, payload, length=None):
    """One chunk: type, flags 0, length (the real one unless given), payload, CRC, padding."""
    if isinstance(ctype, str):
        ctype = ctype.encode()
    hdr = ctype + b"\0\0\0\0" + struct.pack("<Q", len(payload) if length is None else length)
    body = hdr + payload + struct.pack("<I", crc32c(hdr + payload))
    return body + b"\0" * ((8 - len(body) % 8) % 8)


def head(mode=1, quantum=1e-3, rate=0.0, clock=1e9, start=0, target=b"crafted", extra=b""):
    p = struct.pack("<II ddd q", mode, 0, quantum, rate, clock, start)
    return chunk("HEAD", p + struct.pack("<I", len(target)) + target +
                 struct.pack("<I", len(extra)) + extra)


def sample(time, pc, pid=5, tid=5, seq=0, cpu=0, flags=0):
    return struct.pack("<QQIIIHH", time, pc, pid, tid, seq, cpu, flags)


def samp(samples):
    return chunk("SAMP", struct.pack("<II", len(samples), 0) + b"".join(samples))


def chns(chains):
    """The call chains of the SAMP chunk before it, one a sample: (kernel
    frames, user frames), each a list of addresses (docs/format.md, CHNS)."""
    body = b"".join(struct.pack("<HHI", len(k), len(u), 0) + struct.pack("<%dQ" % (len(k) + len(u)), *(k + u))
                    for k, u in chains)
    return chunk("CHNS", struct.pack("<II", len(chains), 0) + body)


def text(ctype, pid, time, body):
    return chunk(ctype, struct.pack("<IIQ", pid, 0, time) + body)


def binf(clock=16e6, e_min=46e-6, pulses=64, jitter=5, vcomp=1, firmware=b"fw",
         vb=4.0, dead=0.0):
    return chunk("BINF", struct.pack("<ddIIII", clock, e_min, pulses, jitter, vcomp,
                                     len(firmware)) + firmware + struct.pack("<dd", vb, dead))


def brec(records):
    """records: (time, seq, pulses, vbat_uv, flags)."""
    return chunk("BREC", struct.pack("<II", len(records), 0) + b"".join(
        struct.pack("<QIIIHH", t, s, p, v, f, 0) for t, s, p, v, f in records))


def end(nsamples, nchunks):
    return chunk("END ", struct.pack("<QQ", nsamples, nchunks))


class Recording:
    """HEAD, then chunks as added, then a matching END."""

    def __init__(self, **head_args):
        self.chunks = [head(**head_args)]
        self.nsamples = 0

    def add(self, raw):
        self.chunks.append(raw)
        return self

    def samples(self, samples):
        for i in range(0, len(samples), 4096):
            part = [sample(*s) if isinstance(s, tuple) else s for s in samples[i:i + 4096]]
            self.chunks.append(samp(part))
            self.nsamples += len(part)
        return self

    def bytes(self, with_end=True):
        out = MAGIC + struct.pack("<HHI", 1, 0, 0) + b"".join(self.chunks)
        if with_end:
            out += end(self.nsamples, len(self.chunks))
        return out


def chunk_offsets(data):
    """[(offset, type, length)] of every chunk, walking the lengths."""
    out, at = [], 16
    while at + 16 <= len(data):
        ctype = data[at:at + 4]
        length = struct.unpack("<Q", data[at + 8:at + 16])[0]
        out.append((at, ctype, length))
        at += 16 + length + 4
        at += (8 - at % 8) % 8
    return out
