#!/bin/bash
# The whole loop: host packages, kernel, module .deb, guest root, boot with
# a mode (check = all tests, demo = the main job, bench = benchmarks, then
# 07-report.sh), summary. Each step can also run alone. Results go to
# $TMEM_RESULTS (printed at the end).
set -euo pipefail
here=$(dirname "$0")
mode=${1:-check}
t0=$SECONDS
# bench: the kernel without debug options, a smaller guest (the swap
# workload is 2x its RAM), more time, and a report (07-report.sh) after
# the summary
[ "$mode" = bench ] && export KCONFIG=bench GUEST_MEM=${GUEST_MEM:-384} \
	GUEST_TIMEOUT=${GUEST_TIMEOUT:-5400}
export TMEM_RESULTS=${TMEM_RESULTS:-${TMEM_CACHE:-/var/cache/tmem}/results/$mode-$(date +%Y%m%d-%H%M%S)}
# A check also proves the kernel upgrade (UPGRADE_KSERIES=6.12, the
# default; UPGRADE_KSERIES= leaves it out): the guest moves from the patched
# 6.1 to the patched 6.12 with apt and dkms. When the 6.12 kernel is not
# cached yet it builds in the background, at the lowest CPU priority, while
# the 6.1 guest root is made and the first boots run (the guest under TCG
# leaves part of the two cores idle); the upgrade boots wait for it.
if [ "$mode" = check ] && [ "${KSERIES:-6.1}" = 6.1 ]; then
	export UPGRADE_KSERIES=${UPGRADE_KSERIES-6.12}
else
	export UPGRADE_KSERIES=
fi
rm -rf "$TMEM_RESULTS"
mkdir -p "$TMEM_RESULTS"
# background steps run in their own process groups, stopped with
# everything in them if this run ends early
bgpids=()
stop_background() {
	local p
	for p in "${bgpids[@]}"; do
		kill -- -"$p" 2>/dev/null || true
	done
}
trap stop_background EXIT
# background NICE LOG CMD...: run CMD at CPU priority NICE, output to LOG;
# sets bgpid. setsid gives CMD a session of its own, and with
# sched_autogroup on (Debian's default) that is a scheduling group of its
# own: nice then only ranks CMD's processes among themselves, and the
# group gets an equal share with the boots. Setting the group's own nice
# (/proc/self/autogroup) is what makes NICE count against them.
background() {
	local prio=$1 log=$2
	shift 2
	echo "==> in the background: $* (log: $log)"
	setsid sh -c 'echo "$0" >/proc/self/autogroup 2>/dev/null
		exec nice -n "$0" "$@"' "$prio" "$@" >"$log" 2>&1 &
	bgpid=$!
	bgpids+=("$bgpid")
}
# finish WHAT LOG PID: wait for a background step; its log goes to the
# output. Returns its exit code.
finish() {
	local t=$SECONDS rc=0
	wait "$3" || rc=$?
	echo "==> $1: waited $((SECONDS - t)) s for the background step (exit $rc)"
	cat "$2"
	return $rc
}

bash "$here/01-host-packages.sh"
[ -n "$UPGRADE_KSERIES" ] && KSERIES=$UPGRADE_KSERIES bash "$here/01-host-packages.sh"
# check also installs the package on Debian's own kernel, which lacks the
# hooks (UNPATCHED_KCONFIG= skips it). Its guest root does not depend on
# the patched kernel, so it is made while that builds (at the same
# priority: it is mostly I/O, and on the way to the first boot as well).
upid=
if [ "$mode" = check ]; then
	export UNPATCHED_KCONFIG=${UNPATCHED_KCONFIG-debian}
	if [ -n "$UNPATCHED_KCONFIG" ]; then
		ulog="$TMEM_RESULTS/guest-root-$UNPATCHED_KCONFIG.txt"
		background 0 "$ulog" env KCONFIG="$UNPATCHED_KCONFIG" bash "$here/04-guest-root.sh"
		upid=$bgpid
	fi
fi
bash "$here/02-kernel.sh"
kpid=
if [ -n "$UPGRADE_KSERIES" ]; then
	klog="$TMEM_RESULTS/kernel-$UPGRADE_KSERIES-build.txt"
	background 19 "$klog" env KSERIES="$UPGRADE_KSERIES" bash "$here/02-kernel.sh"
	kpid=$bgpid
fi
bash "$here/03-module-deb.sh"
bash "$here/04-guest-root.sh"
if [ -n "$upid" ]; then
	finish "guest root $UNPATCHED_KCONFIG" "$ulog" "$upid" ||
		{ echo "ERROR: could not make the guest root with Debian's kernel" >&2; exit 1; }
fi
bash "$here/05-boot.sh" "$mode"
if [ -n "$kpid" ]; then
	# without the kernel the upgrade boots do not run, and the summary
	# counts them missing
	if finish "kernel $UPGRADE_KSERIES" "$klog" "$kpid"; then
		bash "$here/05-boot.sh" upgrade || echo "05-boot.sh upgrade failed"
	fi
fi
rc=0
bash "$here/06-summary.sh" | tee "$TMEM_RESULTS/summary.txt" || rc=1
ln -sfn "$TMEM_RESULTS" "$(dirname "$TMEM_RESULTS")/latest"
[ "$mode" = bench ] && { bash "$here/07-report.sh" || rc=1; }
echo "==> $mode: $((SECONDS - t0)) s in all; results in $TMEM_RESULTS"
# keep the "N passed, N failed" line last
grep -E '^[0-9]+ passed, [0-9]+ failed' "$TMEM_RESULTS/summary.txt" 2>/dev/null || true
exit $rc
