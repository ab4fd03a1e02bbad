#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that scripts/vm-run's gate works: a WARN and a kmemleak report made
# on purpose by scripts/selftest/cqn_splat.ko must fail the run (exit 125)
# and the test that made them (each test's own gate, in lib.sh), a
# clean load/unload must pass, the command's own status must come back,
# --timeout must kill a hung guest (exit 124), and a kernel that dies while
# booting is booted once more, not twice. Runs on the host, a few minutes
# in all.
#
# Usage: scripts/tests/harness_selftest.sh
set -eu
. "$(dirname "$0")/../lib.sh"

[ -z "${CQN_IN_VM:-}" ] || cqn_die "run this on the host, not in the VM"
kdir=$(cqn_debug_kdir)
[ -f "$kdir/.cqn-built" ] || cqn_die "the debug kernel is not built: run scripts/build-kernel"

dir=$CQN_BUILD/selftest
ko=$dir/cqn_splat.ko
failed=0

ok()
{
	echo "ok - $1"
}

not_ok()
{
	echo "not ok - $1: $2"
	failed=1
}

# vm NAME VM-RUN-ARGS...: run vm-run, keeping its output in $dir/NAME.log
# and its exit status in $status.
vm()
{
	local name=$1

	shift
	cqn_log "harness_selftest@[^:]*: $name"
	status=0
	"$CQN_TOP/scripts/vm-run" "$@" >"$dir/$name.log" 2>&1 || status=$?
}

# gate_caught WHAT NAME GATE EVIDENCE WHY: the last vm run (NAME, its log
# $dir/NAME.log) must have failed the gate (exit 125) with "GATE FAILED:
# GATE" and a line matching the regex EVIDENCE; else not ok, saying WHY.
gate_caught()
{
	local log=$dir/$2.log

	if [ "$status" != 125 ]; then
		not_ok "$1" "exit $status, want 125 (see $log)"
	elif ! grep -q "GATE FAILED: $3" "$log" || ! grep -qE "$4" "$log"; then
		not_ok "$1" "$5 in $log"
	else
		ok "$1"
	fi
}

# Build against the debug kernel, out of the checkout's source tree.
rm -rf "$dir"
mkdir -p "$dir"
cp "$CQN_TOP"/scripts/selftest/{cqn_splat.c,Kbuild} "$dir/"
cqn_log "harness_selftest@[^:]*: building cqn_splat.ko"
if make -C "$kdir" M="$dir" modules >"$dir/build.log" 2>&1 && [ -f "$ko" ]; then
	ok "build cqn_splat.ko"
else
	not_ok "build cqn_splat.ko" "see $dir/build.log"
	exit 1
fi

# One debug VM plants both: a leak, made by the first test, and a WARN, made
# by the middle one of the three after it, all run as the suites run theirs
# (lib.sh's cqn_run_tests, which records each test's window). The VM's gate
# must fail the run for each and name the test that leaked; the test's own
# gate must fail the test that splatted and only it. (One VM where there
# were two: the debug kernel's boot and kmemleak scans are a minute and a
# half of make check's longer lane.)
vm planted --no-rxe --tcg-threads "$(cqn_tcg_threads debug)" -- env CQN_SPLAT_KO="$ko" bash -c \
	'. scripts/tests/lib.sh; planted_leak() { insmod "$CQN_SPLAT_KO" kind=leak && rmmod cqn_splat; }
	 quiet_before() { sleep 1; }
	 planted_warn() { insmod "$CQN_SPLAT_KO" kind=warn; }
	 quiet_after() { sleep 1; }
	 ALL_TESTS="planted_leak quiet_before planted_warn quiet_after"; cqn_run_tests' harness_selftest
gate_caught "gate catches a WARN" planted 'kernel splat' 'WARNING: .*cqn_splat' \
	"no WARNING line from cqn_splat"
if grep -q '^not ok - harness_selftest@[^:]*: planted_warn: kernel splat' "$dir/planted.log" &&
	grep -q '^ok - harness_selftest@[^:]*: quiet_before$' "$dir/planted.log" &&
	grep -q '^ok - harness_selftest@[^:]*: quiet_after$' "$dir/planted.log"; then
	ok "a test's own gate fails the test that splats, and only it"
else
	not_ok "a test's own gate fails the test that splats, and only it" \
		"want planted_warn not ok, quiet_before and quiet_after ok (see $dir/planted.log)"
fi
gate_caught "gate catches a kmemleak report" planted kmemleak 'unreferenced object' \
	"no kmemleak report"
if grep -q 'GATE FAILED: kmemleak: .* allocated during: harness_selftest@[^:]*: planted_leak' "$dir/planted.log" &&
	grep -q '^not ok - harness_selftest@[^:]*: planted_leak: kmemleak' "$dir/planted.log"; then
	ok "gate names the test that leaked"
else
	not_ok "gate names the test that leaked" "no leak traced to planted_leak in $dir/planted.log"
fi

vm none --no-rxe --tcg-threads "$(cqn_tcg_threads debug)" -- sh -c "insmod '$ko' kind=none && rmmod cqn_splat"
if [ "$status" = 0 ]; then
	ok "clean load and unload passes the gate"
else
	not_ok "clean load and unload passes the gate" "exit $status, want 0 (see $dir/none.log)"
fi

# On the distro kernel, which also covers its initramfs path.
vm status --kernel distro --no-rxe -- sh -c 'exit 3'
if [ "$status" = 3 ]; then
	ok "command exit status passes through"
else
	not_ok "command exit status passes through" "exit $status, want 3 (see $dir/status.log)"
fi

# The timeout is the runner's, not the kernel's: the distro kernel boots in
# seconds, so 30 s leave a running command to kill.
vm timeout --kernel distro --no-rxe --timeout 30 -- sleep 1000
if [ "$status" = 124 ] && grep -q 'TIMEOUT' "$dir/timeout.log"; then
	ok "--timeout kills a hung guest"
else
	not_ok "--timeout kills a hung guest" "exit $status, want 124 (see $dir/timeout.log)"
fi

# A kernel that dies before vm-init is booted once more, and a second
# death fails the gate: here both boots panic for want of an init.
vm boot_death --kernel distro --no-rxe --append rdinit=/nonexistent -- true
if [ "$status" = 125 ] && grep -q 'died while booting, before vm-init: Kernel panic' "$dir/boot_death.log" &&
	[ "$(grep -c 'guest finished after' "$dir/boot_death.log")" = 2 ] &&
	grep -q 'GATE FAILED: the guest died before the command finished' "$dir/boot_death.log"; then
	ok "a kernel that dies while booting boots once more, then fails the gate"
else
	not_ok "a kernel that dies while booting boots once more, then fails the gate" \
		"exit $status, want 125 after two boots (see $dir/boot_death.log)"
fi

exit "$failed"
