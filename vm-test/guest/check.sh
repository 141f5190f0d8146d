#!/bin/bash
# `make check` inside the guest: install the package as a user would, load the
# module, exercise every hook with data checked by checksums, load/unload
# under load, run the module's KUnit suites, and check kmemleak at the end.
# Each "ok"/"not ok" line goes to the host over fd 3.
. /payload/guest/lib.sh
. /payload/guest/precache.sh
. /payload/guest/preswap.sh

DATA=/dev/vdc
SWAP=/dev/vdd
MNT=/mnt/data
mkdir -p $MNT

# no_build_warnings KERNEL: dkms's log of its build for KERNEL shows the
# compiler and modpost had nothing to warn about
no_build_warnings() {
	local l n
	l=$(ls /var/lib/dkms/tmem/*/"$1"/*/log/make.log 2>/dev/null | head -n1)
	[ -f "$l" ] || { ok 1 "dkms build log for $1"; return; }
	# dkms writes the start time as the log's second line; the log's
	# mtime is the end of the build
	local t0 t1
	t0=$(date -d "$(sed -n 2p "$l")" +%s 2>/dev/null) t1=$(stat -c %Y "$l")
	[ -n "$t0" ] && log "dkms build for $1 took $((t1 - t0)) s"
	n=$(grep -ciE 'warning:|error:' "$l")
	[ "$n" = 0 ] || grep -iE 'warning:|error:' "$l" | head -20
	[ "$n" = 0 ]
	ok $? "tmem builds for $1 without warnings ($n in $l)"
}

# dkms_built STATUS KERNEL DESCRIPTION: `dkms status` output STATUS has tmem
# installed for KERNEL (the test DESCRIPTION), and that build had no warnings
dkms_built() {
	grep -q "$2.*: installed" <<<"$1"
	ok $? "$3"
	no_build_warnings "$2"
}

test_install() {
	cp /payload/tmem-dkms_*_all.deb /tmp/
	run "apt install of the tmem-dkms package" \
		apt-get install -y /tmp/tmem-dkms_*_all.deb
	local st
	st=$(dkms status tmem)
	log "$st"
	dkms_built "$st" "$(uname -r)" "dkms status shows tmem installed for $(uname -r)"
	run "modprobe tmem" modprobe tmem
	[ -r $DBG/hooks ]
	ok $? "hook counters in $DBG/hooks"
	modinfo tmem | grep -q '^version:'
	ok $? "modinfo tmem shows a version"
	# every parameter the loaded module has is described by modinfo
	local p np=0 nd=0 parms
	parms=$'\n'$(modinfo -F parm tmem)
	for p in /sys/module/tmem/parameters/*; do
		np=$((np + 1))
		[[ $parms == *$'\n'"${p##*/}":[!$'\n'][!$'\n']* ]] && nd=$((nd + 1))
	done
	[ "$np" -ge 4 ] && [ "$np" = "$nd" ]
	ok $? "modinfo tmem documents every parameter ($nd described of $np)"
	# the microbenchmark is for testers only: DKMS does not build it
	! modinfo tmem_bench >/dev/null 2>&1
	ok $? "the package does not install the microbenchmark (no tmem_bench module)"
}

