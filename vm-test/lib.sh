# shellcheck shell=bash
# Settings and helpers shared by the numbered vm-test steps. Sourced, not run.
#
# Everything built lives under $TMEM_CACHE (default /var/cache/tmem), never in
# the repository: the unpacked kernel tree, the kernel .debs (one directory per
# input hash), the guest root image and the results of each run.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VMTEST="$REPO/vm-test"
CACHE=${TMEM_CACHE:-/var/cache/tmem}
KSERIES=${KSERIES:-6.1}
# Kernel configuration: "test" (debug options; make check) or "bench" (no
# debug options, zswap built in; make bench): config/tmem-$KCONFIG.config.
KCONFIG=${KCONFIG:-test}
KFRAG="$VMTEST/config/tmem-$KCONFIG.config"
KBUILD_DIR="$CACHE/kernel-$KSERIES$([ "$KCONFIG" = test ] || echo "-$KCONFIG")"
# A series may change the fragment: config/tmem-$KCONFIG-$KSERIES.config is
# merged over it (an option in both takes the series' value), and KFRAG is
# then the merged file, kept in KBUILD_DIR under a name of its content.
series_frag="$VMTEST/config/tmem-$KCONFIG-$KSERIES.config"
if [ -f "$series_frag" ]; then
	merged=$(awk -F= 'NR == FNR { if (/^CONFIG_/) over[$1] = 1; next }
		!/^CONFIG_/ || !($1 in over)' "$series_frag" "$KFRAG"
		cat "$series_frag")
	mkdir -p "$KBUILD_DIR"
	KFRAG="$KBUILD_DIR/fragment-$(sha256sum <<<"$merged" | cut -c1-16).config"
	if [ ! -f "$KFRAG" ]; then
		echo "$merged" >"$KFRAG.$$"
		mv "$KFRAG.$$" "$KFRAG"
	fi
	unset merged
fi
unset series_frag
JOBS=${JOBS:-$(($(nproc) + 1))}
RESULTS=${TMEM_RESULTS:-$CACHE/results/latest}
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

STEP_T0=$SECONDS
step() { # step "what is being done"
	STEP_T0=$SECONDS
	echo "==> $(basename "$0"): $*"
}
step_done() {
	echo "==> $(basename "$0"): done in $((SECONDS - STEP_T0)) s"
}
die() {
	echo "ERROR: $*" >&2
	exit 1
}

# The Debian mirror this host uses, read from its own apt configuration.
debian_mirror() {
	local uri
	uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources |
		awk '{print $2}' | grep -v security | head -n1 || true)
	[ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list |
		awk '$3 !~ /security/ {print $2; exit}' || true)
	[ -n "$uri" ] || die "no Debian mirror found in /etc/apt"
	echo "$uri"
}

# Version of the installed linux-source package for $KSERIES.
ksrc_version() {
	dpkg-query -W -f='${Version}' "linux-source-$KSERIES"
}

# Hash of everything the kernel build depends on.
kernel_key() {
	{
		ksrc_version
		cat "$REPO/kernel-patch/linux-$KSERIES-tmem.patch"
		cat "$KFRAG"
		cat "$VMTEST/02-kernel.sh"
	} | sha256sum | cut -c1-16
}
# KCONFIG=debian-tmem (debian-kernel.sh) keys its own build and links it.
KDEBS_DIR() {
	if [ "$KCONFIG" = debian-tmem ]; then
		readlink -f "$KBUILD_DIR/current"
	else
		echo "$KBUILD_DIR/$(kernel_key)"
	fi
}
