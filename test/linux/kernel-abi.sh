#!/bin/sh
# Prints the Debian kernel that linux-image-amd64 installs, as shell
# assignments (never hard-coded: the metapackage names the ABI):
#   KVER=6.1.0-NN-amd64 VMLINUZ=... KHEADERS=... KMODULES=... KSRC_TAR=... KPKGVER=...
# Exit 1 with a message when a package is missing.
#
#   kernel-abi.sh                  the amd64 kernel installed on this machine
#   kernel-abi.sh DEBARCH DIR      another architecture's (arm64), fetched
#                                  into DIR without installing it
#                                  (kernel-foreign.sh)
set -eu
if [ $# -gt 0 ] && [ "$1" != amd64 ]; then
	exec "$(dirname "$0")/kernel-foreign.sh" "$@"
fi
dep() { dpkg-query -W -f='${Depends}' "$1" 2>/dev/null | tr ',' '\n' | sed -n "s/^ *\($2[^ ]*\).*/\1/p" | head -n1; }
img=$(dep linux-image-amd64 linux-image-)
[ -n "$img" ] || { echo "kernel-abi: linux-image-amd64 is not installed (scripts/deps)" >&2; exit 1; }
kver=${img#linux-image-}
hdr=$(dep linux-headers-amd64 linux-headers-)
[ "$hdr" = "linux-headers-$kver" ] || { echo "kernel-abi: linux-headers-amd64 names ${hdr:-nothing}, linux-image-amd64 names $img: install both from the same release" >&2; exit 1; }
pkgver=$(dpkg-query -W -f='${Version}' "$img")
src=$(dep linux-source linux-source-)
srcver=$(dpkg-query -W -f='${Version}' "$src" 2>/dev/null || true)
tarball=/usr/src/$src.tar.xz
[ -f "/boot/vmlinuz-$kver" ] || { echo "kernel-abi: /boot/vmlinuz-$kver missing (reinstall $img)" >&2; exit 1; }
[ -d "/usr/src/linux-headers-$kver" ] || { echo "kernel-abi: /usr/src/linux-headers-$kver missing (install linux-headers-amd64)" >&2; exit 1; }
[ -f "$tarball" ] || { echo "kernel-abi: $tarball missing (install linux-source)" >&2; exit 1; }
# The same upstream release: Debian publishes the signed image apart from
# the rest of src:linux, and linux-source 6.1.192-3 stood beside
# linux-image-amd64 6.1.192-2 for days (seen 2026-11-28); a Debian revision
# changes packaging, not the ABI the module is built for.
[ "${srcver%-*}" = "${pkgver%-*}" ] || { echo "kernel-abi: $src is $srcver but $img is $pkgver: gpio-sim would not match the kernel (install linux-source of the kernel's release)" >&2; exit 1; }
echo "KVER=$kver"
echo "KPKGVER=$pkgver"
echo "VMLINUZ=/boot/vmlinuz-$kver"
echo "KHEADERS=/usr/src/linux-headers-$kver"
echo "KMODULES=/lib/modules/$kver"
echo "KSRC_TAR=$tarball"
echo "KSRC_DIR=$src"
