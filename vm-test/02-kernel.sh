#!/bin/bash
# Step 2: the patched test kernel as .debs (image + headers), via bindeb-pkg.
#
# The tree is unpacked from Debian's linux-source tarball into the cache, the
# project's patch applied, and the config made from x86_64 defconfig +
# kvm_guest.config + vm-test/config/tmem-$KCONFIG.config (test or bench).
# The result is kept in a directory named by a hash of those inputs (source
# version, patch, fragment, this script), so the kernel is rebuilt only when
# one of them changes.
. "$(dirname "$0")/lib.sh"

out=$(KDEBS_DIR)
if [ -f "$out/stamp" ]; then
	echo "==> kernel $KSERIES: cached in $out"
	exit 0
fi

step "unpack linux-source-$KSERIES $(ksrc_version)"
build="$KBUILD_DIR/tree"
rm -rf "$build"
mkdir -p "$build"
tar -C "$build" -xf "/usr/src/linux-source-$KSERIES.tar.xz"
src="$build/linux-source-$KSERIES"
step_done

step "apply kernel-patch/linux-$KSERIES-tmem.patch"
patch="$REPO/kernel-patch/linux-$KSERIES-tmem.patch"
(cd "$src" && git apply --check "$patch" && git apply "$patch") ||
	die "patch does not apply to linux-source-$KSERIES"
step_done

step "configure"
cp "$KFRAG" "$src/kernel/configs/tmem-$KCONFIG.config"
make -C "$src" -s defconfig kvm_guest.config "tmem-$KCONFIG.config" >"$build/config.log" 2>&1 ||
	{ cat "$build/config.log"; die "kernel configuration failed"; }
# Every option the fragment asks for must have survived olddefconfig.
missing=0
while IFS= read -r line; do
	case "$line" in '#'* | '') continue ;; esac
	opt=${line%%=*} val=${line#*=}
	if [ "$val" = n ]; then
		grep -q "^$opt=" "$src/.config" && { echo "  $opt should be off"; missing=1; }
	else
		grep -qx "$opt=$val" "$src/.config" || { echo "  $opt=$val not set"; missing=1; }
	fi
done <"$KFRAG"
[ $missing = 0 ] || die "kernel config lacks options of tmem-$KCONFIG.config"
step_done

step "build (make -j$JOBS bindeb-pkg)"
make -C "$src" -s -j"$JOBS" bindeb-pkg KDEB_PKGVERSION="$(ksrc_version)+tmem" >"$build/build.log" 2>&1 ||
	{ tail -40 "$build/build.log"; die "kernel build failed, log: $build/build.log"; }
step_done

mkdir -p "$out"
mv "$build"/linux-image-*.deb "$build"/linux-headers-*.deb "$out/"
rm -f "$build"/*.deb "$build"/*.buildinfo "$build"/*.changes
cp "$src/.config" "$out/config"
# The built tree stays (for checkpatch and host-side module builds) until
# the next rebuild; its path is recorded for the other steps.
echo "$src" >"$out/tree"
touch "$out/stamp"
ls -l "$out"