# The KUnit suites run when tmem_kunit is loaded: tmem_core (the RAM
# backend) and tmem_compress (the compressing backend). Each case becomes
# one TAP line here, and each suite must report every case it has.
test_kunit() {
	local suite r n line plan min
	run "modprobe tmem_kunit (runs the tmem_core and tmem_compress KUnit suites)" \
		modprobe tmem_kunit || return
	for suite in tmem_core tmem_compress; do
		r=/sys/kernel/debug/kunit/$suite/results n=0
		[ -r $r ] || { ok 1 "KUnit results in $r"; continue; }
		sed "s/^/kunit: /" $r
		while read -r line; do
			n=$((n + 1))
			case $line in
			"ok "*"# SKIP"*) ok 1 "kunit $suite (skipped counts as failed): ${line#ok }" ;;
			"ok "*) ok 0 "kunit $suite: ${line#ok }" ;;
			*) ok 1 "kunit $suite: ${line#not ok }" ;;
			esac
		done < <(grep -E '^    (not )?ok [0-9]+ ' $r | sed 's/^    //')
		plan=$(sed -n 's/^    1\.\.\([0-9]*\)$/\1/p' $r)
		min=20
		[ $suite = tmem_compress ] && min=15
		[ "$n" -gt $min ] && [ "$n" = "$plan" ]
		ok $? "KUnit $suite reported a result for each of its $plan cases ($n)"
		grep -qE "^(not )?ok [0-9]+ (- )?$suite" $r &&
			! grep -qE "^not ok [0-9]+ (- )?$suite" $r
		ok $? "KUnit suite $suite passed as a whole"
	done
	run "rmmod tmem_kunit" rmmod tmem_kunit
}

test_precache_hooks() {
	local b sum sum4 f=$MNT/file
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 $DATA
	run "mount an ext4 data disk" mount $DATA $MNT || return
	# as in Debian's kernel: the hooks in ext4 run from a module
	# (only a loadable module has an initstate)
	[ "$(cat /sys/module/ext4/initstate 2>/dev/null)" = live ]
	ok $? "ext4 runs as a loadable module, as in Debian's kernel"

	text_data 8 /tmp/ref
	sum=$(file_sum /tmp/ref)
	b=$(hook precache_flush_page)
	cp /tmp/ref $f
	drop_caches
	moved precache_flush_page "$b" "dropping freshly written pages flushes them"

	b=$(hook precache_get)
	[ "$(file_sum $f)" = "$sum" ]
	ok $? "file reads back with the written checksum"
	moved precache_get "$b" "reading from disk asks precache first"

	b=$(hook precache_put)
	drop_caches
	moved precache_put "$b" "evicting clean pages read from disk offers them to precache"
	[ "$(file_sum $f)" = "$sum" ]
	ok $? "file reads back with the written checksum after eviction"

	b=$(hook precache_flush_range)
	truncate -s 4M $f
	moved precache_flush_range "$b" "truncate flushes the truncated range"
	drop_caches
	sum4=$(head -c 4M /tmp/ref | sha256sum | cut -d' ' -f1)
	[ "$(file_sum $f)" = "$sum4" ]
	ok $? "truncated file keeps its first 4 MiB"

	b=$(hook precache_flush_range)
	text_data 2 /tmp/direct
	dd if=/tmp/direct of=$f bs=1M count=2 oflag=direct conv=notrunc status=none
	moved precache_flush_range "$b" "O_DIRECT write flushes the written range"
	drop_caches
	cmp -s <(head -c 2M $f) /tmp/direct
	ok $? "buffered read after O_DIRECT write returns the new data"

	b=$(hook precache_flush_range)
	blockdev --flushbufs $DATA
	moved precache_flush_range "$b" "invalidate_bdev (blockdev --flushbufs) flushes"

	b=$(hook precache_flush_range)
	rm -f $f
	sync -f $MNT
	moved precache_flush_range "$b" "deleting a file flushes its inode (whole range)"

	b=$(hook precache_flush_fs)
	run "umount the data disk" umount $MNT
	moved precache_flush_fs "$b" "umount flushes the filesystem"
}

