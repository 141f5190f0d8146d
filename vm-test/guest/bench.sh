#!/bin/bash
# `make bench` inside the guest: no tmem vs zswap vs tmem, side by side in
# one boot, on the bench kernel (no debug options, zswap built in and off).
#
# Configurations (switched at run time, between runs):
#   base       swap disk only: zswap off, tmem's preswap_enabled=0
#              (for the re-read workload: precache_enabled=0)
#   zswap      zswap on (lz4, zsmalloc, max_pool_percent = tmem's), preswap off
#   tmem-ram   zswap off, preswap on (re-read: precache on), tmem loaded
#              with backend=ram: a plain copy of every page
#   tmem-lz4   the same with backend=compress (the default), compressor
#              and precache_compressor lz4
#   tmem-zstd  backend=compress, both compressors zstd
#   tmem-lz4-wb  tmem-lz4 with preswap_writeback=1 (swap workload only);
#              every other configuration runs with it 0, the default
# tmem is reloaded (modprobe -r; modprobe tmem backend=...) when a run
# needs the other backend; the compressor is switched through its module
# parameter. precache is off during the swap workloads, so they measure
# preswap alone.
#
# Workloads, each configuration BENCH_REPS times (default 3), interleaved:
# round r runs every workload once per configuration, the configurations'
# order rotated by r, so a slow phase of the host hits all of them alike.
#   swap    mixfill: anonymous memory of 2x the guest's RAM, a mix of text,
#           random and zero pages, written twice, every byte checked
#   sort    GNU sort of a generated text file in a memory cgroup whose
#           memory.max is below sort's working set; output checked against
#           an unconstrained sort's checksum (base, zswap, tmem-lz4 only:
#           zswap thrashes there and takes minutes a run)
#   reread  a file set of 1.5x the memory available, read twice (the second
#           time in another fixed order), every byte checked; precache off/on
#           (no zswap run: zswap has no page-cache side)
#   swap@ssd, reread@ssd
#           the same with the swap and data disks throttled to the disk
#           model below (base, zswap, tmem-lz4; reread: base, tmem-lz4);
#           swap@ssd writes its memory once, not twice, to bound the time
#   micro   tmem_bench.ko, built from /usr/src/tmem-* (DKMS does not
#           build it) and loaded: the store's put/get cost and the
#           compressors' (kernel log table)
#
# The disk model. Under TCG every instruction is emulated while the guest's
# disks are files in the host's page cache: a disk write is nearly free and
# a page copy is not, so unthrottled wall times favour having no store. The
# "@ssd" runs throttle the data and swap drives (QEMU's
# block_set_io_throttle, through bench-agent.py on the host) to a SATA SSD
# (BENCH_DISK="550 500 90000": MB/s read, MB/s write, 4 KiB IOPS) slowed by
# the guest's CPU slowdown, measured in this boot as the same 4 KiB memcpy
# program (tools/memcpy-ns) timed in the guest and on the host. A disk
# that is S times slower against a CPU S times slower costs what the real
# disk would cost a real CPU.
#
# Each run reports one line on fd 3 (read by vm-test/07-report.sh):
#   # bench,WORKLOAD,CONFIG,REP,WALL_S,SECTORS_READ,SECTORS_WRITTEN,
#           STORE_PAGES,STORE_BYTES,HIT_RATIO,STORE_PUTS,STORE_REFUSED,STATUS
# sectors are of the disk the workload pages to (swap disk; data disk for
# reread); STORE_* are the peak pages and bytes held by tmem or zswap
# (sampled every second) and the pages offered and refused during the run;
# HIT_RATIO is the share of swap-ins (page-cache misses for reread) served
# by the store, "-" for base; STATUS is ok, killed (the kernel's OOM killer
# ended the workload: no result, but no wrong data either) or failed. Each
# run is also a TAP line: not ok only when a workload returned wrong data
# or failed otherwise; an OOM kill is reported, and the report leaves the
# run out of the medians. Knobs (kernel command line via GUEST_APPEND, passed to
# init as environment): BENCH_REPS, BENCH_WORKLOADS, BENCH_SORT_MIB,
# BENCH_SORT_LIMIT, BENCH_DISK.
. /payload/guest/lib.sh

