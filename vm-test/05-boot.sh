#!/bin/bash
# Step 5: boot the guest on the patched kernel and let it run a mode
# (check, demo or bench; see guest/<mode>.sh). Disks:
#   vda  root image (snapshot=on: the cached image is never written)
#   vdb  payload: the tmem-dkms .deb, guest/ scripts, test tools, the mode
#   vdc  blank data disk       vdd  blank swap disk
# Serial ports: ttyS0 = console -> console.log, ttyS1 = TAP -> tap.log.
# bench adds ttyS2, a line to bench-agent.py on the host (the disk model:
# it throttles the data and swap drives through QEMU's QMP socket and
# times a memcpy on the host; log in bench-agent.txt).
# QEMU uses TCG unless ACCEL=kvm; each boot is bounded by GUEST_TIMEOUT,
# and one that stalls before init (silent for BOOT_QUIET seconds, or not
# there after BOOT_STALL) is restarted, up to BOOT_TRIES boots in all.
#
# check: with UPGRADE_KSERIES set (run.sh's default) the boot runs on a
# writable copy of the root image, $RESULTS/root.img, which stays for the
# upgrade boots.
#
# unpatched (with check, run.sh's default): a boot on Debian's own kernel
# without the hooks (04-guest-root.sh with KCONFIG=$UNPATCHED_KCONFIG), where
# guest/unpatched.sh installs the package (console-unpatched.log,
# tap-unpatched.log). Its payload and disks are its own ($RESULTS/unpatched/),
# so it can run while the check boot does.
#
# debkernel (debian-kernel.sh, KCONFIG=debian-tmem): one boot on the patched
# kernel built from Debian's own configuration, with its initrd;
# guest/debkernel.sh runs there.
#
# upgrade (after check, once the UPGRADE_KSERIES kernel is built): two more
# boots on that root disk. The patched 6.1 kernel again, with the next
# series' kernel .debs on the payload (upgrade/): guest/upgrade-install.sh
# installs them with apt and dkms builds tmem for the new kernel
# (console-upgrade-install.log, tap-upgrade-install.log). Then the new
# kernel, where guest/upgrade.sh loads tmem, runs the KUnit suite and smoke
# tests and removes the package (console-upgrade.log, tap-upgrade.log).
# When the next series' kernel is already built as the check boot starts
# (a warm cache), its .debs go on that boot's payload instead, marked
# upgrade-early: check.sh installs them in the background while its tests
# run (the guest under TCG mostly keeps one of its two CPUs busy, so this
# takes little wall time), and the upgrade is then the one boot on the new
# kernel. A cold run, whose next kernel is still building, keeps the
# separate boot.
. "$(dirname "$0")/lib.sh"

mode=${1:-check}
ACCEL=${ACCEL:-tcg}
GUEST_MEM=${GUEST_MEM:-768}
GUEST_CPUS=${GUEST_CPUS:-2}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-4500}
BOOT_STALL=${BOOT_STALL:-240}
BOOT_QUIET=${BOOT_QUIET:-60}
BOOT_TRIES=${BOOT_TRIES:-5}
kdir=$(KDEBS_DIR)
root="$CACHE/guest/current-$KSERIES-$KCONFIG.img"
deb=$(ls "$CACHE"/deb/tmem-dkms_*_all.deb 2>/dev/null | head -n1)
[ -f "$root" ] || die "no guest root: run 04-guest-root.sh"
[ -n "$deb" ] || die "no tmem-dkms .deb: run 03-module-deb.sh"

# vmlinuz DEBDIR: the kernel image of a cached kernel's .debs
vmlinuz() {
	if [ ! -f "$1/vmlinuz" ]; then
		dpkg-deb --fsys-tarfile "$1"/linux-image-*.deb |
			tar -xO --wildcards './boot/vmlinuz-*' >"$1/vmlinuz"
	fi
	echo "$1/vmlinuz"
}