test_preswap_hooks() {
	local b
	mkswap -q $SWAP >/dev/null
	b=$(hook preswap_init)
	run "swapon the swap disk" swapon $SWAP || return
	moved preswap_init "$b" "swapon initialises the area"

	# twice the cgroup's limit: reclaim must push half of it out to swap
	local bp bg bf
	bp=$(hook preswap_put) bg=$(hook preswap_get) bf=$(hook preswap_flush_page)
	run "anonymous memory of 48 MiB in a 32M cgroup swaps out and back intact" \
		in_cgroup hooks 32M $TOOLS/memcheck -m 48 -g 1
	moved preswap_put "$bp" "swap-out offers pages to preswap"
	moved preswap_get "$bg" "swap-in asks preswap first"
	moved preswap_flush_page "$bf" "freeing swap slots flushes them"

	# swapoff while pages sit in swap: each comes back through the get hook.
	# The set fits in RAM (swapoff must bring it all back) and is pushed out
	# with MADV_PAGEOUT.
	rm -f /tmp/ready /tmp/go
	$TOOLS/memcheck -m 48 -p -r /tmp/ready -w /tmp/go >/tmp/memcheck.out 2>&1 &
	local pid=$!
	while [ ! -e /tmp/ready ]; do nap 0.5; done
	bg=$(hook preswap_get)
	b=$(hook preswap_flush_area)
	run "swapoff while pages are swapped out" swapoff $SWAP
	moved preswap_get "$bg" "swapoff reads pages back through preswap"
	moved preswap_flush_area "$b" "swapoff flushes the area"
	touch /tmp/go
	wait $pid
	ok $? "data swapped out before swapoff is intact: $(cat /tmp/memcheck.out)"
}

# Areas already on when the module loads are initialised at registration,
# and a freshly loaded module starts from zero: the old one's counters
# stopped with it.
test_reload_with_swap_on() {
	run "rmmod tmem" rmmod tmem || return
	[ ! -e $DBG ]
	ok $? "debugfs directory is gone after rmmod"
	swapon $SWAP
	run "modprobe tmem with a swap area already on" modprobe tmem || return
	local n
	n=$(hook preswap_init)
	[ "$n" = "$(swapon --noheadings --show=NAME | wc -l)" ]
	ok $? "preswap_init called once per area already on (got $n)"
	[ "$(hook precache_put)" -le 64 ] && [ "$(hook preswap_put)" = 0 ]
	ok $? "a reloaded module counts from zero"
	swapoff $SWAP
}

# Unload and reload while the other CPU evicts and reads files and swaps:
# the patch's SRCU must keep hooks out of freed module code.
test_unload_under_load() {
	mkfs.ext4 -q -F $DATA && mount $DATA $MNT || { ok 1 "mount for load test"; return; }
	swapon $SWAP
	text_data 16 $MNT/a
	local sum i rc=0
	sum=$(file_sum $MNT/a)
	(
		end=$((SECONDS + 20))
		while [ $SECONDS -lt $end ]; do
			[ "$(file_sum $MNT/a)" = "$sum" ] || { echo "file changed"; exit 1; }
			echo 1 >/proc/sys/vm/drop_caches
		done
	) >/tmp/fileload.out 2>&1 &
	local fpid=$!
	# a memory cgroup at its limit churns swap the whole time (every
	# generation rewrites the set, so pages go out and come back); small
	# enough that each modprobe -r drains what preswap holds quickly
	in_cgroup churn 24M $TOOLS/memcheck -m 32 -g 2 >/tmp/memload.out 2>&1 &
	local mpid=$!
	for ((i = 1; i <= 6; i++)); do
		unload_tmem || { log "unload $i failed"; rc=1; }
		nap 0.3
		modprobe tmem || rc=1
		nap 0.3
	done
	ok $rc "6 modprobe -r / modprobe cycles while files and a 24M cgroup's swap are busy"
	wait $fpid
	ok $? "file data intact through the reloads $(cat /tmp/fileload.out)"
	wait $mpid
	ok $? "anonymous data intact through the reloads: $(tail -1 /tmp/memload.out)"
	swapoff $SWAP
	umount $MNT
}