DATA=/dev/vdc
SWAP=/dev/vdd
MNT=/mnt/data
ZS=/sys/module/zswap/parameters
P=/sys/module/tmem/parameters
ZD=/sys/kernel/debug/zswap
REPS=${BENCH_REPS:-3}
# a list separated by spaces or commas (the kernel command line splits
# at spaces): BENCH_WORKLOADS=swap,swap@ssd
WORKLOADS=${BENCH_WORKLOADS:-swap sort reread swap@ssd reread@ssd micro}
WORKLOADS=${WORKLOADS//,/ }
DISK_MODEL=${BENCH_DISK:-550 500 90000}
CTL=/dev/ttyS2		# to bench-agent.py on the host
MISSES=0		# preswap get misses of tmem instances unloaded so far
SORT_MIB=${BENCH_SORT_MIB:-32}	# input; sort's working set is about 2.5x
# memory.max of sort's cgroup: 48M squeezes it (its peak unlimited is about
# 120 MiB) and all three configurations finish; at 32M zswap, whose pool is
# charged to the cgroup, gets sort OOM-killed every time
SORT_LIMIT=${BENCH_SORT_LIMIT:-48M}
FILE_MIB=16	# size of each file of the re-read set

info() { echo "# bench-info,$1,$2" >&3; log "$1: $2"; }
result() { echo "# bench,$*" >&3; log "result: $*"; }

vmstat() { awk -v k="$1" '$1 == k {print $2}' /proc/vmstat; }
zswap_stat() { cat "$ZD/$1" 2>/dev/null || echo 0; }
# zswap_refused: its refusals (a reclaim failure is not counted: on 6.1
# it follows each pool limit hit, zsmalloc having no shrink)
zswap_refused() {
	local f s=0
	for f in pool_limit_hit reject_alloc_fail \
		reject_kmemcache_fail reject_compress_poor; do
		s=$((s + $(zswap_stat $f)))
	done
	echo $s
}
# tmem_stat NAME: a line of the store's stats
tmem_stat() { awk -v k="$1" '$1 == k {print $2}' "$DBG/stats"; }
# preswap COLUMN / precache COLUMN: summed over swap areas / filesystems
# (the files are records of key-value pairs: kv_sum in lib.sh)
preswap() {
	local k
	case $1 in refused) k=put_refused ;; misses) k=get_misses ;; *) k=$1 ;; esac
	kv_sum "$DBG/preswap" type $k
}
precache() {
	local k
	case $1 in refused) k=put_refused ;; *) k=$1 ;; esac
	kv_sum "$DBG/precache" pool $k
}

# store_now: pages and bytes tmem and zswap hold now (one of them is in use)
store_now() {
	echo $(($(tmem_stat pages) + $(zswap_stat stored_pages))) \
		$(($(tmem_stat backend_bytes) + $(zswap_stat pool_total_size)))
}

# sampler FILE: the peak of store_now, written to FILE when stopped
sampler() {
	local mp=0 mb=0 p b
	trap 'echo "$mp $mb" >"$1"; exit 0' TERM
	while :; do
		read -r p b < <(store_now)
		[ "$p" -gt "$mp" ] && mp=$p
		[ "$b" -gt "$mb" ] && mb=$b
		sleep 1
	done
}

# counters WORKLOAD CONFIG: "hits misses puts refused" now, for the store
# the configuration uses
counters() {
	case ${1%@*}/$2 in
	reread/tmem*) echo "$(precache hits) $(precache misses) $(precache puts) $(precache refused)" ;;
	reread/*) echo "0 0 0 0" ;;
	*/zswap) echo "$(vmstat zswpin) $(vmstat pswpin) $(vmstat zswpout) $(zswap_refused)" ;;
	*/tmem*) echo "$(preswap gets) $(vmstat pswpin) $(preswap puts) $(preswap refused)" ;;
	*) echo "0 $(vmstat pswpin) 0 0" ;;
	esac
}

