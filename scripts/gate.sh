# SPDX-License-Identifier: GPL-2.0
# What the kernel gate looks for, held once for its three users:
# scripts/vm-run (the VM's gate, on the host, after the run),
# scripts/vm/init (collects its evidence in the guest) and
# scripts/tests/lib.sh (each test's own gate, in the guest).
# shellcheck shell=bash disable=SC2034 # the variables are for those scripts

# A kernel log line matching this fails the test or the run: a BUG or
# WARNING, KASAN, lockdep, RCU, hung-task and soft-lockup reports, an oops
# or panic (a general protection fault in the kernel: "general protection
# fault, probably for non-canonical address ...", "...: 0000 [#1]"; a user
# program's is "traps: prog[pid] general protection fault ip:..." and, as
# its segfaults, is the program's: stop 28's make check saw perftest's
# ib_send_bw die so in librdmacm after a failed connect), UBSAN, list and
# object debugging. Not kmemleak's: its reports
# are read from its own file after cqn_kmemleak_scan, where each object's
# allocation is dated; the line its background scan logs would blame
# whichever test happened to be running.
CQN_SPLAT_RE='BUG:|WARNING:|KASAN|circular locking|recursive locking|inconsistent lock state'
CQN_SPLAT_RE+='|suspicious RCU|blocked for more than|soft lockup|Oops|Kernel panic'
CQN_SPLAT_RE+='|general protection fault([,:]| in )|UBSAN|list_add corruption|list_del corruption|ODEBUG'

# The taint flags allowed: O (12, out-of-tree module) and E (13, unsigned
# module), set when cqnotify is first loaded, and N (18, KUnit tests ran).
CQN_TAINT_OK=$(((1 << 12) | (1 << 13) | (1 << 18)))

CQN_KMEMLEAK=/sys/kernel/debug/kmemleak

# cqn_kmemleak_scan: have kmemleak report what leaked so far. It reports an
# object only when it is at least 5 s old at the start of a scan and was
# found unreferenced by two scans (6.1 checksums it in between): scan,
# wait 5 s, scan again. Returns non-zero where there is no kmemleak.
cqn_kmemleak_scan()
{
	[ -w "$CQN_KMEMLEAK" ] || return 1
	echo scan >"$CQN_KMEMLEAK"
	sleep 5
	echo scan >"$CQN_KMEMLEAK"
}
