# SPDX-License-Identifier: GPL-2.0
# scripts/vm-run, part 2 of 4: the guest: its kernel (the debug build or a
# stock one with scripts/vm-initramfs), command line, vm.conf (what
# scripts/vm/init reads), the result directory $rd and QEMU's command line
# in the array qemu (also in $rd/qemu.cmd).
# shellcheck shell=bash disable=SC2034,SC2154 # variables shared by the parts

# msize 512000 is the largest the 6.1 virtio transport takes. cache=loose
# lets the guest keep file data and metadata of the read-only root instead of
# asking QEMU for every access; the root does not change under a running
# test, and results go through the uncached "out" share.
# CQN_VM_ROOTFLAGS overrides it (for measuring other modes).
rootflags=${CQN_VM_ROOTFLAGS:-trans=virtio,version=9p2000.L,msize=512000,cache=loose}
init=$CQN_TOP/scripts/vm/init
initrd=
case "$kind" in
debug)
	kdir=$(cqn_debug_kdir)
	[ -f "$kdir/.cqn-built" ] ||
		fail "the debug kernel is not built (no $kdir/.cqn-built): run scripts/build-kernel"
	bzimage=$kdir/arch/x86/boot/bzImage
	kconfig=$kdir/.config
	release=$(cat "$kdir/include/config/kernel.release")
	modules=$kdir/mods/lib/modules
	[ -d "$modules/$release" ] || fail "$modules/$release missing: rerun scripts/build-kernel"
	cmdline="root=/dev/root rootfstype=9p rootflags=$rootflags ro init=$init"
	;;
*)
	release=$(cqn_stock_kver "$kind") ||
		fail "no Debian $kind kernel in /boot: run scripts/install-deps"
	bzimage=/boot/vmlinuz-$release
	kconfig=/boot/config-$release
	modules=
	initrd=$("$CQN_TOP/scripts/vm-initramfs" "$release") || fail "building the initramfs failed"
	# The initramfs /init gets these as environment variables.
	cmdline="rdinit=/init cqn_init=$init cqn_rootflags=$rootflags"
	;;
esac
[ -r "$bzimage" ] || fail "$bzimage not readable"
# A 4 MiB kernel log: the tests' gate finds each test's lines by counting
# lines, which holds only while the log does not wrap (6.1's default 128 KiB
# was half full after a debug-kernel make check).
# no_timer_check: under TCG on a loaded host the boot-time check that the
# IO-APIC timer ticks can miss its window and panic the guest ("IO-APIC +
# timer doesn't work!", seen with load average 15 on 2 cores); the timer
# works, only the check's timing does not hold there.
cmdline="console=ttyS0 panic=-1 log_buf_len=4M no_timer_check $cmdline${append:+ $append}"

# In the guest, CQN_KERNEL is what kind of kernel it is (the tests size
# themselves by it) and CQN_KSERIES which series; CQN_KLABEL names it in
# TAP lines and results.
label=$(cqn_kernel_label "$kind")
gkernel=distro
[ "$kind" = debug ] && gkernel=debug
rd=$CQN_BUILD/vm/$label-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$rd"
cqn_log "vm-run: $label kernel $release, smp $smp ($tcg_threads-threaded TCG), mem $mem; results in $rd"
CMD=("$@")
{
	printf 'CQN_KERNEL=%q\nCQN_KSERIES=%q\nCQN_KLABEL=%q\nCQN_TCG_THREADS=%q\nCQN_TOP=%q\nCQN_RXE=%q\nCQN_MODULES=%q\n' \
		"$gkernel" "${kind/debug/6.1}" "$label" "$tcg_threads" "$CQN_TOP" "$rxe" "$modules"
	printf 'CQN_STALL_REPORT=%q\n' $((stall / 2))
	declare -p CMD
} >"$rd/vm.conf"

# q35, not the default pc machine: pc's ACPI _PRT is an AML While loop that
# the debug kernel (KASAN, lockdep, under TCG) cannot finish within ACPICA's
# 30 s loop timeout; the first virtio device then gets no interrupt (no
# PCI_MSI there) and the 9p root mount hangs. q35's _PRT is a static table.
qemu=(qemu-system-x86_64 -machine q35 -accel "tcg,thread=$tcg_threads" -nodefaults -no-reboot -display none
	-m "$mem" -smp "$smp"
	-kernel "$bzimage" -append "$cmdline"
	-serial "file:$rd/console.log"
	-fsdev "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap"
	-device "virtio-9p-pci,fsdev=root,mount_tag=root"
	-fsdev "local,id=out,path=$rd,security_model=none,multidevs=remap"
	-device "virtio-9p-pci,fsdev=out,mount_tag=out"
	-fsdev "local,id=top,path=$CQN_TOP,security_model=none,readonly=on,multidevs=remap"
	-device "virtio-9p-pci,fsdev=top,mount_tag=top")
[ -z "$initrd" ] || qemu+=(-initrd "$initrd")
qemu+=("${nic_args[@]}")
printf '%q ' "${qemu[@]}" >"$rd/qemu.cmd"
echo >>"$rd/qemu.cmd"