# causes WORKLOAD CONFIG: "full nomem incompressible", the refusals by
# cause so far of the store the configuration uses (zswap: its pool limit
# hits; allocation and kmem cache failures; poor compression. Not its
# reclaim failures: on 6.1 each pool limit hit tries a shrink that zsmalloc
# cannot do, so they count the same refusals again)
causes() {
	case ${1%@*}/$2 in
	reread/tmem* | */tmem*)
		echo "$(tmem_stat refused_full) $(tmem_stat refused_nomem) $(tmem_stat refused_incompressible)" ;;
	*/zswap)
		echo "$(zswap_stat pool_limit_hit) $(($(zswap_stat reject_alloc_fail) + \
			$(zswap_stat reject_kmemcache_fail))) $(zswap_stat reject_compress_poor)" ;;
	*) echo "0 0 0" ;;
	esac
}

# setp FILE 0|1: set a boolean module parameter and check that it took
setp() {
	local want=N
	[ "$2" = 1 ] && want=Y
	echo "$2" >"$1" && [ "$(cat "$1")" = $want ] && return 0
	log "could not set $1 to $2 (reads $(cat "$1"))"
	return 1
}

# tmem_backend BACKEND [COMPRESSOR]: tmem loaded with BACKEND (reloaded if
# it runs the other one; called with preswap and precache off and swap
# empty), and COMPRESSOR for new puts of preswap and precache
tmem_backend() {
	if [ "$(cat $P/backend)" != "$1" ]; then
		MISSES=$((MISSES + $(preswap misses)))
		unload_tmem && modprobe tmem backend="$1" &&
			[ "$(cat $P/backend)" = "$1" ] ||
			{ log "could not reload tmem with backend=$1"; return 1; }
	fi
	[ -z "${2:-}" ] && return 0
	echo "$2" >$P/compressor && echo "$2" >$P/precache_compressor &&
		[ "$(cat $P/compressor)" = "$2" ] && [ "$(cat $P/precache_compressor)" = "$2" ] ||
		{ log "could not set the compressors to $2"; return 1; }
}

# set_config WORKLOAD CONFIG. tmem is switched by its module parameters,
# which work on every kernel (see setup for the sysctls).
set_config() {
	local zswap=0 preswap=0 precache=0 wb=0
	case $2 in *-wb) wb=1 ;; esac	# the same with preswap_writeback=1
	case ${1%@*}/$2 in
	reread/tmem*) precache=1 ;;
	reread/*) ;;
	*/zswap) zswap=1 ;;
	*/tmem*) preswap=1 ;;
	esac
	case $2 in
	tmem-ram) setp $P/precache_enabled 0 && setp $P/preswap_enabled 0 &&
		tmem_backend ram || return 1 ;;
	tmem-*) setp $P/precache_enabled 0 && setp $P/preswap_enabled 0 &&
		tmem_backend compress "$(echo "${2#tmem-}" | sed 's/-wb$//')" || return 1 ;;
	esac
	setp $P/preswap_writeback $wb || return 1
	# precache off drops every precache pool: nothing from an earlier
	# run survives into the next
	setp $P/precache_enabled 0 && setp $ZS/enabled 0 &&
		setp $P/preswap_enabled 0 &&
		setp $ZS/enabled $zswap && setp $P/preswap_enabled $preswap &&
		setp $P/precache_enabled $precache
}

# fresh_state: an empty swap area (slots allocated from the start again),
# empty stores and no page cache, the same before every run
fresh_state() {
	swapoff $SWAP || return 1
	local held zs
	held=$(cat /proc/sys/vm/preswap) zs=$(zswap_stat stored_pages)
	[ "$held" = 0 ] && [ "$zs" = 0 ] || log "store not empty after swapoff: preswap $held, zswap $zs"
	swapon $SWAP || return 1
	drop_caches
	sleep 1
}

