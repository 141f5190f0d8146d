#!/bin/bash
# Step 3: tmem-dkms_<version>_all.deb from debian/ (debhelper + dh-dkms),
# built in a scratch copy of the working tree so the repository stays clean.
# The .deb lands in $CACHE/deb/; lintian runs on it.
. "$(dirname "$0")/lib.sh"

step "build tmem-dkms .deb"
work="$CACHE/debbuild"
rm -rf "$work"
mkdir -p "$work/tmem" "$CACHE/deb"
(cd "$REPO" && tar --exclude=.git -cf - debian dkms.conf src kernel-patch README.md Makefile) |
	tar -C "$work/tmem" -xf -
(cd "$work/tmem" && dpkg-buildpackage -b -us -uc -tc) >"$work/build.log" 2>&1 ||
	{ tail -30 "$work/build.log"; die "dpkg-buildpackage failed, log: $work/build.log"; }
rm -f "$CACHE"/deb/tmem-dkms_*.deb
mv "$work"/tmem-dkms_*_all.deb "$CACHE/deb/"
deb=$(ls "$CACHE"/deb/tmem-dkms_*_all.deb)
echo "built $deb"
dpkg-deb -c "$deb" | awk '{print "  " $NF}'
step_done

step "lintian"
lintian --pedantic --fail-on error,warning,pedantic "$deb" || die "lintian reports problems"
step_done