# rmmod while preswap is on but holds nothing: the module is not pinned,
# so rmmod starts at once, and until the hooks are withdrawn swap-outs still
# reach preswap. None may be stored then (the page would go with the
# module, and its swap slot was never written). unload_delay_ms holds the
# unload in that window for 4 s while a workload pushes pages out.
test_unload_window() {
	local rpid pid n st
	mkswap -q $SWAP >/dev/null && swapon $SWAP ||
		{ ok 1 "swapon for the unload-window test"; return; }
	[ "$(cat /proc/sys/vm/preswap)" = 0 ] && [ "$(cat /proc/sys/vm/preswap_enabled)" = 1 ]
	ok $? "preswap is on and holds nothing: the module is not pinned"
	echo 4000 >/sys/module/tmem/parameters/unload_delay_ms
	rmmod tmem &
	rpid=$!
	while read -r st 2>/dev/null </sys/module/tmem/initstate && [ "$st" = live ]; do
		nap 0.1
	done
	log "tmem is $(cat /sys/module/tmem/initstate 2>/dev/null): swapping now"
	$TOOLS/memcheck -m 16 -g 2 -p >/tmp/window.out 2>&1 &
	pid=$!
	wait $rpid
	ok $? "rmmod with swap-outs arriving during the unload"
	# the last such line: earlier unloads wrote theirs too
	n=$(dmesg | sed -n 's/.*tmem: \([0-9]*\) preswap puts refused while unloading.*/\1/p' | tail -n 1)
	[ "${n:-0}" -gt 0 ]
	ok $? "puts that arrived after rmmod began were refused (${n:-none})"
	wait $pid
	ok $? "data swapped during the unload is intact: $(cat /tmp/window.out)"
	swapoff $SWAP
	run "modprobe tmem again" modprobe tmem
}

test_final_unload() {
	run "rmmod tmem at the end" unload_tmem
	tmemstat >/tmp/ts.out 2>&1
	[ $? = 1 ] && grep -q 'tmemstat: the tmem module is not loaded (modprobe tmem)' /tmp/ts.out
	ok $? "tmemstat without the module says so: $(head -1 /tmp/ts.out)"
}

# tmemstat on a live system, with preswap holding pages and a precache
# pool: its counters are the debugfs files' (read again around it, on a
# quiet system), the table names the swap device, --json carries the same
# numbers, and the errors a user can hit say what to do. (The JSON is parsed
# strictly by the host-side test, vm-test/tmemstat-test.sh.)
test_tmemstat() {
	local before after raw js held
	mkswap -q $SWAP >/dev/null && swapon $SWAP ||
		{ ok 1 "swapon for the tmemstat test"; return; }
	# 16 MiB pushed out to preswap (MADV_PAGEOUT), held while tmemstat reads
	rm -f /tmp/ts.ready /tmp/ts.go
	$TOOLS/memcheck -m 16 -p -r /tmp/ts.ready -w /tmp/ts.go >/tmp/ts.mc 2>&1 &
	local pid=$!
	while [ ! -e /tmp/ts.ready ]; do nap 0.5; done
	# preswap's records stand still while the workload waits (the store's
	# stats do not: the root filesystem has a precache pool too)
	before=$(cat $DBG/preswap)
	raw=$(tmemstat --raw)
	after=$(cat $DBG/preswap)
	held=$(ps_held)
	[ "$before" = "$after" ] &&
		[ "$(printf '%s\n' "$raw" | grep '^preswap ' | sed 's/^preswap //')" = "$after" ] &&
		[ "$(printf '%s\n' "$raw" | grep -c '^stats ')" = "$(wc -l <$DBG/stats)" ]
	ok $? "tmemstat --raw prints preswap's records exactly and every stats line ($held pages held)"
	tmemstat >/tmp/ts.out 2>&1
	[ $? = 0 ] && grep -q "^  puts  *[0-9]*," /tmp/ts.out &&
		grep -q "^$SWAP  *[0-9]*  *$held " /tmp/ts.out && grep -q '^  hit ratio ' /tmp/ts.out
	ok $? "tmemstat's table: the store's puts and a row for $SWAP holding $held pages"
	sed 's/^/#   /' /tmp/ts.out >&3
	js=$(tmemstat --json)
	printf '%s' "$js" | grep -q "\"held\": $held, \"refused_cgroup\"" &&
		printf '%s' "$js" | grep -q "\"type\": 0, \"slots\": [0-9]*, \"held\": $held,"
	ok $? "tmemstat --json carries the same pages held (preswap and its swap area)"
	# (each print forks a few processes: about 0.3 s each on this
	# debug kernel under TCG)
	timeout 8 tmemstat -w 1 --raw >/tmp/ts.w 2>&1
	[ "$(grep -c '^stats puts ' /tmp/ts.w)" -ge 3 ]
	ok $? "tmemstat -w 1 prints again and again ($(grep -c '^stats puts ' /tmp/ts.w) times in 8 s)"
	unshare -m sh -c 'umount /sys/kernel/debug && tmemstat' >/tmp/ts.out 2>&1
	[ $? = 1 ] && grep -q 'debugfs is not mounted (mount -t debugfs none /sys/kernel/debug)' /tmp/ts.out
	ok $? "without debugfs it says how to mount it: $(cat /tmp/ts.out)"
	setpriv --reuid=65534 --regid=65534 --clear-groups tmemstat >/tmp/ts.out 2>&1
	[ $? = 1 ] && grep -q 'run as root' /tmp/ts.out
	ok $? "as a user it says to run as root: $(cat /tmp/ts.out)"
	tmemstat --watch 0 >/tmp/ts.out 2>&1
	[ $? = 1 ] && grep -q 'positive number' /tmp/ts.out
	ok $? "a bad --watch is refused: $(cat /tmp/ts.out)"
	touch /tmp/ts.go
	wait $pid
	ok $? "the pages held meanwhile are intact: $(cat /tmp/ts.mc)"
	rm -f /tmp/ts.ready /tmp/ts.go
	swapoff $SWAP
}