# ctl REQUEST: one request to bench-agent.py on the host; prints its answer
# and fails unless it begins with "ok"
ctl() {
	local ans
	echo "$*" >&4
	read -r -t 120 ans <&4 || ans="error: no answer from the host"
	ans=${ans%$'\r'}
	echo "$ans"
	[ "${ans%% *}" = ok ]
}

# throttle on|off: the data and swap drives at the disk model's speed, or
# at full speed
throttle() {
	local d
	for d in data swap; do
		if [ "$1" = on ]; then
			ctl throttle $d $THROTTLE >/dev/null
		else
			ctl throttle $d 0 0 0 >/dev/null
		fi || { log "throttle $1 failed for $d"; return 1; }
	done
}

# one WORKLOAD CONFIG REP: run the workload once and report it
one() {
	local w=$1 c=$2 rep=$3 dev=$SWAP t0 t1 wall rc oom0 status r0 w0 h0 m0 p0 f0 h1 m1 p1 f1 spid peak hit
	local cf0 cn0 ci0 cf1 cn1 ci1
	[ "${w%@*}" = reread ] && dev=$DATA
	set_config "$w" base && fresh_state && set_config "$w" "$c" ||
		{ ok 1 "$w/$c run $rep: configuration set"; return; }
	log "run $rep: $w, $c: zswap $(cat $ZS/enabled), preswap $(cat $P/preswap_enabled), precache $(cat $P/precache_enabled)"
	sed 's/^/  /' $DBG/stats | tr '\n' ' '
	echo
	read -r h0 m0 p0 f0 < <(counters "$w" "$c")
	read -r cf0 cn0 ci0 < <(causes "$w" "$c")
	r0=$(sectors_read $dev) w0=$(sectors_written $dev)
	sampler /tmp/peak &
	spid=$!
	oom0=$(vmstat oom_kill)
	if [ "$w" != "${w%@*}" ] && ! throttle on; then
		ok 1 "$w/$c run $rep: disks throttled"
		kill $spid
		return
	fi
	t0=$(date +%s.%N)
	GENS=2
	[ "$w" = "${w%@*}" ] || GENS=1
	"run_${w%@*}" >/tmp/run.out 2>&1
	rc=$?
	t1=$(date +%s.%N)
	[ "$w" = "${w%@*}" ] || throttle off || rc=1
	status=ok
	[ $rc = 0 ] || status=failed
	# killed: an OOM kill during the run, and no output that is wrong
	[ $rc != 0 ] && [ "$(vmstat oom_kill)" != "$oom0" ] && grep -q '^killed' /tmp/run.out &&
		status=killed
	kill $spid
	wait $spid
	read -r h1 m1 p1 f1 < <(counters "$w" "$c")
	read -r cf1 cn1 ci1 < <(causes "$w" "$c")
	read -r peak </tmp/peak
	sed 's/^/  /' /tmp/run.out
	# for reading the console later: the stores' own counters
	case $c in
	zswap) log "zswap after: $(cd $ZD && grep . ./* | tr '\n' ' ')" ;;
	tmem*) log "tmem after: $(tr '\n' ' ' <$DBG/stats)" ;;
	esac
	hit=-
	[ "$c" != base ] && [ "$w" != micro ] && hit=$(awk -v h=$((h1 - h0)) -v m=$((m1 - m0)) \
		'BEGIN {printf "%.3f", h + m ? h / (h + m) : 0}')
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
	result "$w,$c,$rep,$wall,$(($(sectors_read $dev) - r0)),$(($(sectors_written $dev) - w0)),${peak// /,},$hit,$((p1 - p0)),$((f1 - f0)),$status,$((cf1 - cf0)),$((cn1 - cn0)),$((ci1 - ci0))"
	if [ $status = killed ]; then
		ok 0 "$w/$c run $rep: OOM-killed, no result (no wrong data): $(tail -n1 /tmp/run.out)"
	else
		ok $rc "$w/$c run $rep completed, data intact: $(tail -n1 /tmp/run.out)"
	fi
	set_config "$w" base || true
}

