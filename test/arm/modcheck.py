#!/usr/bin/env python3
"""modcheck.py - is a cross-built module the kernel's kind of module?

    modcheck.py vermagic MODULE.ko KMODULES
    modcheck.py crcs MODULE.ko KMODULES MODULE.SYMVERS

vermagic: MODULE's ELF machine is the one of the kernel's own modules (in
KMODULES, from the linux-image package) and its vermagic string is theirs.
crcs: every symbol version MODULE carries (its __versions section) is the CRC the headers' Module.symvers gives,
and the CRC the kernel's own modules that import the same symbol carry
(those were made when Debian built the kernel, independently of the
modpost built here).  Exit 0 when all agree, 1 with the differences.
"""
import glob
import os
import struct
import subprocess
import sys


def machine(path):
    with open(path, "rb") as f:
        h = f.read(20)
    return int.from_bytes(h[18:20], "little") if h[:4] == b"\x7fELF" else None


def vermagic(path):
    r = subprocess.run(["modinfo", "-F", "vermagic", path], capture_output=True, text=True)
    return r.stdout.strip()


def versions(path):
    """{symbol: crc} of a 64-bit little-endian module's __versions section
    (struct modversion_info: an unsigned long crc, then a 56-byte name)."""
    out = {}
    with open(path, "rb") as f:
        eh = f.read(64)
        if eh[:4] != b"\x7fELF" or eh[4] != 2 or eh[5] != 1:
            return out
        shoff, = struct.unpack_from("<Q", eh, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", eh, 0x3a)
        f.seek(shoff)
        sh = [struct.unpack_from("<IIQQQQIIQQ", f.read(shentsize)) for _ in range(shnum)]
        f.seek(sh[shstrndx][4])
        names = f.read(sh[shstrndx][5])
        for s in sh:
            if names[s[0]:names.index(b"\0", s[0])] == b"__versions":
                f.seek(s[4])
                data = f.read(s[5])
                for i in range(0, len(data) - 63, 64):
                    crc, = struct.unpack_from("<Q", data, i)
                    out[data[i + 8:i + 64].split(b"\0")[0].decode()] = crc & 0xffffffff
    return out


def stock(kmodules):
    return sorted(glob.glob(os.path.join(kmodules, "kernel", "**", "*.ko"), recursive=True))


def main():
    what, ko, kmodules = sys.argv[1:4]
    mods = stock(kmodules)
    if not mods:
        sys.exit(f"modcheck: no modules under {kmodules}")
    if what == "vermagic":
        ref = mods[0]
        bad = []
        if machine(ko) != machine(ref):
            bad.append(f"ELF machine {machine(ko)}, the kernel's modules {machine(ref)}")
        if not vermagic(ko) or vermagic(ko) != vermagic(ref):
            bad.append(f"vermagic '{vermagic(ko)}', {os.path.basename(ref)} has '{vermagic(ref)}'")
        print(f"{ko}: machine {machine(ko)}, vermagic '{vermagic(ko)}'")
        if bad:
            sys.exit("\n".join(bad))
        return 0
    symvers = {}
    for line in open(sys.argv[4]):
        f = line.split("\t")
        if len(f) >= 2:
            symvers[f[1]] = int(f[0], 16)
    mine = versions(ko)
    if not mine:
        sys.exit(f"modcheck: {ko} carries no symbol versions")
    bad = [f"{s}: {c:#010x}, Module.symvers {symvers.get(s, 'none')}" for s, c in mine.items()
           if symvers.get(s) != c]
    seen = {}
    for m in mods:
        if len(seen) == len(mine):
            break
        for s, c in versions(m).items():
            if s in mine and s not in seen:
                seen[s] = (c, os.path.basename(m))
    bad += [f"{s}: {mine[s]:#010x}, {m} has {c:#010x}" for s, (c, m) in seen.items() if c != mine[s]]
    print(f"{len(mine)} symbol versions; {len(seen)} of them also in the kernel's own modules")
    if bad or len(seen) < len(mine) // 2:
        sys.exit("\n".join(bad) or "too few symbols found in the kernel's own modules to compare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