# kmemleak: every report whose allocation trace runs through the tmem module
# fails; others (the kernel's own boot-time ones) are listed, not counted.
test_kmemleak() {
	local k=/sys/kernel/debug/kmemleak all ours
	[ -w $k ] || { ok 1 "kmemleak is available"; return; }
	echo scan >$k; nap 5; echo scan >$k
	all=$(grep -c '^unreferenced object' $k)
	ours=$(awk '/^unreferenced object/ {n++} /\[tmem/ {m[n] = 1} END {print length(m)}' $k)
	[ "$all" = 0 ] || head -80 $k | sed 's/^unreferenced object/kmemleak object/'
	[ "$ours" = 0 ]
	ok $? "kmemleak: no leak from tmem ($ours from tmem, $all in all)"
}

# Smoke, for the upgraded kernel and for Debian's configuration: precache
# puts and hits with file contents checked, preswap puts and gets with every
# page checked, fork-shared pages, and the area's held pages back to 0 at
# swapoff.
test_smoke() {
	local f=$MNT/file sum b h
	mkfs.ext4 -q -F $DATA && run "mount an ext4 data disk" mount $DATA $MNT || return
	# evict (page cache only): drop_caches=3 would also evict the inode,
	# and inode eviction rightly flushes its pages from precache
	text_data 16 $f
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

# The kernel upgrade, first half (run by upgrade-install.sh; 05-boot.sh
# puts the patched next-series kernel's .debs in /payload/upgrade): apt
# installs its image and headers, dkms builds tmem for it by itself, and the
# guest is told to run upgrade.sh on the next boot, which the host starts on
# that kernel.
test_upgrade_install() {
	local debs=(/payload/upgrade/linux-image-*.deb /payload/upgrade/linux-headers-*.deb)
	local new
	[ -f "${debs[0]}" ] && [ -f "${debs[1]}" ]
	ok $? "the payload carries the next kernel's image and headers"
	[ -f "${debs[0]}" ] && [ -f "${debs[1]}" ] || return 1
	new=$(dpkg-deb -f "${debs[0]}" Package)
	new=${new#linux-image-}
	run "apt install of the $new kernel image and headers" \
		apt-get install -y "${debs[@]}"
	local st
	st=$(dkms status tmem)
	log "$st"
	dkms_built "$st" "$new" "dkms built and installed tmem for $new by itself"
	grep -q "$(uname -r).*: installed" <<<"$st"
	ok $? "and tmem stays installed for the running $(uname -r)"
	[ -f "/boot/vmlinuz-$new" ]
	ok $? "/boot/vmlinuz-$new is installed (the host boots it next)"
	mkdir -p /var/lib/tmem-test
	echo "$new" >/var/lib/tmem-test/expect-kernel
	echo upgrade >/var/lib/tmem-test/next-mode
}

# The upgrade's first half in the background of this boot: when the host
# put the next kernel's .debs on the payload with the upgrade-early mark
# (see 05-boot.sh), apt installs them while the tests run, exactly as
# upgrade-install.sh would in a boot of its own. Its TAP lines go to a file
# and are reported here, in order, by upgrade_install_finish (before the
# tests that count hook calls exactly: the install evicts root-disk pages
# into precache meanwhile). The host then boots the new kernel.
UPGRADE_PID=
upgrade_install_start() {
	[ -f /payload/upgrade-early ] || return 0
	log "installing the next kernel in the background (log at the end of the tests)"
	# when it ends, a TAP comment tells the host (run.sh starts the boot on
	# Debian's kernel then, once this guest leaves a CPU idle)
	( (T=0 FAILED=0; test_upgrade_install; exit $FAILED) \
		3>/tmp/upgrade.tap >/tmp/upgrade.log 2>&1 </dev/null
	  rc=$?
	  echo "# the next kernel's installation has ended" >/dev/ttyS1
	  exit $rc ) &
	UPGRADE_PID=$!
}

upgrade_install_finish() {
	local t0=$SECONDS line
	[ -n "$UPGRADE_PID" ] || return 0
	wait "$UPGRADE_PID"
	UPGRADE_PID=
	log "the background kernel install: waited $((SECONDS - t0)) s for it; its log:"
	cat /tmp/upgrade.log
	while read -r line; do
		case $line in
		"ok "*) ok 0 "${line#ok * - }" ;;
		"not ok "*) ok 1 "${line#not ok * - }" ;;
		esac
	done </tmp/upgrade.tap
}

