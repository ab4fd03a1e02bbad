# SPDX-License-Identifier: GPL-2.0
# scripts/vm-run, part 1 of 4: its usage and options. Sets kernel, kind,
# smp, tcg_threads, mem, timeout, stall, rxe, append, nic_args and leaves the command
# in "$@"; exits 2 on bad usage.
# shellcheck shell=bash disable=SC2034,SC2154 # variables shared by the parts

usage()
{
	cat <<EOF
Usage: scripts/vm-run [OPTIONS] -- CMD [ARG...]

Boot a VM, run CMD in it (cwd $CQN_TOP, env CQN_IN_VM=1,
CQN_OUT=/mnt/out, CQN_KERNEL=debug|distro, CQN_KSERIES=6.1|6.12,
CQN_KLABEL=6.1-debug|6.1|6.12, CQN_TCG_THREADS=multi|single), then check
the kernel log.
The guest sees the host's / read-only and cached (files changed on the host
during the run may look stale); /tmp, /run, /var/tmp are empty tmpfs. Put
what CMD needs in the checkout or under \$CQN_BUILD, results in \$CQN_OUT.

Options:
  --kernel debug|6.1|6.12
                         debug: the KASAN/lockdep/kmemleak 6.1 kernel made
                         by scripts/build-kernel (default); 6.1 (or
                         distro): Debian 12's stock kernel; 6.12: Debian
                         12's stock 6.12 kernel (both faster, for
                         benchmarks). In the guest CQN_KERNEL is debug or
                         distro (a stock kernel), CQN_KSERIES the series.
  --smp N                virtual CPUs (default 2)
  --tcg-threads multi|single
                         multi (default): a host thread per virtual CPU;
                         single: one host thread runs all of them in turn,
                         so the VM never takes more than one host CPU. Two
                         VMs beside each other on a 2-CPU host finish
                         sooner with single: with multi, a vCPU spinning
                         for a lock whose holder's host thread waits for
                         the CPU burns it (make check's debug VMs)
  --mem SIZE             guest memory, QEMU syntax (default 2G)
  --timeout S            kill the VM after S seconds in all (default 900)
  --stall S              kill the VM when the command has printed nothing
                         for S seconds (default 600): a guest whose kernel
                         hangs (a deadlocked CPU freezes a TCG guest whole)
                         fails then, not at --timeout; 0 for never
  --no-rxe               do not create rxe0/rxe1 over veth0/veth1
  --socket-nic listen|connect:PORT[,mac=MAC]
                         a second NIC (virtio-net) on a QEMU socket network
                         to another VM: "listen" waits for one on
                         127.0.0.1:PORT, "connect" joins one there (QEMU
                         fails at once if nothing listens yet: start the
                         listening VM first, as scripts/vm/pair does). The
                         guest brings it up itself; its MAC is MAC
                         (default 52:54:00:78:00:01, give each VM its own)
  --append KARGS         extra kernel command line arguments
  -h, --help             this text

Unless --no-rxe, the guest has rxe0 on veth0 (10.77.0.1/24) and rxe1 on veth1
(10.77.0.2/24), both ACTIVE, and traffic between them crosses the veth pair
(CQN_RXE_ROUTED=1; 0 if the kernel lacks CONFIG_IP_MULTIPLE_TABLES, when
only peers that bind their source address, like rping -I, do).

Results go to \$CQN_BUILD/vm/KERNEL-DATE-PID/ (/mnt/out in the guest):
  output.log   CMD's stdout and stderr (also streamed here live)
  rc           CMD's exit status ("setup-failed" if the guest setup failed)
  console.log  the kernel's serial console
  dmesg.txt, kmemleak.txt, tainted.txt   the gate evidence
  kmemleak-clock.txt   the guest's uptime and jiffies, read together at
               the gate (to date kmemleak's allocations)
  test-windows.txt     "START END SCRIPT: TEST" per test run by
               scripts/tests/lib.sh (uptime seconds): a kmemleak report is
               traced to the test during which the object was allocated,
               and that test gets a "not ok" line of its own
  init.log, stage, vm.conf, qemu.cmd, qemu.log   harness details

Exit status:
  0-123  CMD's own exit status, the gate passed
  124    timeout: QEMU was killed after --timeout seconds
  125    gate failed: a kernel splat (BUG, WARNING, KASAN, lockdep, RCU,
         hung task, soft lockup, Oops, panic, UBSAN, list corruption,
         ODEBUG, kmemleak), a kmemleak report, a taint other than O, E, N,
         or the guest died before finishing
  126    could not run CMD: kernel not built, initramfs or QEMU failure,
         the guest did not reach vm-init within 300 s, guest setup (rxe)
         failed
  2      bad usage
  (CMD's own 124-126 are passed through as they are.)
EOF
}

kernel=debug
smp=2
tcg_threads=multi
mem=2G
timeout=900
stall=600
rxe=1
append=
socket_nic=
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel|--smp|--tcg-threads|--mem|--timeout|--stall|--append|--socket-nic)
		[ $# -ge 2 ] || { usage >&2; exit 2; }
		case "$1" in
		--kernel) kernel=$2 ;;
		--socket-nic) socket_nic=$2 ;;
		--smp) smp=$2 ;;
		--tcg-threads) tcg_threads=$2 ;;
		--mem) mem=$2 ;;
		--timeout) timeout=$2 ;;
		--stall) stall=$2 ;;
		--append) append=$2 ;;
		esac
		shift 2 ;;
	--no-rxe) rxe=0; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) echo "vm-run: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "vm-run: no command given" >&2; usage >&2; exit 2; }
kind=$(cqn_kernel_kind "$kernel") || { echo "vm-run: --kernel debug|6.1|6.12" >&2; exit 2; }
[[ "$smp" =~ ^[1-9][0-9]*$ ]] || { echo "vm-run: bad --smp '$smp'" >&2; exit 2; }
case $tcg_threads in
multi|single) ;;
*) echo "vm-run: --tcg-threads multi|single, not '$tcg_threads'" >&2; exit 2 ;;
esac
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || { echo "vm-run: bad --timeout '$timeout'" >&2; exit 2; }
[[ "$stall" =~ ^[0-9]+$ ]] || { echo "vm-run: bad --stall '$stall'" >&2; exit 2; }
nic_args=()
if [ -n "$socket_nic" ]; then
	hx='[0-9a-fA-F]{2}'
	[[ "$socket_nic" =~ ^(listen|connect):([1-9][0-9]{0,4})(,mac=($hx(:$hx){5}))?$ ]] ||
		{ echo "vm-run: bad --socket-nic '$socket_nic'" >&2; exit 2; }
	# Only loopback addresses may be used on these machines.
	nic_args=(-netdev "socket,id=pair,${BASH_REMATCH[1]}=127.0.0.1:${BASH_REMATCH[2]}"
		-device "virtio-net-pci,netdev=pair,mac=${BASH_REMATCH[4]:-52:54:00:78:00:01}")
fi
