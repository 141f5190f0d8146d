#!/bin/bash
# Step 2: the patched test kernel as .debs (image + headers), via bindeb-pkg.
#
# The tree is unpacked from Debian's linux-source tarball into the cache, the
# project's patch applied, and the config made from x86_64 defconfig +
# kvm_guest.config + vm-test/config/tmem-$KCONFIG.config (test or bench).
# The result is kept in a directory named by a hash of those inputs (source
# version, patch, fragment, this script), so the kernel is rebuilt only when
# one of them changes.
#
# A rebuild for a new patch reuses the last built tree when it was made from
# the same source version and fragment: only the files whose patched text
# changed are rewritten (each patched file is made anew from the tarball and
# compared), so make recompiles what depends on them, minutes instead of
# the half hour to an hour of a build from scratch. Anything else (no tree,
# another source or fragment, a failed build) unpacks afresh.
. "$(dirname "$0")/lib.sh"

out=$(KDEBS_DIR)
if [ -f "$out/stamp" ]; then
	echo "==> kernel $KSERIES: cached in $out"
	exit 0
fi

patch="$REPO/kernel-patch/linux-$KSERIES-tmem.patch"
build="$KBUILD_DIR/tree"
src="$build/linux-source-$KSERIES"
# what the tree was unpacked and configured from (the patch aside)
base=$({ ksrc_version; cat "$KFRAG"; } | sha256sum | cut -c1-16)

# patched_files PATCH...: the files the patches create or change
patched_files() { sed -n 's|^+++ b/||p' "$@" | sort -u; }

# tree_reusable: the last build in the tree succeeded, from the same source
# version and fragment, and its applied patch is recorded
tree_reusable() {
	[ "${KERNEL_FRESH:-0}" != 1 ] && [ -f "$build/built" ] && [ -f "$build/applied.patch" ] &&
		[ "$(cat "$build/base" 2>/dev/null)" = "$base" ]
}

# refresh_tree: bring the tree from its applied patch to $patch, rewriting
# only the files whose patched text differs. 0 if done.
refresh_tree() {
	local old="$build/applied.patch" new="$build/scratch/linux-source-$KSERIES" f
	rm -rf "$build/scratch"
	mkdir -p "$new"
	# one pass over the tarball; files the tarball lacks (made by a patch)
	# are ignored
	patched_files "$old" "$patch" | sed "s|^|linux-source-$KSERIES/|" >"$build/files"
	tar -C "$build/scratch" -xf "/usr/src/linux-source-$KSERIES.tar.xz" \
		--ignore-failed-read -T "$build/files" 2>/dev/null || true
	(cd "$new" && git apply "$patch") || return 1
	rm -f "$build/built"
	for f in $(patched_files "$old" "$patch"); do
		if [ -f "$new/$f" ]; then
			cmp -s "$new/$f" "$src/$f" && continue
			cp "$new/$f" "$src/$f" && echo "  changed: $f"
		else	# created by the old patch only
			rm -f "$src/$f" && echo "  removed: $f"
		fi
	done
	rm -rf "$build/scratch"
	cp "$patch" "$old"
}

if tree_reusable && step "reuse the built tree for the new patch" && refresh_tree; then
	step_done
else
	step "unpack linux-source-$KSERIES $(ksrc_version)"
	rm -rf "$build"
	mkdir -p "$build"
	tar -C "$build" -xf "/usr/src/linux-source-$KSERIES.tar.xz"
	step_done

	step "apply kernel-patch/linux-$KSERIES-tmem.patch"
	(cd "$src" && git apply --check "$patch" && git apply "$patch") ||
		die "patch does not apply to linux-source-$KSERIES"
	cp "$patch" "$build/applied.patch"
	echo "$base" >"$build/base"
	step_done
fi

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
if ! make -C "$src" -s -j"$JOBS" bindeb-pkg KDEB_PKGVERSION="$(ksrc_version)+tmem" >"$build/build.log" 2>&1; then
	tail -40 "$build/build.log"
	# a reused tree that fails is not trusted: once more from scratch
	[ "${KERNEL_FRESH:-0}" != 1 ] &&
		echo "==> the build failed in a reused tree; once more from scratch" &&
		KERNEL_FRESH=1 exec bash "$0" "$@"
	die "kernel build failed, log: $build/build.log"
fi
touch "$build/built"
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
