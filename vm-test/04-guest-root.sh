#!/bin/bash
# Step 4: the guest's root disk: Debian bookworm (debootstrap minbase) with
# dkms, a compiler and the test tools, plus the patched kernel's image and
# headers packages installed as a user would (dpkg -i). The result is an ext2
# image (ext4 for Debian's kernel) made with mkfs -d; the guest boots it
# with snapshot=on, so the cached image is never changed by a run.
#
# Cached in two layers: the base tree (key: package list + this script) and
# the image (key: base + kernel .debs). Runs for different kernels (test,
# bench, another series) may overlap: each works in its own temporary tree,
# and 05-boot.sh finds its image through current-$KSERIES-$KCONFIG.img.
#
# KCONFIG=debian makes the image of a machine whose kernel lacks the hooks:
# Debian's own linux-image-amd64 and linux-headers-amd64 (with
# initramfs-tools) installed from the mirror with apt; its vmlinuz and
# initrd are kept next to the image (current-$KSERIES-debian.boot/) for
# 05-boot.sh. The key follows the versions the mirror offers.
# KCONFIG=debian-tmem (debian-kernel.sh) does the same with the patched
# kernel built from Debian's configuration, installed with apt.
. "$(dirname "$0")/lib.sh"

GUEST_PKGS=dkms,gcc,make,libc6-dev,libelf1,kmod,procps,e2fsprogs,util-linux,psmisc,stress-ng,fio,vmtouch,dosfstools
DEBIAN_KPKGS="linux-image-amd64 linux-headers-amd64 initramfs-tools"
MIRROR=$(debian_mirror)
base_key=$(printf '%s\n' "$GUEST_PKGS" "$(sed -n '/^if \[ ! -f "$base\/.stamp" \]/,/^fi/p' "$0")" |
	sha256sum | cut -c1-16)
if [ "$KCONFIG" = debian ]; then
	# shellcheck disable=SC2086
	image_key=$(printf '%s\n' "$base_key" debian \
		"$(apt-cache policy $DEBIAN_KPKGS | grep Candidate)" | sha256sum | cut -c1-16)
elif [ "$KCONFIG" = debian-tmem ]; then
	kdir=$(KDEBS_DIR)
	image_key=$(printf '%s\n' "$base_key" debian-tmem "$kdir" \
		"$(apt-cache policy initramfs-tools | grep Candidate)" | sha256sum | cut -c1-16)
else
	kdir=$(KDEBS_DIR)
	image_key=$(printf '%s\n' "$base_key" "$(kernel_key)" | sha256sum | cut -c1-16)
fi
guest="$CACHE/guest"
base="$guest/base-$base_key"
image="$guest/root-$image_key.img"
mkdir -p "$guest"
# one 04 at a time: concurrent runs share the base tree
exec 9>"$guest/.lock"
flock 9

link="$guest/current-$KSERIES-$KCONFIG.img"
if [ -f "$image" ]; then
	echo "==> guest root: cached in $image"
	ln -sfn "$image" "$link"
	case $KCONFIG in debian*) ln -sfn "$image.boot" "${link%.img}.boot" ;; esac
	exit 0
fi

if [ ! -f "$base/.stamp" ]; then
	step "debootstrap bookworm minbase (mirror from the host's apt sources)"
	rm -rf "$base" "$base.tmp"
	debootstrap --variant=minbase --include="$GUEST_PKGS" bookworm "$base.tmp" "$MIRROR" \
		>"$guest/debootstrap.log" 2>&1 ||
		{ tail -20 "$guest/debootstrap.log"; die "debootstrap failed"; }
	# PID 1 of the test guest: mount the payload disk, hand over to it.
	cat >"$base.tmp/usr/local/sbin/tmem-init" <<'INIT'
