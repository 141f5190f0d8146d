#!/bin/bash
# Kernel style: scripts/checkpatch.pl from the cached kernel tree on every
# file in src/ and on the kernel patch. Fails on any error or warning.
. "$(dirname "$0")/lib.sh"
kdir=$(KDEBS_DIR)
tree=$(cat "$kdir/tree" 2>/dev/null || echo "$CACHE/kernel-$KSERIES/tree/linux-source-$KSERIES")
cp=$tree/scripts/checkpatch.pl
[ -x "$cp" ] || die "no kernel tree with checkpatch.pl; run vm-test/02-kernel.sh"
# Run from the kernel tree: from inside this repository checkpatch misreads
# a patch file's context lines. FILE_PATH_CHANGES (MAINTAINERS) does not
# apply to a patch kept out of tree.
cd "$tree"
rc=0
for f in "$REPO"/src/*.[ch]; do
	ignore=
	# compat.h is where version checks are meant to be
	[ "$(basename "$f")" = compat.h ] && ignore=--ignore=LINUX_VERSION_CODE,CONSTANT_COMPARISON
	"$cp" --no-tree --quiet --show-types $ignore -f "$f" || rc=1
done
for p in "$REPO"/kernel-patch/*.patch; do
	"$cp" --no-tree --quiet --show-types --ignore FILE_PATH_CHANGES "$p" || rc=1
	# the budget counts changed lines that are not comment-only (blank ones count)
	n=$(sed -n '/^---$/,$p' "$p" | grep -E '^[+-]' | grep -vE '^(\+\+\+|---)( |$)' |
		grep -vE '^[+-][[:space:]]*(/\*|\*|//)' | grep -c .)
	echo "$(basename "$p"): $n changed lines, comment-only lines not counted (budget 180)"
	[ "$n" -le 180 ] || rc=1
done
[ $rc = 0 ] && echo "checkpatch: clean"
exit $rc
