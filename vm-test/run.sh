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
	GUEST_TIMEOUT=${GUEST_TIMEOUT:-7200}
export TMEM_RESULTS=${TMEM_RESULTS:-${TMEM_CACHE:-/var/cache/tmem}/results/$mode-$(date +%Y%m%d-%H%M%S)}
# A check also proves the kernel upgrade (UPGRADE_KSERIES=6.12, the
# default; UPGRADE_KSERIES= leaves it out): the guest moves from the patched
# 6.1 to the patched 6.12 with apt and dkms. When the 6.12 kernel is not
# cached yet it builds in the background, at the lowest CPU priority, while
# the first boots run (the guest under TCG leaves part of the two cores
# idle); the upgrade boots wait for it.
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
# hooks (UNPATCHED_KCONFIG=debian, the default; UNPATCHED_KCONFIG= skips it)
unpatched=
[ "$mode" = check ] && unpatched=${UNPATCHED_KCONFIG-debian}
export UNPATCHED_KCONFIG=$unpatched
# The guest root's base tree (debootstrap, mostly waiting on the mirror and
# the disk) is made while the kernel builds; 04-guest-root.sh takes its
# lock, so the patched root below waits for it if needed.
background 0 "$TMEM_RESULTS/guest-root-base.txt" env BASE_ONLY=1 bash "$here/04-guest-root.sh"
bpid=$bgpid
bash "$here/02-kernel.sh"
# From here on the patched kernel is ready, and what is left to build is
# needed only after the first boot: the next series' kernel and Debian's
# own kernel's guest root (check, UNPATCHED_KCONFIG= skips it). Both run
# at the lowest CPU priority, on what the guest under TCG leaves idle.
kpid=
if [ -n "$UPGRADE_KSERIES" ]; then
	klog="$TMEM_RESULTS/kernel-$UPGRADE_KSERIES-build.txt"
	background 19 "$klog" env KSERIES="$UPGRADE_KSERIES" bash "$here/02-kernel.sh"
	kpid=$bgpid
fi
bash "$here/03-module-deb.sh"
finish "guest root base" "$TMEM_RESULTS/guest-root-base.txt" "$bpid" ||
	{ echo "ERROR: could not make the guest root's base tree" >&2; exit 1; }
bash "$here/04-guest-root.sh"
upid=
if [ -n "$unpatched" ]; then
	# The guest root with Debian's kernel is made at the lowest priority
	# while the check boot runs; the boot on it runs then too, at normal
	# priority (a starved guest under TCG stalls), but only once the check
	# boot has passed its first phase, which keeps both CPUs busy (the
	# package's dkms build, then the next kernel's installation, which
	# says in the TAP stream when it has ended): from then on one CPU is
	# mostly idle. Without that installation (a cold run, whose next
	# kernel is still building) it starts at the check boot's
	# UNPATCHED_AFTER-th test; in any case once that boot has ended.
	# Without its guest root the boot does not run, and the summary counts
	# it missing.
	ulog="$TMEM_RESULTS/guest-root-$unpatched.txt"
	background 19 "$ulog" sh -c '
		env KCONFIG="$1" bash "$2/04-guest-root.sh" || {
			echo "ERROR: could not make the guest root with Debian'\''s kernel"
			exit 1
		}
		while [ ! -e "$3/check-boot-ended" ]; do
			if [ -e "$3/upgrade-early" ]; then
				grep -qs "^# the next kernel.s installation has ended" \
					"$3/tap.log" && break
			else
				n=$(grep -c "^ok \|^not ok " "$3/tap.log" 2>/dev/null)
				[ "${n:-0}" -ge "$4" ] && break
			fi
			sleep 10
		done
		echo 0 >/proc/self/autogroup 2>/dev/null
		renice -n 0 $$ >/dev/null
		bash "$2/05-boot.sh" unpatched || echo "05-boot.sh unpatched failed"
	' sh "$unpatched" "$here" "$TMEM_RESULTS" "${UNPATCHED_AFTER:-110}"
	upid=$bgpid
fi
bash "$here/05-boot.sh" "$mode"
touch "$TMEM_RESULTS/check-boot-ended"
if [ -n "$upid" ]; then
	touch "$TMEM_RESULTS/expect-unpatched"
	finish "guest root $unpatched and the boot on it" "$ulog" "$upid" || true
fi
if [ -n "$kpid" ]; then
	# without the kernel the upgrade boots do not run, and the summary
	# counts them missing
	if finish "kernel $UPGRADE_KSERIES" "$klog" "$kpid"; then
		bash "$here/05-boot.sh" upgrade || echo "05-boot.sh upgrade failed"
	fi
fi
# tmemstat's host-side tests (recorded counters; the guest tests it live),
# after the boots (05-boot.sh clears the results' TAP files)
if [ "$mode" = check ]; then
	bash "$here/tmemstat-test.sh" >"$TMEM_RESULTS/tap-host.log" 2>&1 || true
fi
rc=0
bash "$here/06-summary.sh" | tee "$TMEM_RESULTS/summary.txt" || rc=1
ln -sfn "$TMEM_RESULTS" "$(dirname "$TMEM_RESULTS")/latest"
[ "$mode" = bench ] && { bash "$here/07-report.sh" || rc=1; }
echo "==> $mode: $((SECONDS - t0)) s in all; results in $TMEM_RESULTS"
# keep the "N passed, N failed" line last
grep -E '^[0-9]+ passed, [0-9]+ failed' "$TMEM_RESULTS/summary.txt" 2>/dev/null || true
exit $rc