run_swap() {
	$TOOLS/mixfill -m "$ANON_MIB" -g "$GENS"
}

# sort_in LIMIT: sort the input in the cgroup; prints the output's md5,
# then "rc N" of sort
sort_in() {
	local rc
	{ in_cgroup bench "$1" sort -S 512M --parallel=1 -T $MNT/tmp $MNT/sort.in
	  echo $? >/tmp/sort.rc; } | md5sum | cut -d' ' -f1
	read -r rc </tmp/sort.rc
	echo "rc $rc"
}

run_sort() {
	local sum rc
	{ read -r sum; read -r _ rc; } < <(sort_in "$SORT_LIMIT")
	if [ "$rc" = 137 ]; then
		echo "killed: sort was killed (signal 9), output discarded"
		return 1
	fi
	echo "sort: exit $rc, output md5 $sum, expected $SORT_SUM"
	[ "$rc" = 0 ] && [ "$sum" = "$SORT_SUM" ]
}

run_reread() {
	local f i rc=0
	for f in "${FILES[@]}" "${FILES2[@]}"; do
		i=${f##*/f}
		$TOOLS/mixfill -c "$f" -m $FILE_MIB -s "$i" || rc=1
	done
	echo "reread: ${#FILES[@]} files of $FILE_MIB MiB read twice, rc $rc"
	return $rc
}

# build_bench: tmem_bench.ko is not built by DKMS; build it once from the
# package's sources, as README.Debian tells a tester to (into /tmp/bench)
build_bench() {
	[ -f /tmp/bench/tmem_bench.ko ] && return 0
	rm -rf /tmp/bench
	cp -r /usr/src/tmem-*/ /tmp/bench &&
		make -s -C "/lib/modules/$(uname -r)/build" M=/tmp/bench \
			TMEM_BENCH=1 modules >/tmp/bench.log 2>&1 ||
		{ cat /tmp/bench.log; return 1; }
}

run_micro() {
	dmesg -C
	build_bench || return 1
	modprobe tmem
	insmod /tmp/bench/tmem_bench.ko	# fails with "Operation canceled" by design
	dmesg -t | grep '^tmem_bench:' | tee /tmp/micro.log
	grep -q '^tmem_bench: done' /tmp/micro.log
}

micro_rows() { # micro_rows REP: the table of the last micro run, for the report
	local rep=$1
	sed "s/^/# micro-log,$rep,/" /tmp/micro.log >&3
	awk -v r="$rep" '$2 ~ /^[0-9]+$/ && NF >= 8 {
		printf "# micro,%s,%s,%s,%s,%s,%s,%s\n", r, $2, $3, $4, $5, $6, $8 }' /tmp/micro.log >&3
	# threads: pool kind (or memcpy, the ceiling), op, ops/ms with 1 and
	# with 2 threads
	awk -v r="$rep" '($2 == "ephemeral" || $2 == "ephemeral-1lru" || $2 == "persistent" || $2 == "memcpy") && / 1: / {
		for (i = 1; i < NF; i++) {
			if ($i == "1:") a = $(i + 1)
			if ($i == "2:") b = $(i + 1)
		}
		printf "# micro-thr,%s,%s,%s,%s,%s\n", r, $2, $2 == "memcpy" ? "ceiling" : $3, a, b }' /tmp/micro.log >&3
	# the compressors: name, pool, put ns, irqs-off max ns, get ns,
	# bytes per page, failed
	awk -v r="$rep" '($3 == "ephemeral" || $3 == "persistent") && NF == 8 {
		printf "# micro-comp,%s,%s,%s,%s,%s,%s,%s,%s\n", r, $2, $3, $4, $5, $6, $7, $8 }' /tmp/micro.log >&3
}

