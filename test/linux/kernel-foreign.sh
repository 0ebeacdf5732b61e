#!/bin/sh
# Debian's kernel for another architecture, ready to build modules against
# from this machine, without installing anything for that architecture
# (this machine's dpkg state is left alone):
#
#   kernel-foreign.sh DEBARCH DIR        (DEBARCH: arm64)
#
# Prints the same assignments as kernel-abi.sh, for DEBARCH's kernel, plus
# KARCH and KCROSS (kbuild's ARCH and CROSS_COMPILE), KSYSMAP, and
# GUEST_BUSYBOX (busybox-static:DEBARCH, for the guest's initramfs):
#   KVER=6.1.0-NN-arm64 KPKGVER=... VMLINUZ=... KHEADERS=... KMODULES=...
#   KSRC_TAR=... KSRC_DIR=... KARCH=arm64 KCROSS=aarch64-linux-gnu- KSYSMAP=...
#
# - A private apt state in DIR/apt lists DEBARCH's packages from this
#   machine's own Debian sources (apt-get -o APT::Architectures=DEBARCH with
#   its own lists, cache and an empty status file).
# - linux-image-DEBARCH's Depends names the ABI (never hard-coded), and
#   linux-headers-DEBARCH must name the same; the image, headers, common
#   headers and linux-kbuild packages are taken with apt-get download and
#   extracted with dpkg -x into DIR/root (modules.dep made with depmod -b).
# - Each package is taken at the version its dependent names with '=', or
#   else at its candidate: the archive publishes the signed image and the
#   rest of src:linux apart, and for days linux-image-arm64 6.1.192-2 stood
#   beside linux-kbuild-6.1 and linux-source 6.1.192-3 only (seen
#   2026-11-28). A candidate must be of the image's upstream version.
# - The headers package's kbuild programs are DEBARCH binaries: fixdep and
#   modpost (what an external module's build runs) are rebuilt for this
#   machine from the matching linux-source (scripts/basic, scripts/mod, the
#   latter through kbuild itself so that its ELF and device-table layouts
#   are the target's).
# Done once per kernel package version; exit 1 with a message on failure.
set -eu
debarch=${1:?usage: kernel-foreign.sh DEBARCH DIR}
dir=${2:?usage: kernel-foreign.sh DEBARCH DIR}
case $debarch in
arm64) karch=arm64 cross=aarch64-linux-gnu- ;;
*) echo "kernel-foreign: no cross toolchain known for $debarch (arm64 is)" >&2; exit 1 ;;
esac
command -v "${cross}gcc" >/dev/null || { echo "kernel-foreign: ${cross}gcc missing (scripts/deps installs gcc-aarch64-linux-gnu)" >&2; exit 1; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
a=$dir/apt
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/deb"
[ -f "$a/status" ] || : >"$a/status"
apt() {
	"$@" -o Dir::State::Lists="$a/lists" -o Dir::State::status="$a/status" \
		-o Dir::Cache="$a/cache" -o APT::Architecture="$debarch" \
		-o APT::Architectures::="$debarch" -o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root -q
}
err() { echo "kernel-foreign: $*" >&2; exit 1; }

# The lists, refreshed once a day (a security update moves the ABI).
# Resolving again costs half a minute of apt-cache: the answer is kept until
# the lists change.
if [ -z "$(find "$a/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n1)" ]; then
	rm -f "$dir/abi.env"
	apt apt-get update >"$a/update.log" 2>&1 || { tail -n 5 "$a/update.log" >&2; err "apt-get update for $debarch failed (log: $a/update.log)"; }
fi
if [ -s "$dir/abi.env" ]; then
	cat "$dir/abi.env"
	exit 0
fi
# Depends of a package's candidate version: the name that starts with $2
dep() { apt apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Depends: //p' | head -n1 |
	tr ',' '\n' | sed -n "s/^ *\($2[^ ]*\).*/\1/p" | head -n1; }
ver() { apt apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Version: //p' | head -n1; }
# The version that package $1 requires of $2 with '=', else $2's candidate.
pin() {
	v=$(apt apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Depends: //p' | head -n1 |
		tr ',' '\n' | sed -n "s/^ *$2 (= \([^)]*\)).*/\1/p" | head -n1)
	[ -n "$v" ] || v=$(ver "$2")
	[ "${v%-*}" = "${pkgver%-*}" ] || err "$2 is at ${v:-no version} in the $debarch lists, $img at $pkgver: not the same upstream release (retry when the archive has both)"
	echo "$v"
}
img=$(dep "linux-image-$debarch" linux-image-)
[ -n "$img" ] || err "linux-image-$debarch not found in the $debarch lists ($a/lists)"
kver=${img#linux-image-}
hdr=$(dep "linux-headers-$debarch" linux-headers-)
[ "$hdr" = "linux-headers-$kver" ] || err "linux-headers-$debarch names ${hdr:-nothing}, linux-image-$debarch names $img"
pkgver=$(ver "$img")
common=$(dep "$hdr" linux-headers-)
kbuild=$(dep "$hdr" linux-kbuild-)
[ -n "$common" ] && [ -n "$kbuild" ] || err "$hdr names no common headers or kbuild package"
hdrver=$(pin "linux-headers-$debarch" "$hdr")
commonver=$(pin "$hdr" "$common")
kbuildver=$(pin "$hdr" "$kbuild")
root=$dir/root
stamp=$dir/.ready-$kver-$pkgver
if [ ! -f "$stamp" ]; then
	rm -rf "$root" "$dir"/.ready-*
	(cd "$a/deb" && rm -f ./*.deb && apt apt-get download "$img=$pkgver" "$hdr=$hdrver" \
		"$common=$commonver" "$kbuild=$kbuildver" busybox-static) >"$a/download.log" 2>&1 ||
		{ tail -n 5 "$a/download.log" >&2; err "apt-get download of $img $hdr failed"; }
	for f in "$a"/deb/*.deb; do dpkg -x "$f" "$root"; done
	# The headers' Makefile includes the common one by its installed path.
	sed -i "s|/usr/src/$common/|$root/usr/src/$common/|" "$root/usr/src/$hdr/Makefile"
	grep -q "$root/usr/src/$common/Makefile" "$root/usr/src/$hdr/Makefile" ||
		err "$root/usr/src/$hdr/Makefile does not include $common's Makefile as expected"
fi

# linux-source of the same version: this machine's, or downloaded.
srcpkg=$(dep linux-source linux-source-)
[ -n "$srcpkg" ] || err "linux-source not in the lists"
srcver=$(pin linux-source "$srcpkg")
if [ "$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null || true)" = "$srcver" ] &&
	[ -f "/usr/src/$srcpkg.tar.xz" ]; then
	tarball=/usr/src/$srcpkg.tar.xz
else
	tarball=$root/usr/src/$srcpkg.tar.xz
	if [ ! -f "$tarball" ]; then
		(cd "$a/deb" && apt apt-get download "$srcpkg=$srcver") >>"$a/download.log" 2>&1 ||
			err "apt-get download $srcpkg=$srcver failed"
		dpkg -x "$a/deb/${srcpkg}_$(echo "$srcver" | sed 's/:/%3a/')_all.deb" "$root"
	fi
fi

kh=$root/usr/src/$hdr
ks=$root/usr/lib/$kbuild/scripts
# The package's maintainer scripts are not run: modules.dep is made here
# (kmod's depmod reads any architecture's modules).
if [ ! -s "$root/lib/modules/$kver/modules.dep" ]; then
	/sbin/depmod -b "$root" "$kver" || err "depmod -b $root $kver failed"
fi
if [ ! -f "$stamp" ]; then
	hp=$dir/hostprogs
	rm -rf "$hp"
	mkdir -p "$hp"
	tar -xJf "$tarball" -C "$hp" --strip-components=1 "$srcpkg/scripts/basic/fixdep.c" "$srcpkg/scripts/mod"
	ln -s "$root/usr/src/$common/include" "$hp/include"  # modpost.c includes ../../include
	"${HOSTCC:-cc}" -O2 -o "$ks/basic/fixdep" "$hp/scripts/basic/fixdep.c"
	# kbuild builds scripts/mod as an external directory: mk_elfconfig reads
	# a target object, devicetable-offsets.h comes from the target compiler.
	# Its modpost stage has nothing to do (MODPOST=/bin/true).
	make -C "$kh" M="$hp/scripts/mod" ARCH="$karch" CROSS_COMPILE="$cross" MODPOST=/bin/true \
		>"$dir/hostprogs.log" 2>&1 || { tail -n 20 "$dir/hostprogs.log" >&2; err "building modpost from $srcpkg failed"; }
	# Debian's modpost is a wrapper around modpost.real-*: one real one here.
	rm -f "$ks"/mod/modpost.real-*
	cp "$hp/scripts/mod/modpost" "$ks/mod/modpost"
	touch "$stamp"
fi
for p in "$ks/basic/fixdep" "$ks/mod/modpost"; do
	rc=0
	"$p" </dev/null >/dev/null 2>&1 || rc=$?
	[ "$rc" -lt 126 ] || err "$p does not run on this machine (exit $rc): remove $dir to rebuild it"
done

cat >"$dir/abi.env.tmp" <<EOF
KVER=$kver
KPKGVER=$pkgver
VMLINUZ=$root/boot/vmlinuz-$kver
KHEADERS=$kh
KMODULES=$root/lib/modules/$kver
KSRC_TAR=$tarball
KSRC_DIR=$srcpkg
KSYSMAP=$root/boot/System.map-$kver
KARCH=$karch
KCROSS=$cross
GUEST_BUSYBOX=$root/bin/busybox
EOF
mv "$dir/abi.env.tmp" "$dir/abi.env"
cat "$dir/abi.env"
