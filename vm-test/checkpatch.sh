#!/bin/bash
# Kernel style: scripts/checkpatch.pl from the cached kernel tree on every
# file in src/ and on the kernel patch. Fails on any error or warning.
. "$(dirname "$0")/lib.sh"
kdir=$(KDEBS_DIR)
tree=$(cat "$kdir/tree" 2>/dev/null || echo "$CACHE/kernel-$KSERIES/tree/linux-source-$KSERIES")
cp=$tree/scripts/checkpatch.pl
[ -x "$cp" ] || die "no kernel tree with checkpatch.pl; run vm-test/02-kernel.sh"
rc=0
for f in "$REPO"/src/*.[ch]; do
	"$cp" --no-tree --quiet --show-types -f "$f" || rc=1
done
for p in "$REPO"/kernel-patch/*.patch; do
	"$cp" --no-tree --quiet --show-types "$p" || rc=1
	n=$(git apply --numstat "$p" | awk '{s += $1 + $2} END {print s}')
	echo "$(basename "$p"): $n changed lines (budget 150)"
	[ "$n" -le 150 ] || rc=1
done
[ $rc = 0 ] && echo "checkpatch: clean"
exit $rc
