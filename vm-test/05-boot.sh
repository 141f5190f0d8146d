#!/bin/bash
# Step 5: boot the guest on the patched kernel and let it run a mode
# (check or demo; see guest/<mode>.sh). Disks:
#   vda  root image (snapshot=on: the cached image is never written)
#   vdb  payload: the tmem-dkms .deb, guest/ scripts, test tools, the mode
#   vdc  blank data disk       vdd  blank swap disk
# Serial ports: ttyS0 = console -> console.log, ttyS1 = TAP -> tap.log.
# QEMU uses TCG unless ACCEL=kvm; the run is bounded by GUEST_TIMEOUT.
. "$(dirname "$0")/lib.sh"

mode=${1:-check}
ACCEL=${ACCEL:-tcg}
GUEST_MEM=${GUEST_MEM:-768}
GUEST_CPUS=${GUEST_CPUS:-2}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-3600}
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
truncate -s 256M "$RESULTS/payload.img"
mkfs.ext4 -q -F -d "$payload" "$RESULTS/payload.img"
truncate -s 2G "$RESULTS/data.img"
truncate -s 2G "$RESULTS/swap.img"
if [ ! -f "$kdir/vmlinuz" ]; then
	dpkg-deb --fsys-tarfile "$kdir"/linux-image-*.deb |
		tar -xO --wildcards './boot/vmlinuz-*' >"$kdir/vmlinuz"
fi
step_done

case "$ACCEL" in
kvm) accel=(-accel kvm -cpu host) ;;
tcg) accel=(-accel tcg,thread=multi) ;;
*) die "ACCEL must be tcg or kvm" ;;
esac

step "boot ($ACCEL, ${GUEST_CPUS} cpus, ${GUEST_MEM} MiB, timeout ${GUEST_TIMEOUT} s); console: $RESULTS/console.log"
rc=0
timeout --kill-after=10 "$GUEST_TIMEOUT" qemu-system-x86_64 \
	"${accel[@]}" -machine q35 -smp "$GUEST_CPUS" -m "$GUEST_MEM" \
	-kernel "$kdir/vmlinuz" \
	-append "root=/dev/vda rw console=ttyS0 init=/usr/local/sbin/tmem-init panic_on_warn=1 panic=1 oops=panic ${GUEST_APPEND:-}" \
	-drive "file=$root,if=virtio,format=raw,snapshot=on" \
	-drive "file=$RESULTS/payload.img,if=virtio,format=raw,readonly=on" \
	-drive "file=$RESULTS/data.img,if=virtio,format=raw,cache=unsafe" \
	-drive "file=$RESULTS/swap.img,if=virtio,format=raw,cache=unsafe" \
	-serial "file:$RESULTS/console.log" -serial "file:$RESULTS/tap.log" \
	-display none -monitor none -nic none -no-reboot </dev/null || rc=$?
echo "$rc" >"$RESULTS/qemu.rc"
[ "$rc" = 124 ] && echo "guest TIMED OUT after $GUEST_TIMEOUT s"
rm -f "$RESULTS/data.img" "$RESULTS/swap.img" "$RESULTS/payload.img"
step_done
