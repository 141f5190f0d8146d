#!/bin/bash
# The kernel upgrade, second half: the guest that ran check.sh on the
# patched 6.1 kernel installed the next patched series with apt, dkms built
# tmem for it by itself, and the host booted that kernel from the same root
# disk. Here: the new kernel runs, tmem loads from what dkms built, the
# smoke tests (every hook with data checked) and the core's KUnit suite pass,
# and `apt remove tmem-dkms` takes the module away from both kernels.
export TMEM_CHECK_FUNCTIONS_ONLY=1
. /payload/guest/check.sh

test_upgraded_kernel() {
	local want
	want=$(cat /var/lib/tmem-test/expect-kernel 2>/dev/null)
	[ -n "$want" ] && [ "$(uname -r)" = "$want" ]
	ok $? "booted the kernel installed by the upgrade ($(uname -r), expected ${want:-?})"
	local st
	st=$(dkms status tmem)
	log "$st"
	[ "$(grep -c ': installed' <<<"$st")" -ge 2 ]
	ok $? "dkms status lists tmem for both kernels"
	run "modprobe tmem on $(uname -r)" modprobe tmem || return 1
	[ -r $DBG/hooks ]
	ok $? "hook counters in $DBG/hooks"
	modinfo tmem | grep -q "^vermagic: *$(uname -r) "
	ok $? "the loaded tmem was built for $(uname -r)"
}

# apt remove takes tmem away from every kernel it was built for.
test_remove() {
	run "rmmod tmem" unload_tmem
	run "apt remove tmem-dkms" apt-get remove -y tmem-dkms
	log "$(dkms status)"
	[ -z "$(dkms status tmem)" ]
	ok $? "dkms status no longer lists tmem"
	local left
	left=$(find /lib/modules -name 'tmem*.ko*' | tr '\n' ' ')
	[ -z "$left" ]
	ok $? "no tmem module file left under /lib/modules (${left:-none})"
	! modinfo tmem >/dev/null 2>&1
	ok $? "modprobe no longer finds tmem (modinfo tmem fails)"
}

test_upgraded_kernel || { echo "# tmem not loaded on the new kernel, stopping" >&3; exit 1; }
test_kunit
test_smoke
test_remove
test_kmemleak
echo "1..$T" >&3
exit $FAILED
