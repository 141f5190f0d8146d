#!/bin/bash
# A machine whose kernel lacks the tmem hooks: Debian's own linux-image-amd64
# with its headers. Installing tmem-dkms there must succeed; dkms skips the
# build for that kernel (BUILD_EXCLUSIVE_CONFIG=CONFIG_TMEM) and says why;
# nothing is loaded; removing the package is clean.
. /payload/guest/lib.sh

k=$(uname -r)
cfg=/lib/modules/$k/build/.config

[ -f "$cfg" ] && ! grep -q '^CONFIG_TMEM=y' "$cfg"
ok $? "running Debian's own kernel $k, whose headers' .config lacks CONFIG_TMEM"

cp /payload/tmem-dkms_*_all.deb /tmp/
log "run: apt-get install -y /tmp/tmem-dkms_*_all.deb"
apt-get install -y /tmp/tmem-dkms_*_all.deb >/tmp/apt.out 2>&1
rc=$?
cat /tmp/apt.out
ok $rc "apt install of tmem-dkms succeeds on a kernel without the hooks"
grep -q "BUILD_EXCLUSIVE directive which does not match this kernel" /tmp/apt.out &&
	grep -q "Skipped" /tmp/apt.out
ok $? "dkms says it skipped the build for $k, and why (BUILD_EXCLUSIVE)"
st=$(dkms status tmem)
log "$st"
! grep -q "$k.*installed" <<<"$st"
ok $? "dkms status: tmem not installed for $k ($st)"
# The file the message names must exist as named (dh_compress gzips a
# README.Debian over 4 KiB: a message naming the plain file pointed nowhere).
doc=$(sed -n 's/^tmem-dkms: to use tmem, patch that kernel: see \([^ ]*\) and.*/\1/p' /tmp/apt.out | head -n1)
log "the package points to: ${doc:-nothing}"
grep -q "tmem-dkms: kernel $k lacks the tmem hooks" /tmp/apt.out &&
	[ -n "$doc" ] && [ -r "$doc" ]
ok $? "the package names $k as lacking the hooks and points to README.Debian, which is there ($doc)"
[ -z "$(find /lib/modules -name 'tmem*.ko*')" ] && ! modinfo tmem >/dev/null 2>&1
ok $? "no tmem module for modprobe to find"
tmemstat >/tmp/ts.out 2>&1
[ $? = 1 ] && grep -q "tmemstat: kernel $k has no tmem hooks: it needs the tmem patch" /tmp/ts.out
ok $? "tmemstat says this kernel lacks the hooks: $(cat /tmp/ts.out)"
ls /usr/share/doc/tmem-dkms/README.Debian* >/dev/null &&
	ls /usr/share/tmem-dkms/kernel-patch/*.patch >/dev/null
ok $? "the package still ships its README.Debian and the kernel patches"

# Headers with no .config (as the kernel's own bindeb-pkg makes them): dkms
# cannot test BUILD_EXCLUSIVE_CONFIG there, so dkms.conf reads auto.conf.
src=$(ls -d /usr/src/tmem-* | head -n1)
ver=${src#/usr/src/tmem-}
hdr=/tmp/headers-without-config
mkdir -p $hdr/include/config
grep -v '^CONFIG_TMEM=' "$cfg" >$hdr/include/config/auto.conf
dkms build "tmem/$ver" -k "$k" --kernelsourcedir $hdr >/tmp/dkms-noconfig.out 2>&1
rc=$?
cat /tmp/dkms-noconfig.out
[ $rc = 77 ] && grep -q "BUILD_EXCLUSIVE directive" /tmp/dkms-noconfig.out
ok $? "headers with only auto.conf, no CONFIG_TMEM: dkms skips (exit $rc, want 77)"

# Building by hand against this kernel stops with the module's own message,
# not a link error.
cp -r "$src" /tmp/tmem-src
make -C "/lib/modules/$k/build" M=/tmp/tmem-src modules >/tmp/make-unpatched.out 2>&1
rc=$?
tail -n 3 /tmp/make-unpatched.out
[ $rc != 0 ] && grep -q "this kernel lacks CONFIG_TMEM" /tmp/make-unpatched.out
ok $? "make against the unpatched kernel fails and says CONFIG_TMEM is missing"

run "apt remove tmem-dkms" apt-get remove -y tmem-dkms
[ -z "$(dkms status tmem)" ]
ok $? "dkms no longer lists tmem"
echo "1..$T" >&3
exit $FAILED
