#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Permissions, one of the robust suites (scripts/tests/lib.sh "the robust
# suites"): what an unprivileged user may read and write in configfs and
# debugfs, and the modes the module gives its debugfs files. The test is
# followed by the kernel gate of cqn_run_tests (splats) and the VM's
# kmemleak scan at the end.
. "$(dirname "$0")/lib.sh"

ALL_TESTS="
	permissions
"

# The modes the module gives its debugfs files (src/debugfs.c): read-only
# stats 0400, knobs that can be read 0600, write-only controls 0200.
PERM_MODES="stats:400 latency:400 cq:400 reset:200 fault_drop_events:200
	fault_spurious_events:200 fault_arm_delay_us:200 fault_qp_error:200 fault_cq_undersize:600
	fault_stop_replenish:600 fault_rnr_retry:600 fault_drain_short:600"

# debugfs is mounted with a 0700 root: nobody would be refused at the mount
# point whatever modes the module's files have. permissions opens the root
# to 0755 for the test (the module's directories are 0755) and restores it.
permissions()
{
	local mode rc

	command -v setpriv >/dev/null || { fail "setpriv (util-linux) missing"; return 1; }
	mode=$(stat -c %a /sys/kernel/debug) || { fail "stat /sys/kernel/debug"; return 1; }
	chmod 0755 /sys/kernel/debug || { fail "chmod the debugfs root"; return 1; }
	permissions_checks
	rc=$?
	chmod "$mode" /sys/kernel/debug
	chmod 0400 "$CQN_DFS/srv/stats" 2>/dev/null
	return $rc
}

permissions_checks()
{
	local as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups" f n=0 k=0 fm out

	robust_setup || return 1
	start_server || return 1
	# Positive controls: nobody reaches the module's files (the refusals
	# below come from their modes), and reads what anyone may read.
	out=$($as_nobody ls "$CQN_DFS/srv" 2>&1)
	expect_match "$out" "^stats$" "nobody lists the endpoint's debugfs directory" || return 1
	expect_eq "$($as_nobody cat "$CQN_CFS/endpoints/srv/port" 2>&1)" 7471 \
		"nobody reads configfs port (0644)" || return 1
	chmod 0444 "$CQN_DFS/srv/stats" || { fail "chmod 0444 stats"; return 1; }
	out=$($as_nobody cat "$CQN_DFS/srv/stats" 2>&1)
	expect_match "$out" "^msgs_sent [0-9]+$" "nobody reads stats made 0444 for the control" ||
		return 1
	chmod 0400 "$CQN_DFS/srv/stats" || { fail "chmod 0400 stats"; return 1; }
	$as_nobody sh -c "echo 7000 > $CQN_CFS/endpoints/srv/port" 2>/dev/null &&
		{ fail "nobody wrote a configfs attribute"; return 1; }
	$as_nobody sh -c "mkdir $CQN_CFS/endpoints/evil" 2>/dev/null &&
		{ fail "nobody created an endpoint"; return 1; }
	$as_nobody sh -c "rmdir $CQN_CFS/endpoints/srv" 2>/dev/null &&
		{ fail "nobody removed an endpoint"; return 1; }
	n=$((n + 3))
	for f in "$CQN_DFS"/srv/stats "$CQN_DFS"/srv/latency "$CQN_DFS"/srv/cq "$CQN_DFS"/devices; do
		$as_nobody cat "$f" >/dev/null 2>&1 &&
			{ fail "nobody read debugfs ${f#"$CQN_DFS"/}"; return 1; }
		$as_nobody sh -c "echo 1 > $f" 2>/dev/null &&
			{ fail "nobody wrote debugfs ${f#"$CQN_DFS"/}"; return 1; }
		n=$((n + 2))
	done
	# Every control and fault knob there is, written and read.
	for f in "$CQN_DFS"/srv/reset "$CQN_DFS"/srv/fault_*; do
		$as_nobody sh -c "echo 1 > $f" 2>/dev/null &&
			{ fail "nobody wrote ${f##*/}"; return 1; }
		$as_nobody cat "$f" >/dev/null 2>&1 &&
			{ fail "nobody read ${f##*/}"; return 1; }
		n=$((n + 2)) k=$((k + 1))
	done
	[ "$k" -ge 7 ] || { fail "only $k debugfs controls found"; return 1; }
	# Root passes the modes: a write-only control refuses to be read.
	for f in reset fault_drop_events fault_spurious_events fault_arm_delay_us fault_qp_error; do
		cat "$CQN_DFS/srv/$f" >/dev/null 2>&1 && { fail "root read write-only $f"; return 1; }
		n=$((n + 1))
	done
	# And the modes the module gave (every file named, none missing).
	for fm in $PERM_MODES; do
		f=$CQN_DFS/srv/${fm%%:*}
		expect_eq "$(stat -c %a "$f" 2>&1)" "${fm#*:}" "mode of ${f##*/}" || return 1
	done
	# Nothing nobody tried took effect.
	expect_eq "$(ep_attr srv port)" 7471 "port" || return 1
	expect_eq "$(ep_attr srv state)" running "server state" || return 1
	expect_eq "$(<"$CQN_DFS/srv/fault_cq_undersize")" 0 "fault_cq_undersize" || return 1
	expect_eq "$(<"$CQN_DFS/srv/fault_stop_replenish")" 0 "fault_stop_replenish" || return 1
	expect_eq "$(<"$CQN_DFS/srv/fault_drain_short")" 0 "fault_drain_short" || return 1
	[ ! -e "$CQN_CFS/endpoints/evil" ] || { fail "endpoint evil exists"; return 1; }
	# Each attempt above was refused, and checked to be.
	reliability bad_inputs=$n
	ep_remove srv
}

cqn_run_suite srv
