# SPDX-License-Identifier: GPL-2.0
# Developer targets for cqnotify; the kbuild lines live in Kbuild.
#
#   make            build cqnotify.ko for the running (or newest installed) kernel
#   make check      the whole test suite, in QEMU (installs what it needs)
#   make check-leaks the debug-kernel suites with a kmemleak scan pair after
#                   every test (about 35 minutes)
#   make tools      the userspace test peers (tools/testing/*.c) into $(CQN_BUILD)/tools
#   make demo       the demo, in QEMU on Debian's stock kernel (KERNEL=6.12 for 6.12)
#   make bench      polling vs event notification against perftest, in QEMU (build/bench/;
#                   KERNEL=6.12 for the 6.12 kernel)
#   make style      checkpatch --strict, kernel-doc, Documentation/ validity
#   make install    install cqnotify.ko and cqnotify_configfs.ko into
#                   /lib/modules/<kernel>/updates, run depmod, and the control tool
#                   tools/cqnotifyctl into $(SBINDIR) (/usr/local/sbin)
#   make clean

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /lib/modules/*-amd64/build))))
# The release modules_install installs for (Debian's kernel.release is not it).
KVER = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h)

# Where scripts/lib.sh puts everything built; the guest finds it there too.
CQN_BUILD ?= $(CURDIR)/build
TOOLS_CFLAGS = -O2 -g -Wall -Wextra -Werror -I$(CURDIR)/include

.PHONY: module install check check-leaks demo bench bench-scale style tools clean

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Where make install puts the control tool.
SBINDIR ?= /usr/local/sbin

# INSTALL_MOD_PATH=DIR stages the install under DIR instead of /.
install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)
	install -D -m 0755 tools/cqnotifyctl $(INSTALL_MOD_PATH)$(SBINDIR)/cqnotifyctl

check:
	scripts/check

# Every debug-kernel test followed by its own kmemleak gate (scan, 5 s, scan).
check-leaks:
	CQN_GATE_EACH=1 CQN_CHECK_ONLY="host debug twohost" scripts/check

# The stock Debian kernel demo and bench run on: 6.1 or 6.12.
KERNEL ?= 6.1

demo:
	scripts/demo/run $(KERNEL)

bench:
	scripts/bench/run --kernel $(KERNEL)

bench-scale:
	scripts/bench/run --kernel $(KERNEL) --scale

style:
	scripts/style

# cqn_hostile: the hostile rdma_cm peer of the hostile suite (librdmacm-dev,
# libibverbs-dev).
tools: $(CQN_BUILD)/tools/cqn_hostile

$(CQN_BUILD)/tools/cqn_hostile: tools/testing/cqn_hostile.c include/cqn_msg.h
	mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -o $@ $< -lrdmacm -libverbs

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf build
