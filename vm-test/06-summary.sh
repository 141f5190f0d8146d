#!/bin/bash
# Step 6: read what the guest reported. Counts TAP lines from tap.log, and
# fails the run when the guest timed out, when no test ran, or when the
# serial console shows a kernel report: BUG: (KASAN and KFENCE reports
# start so), WARNING:, Oops, Call Trace, a lockdep report, INFO: (hung
# task, RCU stall, lockdep), kmemleak, or a panic. Boot banners such as
# "RCU lockdep checking is enabled" or "kfence: initialized" are not
# reports. Last line: "N passed, N failed".
. "$(dirname "$0")/lib.sh"

tap="$RESULTS/tap.log"
console="$RESULTS/console.log"
[ -f "$tap" ] || die "no TAP output in $RESULTS"

passed=$(grep -c '^ok ' "$tap" || true)
failed=$(grep -c '^not ok ' "$tap" || true)
echo "--- results in $RESULTS"
grep -E '^(not )?ok |^# ' "$tap" | sed 's/^/  /'

extra=0
report_re='BUG:|WARNING:|Oops|Call Trace|general protection fault|KASAN:|possible circular locking|possible recursive locking|inconsistent lock state|DEBUG_LOCKS_WARN_ON|INFO: |unreferenced object|Kernel panic|KFENCE:'
if grep -Eq "$report_re" "$console"; then
	echo "kernel reports in the serial console:"
	grep -En "$report_re" "$console" | head -20 | sed 's/^/  /'
	extra=$((extra + 1))
fi
if [ "$(cat "$RESULTS/qemu.rc" 2>/dev/null)" = 124 ]; then
	echo "the guest timed out"
	extra=$((extra + 1))
fi
if ! grep -q '^# guest .* finished' "$tap"; then
	echo "the guest did not finish its run"
	extra=$((extra + 1))
fi
if [ $((passed + failed)) = 0 ]; then
	echo "no test ran"
	extra=$((extra + 1))
fi
failed=$((failed + extra))
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
