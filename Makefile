# tmem: top-level entry points. See README.md.
#
#   make            build the modules against KDIR (a kernel carrying the patch),
#                   tmem_bench included
#   make deb        build tmem-dkms_<version>_all.deb (into $(TMEM_CACHE)/deb)
#   make kernel     build the patched test kernel .debs (cached)
#   make demo       the main job: build, boot a guest, install, run a workload
#   make check      every test, in a QEMU guest; prints "N passed, N failed"
#   make bench      no tmem vs zswap vs tmem in a guest; table, CSV, chart
#   make checkpatch kernel style check of src/ and the kernel patch
#   make debian-kernel  README.Debian followed from Debian's own config,
#                   then a boot with the package (hours; not in check)

KDIR ?= /lib/modules/$(shell uname -r)/build
VERSION := $(shell dpkg-parsechangelog -S Version 2>/dev/null || echo 0)

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/src TMEM_VERSION=$(VERSION) TMEM_BENCH=1 modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/src clean

deb:
	bash vm-test/01-host-packages.sh
	bash vm-test/03-module-deb.sh

kernel:
	bash vm-test/01-host-packages.sh
	bash vm-test/02-kernel.sh

demo:
	bash vm-test/run.sh demo

check:
	bash vm-test/run.sh check

bench:
	bash vm-test/run.sh bench

checkpatch:
	bash vm-test/checkpatch.sh

debian-kernel:
	bash vm-test/debian-kernel.sh

.PHONY: all modules clean deb kernel demo check bench checkpatch debian-kernel
