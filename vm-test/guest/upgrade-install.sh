#!/bin/bash
# The kernel upgrade, first half: the third boot of a check, on the patched
# 6.1 kernel and the root disk the first boot (check.sh) left behind, with
# tmem-dkms installed. The host built the next series' patched kernel while
# the first boots ran and put its .debs in /payload/upgrade. Here tmem is
# loaded as a user would have it, apt installs the new kernel's image and
# headers, dkms builds tmem for that kernel by itself, and the next boot
# (upgrade.sh, on the new kernel) is arranged.
export TMEM_CHECK_FUNCTIONS_ONLY=1
. /payload/guest/check.sh

test_still_installed() {
	local st
	st=$(dkms status tmem)
	log "$st"
	grep -q "$(uname -r).*: installed" <<<"$st"
	ok $? "tmem is still installed for $(uname -r) from the first boot"
	run "modprobe tmem on $(uname -r)" modprobe tmem
}

test_still_installed || { echo "# tmem is not installed, no upgrade to test" >&3; exit 1; }
test_upgrade_install
echo "1..$T" >&3
exit $FAILED
