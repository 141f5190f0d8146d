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
# UPGRADE_KSERIES=6.12 make check also proves the kernel upgrade: the guest
# moves from the patched 6.1 to the patched 6.12 with apt and dkms. Not in
# the default run: it adds ~34 min, past the CI's limit (see README).
if [ "$mode" = check ] && [ "${KSERIES:-6.1}" = 6.1 ]; then
	export UPGRADE_KSERIES=${UPGRADE_KSERIES-}
else
	export UPGRADE_KSERIES=
fi
bash "$here/01-host-packages.sh"
[ -n "$UPGRADE_KSERIES" ] && KSERIES=$UPGRADE_KSERIES bash "$here/01-host-packages.sh"
bash "$here/02-kernel.sh"
[ -n "$UPGRADE_KSERIES" ] && KSERIES=$UPGRADE_KSERIES bash "$here/02-kernel.sh"
bash "$here/03-module-deb.sh"
bash "$here/04-guest-root.sh"
# check also installs the package on Debian's own kernel, which lacks the
# hooks (UNPATCHED_KCONFIG= skips it)
if [ "$mode" = check ]; then
	export UNPATCHED_KCONFIG=${UNPATCHED_KCONFIG-debian}
	[ -n "$UNPATCHED_KCONFIG" ] && KCONFIG=$UNPATCHED_KCONFIG bash "$here/04-guest-root.sh"
fi
bash "$here/05-boot.sh" "$mode"
rc=0
bash "$here/06-summary.sh" | tee "$TMEM_RESULTS/summary.txt" || rc=1
ln -sfn "$TMEM_RESULTS" "$(dirname "$TMEM_RESULTS")/latest"
[ "$mode" = bench ] && { bash "$here/07-report.sh" || rc=1; }
echo "==> $mode: $((SECONDS - t0)) s in all; results in $TMEM_RESULTS"
# keep the "N passed, N failed" line last
grep -E '^[0-9]+ passed, [0-9]+ failed' "$TMEM_RESULTS/summary.txt" 2>/dev/null || true
exit $rc