# check.sh can be sourced for its test functions (upgrade-install.sh and
# upgrade.sh do)
[ "${TMEM_CHECK_FUNCTIONS_ONLY:-0}" = 1 ] && return 0

# every test, in order; CHECK_TESTS on the host (05-boot.sh writes it to
# /payload/check-tests) runs a subset instead, for work on one area
tests="test_kunit test_precache_hooks test_precache_reread
	test_precache_coherency test_precache_doomed test_preswap_hooks test_preswap_store
	test_preswap_compress test_preswap_ram_backend test_preswap_areas test_preswap_cgroup test_tmemstat
	test_preswap_shrink_sticks test_preswap_writeback test_preswap_lost_page
	test_precache_vfat_aio upgrade_install_finish test_reload_with_swap_on
	test_unload_window
	test_unload_under_load test_final_unload test_kmemleak"
if [ -s /payload/check-tests ]; then
	tests=$(cat /payload/check-tests)
	echo "# a subset: test_install $tests" >&3
fi

test_install
lsmod | grep -q '^tmem ' || { echo "# module not loaded, stopping" >&3; exit 1; }
upgrade_install_start
for t in $tests; do
	if declare -F "$t" >/dev/null; then
		log "$t: $(field /proc/stat processes) processes started so far"
		"$t"
	else
		ok 1 "CHECK_TESTS names $t, which is no test"
	fi
done
# (a subset of the tests may not have named it)
upgrade_install_finish
log "the end: $(field /proc/stat processes) processes started since boot"
echo "1..$T" >&3
exit $FAILED
