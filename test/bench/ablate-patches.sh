#!/usr/bin/env bash
# ablate-patches.sh - bench/speed/ablate.sh's patches still fit the code:
# each view's patches apply, one after another, to this tree, and every
# source they touch then compiles by the Makefile's own rule (its flags,
# -Werror among them; syntax and warnings only, no object).  A
# patch that rots is found here, not by the next person to run the
# ablation (ablate.sh stops on it).  Their timings are not checked: the
# builds are for measuring only.  Prints TAP.
set -u
: "${SRC:?}"
T=$(mktemp -d /tmp/ablate-patches.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/test/lib/tap.sh"

for dir in "$SRC"/bench/speed/ablate/*/; do
	view=$(basename "$dir")
	rm -rf "$T/tree" && mkdir "$T/tree"
	# the parts of the tree a patch may touch, what they include, and the
	# Makefile that compiles them
	(cd "$SRC" && cp -a --parents Makefile analysis isr host firmware sim "$T/tree/")
	for p in "$dir"*.patch; do
		name="$view/$(basename "$p")"
		if ! out=$(git -C "$T/tree" apply "$p" 2>&1); then
			not_ok "$name applies after the ones before it"
			printf '%s\n' "$out" | sed 's/^/# /' | head -n 20
			break   # the ones after it build on it
		fi
		ok "$name applies after the ones before it"
		check "$name begins with its diff or a 'label:' line" \
			grep -qE '^(diff |label: )' <(head -n 1 "$p")
		cd "$T/tree"
		for f in $(sed -n 's|^+++ b/||p' "$p" | sort -u); do
			case $f in *.c) check "$name: $f compiles (-Werror)" make -s B="$T/b" \
				EXTRA_CFLAGS=-fsyntax-only "$T/b/obj/${f%.c}.o" ;; esac
		done
		cd "$T"
	done
done
tap_plan
