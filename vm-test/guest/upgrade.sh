#!/bin/bash
# The kernel upgrade, second half: the guest that ran check.sh on the
# patched 6.1 kernel installed the next patched series with apt, dkms built
# tmem for it by itself, and the host booted that kernel from the same root
# disk. Here: the new kernel runs, tmem loads from what dkms built, the
# smoke tests (every hook with data checked) and the core's KUnit suite pass,
# and `apt remove tmem-dkms` takes the module away from both kernels.
export TMEM_CHECK_FUNCTIONS_ONLY=1
. /payload/guest/check.sh

test_upgraded_kernel() {
	local want
	want=$(cat /var/lib/tmem-test/expect-kernel 2>/dev/null)
	[ -n "$want" ] && [ "$(uname -r)" = "$want" ]
	ok $? "booted the kernel installed by the upgrade ($(uname -r), expected ${want:-?})"
	local st
	st=$(dkms status tmem)
	log "$st"
	[ "$(grep -c ': installed' <<<"$st")" -ge 2 ]
	ok $? "dkms status lists tmem for both kernels"
	run "modprobe tmem on $(uname -r)" modprobe tmem || return 1
	[ -r $DBG/hooks ]
	ok $? "hook counters in $DBG/hooks"
	modinfo tmem | grep -q "^vermagic: *$(uname -r) "
	ok $? "the loaded tmem was built for $(uname -r)"
}

# Smoke on the new kernel: precache puts and hits with file contents checked,
# preswap puts and gets with every page checked, fork-shared pages, and the
# area's held pages back to 0 at swapoff.
test_upgraded_smoke() {
	local f=$MNT/file sum b h
	mkfs.ext4 -q -F $DATA && run "mount an ext4 data disk" mount $DATA $MNT || return
	# evict (page cache only): drop_caches=3 would also evict the inode,
	# and inode eviction rightly flushes its pages from precache
	head -c 16M /dev/urandom >$f
	sum=$(file_sum $f)
	evict
	[ "$(file_sum $f)" = "$sum" ]
	ok $? "file reads back with the written checksum"
	b=$(hook precache_put)
	evict
	moved precache_put "$b" "evicting clean pages offers them to precache"
	b=$(hook precache_get) h=$(pc hits)
	[ "$(file_sum $f)" = "$sum" ]
	ok $? "file read back after eviction matches its checksum"
	moved precache_get "$b" "reading from disk asks precache first"
	[ "$(pc hits)" -gt "$h" ]
	ok $? "and precache served hits ($h -> $(pc hits))"
	umount $MNT

	mkswap -q $SWAP >/dev/null
	run "swapon the swap disk" swapon $SWAP || return
	local bp bg
	bp=$(hook preswap_put) bg=$(hook preswap_get)
	run "pages pushed out with MADV_PAGEOUT, 2 generations, fork-shared: intact" \
		$TOOLS/memcheck -m 64 -g 2 -p -f
	moved preswap_put "$bp" "swap-out offers pages to preswap"
	moved preswap_get "$bg" "swap-in asks preswap first"
	[ "$(ps_total get_misses)" = 0 ]
	ok $? "no held page ever missed in tmem"
	run "swapoff" swapoff $SWAP
	[ "$(ps_total held)" = 0 ]
	ok $? "after swapoff preswap holds 0 pages"
}

# apt remove takes tmem away from every kernel it was built for.
test_remove() {
	run "rmmod tmem" unload_tmem
	run "apt remove tmem-dkms" apt-get remove -y tmem-dkms
	log "$(dkms status)"
	[ -z "$(dkms status tmem)" ]
	ok $? "dkms status no longer lists tmem"
	local left
	left=$(find /lib/modules -name 'tmem*.ko*' | tr '\n' ' ')
	[ -z "$left" ]
	ok $? "no tmem module file left under /lib/modules (${left:-none})"
	! modinfo tmem >/dev/null 2>&1
	ok $? "modprobe no longer finds tmem (modinfo tmem fails)"
}

test_upgraded_kernel || { echo "# tmem not loaded on the new kernel, stopping" >&3; exit 1; }
test_kunit
test_upgraded_smoke
test_remove
test_kmemleak
echo "1..$T" >&3
exit $FAILED
