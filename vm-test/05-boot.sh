#!/bin/bash
# Step 5: boot the guest on the patched kernel and let it run a mode
# (check, demo or bench; see guest/<mode>.sh). Disks:
#   vda  root image (snapshot=on: the cached image is never written)
#   vdb  payload: the tmem-dkms .deb, guest/ scripts, test tools, the mode
#   vdc  blank data disk       vdd  blank swap disk
# Serial ports: ttyS0 = console -> console.log, ttyS1 = TAP -> tap.log.
# QEMU uses TCG unless ACCEL=kvm; each boot is bounded by GUEST_TIMEOUT,
# and one that stalls before init for BOOT_STALL seconds is restarted.
#
# The kernel upgrade (check mode, when UPGRADE_KSERIES names a built
# kernel series, as run.sh arranges): the patched kernel .debs of that
# series go into the payload (upgrade/), the root image is a writable copy,
# and after check.sh has installed them with apt the host boots that
# kernel on the same root disk (guest/upgrade.sh; console-upgrade.log,
# tap-upgrade.log). And with UNPATCHED_KCONFIG=debian another boot, on
# Debian's own kernel without the hooks (guest/unpatched.sh).
. "$(dirname "$0")/lib.sh"

mode=${1:-check}
ACCEL=${ACCEL:-tcg}
GUEST_MEM=${GUEST_MEM:-768}
GUEST_CPUS=${GUEST_CPUS:-2}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-4500}
BOOT_STALL=${BOOT_STALL:-240}
kdir=$(KDEBS_DIR)
root="$CACHE/guest/current-$KSERIES-$KCONFIG.img"
deb=$(ls "$CACHE"/deb/tmem-dkms_*_all.deb 2>/dev/null | head -n1)
[ -f "$root" ] || die "no guest root: run 04-guest-root.sh"
[ -n "$deb" ] || die "no tmem-dkms .deb: run 03-module-deb.sh"

