# SPDX-License-Identifier: GPL-2.0
# Developer targets for cqnotify; the kbuild lines live in Kbuild.
#
#   make            build cqnotify.ko for the running (or newest installed) kernel
#   make check      the whole test suite, in QEMU (installs what it needs)
#   make demo       the demo, in QEMU on Debian's stock kernel
#   make style      checkpatch --strict, kernel-doc, Documentation/ validity
#   make clean

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /lib/modules/*-amd64/build))))

.PHONY: module check demo style clean

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

check:
	scripts/check

demo:
	scripts/demo

style:
	scripts/style

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf build
