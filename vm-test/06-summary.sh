#!/bin/bash
# Step 6: read what the guest reported. Counts TAP lines from tap.log (and
# tap-unpatched.log, tap-upgrade-install.log and tap-upgrade.log of the
# further boots of a check), and
# fails the run when the guest timed out, when no test ran, or when the
# serial console shows a kernel report: BUG: (KASAN and KFENCE reports
# start so), WARNING:, Oops, Call Trace (except in an OOM kill's report), a
# lockdep report, INFO: (hung
# task, RCU stall, lockdep), kmemleak, or a panic. Boot banners such as
# "RCU lockdep checking is enabled" or "kfence: initialized" are not
# reports. Last line: "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# one boot per TAP stream: tap.log, and when the run expected them
# tap-unpatched.log (Debian's kernel), tap-upgrade-install.log (6.1 again,
# installing the next kernel) and tap-upgrade.log (the upgraded kernel)
stages=(tap)
[ -f "$RESULTS/tap-host.log" ] && stages+=(tap-host)
[ -f "$RESULTS/expect-unpatched" ] && stages+=(tap-unpatched)
[ -f "$RESULTS/expect-upgrade-install" ] && stages+=(tap-upgrade-install)
[ -f "$RESULTS/expect-upgrade" ] && stages+=(tap-upgrade)
[ -f "$RESULTS/tap.log" ] || die "no TAP output in $RESULTS"

passed=0 failed=0 extra=0
report_re='BUG:|WARNING:|Oops|Call Trace|general protection fault|KASAN:|possible circular locking|possible recursive locking|inconsistent lock state|DEBUG_LOCKS_WARN_ON|INFO: |unreferenced object|Kernel panic|KFENCE:'
# reports CONSOLE: its lines that are kernel reports, numbered. The stack
# dump in an OOM kill's report ("... invoked oom-killer:", the "Call Trace:"
# a few lines on) is the OOM killer at work, not a kernel defect; a workload
# it kills is caught by its own test (check) or counted as killed (bench).
reports() {
	[ -f "$1" ] || return 0
	awk -v re="$report_re" '/invoked oom-killer/ { oom = NR }
		$0 ~ re && !(/Call Trace:/ && oom && NR - oom < 8) { print NR ": " $0 }' "$1"
}
echo "--- results in $RESULTS"
for st in "${stages[@]}"; do
	tap="$RESULTS/$st.log"
	name=${st#tap}
	console="$RESULTS/console$name.log"
	rcfile="$RESULTS/qemu$name.rc"
	[ "$st" = tap ] || echo "  --- boot: ${st#tap-}"
	if [ ! -f "$tap" ]; then
		echo "no TAP output from the boot $st"
		extra=$((extra + 1))
		continue
	fi
	passed=$((passed + $(grep -c '^ok ' "$tap" || true)))
	failed=$((failed + $(grep -c '^not ok ' "$tap" || true)))
	grep -E '^(not )?ok |^# ' "$tap" | sed 's/^/  /' || true
	r=$(reports "$console")
	if [ -n "$r" ]; then
		echo "kernel reports in the serial console $console:"
		head -20 <<<"$r" | sed 's/^/  /'
		extra=$((extra + 1))
	fi
	if [ "$(cat "$rcfile" 2>/dev/null)" = 124 ]; then
		echo "the guest timed out ($st)"
		extra=$((extra + 1))
	fi
	if ! grep -q '^# guest .* finished\|^# host-side tests finished' "$tap"; then
		echo "the guest did not finish its run ($st)"
		extra=$((extra + 1))
	fi
done
if [ $((passed + failed)) = 0 ]; then
	echo "no test ran"
	extra=$((extra + 1))
fi
failed=$((failed + extra))
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
