#!/bin/bash
# Step 1: install on the host the Debian packages the other steps need,
# only those missing. apt uses the host's own sources.
. "$(dirname "$0")/lib.sh"

PKGS=(
	"linux-source-$KSERIES"	# the kernel we patch
	build-essential bc bison flex libelf-dev libssl-dev cpio kmod rsync
	dwarves python3 xz-utils git	# kernel build + bindeb-pkg
	debhelper dh-dkms dkms fakeroot dpkg-dev	# the module .deb
	debootstrap e2fsprogs	# the guest root
	qemu-system-x86 qemu-utils	# the guest
	lintian	# package checks
	gnuplot-nox	# the chart of make bench
)

step "host packages"
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
step_done
