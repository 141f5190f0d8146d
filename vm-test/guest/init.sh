#!/bin/bash
# PID 1 of the test guest, started by /usr/local/sbin/tmem-init from the
# payload disk (/dev/vdb, mounted read-only at /payload).
#
# Mounts what the tests need, runs /payload/guest/<mode>.sh with the TAP
# stream on fd 3 (the second serial port, read by the host), then powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C HOME=/root TERM=dumb
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm /run /sys/kernel/debug
# what udev would make: bash process substitution (dkms) needs /dev/fd
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs run /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
# The first memory cgroup to come online switches on the kernel's memcg
# slab accounting: a static key, patched into every slab allocation path.
# It is made here, while nothing else runs. Under TCG one check boot hung
# for good when that patching (the first test's mkdir of a cgroup) met the
# other CPU allocating hard (dpkg installing the next kernel): both CPUs
# then looped at the entry of memcg_slab_post_alloc_hook, RCU reporting a
# stall every 78 s (2026-12-07, once in six boots).
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null &&
	mkdir -p /sys/fs/cgroup/boot
mount -o remount,rw /
hostname tmem-guest

mode=$(cat /payload/mode)
# a run that spans two boots (check, then upgrade on the new kernel) leaves
# the mode of the next boot on the root disk
next=/var/lib/tmem-test/next-mode
if [ -f $next ]; then
	mode=$(cat $next)
	rm -f $next
fi
exec 3>/dev/ttyS1
echo "# tmem guest: kernel $(uname -r), mode $mode, $(nproc) cpus, $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB"
bash "/payload/guest/$mode.sh"
echo "# guest $mode finished: exit $?" >&3
exec 3>&-
sync
echo o >/proc/sysrq-trigger
sleep 30
