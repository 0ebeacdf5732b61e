"""eqp.py - an independent reader of .eqp recordings for the tests.

Written from docs/format.md alone, not from analysis/file/eqp_read.c, so a
test that uses it checks the C writer against the spec.  It walks the
chunks, verifies each CRC-32C, and returns what it found and where it had to
stop; it does not interpret chunk types beyond what the tests need.
"""
import struct

MAGIC = b"\x89EQP\r\n\x1a\n"


def _crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_T = _crc32c_table()


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = _T[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


class Recording:
    def __init__(self):
        self.chunks = []        # (type, offset, payload)
        self.samples = []       # (time, pc, pid, tid, seq, cpu, flags)
        self.maps = {}          # pid -> [text, ...]
        self.comm = {}          # pid -> [name, ...]
        self.buildids = {}      # path -> hex
        self.lost = 0
        self.has_end = False
        self.markers = []       # (time, label) of MARK chunks, in file order
        self.stopped = None     # why the walk stopped early, or None
        self.mode = None


def read(path, check_crc=True):
    with open(path, "rb") as f:
        data = f.read()
    r = Recording()
    if data[:8] != MAGIC:
        raise ValueError("%s: bad magic" % path)
    off = 16
    while off < len(data) and not r.has_end:
        if len(data) - off < 16:
            r.stopped = "partial chunk header at %d" % off
            break
        ctype = data[off:off + 4].decode("latin-1")
        (length,) = struct.unpack_from("<Q", data, off + 8)
        if off + 16 + length + 4 > len(data):
            r.stopped = "chunk %s at %d runs past the end" % (ctype, off)
            break
        payload = data[off + 16:off + 16 + length]
        (crc,) = struct.unpack_from("<I", data, off + 16 + length)
        if check_crc and crc32c(data[off:off + 16 + length]) != crc:
            raise ValueError("%s: chunk %s at %d: CRC mismatch" % (path, ctype, off))
        r.chunks.append((ctype, off, payload))
        if ctype == "HEAD":
            (r.mode,) = struct.unpack_from("<I", payload, 0)
        elif ctype == "SAMP":
            (n,) = struct.unpack_from("<I", payload, 0)
            for i in range(n):
                r.samples.append(struct.unpack_from("<QQIIIHH", payload, 8 + 32 * i))
        elif ctype in ("MAPS", "COMM"):
            (pid,) = struct.unpack_from("<I", payload, 0)
            text = payload[16:].decode("utf-8", "replace")
            (r.maps if ctype == "MAPS" else r.comm).setdefault(pid, []).append(text)
        elif ctype == "MARK":
            (mt,) = struct.unpack_from("<Q", payload, 8)
            r.markers.append((mt, payload[16:].decode("utf-8", "replace")))
        elif ctype == "BIDS":
            plen, hlen = struct.unpack_from("<II", payload, 0)
            r.buildids[payload[8:8 + plen].decode()] = payload[8 + plen:8 + plen + hlen].decode()
        elif ctype == "LOST":
            r.lost += struct.unpack_from("<Q", payload, 8)[0]
        elif ctype == "END ":
            r.has_end = True
        total = 16 + length + 4
        off += total + (-total % 8)
    return r
