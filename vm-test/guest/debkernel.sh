#!/bin/bash
# The patched kernel built from Debian's own configuration by following
# debian/README.Debian (vm-test/debian-kernel.sh): the hooked filesystems
# are modules there, as in Debian's linux-image-amd64. The package installs
# with apt and dkms builds tmem; then the smoke tests (precache on ext4.ko,
# preswap) and the async O_DIRECT test on vfat run with every byte checked.
export TMEM_CHECK_FUNCTIONS_ONLY=1
. /payload/guest/check.sh

test_debian_config() {
	local c o bad=
	c=/boot/config-$(uname -r)
	for o in TMEM=y EXT4_FS=m FAT_FS=m VFAT_FS=m EXFAT_FS=m UDF_FS=m; do
		grep -qx "CONFIG_$o" "$c" || bad="$bad $o"
	done
	[ -z "$bad" ]
	ok $? "$(uname -r) is built from Debian's configuration: CONFIG_TMEM=y, hooked filesystems as modules (missing:${bad:- none})"
}

test_debian_config
test_install
lsmod | grep -q '^tmem ' || { echo "# module not loaded, stopping" >&3; exit 1; }
test_smoke
[ "$(cat /sys/module/ext4/initstate 2>/dev/null)" = live ]
ok $? "the precache smoke test ran on ext4 loaded as a module"
test_precache_vfat_aio
test_final_unload
echo "1..$T" >&3
exit $FAILED