setup() {
	cp /payload/tmem-dkms_*_all.deb /tmp/
	run "apt install of the tmem-dkms package" \
		apt-get install -y /tmp/tmem-dkms_*_all.deb >/tmp/apt.out 2>&1 ||
		{ tail -20 /tmp/apt.out; return 1; }
	run "modprobe tmem" modprobe tmem || return 1
	[ -w $ZS/enabled ]
	ok $? "zswap is built in (its parameters are in $ZS)" || return 1
	# a bench, not a test: a task stalled by swapping under emulation is
	# not a failure
	echo 600 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null

	# vm.preswap_enabled and vm.precache_enabled once used proc_dobool,
	# which on 6.1 cannot store a bool (a write failed with EINVAL, and
	# the first bench runs silently had preswap on in "base"). The bench
	# switches the module parameters and reads each back; a sysctl that
	# refuses writes is noted in the report.
	local f err
	for f in preswap_enabled precache_enabled; do
		if ! err=$(sh -c "echo 1 >/proc/sys/vm/$f" 2>&1); then
			info note "vm.$f refuses writes on this kernel (${err##*: }); the bench uses $P/$f"
		fi
	done

	local pct
	pct=$(cat $P/max_pool_percent)
	echo 0 >$ZS/enabled
	echo lz4 >$ZS/compressor
	echo zsmalloc >$ZS/zpool
	echo "$pct" >$ZS/max_pool_percent
	[ "$(cat $ZS/compressor)" = lz4 ] && [ "$(cat $ZS/zpool)" = zsmalloc ] &&
		[ "$(cat $ZS/max_pool_percent)" = "$pct" ]
	ok $? "zswap set to lz4, zsmalloc, max_pool_percent $pct (tmem's max_pool_percent)" || return 1
	info limit "tmem max_pool_percent $pct ($(tmem_stat max_pages) pages), zswap lz4 zsmalloc max_pool_percent $pct"

	# the disk model: the guest's CPU slowdown against the host, in this
	# boot, and the throttle it gives
	local gns hns slow rd wr iops
	exec 4<>$CTL && stty -F $CTL raw -echo
	ok $? "a line to the host's bench agent on $CTL" || return 1
	gns=$($TOOLS/memcpy-ns) && hns=$(ctl memcpy) && hns=${hns#ok }
	ok $? "4 KiB memcpy timed in the guest ($gns ns) and on the host ($hns ns)" || return 1
	read -r rd wr iops <<<"$DISK_MODEL"
	slow=$(awk -v g="$gns" -v h="$hns" 'BEGIN {printf "%.1f", g / h}')
	THROTTLE=$(awk -v s="$slow" -v r="$rd" -v w="$wr" -v i="$iops" \
		'BEGIN {printf "%d %d %d", r * 1e6 / s, w * 1e6 / s, i / s}')
	throttle on && throttle off
	ok $? "QEMU throttles the data and swap drives on request"
	info disk "SATA SSD ($rd MB/s read, $wr MB/s write, $iops IOPS) slowed by the guest's CPU slowdown $slow (4 KiB memcpy: guest $gns ns, host $hns ns): drives throttled to $(awk -v t="$THROTTLE" 'BEGIN {split(t, a, " "); printf "%.1f MB/s read, %.1f MB/s write, %d IOPS", a[1] / 1e6, a[2] / 1e6, a[3]}')"

	mkswap -q $SWAP >/dev/null && swapon $SWAP
	ok $? "swap on $SWAP" || return 1
	mkfs.ext4 -q -F $DATA && mkdir -p $MNT && mount $DATA $MNT && mkdir -p $MNT/tmp
	ok $? "ext4 on $DATA" || return 1

	ANON_MIB=$((2 * $(mem_total_mib)))
	info guest "kernel $(uname -r), $(nproc) cpus, $(mem_total_mib) MiB RAM, swap $SWAP 2 GiB, $REPS runs each"
	info mix "$($TOOLS/mixfill -n -m "$ANON_MIB")"
	info swap "mixfill -m $ANON_MIB -g 2: ${ANON_MIB} MiB of anonymous memory (2x RAM), written twice, checked twice"

	# sort input: lines of a random key and a few words, about 40 bytes
	awk -v mib="$SORT_MIB" 'BEGIN {
		srand(7); split("memory page kernel swap cache file data time", w)
		while (n < mib * 1048576) {
			l = sprintf("%08x %s %s %d", int(rand() * 4294967296),
				w[int(rand() * 8) + 1], w[int(rand() * 8) + 1], int(rand() * 100000))
			print l; n += length(l) + 1
		}
	}' >$MNT/sort.in
	drop_caches
	local t0
	t0=$(date +%s)
	# the reference: the same sort in the same cgroup without a limit
	local peak=/sys/fs/cgroup/bench/memory.peak rc
	{ read -r SORT_SUM; read -r _ rc; } < <(sort_in max)
	[ "$rc" = 0 ] || return 1
	info sort "sort -S 512M of $SORT_MIB MiB ($(wc -l <$MNT/sort.in) lines) in a cgroup with memory.max $SORT_LIMIT; without the limit it takes $(($(date +%s) - t0)) s and the cgroup's peak is $(($(cat $peak 2>/dev/null || echo 0) >> 20)) MiB (input file pages included)"

	# re-read file set: 1.5x what is available now, 16 MiB files
	local avail n i
	avail=$(awk '/MemAvailable/ {print int($2 / 1024)}' /proc/meminfo)
	n=$(((avail * 3 / 2 + FILE_MIB - 1) / FILE_MIB))
	FILES=() FILES2=()
	for i in $(seq 1 $n); do
		$TOOLS/mixfill -w $MNT/f$i -m $FILE_MIB -s "$i" || return 1
		FILES+=("$MNT/f$i")
	done
	# second pass: a fixed shuffle, the same in every run
	for i in $(seq 1 $n | awk 'BEGIN {srand(3)} {print rand(), $1}' | sort -n | cut -d' ' -f2); do
		FILES2+=("$MNT/f$i")
	done
	sync
	info reread "$n files of $FILE_MIB MiB ($((n * FILE_MIB)) MiB, 1.5x the $avail MiB available), read twice, second pass in a fixed shuffled order"
}

