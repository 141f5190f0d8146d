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

log() { echo "[$(date +%T)] $*"; }

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
	awk -v r="$2" -v k="$3" '$1 == r {for (i = 1; i < NF; i += 2) if ($i == k) s += $(i + 1)}
		END {print s + 0}' "$1"
}
# kv_where FILE KEY VALUE FIELD: FIELD of the record in which KEY is VALUE
# (0 if there is none).
kv_where() {
	awk -v k="$2" -v v="$3" -v f="$4" '{m = 0; x = ""
		for (i = 1; i < NF; i += 2) {if ($i == k && $(i + 1) == v) m = 1; if ($i == f) x = $(i + 1)}
		if (m) r = x} END {print r + 0}' "$1"
}

# hook NAME: calls of that hook since the module was loaded.
hook() {
	awk -v h="$1" '$1 == h {print $2}' "$DBG/hooks"
}

# moved NAME BEFORE DESCRIPTION: the hook's counter went past BEFORE.
moved() {
	local now
	now=$(hook "$1")
	log "hook $1: $2 -> $now"
	[ -n "$now" ] && [ "$now" -gt "$2" ]
	ok $? "$3 ($1: $2 -> $now)"
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# file_sum FILE: sha256 of a file, read through the page cache.
file_sum() { sha256sum "$1" | cut -d' ' -f1; }

mem_total_mib() { awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo; }

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
sectors_read() { awk -v d="$(basename "$1")" '$3 == d {print $6}' /proc/diskstats; }
sectors_written() { awk -v d="$(basename "$1")" '$3 == d {print $10}' /proc/diskstats; }

# unload_tmem: the packaged way to remove the module while swap is on:
# /etc/modprobe.d/tmem-dkms.conf stops new preswap puts and moves every held
# page out before the module goes (rmmod alone is refused while preswap
# holds pages).
unload_tmem() {
	modprobe -r tmem && ! lsmod | grep -q '^tmem '
}