step "prepare payload and disks in $RESULTS"
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
payload="$RESULTS/payload"
mkdir -p "$payload/tools"
cp "$deb" "$payload/"
cp -r "$VMTEST/guest" "$payload/guest"
for t in "$VMTEST"/tools/*.c; do
	gcc -O2 -Wall -Wextra -Werror -o "$payload/tools/$(basename "$t" .c)" "$t"
done
echo "$mode" >"$payload/mode"
# CHECK_TESTS="test_kunit test_upgrade_install": check.sh runs only these
# (after test_install); the summary says it was a subset
[ -n "${CHECK_TESTS:-}" ] && echo "$CHECK_TESTS" >"$payload/check-tests"
upgrade=
if [ "$mode" = check ] && [ -n "${UPGRADE_KSERIES:-}" ]; then
	upgrade=$(KSERIES=$UPGRADE_KSERIES bash -c '. "$0/lib.sh"; KDEBS_DIR' "$VMTEST")
	[ -f "$upgrade/stamp" ] || die "no $UPGRADE_KSERIES kernel: run KSERIES=$UPGRADE_KSERIES vm-test/02-kernel.sh"
	mkdir -p "$payload/upgrade"
	cp "$upgrade"/linux-image-*.deb "$upgrade"/linux-headers-*.deb "$payload/upgrade/"
	if [ ! -f "$upgrade/vmlinuz" ]; then
		dpkg-deb --fsys-tarfile "$upgrade"/linux-image-*.deb |
			tar -xO --wildcards './boot/vmlinuz-*' >"$upgrade/vmlinuz"
	fi
	# both boots use one writable copy of the cached root image
	cp --sparse=always "$root" "$RESULTS/root.img"
	root="$RESULTS/root.img"
	rootopt=
else
	rootopt=,snapshot=on
fi
truncate -s 512M "$RESULTS/payload.img"
mkfs.ext4 -q -F -d "$payload" "$RESULTS/payload.img"
if [ ! -f "$kdir/vmlinuz" ]; then
	dpkg-deb --fsys-tarfile "$kdir"/linux-image-*.deb |
		tar -xO --wildcards './boot/vmlinuz-*' >"$kdir/vmlinuz"
fi
step_done

case "$ACCEL" in
kvm) accel=(-accel kvm -cpu host) ;;
# RDRAND (which TCG emulates) seeds the guest's crng at boot; without it
# the first getrandom() of the run (apt) waited minutes for entropy
tcg) accel=(-accel tcg,thread=multi -cpu qemu64,+rdrand) ;;
*) die "ACCEL must be tcg or kvm" ;;
esac

# boot KERNEL NAME ROOT ROOTOPT [INITRD [APPEND]]: one boot on KERNEL;
# NAME.log is its console, and tap.log / tap-NAME.log its TAP stream. Sets
# rc to QEMU's exit code.
boot() {
	local kernel=$1 name=$2 root=$3 rootopt=$4 initrd=${5:-} append=${6:-} tap=tap.log
	local initrd_opt=()
	[ -n "$initrd" ] && initrd_opt=(-initrd "$initrd")
	[ "$name" = console ] || tap=tap-${name#console-}.log
	step "boot $(basename "$kernel") ($ACCEL, ${GUEST_CPUS} cpus, ${GUEST_MEM} MiB, timeout ${GUEST_TIMEOUT} s); console: $RESULTS/$name.log"
	# fresh data and swap disks for each boot
	rm -f "$RESULTS/data.img" "$RESULTS/swap.img"
	truncate -s 2G "$RESULTS/data.img"
	truncate -s 2G "$RESULTS/swap.img"
	local try waited qpid
	for try in 1 2 3; do
		rc=0
		timeout --kill-after=10 "$GUEST_TIMEOUT" qemu-system-x86_64 \
			"${accel[@]}" -machine q35 -smp "$GUEST_CPUS" -m "$GUEST_MEM" \
			-kernel "$kernel" "${initrd_opt[@]}" \
			-append "root=/dev/vda rw console=ttyS0 init=/usr/local/sbin/tmem-init panic_on_warn=1 panic=1 oops=panic $append ${GUEST_APPEND:-}" \
			-drive "file=$root,if=virtio,format=raw$rootopt" \
			-drive "file=$RESULTS/payload.img,if=virtio,format=raw,readonly=on" \
			-drive "file=$RESULTS/data.img,if=virtio,format=raw,cache=unsafe" \
			-drive "file=$RESULTS/swap.img,if=virtio,format=raw,cache=unsafe" \
			-serial "file:$RESULTS/$name.log" -serial "file:$RESULTS/$tap" \
			-display none -monitor none -nic none -no-reboot </dev/null &
		qpid=$!
		# Under TCG a boot now and then hangs before init (seen: bringing up
		# the second CPU), before anything is written to the disks: such a
		# boot is killed after BOOT_STALL seconds without the guest's first
		# line and started again, at most three times in all.
		waited=0
		while kill -0 $qpid 2>/dev/null &&
			! grep -q '# tmem guest: kernel' "$RESULTS/$name.log" 2>/dev/null; do
			if [ $waited -ge "$BOOT_STALL" ]; then
				echo "guest stalled before init for $BOOT_STALL s (try $try): restarting it"
				kill $qpid 2>/dev/null || true
				wait $qpid || true
				mv "$RESULTS/$name.log" "$RESULTS/$name.stalled-$try.txt"
				rc=stalled
				continue 2
			fi
			sleep 5
			waited=$((waited + 5))
		done
		wait $qpid || rc=$?
		break
	done
	[ "$rc" = 124 ] && echo "guest TIMED OUT after $GUEST_TIMEOUT s"
	[ "$rc" = stalled ] && echo "guest stalled before init three times"
	step_done
}

boot "$kdir/vmlinuz" console "$root" "$rootopt"
echo "$rc" >"$RESULTS/qemu.rc"
if [ -n "$upgrade" ]; then
	# the second boot runs only if the first one asked for it (check.sh
	# installed the new kernel); otherwise the summary reports it missing
	touch "$RESULTS/expect-upgrade"
	if grep -q "^ok .* - /boot/vmlinuz-.* is installed" "$RESULTS/tap.log" 2>/dev/null; then
		boot "$upgrade/vmlinuz" console-upgrade "$root" "$rootopt"
		echo "$rc" >"$RESULTS/qemu-upgrade.rc"
	fi
fi
if [ "$mode" = check ] && [ -n "${UNPATCHED_KCONFIG:-}" ]; then
	# a machine whose kernel lacks the hooks (Debian's own, from
	# 04-guest-root.sh with KCONFIG=debian): installing the package must
	# succeed there, dkms skipping the build with a clear message
	touch "$RESULTS/expect-unpatched"
	uroot="$CACHE/guest/current-$KSERIES-$UNPATCHED_KCONFIG.img"
	uboot="$CACHE/guest/current-$KSERIES-$UNPATCHED_KCONFIG.boot"
	[ -f "$uroot" ] && [ -f "$uboot/vmlinuz" ] ||
		die "no guest image with Debian's kernel: run KCONFIG=debian vm-test/04-guest-root.sh"
	GUEST_TIMEOUT=${UNPATCHED_TIMEOUT:-1200} boot "$uboot/vmlinuz" console-unpatched \
		"$uroot" ,snapshot=on "$uboot/initrd.img" tmem_mode=unpatched
	echo "$rc" >"$RESULTS/qemu-unpatched.rc"
fi
rm -f "$RESULTS/data.img" "$RESULTS/swap.img" "$RESULTS/payload.img" "$RESULTS/root.img"