# the boot's own files: payload (a directory and its image), data and swap
# disks; in $RESULTS, or in $RESULTS/unpatched/ for that boot
work=$RESULTS
[ "$mode" = unpatched ] && work=$RESULTS/unpatched

# payload MODE [KDEBS]: $work/payload.img with the .deb, guest/, the
# test tools, MODE, and the kernel .debs of KDEBS under upgrade/
payload() {
	local dir="$work/payload" t
	rm -rf "$dir" "$work/payload.img"
	mkdir -p "$dir/tools"
	cp "$deb" "$dir/"
	cp -r "$VMTEST/guest" "$dir/guest"
	for t in "$VMTEST"/tools/*.c; do
		gcc -O2 -Wall -Wextra -Werror -o "$dir/tools/$(basename "$t" .c)" "$t"
	done
	echo "$1" >"$dir/mode"
	# CHECK_TESTS="test_kunit test_precache_hooks": check.sh runs only
	# these (after test_install); the summary says it was a subset
	[ -n "${CHECK_TESTS:-}" ] && echo "$CHECK_TESTS" >"$dir/check-tests"
	if [ -n "${2:-}" ]; then
		mkdir -p "$dir/upgrade"
		cp "$2"/linux-image-*.deb "$2"/linux-headers-*.deb "$dir/upgrade/"
		# a check boot installs them itself, in the background (see top)
		[ "$1" = check ] && touch "$dir/upgrade-early"
	fi
	truncate -s 512M "$work/payload.img"
	mkfs.ext4 -q -F -d "$dir" "$work/payload.img"
}

upgrade=
if [ -n "${UPGRADE_KSERIES:-}" ]; then
	upgrade=$(KSERIES=$UPGRADE_KSERIES bash -c '. "$0/lib.sh"; KDEBS_DIR' "$VMTEST")
fi
step "prepare payload and disks in $work"
mkdir -p "$work"
if [ "$mode" = upgrade ]; then
	[ -n "$upgrade" ] || die "upgrade: UPGRADE_KSERIES names no kernel series"
	[ -f "$upgrade/stamp" ] || die "no $UPGRADE_KSERIES kernel: run KSERIES=$UPGRADE_KSERIES vm-test/02-kernel.sh"
	[ -f "$RESULTS/root.img" ] || die "no $RESULTS/root.img: the upgrade follows a check with UPGRADE_KSERIES set"
	if [ -f "$RESULTS/upgrade-early" ]; then
		payload upgrade
	else
		payload upgrade-install "$upgrade"
	fi
	root="$RESULTS/root.img"
	rootopt=
elif [ "$mode" = unpatched ]; then
	# after a check, into the same results
	rm -f "$RESULTS"/console-unpatched.* "$RESULTS/tap-unpatched.log" "$RESULTS/qemu-unpatched.rc"
	payload unpatched
else
	rm -rf "$RESULTS"/console*.log "$RESULTS"/console*.txt "$RESULTS"/tap*.log \
		"$RESULTS"/qemu*.rc "$RESULTS"/expect-* "$RESULTS/summary.txt" \
		"$RESULTS/root.img" "$RESULTS/upgrade-early"
	if [ "$mode" = check ] && [ -n "$upgrade" ] && [ -f "$upgrade/stamp" ]; then
		touch "$RESULTS/upgrade-early"
		payload "$mode" "$upgrade"
	else
		payload "$mode"
	fi
	if [ "$mode" = check ] && [ -n "$upgrade" ]; then
		# the upgrade boots (mode upgrade) go on from this boot's disk
		cp --sparse=always "$root" "$RESULTS/root.img"
		root="$RESULTS/root.img"
		rootopt=
		touch "$RESULTS/expect-upgrade"
		[ -f "$RESULTS/upgrade-early" ] || touch "$RESULTS/expect-upgrade-install"
	else
		rootopt=,snapshot=on
	fi
fi
step_done

case "$ACCEL" in
kvm) accel=(-accel kvm -cpu host) ;;
# RDRAND (which TCG emulates) seeds the guest's crng at boot; without it
# the first getrandom() of the run (apt) waited minutes for entropy
tcg) accel=(-accel tcg,thread=multi -cpu qemu64,+rdrand) ;;
*) die "ACCEL must be tcg or kvm" ;;
esac

# Every disk is cache=unsafe: QEMU ignores the guest's flushes. The disks
# are scratch files of this run (the root is a snapshot or this run's
# copy), QEMU writes them before it exits, and a lost run is run again;
# honouring dpkg's fsync of every unpacked file cost minutes per apt
# install (the next kernel's headers are thousands of files).
# boot KERNEL NAME ROOT ROOTOPT [INITRD [APPEND]]: one boot on KERNEL;
# NAME.log is its console, and tap.log / tap-NAME.log its TAP stream. Sets
# rc to QEMU's exit code.
boot() {
	local kernel=$1 name=$2 root=$3 rootopt=$4 initrd=${5:-} append=${6:-} tap=tap.log
	local initrd_opt=() agent_opt=() apid=
	[ -n "$initrd" ] && initrd_opt=(-initrd "$initrd")
	[ "$mode" = bench ] && agent_opt=(
		-chardev "socket,id=ctl,path=$RESULTS/ctl.sock,server=on,wait=off"
		-serial chardev:ctl -qmp "unix:$RESULTS/qmp.sock,server=on,wait=off")
	[ "$name" = console ] || tap=tap-${name#console-}.log
	step "boot $(basename "$kernel") ($ACCEL, ${GUEST_CPUS} cpus, ${GUEST_MEM} MiB, timeout ${GUEST_TIMEOUT} s); console: $RESULTS/$name.log"
	# fresh data and swap disks for each boot
	rm -f "$work/data.img" "$work/swap.img"
	truncate -s 2G "$work/data.img"
	truncate -s 2G "$work/swap.img"
	local try waited quiet size last qpid
	for try in $(seq "$BOOT_TRIES"); do
		rc=0
		timeout --kill-after=10 "$GUEST_TIMEOUT" qemu-system-x86_64 \
			"${accel[@]}" -machine q35 -smp "$GUEST_CPUS" -m "$GUEST_MEM" \
			-kernel "$kernel" "${initrd_opt[@]}" \
			-append "root=/dev/vda rw console=ttyS0 init=/usr/local/sbin/tmem-init panic_on_warn=1 panic=1 oops=panic $append ${GUEST_APPEND:-}" \
			-drive "file=$root,if=virtio,format=raw,cache=unsafe$rootopt" \
			-drive "file=$work/payload.img,if=virtio,format=raw,readonly=on" \
			-drive "file=$work/data.img,if=virtio,format=raw,cache=unsafe,id=data" \
			-drive "file=$work/swap.img,if=virtio,format=raw,cache=unsafe,id=swap" \
			-serial "file:$RESULTS/$name.log" -serial "file:$RESULTS/$tap" \
			"${agent_opt[@]}" \
			-display none -monitor none -nic none -no-reboot </dev/null &
		qpid=$!
		if [ ${#agent_opt[@]} -gt 0 ]; then
			python3 "$VMTEST/bench-agent.py" "$RESULTS/ctl.sock" "$RESULTS/qmp.sock" \
				"$work/payload/tools/memcpy-ns" >>"$RESULTS/bench-agent.txt" 2>&1 &
			apid=$!
		fi
		# Under TCG a boot now and then hangs before init, before anything
		# is written to the disks: the 6.1 test kernel, 2 boots in 5 on a
		# busy host, in the RCU-tasks self test ("Running RCU-tasks wait
		# API self tests" its last line; the CPU idles, its timer ticks,
		# the self test's grace period never ends). A boot whose console
		# has been silent for BOOT_QUIET seconds, or that has not reached
		# init after BOOT_STALL, is killed and started again, at most
		# BOOT_TRIES times in all. (A good boot's longest silence before
		# init, measured: 13 s.)
		waited=0 quiet=0 last=-1
		while kill -0 $qpid 2>/dev/null &&
			! grep -q '# tmem guest: kernel' "$RESULTS/$name.log" 2>/dev/null; do
			size=$(stat -c %s "$RESULTS/$name.log" 2>/dev/null || echo 0)
			if [ "$size" = "$last" ]; then
				quiet=$((quiet + 5))
			else
				quiet=0 last=$size
			fi
			if [ $waited -ge "$BOOT_STALL" ] || [ $quiet -ge "$BOOT_QUIET" ]; then
				echo "guest stalled before init (try $try; silent $quiet s, $waited s in all): restarting it"
				kill $qpid $apid 2>/dev/null || true
				wait $qpid $apid || true
				mv "$RESULTS/$name.log" "$RESULTS/$name.stalled-$try.txt"
				rc=stalled
				continue 2
			fi
			sleep 5
			waited=$((waited + 5))
		done
		wait $qpid || rc=$?
		[ -z "$apid" ] || { kill $apid 2>/dev/null; wait $apid; } || true
		break
	done
	[ "$rc" = 124 ] && echo "guest TIMED OUT after $GUEST_TIMEOUT s"
	[ "$rc" = stalled ] && echo "guest stalled before init $BOOT_TRIES times"
	step_done
}

if [ "$mode" = upgrade ]; then
	itap="$RESULTS/tap.log"
	if [ ! -f "$RESULTS/upgrade-early" ]; then
		boot "$(vmlinuz "$kdir")" console-upgrade-install "$root" "$rootopt"
		echo "$rc" >"$RESULTS/qemu-upgrade-install.rc"
		itap="$RESULTS/tap-upgrade-install.log"
	fi
	# the last boot runs only if the new kernel was installed (by the
	# check boot or the boot before); otherwise the summary reports it
	# missing
	if grep -q "^ok .* - /boot/vmlinuz-.* is installed" "$itap" 2>/dev/null; then
		boot "$(vmlinuz "$upgrade")" console-upgrade "$root" "$rootopt"
		echo "$rc" >"$RESULTS/qemu-upgrade.rc"
	fi
	rm -f "$work/data.img" "$work/swap.img" "$work/payload.img" "$RESULTS/root.img"
	exit 0
fi

if [ "$mode" = unpatched ]; then
	UNPATCHED_KCONFIG=${UNPATCHED_KCONFIG:-debian}
	# a machine whose kernel lacks the hooks (Debian's own, from
	# 04-guest-root.sh with KCONFIG=$UNPATCHED_KCONFIG): installing the
	# package must succeed there, dkms skipping the build with a clear
	# message (guest/unpatched.sh)
	touch "$RESULTS/expect-unpatched"
	uroot="$CACHE/guest/current-$KSERIES-$UNPATCHED_KCONFIG.img"
	uboot="$CACHE/guest/current-$KSERIES-$UNPATCHED_KCONFIG.boot"
	[ -f "$uroot" ] && [ -f "$uboot/vmlinuz" ] ||
		die "no guest image with Debian's kernel: run KCONFIG=$UNPATCHED_KCONFIG vm-test/04-guest-root.sh"
	GUEST_TIMEOUT=${UNPATCHED_TIMEOUT:-1200} boot "$uboot/vmlinuz" console-unpatched \
		"$uroot" ,snapshot=on "$uboot/initrd.img"
	echo "$rc" >"$RESULTS/qemu-unpatched.rc"
elif [ "$KCONFIG" = debian-tmem ]; then
	# debian-kernel.sh: the patched kernel from Debian's configuration,
	# booted through its initramfs
	boot "${root%.img}.boot/vmlinuz" console "$root" "$rootopt" "${root%.img}.boot/initrd.img"
	echo "$rc" >"$RESULTS/qemu.rc"
else
	boot "$(vmlinuz "$kdir")" console "$root" "$rootopt"
	echo "$rc" >"$RESULTS/qemu.rc"
fi
# root.img (a check with an upgrade to follow) stays for the upgrade boots
rm -f "$work/data.img" "$work/swap.img" "$work/payload.img"
