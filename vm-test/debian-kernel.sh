#!/bin/bash
# make debian-kernel: debian/README.Debian followed to the letter, from
# Debian's own kernel configuration, then a boot of that kernel with the
# package installed. Not part of make check (a build from Debian's full
# configuration takes hours on 2 cores); run it when the patch or the
# recipe changes.
#
#   1. Debian's configuration: /boot/config-* of the linux-image-amd64 that
#      the host's mirror offers (apt-get download, then dpkg-deb), as a user
#      would copy it from /boot.
#   2. The recipe of README.Debian, step by step: unpack linux-source-6.1,
#      git apply the patch, copy the config, clear the signing keys, drop
#      the debug info (no -dbg package), make olddefconfig; with QUICK=1
#      (the default) also make localmodconfig with LSMOD=
#      config/debian-guest.lsmod (what the guest loads, and every hooked
#      filesystem: ext4, fat/vfat, exfat, udf, btrfs, xfs, all modules as
#      in Debian); QUICK=0 builds every module of Debian's configuration.
#      Then make bindeb-pkg LOCALVERSION=-tmem. The result is cached under
#      $TMEM_CACHE/kernel-6.1-debian-tmem/ by a hash of its inputs.
#   3. 04-guest-root.sh KCONFIG=debian-tmem: the base tree with
#      initramfs-tools and these kernel packages installed with apt (the
#      initramfs is made by Debian's own hooks); root ext4, mounted by the
#      initramfs with ext4.ko.
#   4. 05-boot.sh debkernel: guest/debkernel.sh installs tmem-dkms with apt
#      (dkms builds it), checks that the hooked filesystems are modules, and
#      runs the precache/preswap smoke tests and the vfat async O_DIRECT test.
#   5. 06-summary.sh over that boot.
# BUILD_ONLY=1 stops after step 2.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export KSERIES=6.1 KCONFIG=debian-tmem QUICK=${QUICK:-1}
. "$here/lib.sh"
export TMEM_RESULTS=${TMEM_RESULTS:-$CACHE/results/debkernel-$(date +%Y%m%d-%H%M%S)}
RESULTS=$TMEM_RESULTS
t0=$SECONDS

bash "$here/01-host-packages.sh"

step "Debian's kernel configuration"
cfgdir="$CACHE/debian-config"
mkdir -p "$cfgdir"
pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$pkg" ] || die "the mirror offers no linux-image-amd64"
cfg="$cfgdir/config-${pkg#linux-image-}"
if [ ! -f "$cfg" ]; then
	(cd "$cfgdir" && rm -f ./*.deb && apt-get download "$pkg" >/dev/null) ||
		die "apt-get download $pkg failed"
	dpkg-deb --fsys-tarfile "$cfgdir"/"$pkg"_*.deb |
		tar -xO --wildcards './boot/config-*' >"$cfg.tmp"
	mv "$cfg.tmp" "$cfg"
	rm -f "$cfgdir"/*.deb
fi
grep -q '^CONFIG_EXT4_FS=m' "$cfg" && grep -q '^CONFIG_VFAT_FS=m' "$cfg" ||
	die "$cfg does not build ext4 and vfat as modules"
echo "$cfg"
step_done

key=$({ ksrc_version; cat "$REPO/kernel-patch/linux-6.1-tmem.patch" "$cfg" "$0" \
	"$VMTEST/config/debian-guest.lsmod"; echo "QUICK=$QUICK"; } | sha256sum | cut -c1-16)
out="$KBUILD_DIR/$key"
if [ -f "$out/stamp" ]; then
	echo "==> kernel from Debian's configuration: cached in $out"
else
	tree="$KBUILD_DIR/tree"
	rm -rf "$tree"
	mkdir -p "$tree"
	step "README.Debian: unpack, git apply, Debian's config"
	tar -C "$tree" -xf /usr/src/linux-source-6.1.tar.xz
	src="$tree/linux-source-6.1"
	(cd "$src" && git apply "$REPO/kernel-patch/linux-6.1-tmem.patch") ||
		die "git apply of the patch failed"
	cp "$cfg" "$src/.config"
	step_done
	step "README.Debian: no signing keys, no debug info, olddefconfig$([ "$QUICK" = 1 ] && echo ', localmodconfig')"
	(
		cd "$src"
		scripts/config --set-str SYSTEM_TRUSTED_KEYS '' \
			--set-str SYSTEM_REVOCATION_KEYS ''
		scripts/config --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
			--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5 \
			--enable DEBUG_INFO_NONE
		make -s olddefconfig
		if [ "$QUICK" = 1 ]; then
			make -s LSMOD="$VMTEST/config/debian-guest.lsmod" localmodconfig </dev/null
		fi
	) >"$tree/config.log" 2>&1 || { cat "$tree/config.log"; die "configuration failed"; }
	for opt in TMEM=y EXT4_FS=m VFAT_FS=m FAT_FS=m EXFAT_FS=m UDF_FS=m BTRFS_FS=m XFS_FS=m; do
		grep -qx "CONFIG_$opt" "$src/.config" || die "the configuration lacks CONFIG_$opt"
	done
	! grep -q '^CONFIG_DEBUG_INFO=y' "$src/.config" || die "debug info still on"
	echo "CONFIG_TMEM=y; ext4, fat, vfat, exfat, udf, btrfs and xfs are modules; $(grep -c '=m$' "$src/.config") modules in all"
	step_done
	step "README.Debian: make -j$JOBS bindeb-pkg LOCALVERSION=-tmem"
	make -C "$src" -s -j"$JOBS" bindeb-pkg LOCALVERSION=-tmem >"$tree/build.log" 2>&1 ||
		{ tail -40 "$tree/build.log"; die "the build failed, log: $tree/build.log"; }
	step_done
	mkdir -p "$out"
	mv "$tree"/linux-image-*.deb "$tree"/linux-headers-*.deb "$out/"
	cp "$src/.config" "$out/config"
	rm -rf "$tree"
	touch "$out/stamp"
fi
ln -sfn "$out" "$KBUILD_DIR/current"
ls -l "$out"
# BUILD_ONLY=1: stop after the kernel (e.g. to build it beside other work)
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0

bash "$here/03-module-deb.sh"
bash "$here/04-guest-root.sh"
mkdir -p "$RESULTS"
rm -f "$RESULTS"/expect-*
bash "$here/05-boot.sh" debkernel
rc=0
bash "$here/06-summary.sh" | tee "$RESULTS/summary.txt" || rc=1
echo "==> debian-kernel: $((SECONDS - t0)) s in all; results in $RESULTS"
grep -E '^[0-9]+ passed, [0-9]+ failed' "$RESULTS/summary.txt" || true
exit $rc
