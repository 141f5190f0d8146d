#!/bin/bash
# `make demo` inside the guest: what a user does and sees. Install the
# package, load the module, run a file workload and a swap workload, and
# print the counters a user would look at.
. /payload/guest/lib.sh

cp /payload/tmem-dkms_*_all.deb /tmp/
run "apt install ./tmem-dkms_*.deb" apt-get install -y /tmp/tmem-dkms_*_all.deb
dkms status
run "modprobe tmem" modprobe tmem
echo "--- /sys/kernel/debug/tmem/hooks after loading"
cat $DBG/hooks

mkfs.ext4 -q -F /dev/vdc && mkdir -p /mnt/data && mount /dev/vdc /mnt/data
text_data 64 /mnt/data/file
sum=$(file_sum /mnt/data/file)
for pass in 1 2; do
	echo 3 >/proc/sys/vm/drop_caches
	[ "$(file_sum /mnt/data/file)" = "$sum" ]
	ok $? "file workload pass $pass: 64 MiB read back intact"
done
umount /mnt/data

mkswap -q /dev/vdd >/dev/null && swapon /dev/vdd
run "swap workload: $(($(mem_total_mib) + 128)) MiB of anonymous memory, checked" \
	$TOOLS/memcheck -m $(($(mem_total_mib) + 128))
echo "--- tmemstat after the workloads (swap still on)"
tmemstat
tmemstat | sed 's/^/#   /' >&3
swapoff /dev/vdd
echo "--- /sys/kernel/debug/tmem/hooks after the workloads"
echo "# /sys/kernel/debug/tmem/hooks after the workloads:" >&3
cat $DBG/hooks
sed 's/^/#   /' $DBG/hooks >&3
run "rmmod tmem" rmmod tmem
echo "1..$T" >&3
exit $FAILED
