# shellcheck shell=bash
# Helpers for the in-guest tests: TAP output on fd 3 (to the host), human
# output on the console, counters read from the module's debugfs.
set -u
T=0
FAILED=0
DBG=/sys/kernel/debug/tmem
TOOLS=/payload/tools
# text_data MIB FILE: MIB of text-like data, every page distinct, in FILE.
# The store compresses: /dev/urandom would give it only incompressible
# pages, which it refuses by design (lz4 makes these about 2x smaller).
text_data() {
	$TOOLS/mixfill -w "$2" -m "$1" -t 100 -r 0 -s $((RANDOM << 15 | RANDOM)) >/dev/null
}

# Every process the tests start costs about 0.3 s in the guest (fork and
# exec under TCG on a KASAN and lockdep kernel; measured: $(date) 294 ms,
# /bin/true 265 ms, a subshell 104 ms, a builtin 1 ms), so logging,
# napping and reading counters below use bash builtins only.
log() { printf '[%(%T)T] %s\n' -1 "$*"; }

# nap SECONDS: sleep in bash itself (a read with a timeout on a FIFO that
# nobody writes to, fd 9, opened once here). The polling loops nap every
# half second while a workload runs: a sleep process each time took about
# a third of a CPU from it.
[ -p /tmp/nap.fifo ] || mkfifo /tmp/nap.fifo
exec 9<>/tmp/nap.fifo
nap() { read -rt "$1" -u 9 _ || :; }

ok() { # ok CONDITION-EXIT-CODE DESCRIPTION
	local rc=$1
	shift
	T=$((T + 1))
	if [ "$rc" = 0 ]; then
		echo "ok $T - $*" >&3
		log "ok $T - $*"
	else
		echo "not ok $T - $*" >&3
		log "NOT OK $T - $*"
		FAILED=$((FAILED + 1))
	fi
}

# run DESCRIPTION CMD...: one test, passes when CMD exits 0.
run() {
	local desc=$1 rc
	shift
	log "run: $*"
	"$@"
	rc=$?
	ok $rc "$desc"
	return $rc
}

# The debugfs files are records of "key value" pairs (src/main.c).
# kv_sum FILE KIND KEY: KEY summed over FILE's records whose first key is
# KIND (type: swap areas, pool: filesystems or pools, cgroup: cgroups).
kv_sum() {
	local s=0 i
	local -a a
	while read -ra a; do
		[ "${a[0]:-}" = "$2" ] || continue
		for ((i = 0; i + 1 < ${#a[@]}; i += 2)); do
			[ "${a[i]}" = "$3" ] && s=$((s + a[i + 1]))
		done
	done <"$1"
	echo $s
}
# kv_where FILE KEY VALUE FIELD: FIELD of the (last) record in which KEY is
# VALUE (0 if there is none).
kv_where() {
	local r=0 i m x
	local -a a
	while read -ra a; do
		m=0 x=0
		for ((i = 0; i + 1 < ${#a[@]}; i += 2)); do
			[ "${a[i]}" = "$2" ] && [ "${a[i + 1]}" = "$3" ] && m=1
			[ "${a[i]}" = "$4" ] && x=${a[i + 1]}
		done
		[ $m = 1 ] && r=$x
	done <"$1"
	echo "$r"
}

# field FILE KEY [COLUMN [KEYCOLUMN]]: column COLUMN (default 2) of FILE's
# line whose column KEYCOLUMN (default 1) is KEY; nothing if none.
field() {
	local -a a
	while read -ra a; do
		[ "${a[${4:-1} - 1]:-}" = "$2" ] && { echo "${a[${3:-2} - 1]:-}"; return; }
	done <"$1"
}

# hook NAME: calls of that hook since the module was loaded.
hook() { field "$DBG/hooks" "$1"; }

# moved NAME BEFORE DESCRIPTION: the hook's counter went past BEFORE.
moved() {
	local now
	now=$(hook "$1")
	log "hook $1: $2 -> $now"
	[ -n "$now" ] && [ "$now" -gt "$2" ]
	ok $? "$3 ($1: $2 -> $now)"
}

# drop_caches [LEVEL]: write back the data disk's filesystem, then drop
# every clean page-cache page (LEVEL 1), and dentries and inodes too (3,
# the default). syncfs of $MNT only: a global sync also waits for the root
# disk, where the next kernel is being installed meanwhile (the first
# drop_caches of test_precache_hooks took 80 s that way).
drop_caches() {
	sync -f $MNT
	echo "${1:-3}" >/proc/sys/vm/drop_caches
}

# file_sum FILE: sha256 of a file, read through the page cache.
file_sum() { sha256sum "$1" | cut -d' ' -f1; }

mem_total_mib() { echo $(($(field /proc/meminfo MemTotal:) / 1024)); }

# in_cgroup NAME LIMIT CMD...: run CMD in memory cgroup NAME whose
# memory.max is LIMIT (created on first use; what it has charged stays).
in_cgroup() {
	local cg=/sys/fs/cgroup/$1 lim=$2
	shift 2
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "$cg"
	echo "$lim" >"$cg/memory.max"
	bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$@"
}

# sectors_read DEV / sectors_written DEV: from /proc/diskstats.
sectors_read() { field /proc/diskstats "${1##*/}" 6 3; }
sectors_written() { field /proc/diskstats "${1##*/}" 10 3; }

# unload_tmem: the packaged way to remove the module while swap is on:
# /etc/modprobe.d/tmem-dkms.conf stops new preswap puts and moves every held
# page out before the module goes (rmmod alone is refused while preswap
# holds pages).
unload_tmem() {
	modprobe -r tmem && ! lsmod | grep -q '^tmem '
}
