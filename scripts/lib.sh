# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the cqnotify scripts: paths, the kernel cache, progress lines.
# shellcheck shell=bash

CQN_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CQN_CACHE=${CQN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cqnotify}
CQN_BUILD=${CQN_BUILD:-$CQN_TOP/build}
CQN_T0=${CQN_T0:-$(date +%s)}
export CQN_TOP CQN_CACHE CQN_BUILD CQN_T0

# cqn_log MSG...: a progress line with the time elapsed since the run started.
cqn_log()
{
	local now=$(($(date +%s) - CQN_T0))

	printf '[%02d:%02d] %s\n' $((now / 60)) $((now % 60)) "$*" >&2
}

cqn_die()
{
	cqn_log "error: $*"
	exit 1
}

# cqn_check_cache: the guests mount a tmpfs on /tmp, so a kernel cached
# there would be invisible to them (its modules are mounted from the cache).
cqn_check_cache()
{
	case "$(realpath -m "$CQN_CACHE")/" in
	/tmp/*) cqn_die "CQN_CACHE=$CQN_CACHE is under /tmp, which the VMs cannot see (a tmpfs in the guest): choose another directory" ;;
	esac
}

# The stock Debian kernels the project runs on, by series: 6.1 is Debian 12's
# own (linux-image-amd64), 6.12 its backport from the security archive
# (linux-image-6.12-amd64). Which one a step uses is always named, never "the
# newest installed": with both installed, that would silently be 6.12.
CQN_STOCK_SERIES="6.1 6.12"
export CQN_STOCK_SERIES

# The kernel arguments of the test VMs (make check, scripts/mutate).
# tsc=unstable: under TCG on a busy host the clocksource watchdog finds the
# TSC skewed against the HPET sooner or later (6.12: "Marking clocksource
# 'tsc' as unstable", "sched_clock: Marking unstable" at 354 s), and the
# kernel then patches its sched_clock static key into running code on both
# vCPUs, which TCG does not always survive: the guest died without a word
# 6 s later (make check, 2026-12-03), and an "Oops: int3" in __schedule()
# on a patched NOP ended a VM the same way before (fc28). Marked unstable
# at boot, the TSC is never switched away from while tests run.
CQN_TEST_KARGS="tsc=unstable"

# The kernel arguments of the VMs that measure (make bench, its load VM,
# make demo). tsc=reliable: under TCG on a busy host the clocksource
# watchdog sooner or later finds the TSC skewed against the HPET ("tsc:
# Marking TSC unstable due to clocksource watchdog") and the kernel then
# patches its sched_clock static key into code both vCPUs run, which TCG
# does not always survive (make bench --kernel 6.12: "Oops: int3" in
# sched_clock_cpu() 14 to 25 s in, in 2 of 4 runs on 2026-12-04). Reliable,
# the TSC is never watched, so never switched away from: the clock the
# figures were measured with stays, and nothing is patched while they are.
# (The test VMs boot with tsc=unstable instead, CQN_TEST_KARGS above.)
CQN_MEASURE_KARGS="tsc=reliable"

# cqn_stock_kver SERIES: the release of the installed Debian kernel image of
# that series (6.1 or 6.12), e.g. 6.12.117+deb12-amd64; fails when none is.
cqn_stock_kver()
{
	local series=${1:?cqn_stock_kver SERIES} v

	case " $CQN_STOCK_SERIES " in
	*" $series "*) ;;
	*) return 1 ;;
	esac
	v=$(find /boot -maxdepth 1 -name "vmlinuz-$series.*-amd64" -printf '%f\n' 2>/dev/null |
		sed 's/^vmlinuz-//' | sort -V | tail -n 1)
	[ -n "$v" ] || return 1
	echo "$v"
}

# cqn_kernel_kind NAME: normalise a kernel name as the scripts take it
# (debug, 6.1, 6.12; distro is 6.1, the default stock kernel) or fail.
cqn_kernel_kind()
{
	case "$1" in
	debug) echo debug ;;
	distro|6.1) echo 6.1 ;;
	6.12) echo 6.12 ;;
	*) return 1 ;;
	esac
}

# cqn_tcg_threads KIND: the --tcg-threads of make check's VMs of a kernel
# (debug, 6.1 or 6.12). The debug VMs run their two vCPUs on one host
# thread. Two multi-threaded TCG VMs beside each other on a 2-CPU machine
# took 3.3x as long over the same tests as one alone, longer than running
# them one after the other: a vCPU that spins for a lock (or, with lockdep
# and KASAN, for anything) whose holder's host thread is waiting for the
# CPU burns that CPU. Two single-threaded ones took 1.6x (2026-12-03:
# service pingpong_sizes and stream_event, cq every_mode_moves_traffic:
# 50 s alone, 163-179 s as a pair, 80 s as a single-threaded pair). The
# stock kernels' VMs keep a thread per vCPU: their tests time what a
# second CPU running at once does.
cqn_tcg_threads()
{
	case "$1" in
	debug) echo single ;;
	*) echo multi ;;
	esac
}

# cqn_kernel_label KIND: how TAP lines and results name a kernel: 6.1-debug
# for the debug build of 6.1, the series for a stock kernel.
cqn_kernel_label()
{
	case "$1" in
	debug) echo 6.1-debug ;;
	*) echo "$1" ;;
	esac
}

# cqn_kernel_src: the unpacked linux-source-6.1 tree, unpacked on first use.
cqn_kernel_src()
{
	local tarball=/usr/src/linux-source-6.1.tar.xz
	local ver src

	[ -f "$tarball" ] || cqn_die "$tarball missing: run scripts/install-deps"
	ver=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null)
	src=$CQN_CACHE/linux-source-6.1-$ver
	if [ ! -f "$src/.unpacked" ]; then
		cqn_log "unpacking linux-source-6.1 $ver into $src"
		rm -rf "$src" && mkdir -p "$src"
		tar -xf "$tarball" -C "$src" --strip-components=1 || cqn_die "unpacking $tarball failed"
		touch "$src/.unpacked"
	fi
	echo "$src"
}

# cqn_debug_kdir: the object tree of the debug kernel for the current fragment.
cqn_debug_kdir()
{
	local ver hash

	ver=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null)
	hash=$( (echo "$ver"; cat "$CQN_TOP/scripts/debug-kernel.config" \
		"$CQN_TOP/scripts/build-kernel" "$CQN_TOP"/scripts/kernel-patches/*.patch) |
		sha256sum | cut -c1-12)
	echo "$CQN_CACHE/kernel-debug-$hash"
}