if ! setup; then
	echo "# setup failed, no benchmark" >&3
	echo "1..$T" >&3
	exit 1
fi

t_all=$SECONDS
for rep in $(seq 1 "$REPS"); do
	for w in $WORKLOADS; do
		case $w in
		reread) configs=(base tmem-ram tmem-lz4 tmem-zstd) ;;
		reread@*) configs=(base tmem-lz4) ;;
		sort | swap@*) configs=(base zswap tmem-lz4) ;;
		micro) configs=(tmem-lz4) ;;
		*) configs=(base zswap tmem-ram tmem-lz4 tmem-lz4-wb tmem-zstd) ;;
		esac
		n=${#configs[@]}
		for k in $(seq 0 $((n - 1))); do
			c=${configs[$(((k + rep - 1) % n))]}
			one "$w" "$c" "$rep"
			[ "$w" = micro ] && micro_rows "$rep"
		done
	done
	log "round $rep done after $((SECONDS - t_all)) s"
done
info runtime "$((SECONDS - t_all)) s for all runs"

MISSES=$((MISSES + $(preswap misses)))
[ "$MISSES" = 0 ]
ok $? "no page held by preswap ever missed (get_misses $MISSES over every load of tmem)"
swapoff $SWAP
umount $MNT
unload_tmem
ok $? "tmem unloads after the benchmark"
echo "1..$T" >&3
exit $FAILED
