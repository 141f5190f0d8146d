# shellcheck shell=bash
# precache tests (sourced by check.sh): pages evicted from the page cache
# come back from tmem instead of the disk, and never once the file changed.
#
# Every coherency test follows one pattern: data A reaches the disk, the
# page cache is dropped so A sits in precache, the file then changes behind
# the cache (B), the cache is dropped again, and the read must give B.
# The pages of the data disk are checked with sha256 against what was
# written; counters come from /sys/kernel/debug/tmem/precache.

# pc FIELD: a counter of the data disk's record in the precache file
# (puts put_refused hits misses flushes); 0 when it has no pool.
pc() { kv_where $DBG/precache device "${DATA##*/}" "$1"; }

# pc_has_pool: the data disk's filesystem has a precache pool now.
pc_has_pool() { [ "$(kv_where $DBG/precache device "${DATA##*/}" device)" = "${DATA##*/}" ]; }

# evict [FILE]: write back, then drop FILE's clean pages from the page
# cache (tools/evict.c: fsync and POSIX_FADV_DONTNEED, the same removal
# path as drop_caches, which puts them into precache), or with no FILE
# every clean page-cache page (after a syncfs of the data disk).
evict() {
	if [ $# = 1 ]; then
		$TOOLS/evict "$1"
	else
		drop_caches 1
	fi
}

# same FILE REF DESCRIPTION: FILE (read through the page cache) equals REF.
same() {
	cmp -s "$1" "$2"
	ok $? "$3"
}

precache_mount() {
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 $DATA
	mount $DATA $MNT
}

# A reader whose memory is limited by a cgroup to 2/3 of its file set
# re-reads the set: the page cache can hold only part of it, precache
# (outside the cgroup's limit, as tmem is outside a guest's) holds the rest.
# Same boot, same files: once with precache off, once on.
test_precache_reread() {
	local set=24 limit=16 i mode s_off s_on h0 h1 bad=0
	precache_mount || { ok 1 "mount for re-read test"; return; }
	for i in 1 2 3 4 5 6; do
		text_data $((set / 6)) $MNT/r$i
	done
	sha256sum $MNT/r? >/tmp/r.sum
	for mode in 0 1; do
		echo 0 >/proc/sys/vm/precache_enabled
		evict
		echo $mode >/proc/sys/vm/precache_enabled
		in_cgroup reader ${limit}M sha256sum -c --quiet /tmp/r.sum || bad=1
		h0=$(pc hits)
		s=$(sectors_read $DATA)
		in_cgroup reader ${limit}M sha256sum -c --quiet /tmp/r.sum || bad=1
		s=$(($(sectors_read $DATA) - s))
		h1=$(pc hits)
		if [ $mode = 0 ]; then s_off=$s; else s_on=$s; fi
		log "precache_enabled=$mode: second pass read $s sectors, hits $h0 -> $h1"
	done
	ok $bad "re-read of $set MiB in a ${limit} MiB cgroup: every file matches its checksum"
	[ "$h1" -gt "$h0" ]
	ok $? "second pass hits precache (hits $h0 -> $h1)"
	[ "$s_on" -lt "$s_off" ]
	ok $? "second pass reads fewer sectors with precache: $s_on on vs $s_off off"
	echo "# precache re-read: sectors read in the second pass: off $s_off, on $s_on" >&3
	umount $MNT
}

# rm -rf and truncate put nothing into precache: the pages they drop are
# doomed (the flush of the whole inode follows), and the kernel already
# clears PG_mappedtodisk on every page it truncates (truncate_cleanup_folio,
# also on inode eviction), so each is flushed, never copied. A regression
# test: were they put, the puts counter would move by thousands. A page of
# a file that stays is still put when evicted (the counter moves).
test_precache_doomed() {
	local p i
	precache_mount || { ok 1 "mount for the doomed-pages test"; return; }
	mkdir -p $MNT/tree
	for ((i = 1; i <= 8; i++)); do
		text_data 2 $MNT/tree/f$i
	done
	evict
	cat $MNT/tree/f* >/dev/null	# read from disk: cached and mapped to disk
	p=$(pc puts)
	pc_has_pool || ok 1 "the data disk has a precache pool before rm -rf"
	rm -rf $MNT/tree
	sync -f $MNT
	pc_has_pool && [ "$(pc puts)" = "$p" ]
	ok $? "rm -rf of 16 MiB of cached files puts nothing into precache (puts $p -> $(pc puts))"
	text_data 8 $MNT/t
	evict $MNT/t
	cat $MNT/t >/dev/null
	p=$(pc puts)
	truncate -s 1M $MNT/t
	[ "$(pc puts)" = "$p" ]
	ok $? "truncating 8 MiB to 1 MiB puts none of the 7 MiB past the end (puts $p -> $(pc puts))"
	evict $MNT/t
	[ "$(pc puts)" -ge $((p + 256)) ]
	ok $? "the 1 MiB left is still put when evicted (puts $p -> $(pc puts))"
	umount $MNT
}

# The coherency tests share one filesystem; each starts from data A that
# sits in precache (checked: the put counter moved).
coherency_setup() { # FILE MIB
	text_data "$2" /tmp/A
	cp /tmp/A "$1"
	evict "$1"
	cat "$1" >/dev/null	# read from disk: the pages are mapped to disk now
	local p
	p=$(pc puts)
	evict "$1"
	[ "$(pc puts)" -eq $((p + $2 * 256)) ]	# every page: served() counts on it
}

# served H0 N WHAT: since the data disk's hit count was H0, exactly N pages
# were served from precache: the N pages outside WHAT's range (each in
# precache after coherency_setup); a page inside it must not be (its data
# is checked by the read itself). With a flush of the whole inode, as
# before range flushes, no page at all is served.
served() {
	local n=$(($(pc hits) - $1))
	[ $n = "$2" ]
	ok $? "$3 flushed only its range: the $2 pages outside it were served from precache ($n hits)"
}

test_precache_coherency() {
	local f=$MNT/c ino ino2 p
	precache_mount || { ok 1 "mount for coherency tests"; return; }

	coherency_setup $f 4
	ok $? "evicted clean pages are put into precache"
	p=$(pc hits)
	same $f /tmp/A "a file evicted to precache reads back intact"
	[ "$(pc hits)" -gt "$p" ]
	ok $? "and the read was served from precache (hits $p -> $(pc hits))"

	coherency_setup $f 4
	text_data 4 /tmp/B
	dd if=/tmp/B of=$f bs=64K conv=notrunc status=none
	evict $f
	same $f /tmp/B "overwrite, evict, read: the new data"

	coherency_setup $f 4
	truncate -s 1M $f
	truncate -s 4M $f
	{ head -c 1M /tmp/A; head -c 3M /dev/zero; } >/tmp/B
	evict $f
	p=$(pc hits)
	same $f /tmp/B "truncate shorter then extend: the tail reads as zeros"
	served $p 256 "truncate to 1 MiB"

	coherency_setup $f 4
	fallocate -p -o 1M -l 1M $f
	{ head -c 1M /tmp/A; head -c 1M /dev/zero; tail -c 2M /tmp/A; } >/tmp/B
	evict $f
	p=$(pc hits)
	same $f /tmp/B "punch hole: the hole reads as zeros"
	served $p 768 "punch hole of 1 MiB at 1 MiB"

	coherency_setup $f 4
	fallocate -z -o 2M -l 1M $f
	{ head -c 2M /tmp/A; head -c 1M /dev/zero; tail -c 1M /tmp/A; } >/tmp/B
	evict $f
	p=$(pc hits)
	same $f /tmp/B "zero range: the range reads as zeros"
	served $p 768 "zero range of 1 MiB at 2 MiB"

	coherency_setup $f 4
	fallocate -c -o 1M -l 1M $f
	{ head -c 1M /tmp/A; tail -c 2M /tmp/A; } >/tmp/B
	evict $f
	p=$(pc hits)
	same $f /tmp/B "collapse range: the data after the range moves down"
	served $p 256 "collapse range at 1 MiB (the file from 1 MiB on moves)"

	coherency_setup $f 4
	text_data 1 /tmp/D
	dd if=/tmp/D of=$f bs=1M seek=1 count=1 oflag=direct conv=notrunc status=none
	{ head -c 1M /tmp/A; cat /tmp/D; tail -c 2M /tmp/A; } >/tmp/B
	p=$(pc hits)
	same $f /tmp/B "O_DIRECT write then buffered read: the new data"
	served $p 768 "O_DIRECT write of 1 MiB at 1 MiB"

	coherency_setup $f 4
	text_data 1 /tmp/D
	$TOOLS/mmapwrite $f $((3 << 20)) /tmp/D
	{ head -c 3M /tmp/A; cat /tmp/D; } >/tmp/B
	evict $f
	same $f /tmp/B "mmap write + msync, evict, read: the new data"

	# a new file that gets the inode number of a deleted one, written
	# around the page cache, must not show the deleted file's pages
	coherency_setup $f 4
	ino=$(stat -c %i $f)
	rm $f
	sync -f $MNT
	text_data 4 /tmp/B
	dd if=/tmp/B of=$MNT/n bs=1M oflag=direct status=none
	ino2=$(stat -c %i $MNT/n)
	same $MNT/n /tmp/B "unlink, new file on inode $ino2 (old $ino): never the old data"
	[ "$ino" = "$ino2" ]
	ok $? "the new file reused the old inode number ($ino)"
	rm -f $MNT/n

	coherency_setup $f 4
	umount $MNT
	pc_has_pool
	ok $((!$?)) "umount destroys the filesystem's pool"
	mount $DATA $MNT
	same $f /tmp/A "umount, mount, read: intact"

	# change the file's first extent through the block device while
	# unmounted (filefrag: physical start and length in 4 KiB blocks)
	coherency_setup $f 4
	local ext blk len
	ext=$(filefrag -v -b4096 $f | awk '$1 == "0:" {sub(/\.\..*/, "", $4); sub(/:/, "", $6); print $4, $6}')
	read -r blk len <<<"$ext"
	[ "${len:-0}" -gt 256 ] && len=256
	umount $MNT
	text_data 1 /tmp/D && truncate -s $((len * 4096)) /tmp/D
	dd if=/tmp/D of=$DATA bs=4096 seek="$blk" oflag=direct conv=notrunc status=none
	{ cat /tmp/D; tail -c +$((len * 4096 + 1)) /tmp/A; } >/tmp/B
	mount $DATA $MNT
	same $f /tmp/B "write $len blocks at block $blk through the block device while unmounted, mount, read: the new data"

	# runtime disable drops everything; re-enable serves again
	coherency_setup $f 4
	echo 0 >/proc/sys/vm/precache_enabled
	pc_has_pool
	ok $((!$?)) "disabling precache drops its pools"
	text_data 4 /tmp/B
	dd if=/tmp/B of=$f bs=1M oflag=direct conv=notrunc status=none
	echo 1 >/proc/sys/vm/precache_enabled
	same $f /tmp/B "disable, change on disk, enable, read: the new data"
	coherency_setup $f 4
	p=$(pc hits)
	same $f /tmp/A "re-enabled precache reads back intact"
	[ "$(pc hits)" -gt "$p" ]
	ok $? "re-enabled precache serves hits ($p -> $(pc hits))"

	run "random file operations with evictions (fsx, 20 s)" \
		$TOOLS/fsx -d $MNT -n 3 -t 20
	umount $MNT
}

# Async O_DIRECT on a filesystem that uses fs/direct-io.c (vfat; fat and
# vfat are modules, as in Debian's kernel): each overwrite is one Linux AIO
# write, while a second process reads the range through the page cache and
# evicts it again (POSIX_FADV_DONTNEED, so precache keeps the pages). An
# async write that completes while no page is cached used to skip every
# invalidation, leaving the old generation in precache for the next read.
test_precache_vfat_aio() {
	local h b gens=1000
	mkfs.vfat $DATA >/dev/null && mount -t vfat $DATA $MNT ||
		{ ok 1 "mount a vfat data disk"; return; }
	grep -q '^vfat ' /proc/modules && grep -q '^fat ' /proc/modules
	ok $? "vfat and fat are loaded as modules ($(grep -oE '^(v?fat) ' /proc/modules | tr -d '\n'))"
	h=$(pc hits) b=$(hook precache_flush_range)
	run "vfat: $gens async O_DIRECT overwrites racing buffered reads + DONTNEED; every read after a completion returns the new generation" \
		$TOOLS/aiodio $MNT/aio 16 $gens
	[ "$(pc hits)" -gt "$h" ]
	ok $? "the racing reads were served from precache meanwhile (hits $h -> $(pc hits))"
	# one flush before each write (kiocb_invalidate_pages), one after
	[ "$(hook precache_flush_range)" -ge $((b + 2 * gens)) ]
	ok $? "each async write flushed its range before and after (flush_range $b -> $(hook precache_flush_range), $gens writes)"
	umount $MNT
}