#!/bin/sh
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t proc proc /proc
mkdir -p /payload
mount -o ro /dev/vdb /payload || { echo "tmem-init: no payload disk"; sleep 2; echo o >/proc/sysrq-trigger; }
exec /bin/bash /payload/guest/init.sh
INIT
	chmod 755 "$base.tmp/usr/local/sbin/tmem-init"
	echo tmem-guest >"$base.tmp/etc/hostname"
	printf '/dev/vda / ext4 defaults 0 1\n' >"$base.tmp/etc/fstab"
	apt-get clean -o RootDir="$base.tmp" 2>/dev/null || true
	rm -rf "$base.tmp"/var/cache/apt/archives/*.deb
	touch "$base.tmp/.stamp"
	mv "$base.tmp" "$base"
	step_done
fi
# BASE_ONLY=1: prepare the base tree only (it needs no kernel).
[ "${BASE_ONLY:-0}" = 1 ] && exit 0
tree="$guest/tree-$image_key.tmp"
if [ "$KCONFIG" = debian ] || [ "$KCONFIG" = debian-tmem ]; then
	step "install the kernel ($KCONFIG) into a copy of the base tree"
	rm -rf "$tree" "$image.boot"
	cp -a "$base" "$tree"
	cp /etc/resolv.conf "$tree/etc/resolv.conf" 2>/dev/null || true
	mount -t proc proc "$tree/proc"
	trap 'umount "$tree/proc" 2>/dev/null || true' EXIT
	if [ "$KCONFIG" = debian ]; then
		kinstall="apt-get install -y --no-install-recommends $DEBIAN_KPKGS"
	else
		# the patched kernel from Debian's configuration: its packages
		# with apt, as README.Debian says; Debian's hooks make the initrd
		mkdir -p "$tree/tmp/kdebs"
		cp "$kdir"/linux-image-*.deb "$kdir"/linux-headers-*.deb "$tree/tmp/kdebs/"
		kinstall="apt-get install -y --no-install-recommends initramfs-tools &&
			apt-get install -y --no-install-recommends /tmp/kdebs/*.deb && rm -rf /tmp/kdebs"
	fi
	chroot "$tree" sh -c "apt-get update && $kinstall" \
		>"$guest/kernel-install-$KCONFIG.log" 2>&1 ||
		{ tail -20 "$guest/kernel-install-$KCONFIG.log"; die "installing the kernel ($KCONFIG) failed"; }
	umount "$tree/proc"
	trap - EXIT
	rm -f "$tree/etc/resolv.conf"
	chroot "$tree" apt-get clean
	mkdir -p "$image.boot"
	cp "$tree"/boot/vmlinuz-* "$image.boot/vmlinuz"
	cp "$tree"/boot/initrd.img-* "$image.boot/initrd.img" ||
		die "the kernel ($KCONFIG) came without an initrd"
	step_done
else
	[ -f "$kdir/stamp" ] || die "kernel .debs missing: run vm-test/02-kernel.sh first"
	step "install the kernel .debs into a copy of the base tree"
	rm -rf "$tree"
	cp -a "$base" "$tree"
	mkdir -p "$tree/tmp/kdebs"
	cp "$kdir"/linux-image-*.deb "$kdir"/linux-headers-*.deb "$tree/tmp/kdebs/"
	mount -t proc proc "$tree/proc"
	trap 'umount "$tree/proc" 2>/dev/null || true' EXIT
	chroot "$tree" sh -c 'dpkg -i /tmp/kdebs/*.deb' >"$guest/kernel-install.log" 2>&1 ||
		{ tail -20 "$guest/kernel-install.log"; die "installing the kernel .debs failed"; }
	umount "$tree/proc"
	trap - EXIT
	rm -rf "$tree/tmp/kdebs"
	step_done
fi

# The test kernels build ext4 as a module, as Debian does, and boot without
# an initramfs: their root is ext2, which they have built in. Debian's own
# kernel (KCONFIG=debian) mounts its root from its initramfs: ext4.
rootfs=ext2
case $KCONFIG in debian*) rootfs=ext4 ;; esac
step "make the $rootfs image"
# images of other inputs unused for two days go
find "$guest" -maxdepth 1 -name 'root-*.img' -mtime +2 -delete
truncate -s 4G "$image.tmp"
"mkfs.$rootfs" -q -F -L tmemroot -d "$tree" "$image.tmp"
mv "$image.tmp" "$image"
rm -rf "$tree"
ln -sfn "$image" "$link"
case $KCONFIG in debian*) ln -sfn "$image.boot" "${link%.img}.boot" ;; esac
step_done
