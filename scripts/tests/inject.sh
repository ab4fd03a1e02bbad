#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Injected failures, one of the robust suites (scripts/tests/lib.sh "the
# robust suites"): fail_function in every setup step of a connection and
# of a listener, failslab in the allocations of an enable. The debug
# kernel only: Debian's kernels have no fault injection, and skip both.
# Each test is followed by the kernel gate of cqn_run_tests (splats) and
# the VM's kmemleak scan at the end.
. "$(dirname "$0")/lib.sh"

ALL_TESTS="
	fail_function_setup_steps
	failslab_during_enable
	srq_device_without_srq
"
FAILFN=/sys/kernel/debug/fail_function
FAILSLAB=/sys/kernel/debug/failslab
if [ "$CQN_KERNEL" != debug ]; then
	# Debian's kernels have no fault injection (CONFIG_FAULT_INJECTION unset).
	CQN_SKIP[fail_function_setup_steps]="the stock $CQN_KSERIES kernel has no fault injection"
	CQN_SKIP[failslab_during_enable]="the stock $CQN_KSERIES kernel has no fault injection"
	CQN_SKIP[srq_device_without_srq]="the stock $CQN_KSERIES kernel has no fault injection"
fi

# inject FUNCTION [SPACE]: a call of FUNCTION returns -ENOMEM, once; with
# SPACE, the calls pass while SPACE > 1 (fault-inject's "space" budget).
inject()
{
	echo "$1" >$FAILFN/inject || { fail "fail_function cannot inject $1"; return 1; }
	# retval is read as an unsigned 64-bit number: -ENOMEM in two's complement.
	printf '%#x' -12 >"$FAILFN/$1/retval" &&
		echo 100 >$FAILFN/probability && echo 1 >$FAILFN/times &&
		echo "${2:-0}" >$FAILFN/space && echo 0 >$FAILFN/interval &&
		echo 0 >$FAILFN/verbose
}

uninject()
{
	echo 2>/dev/null >$FAILFN/inject
	echo 0 2>/dev/null >$FAILFN/probability
}

fail_function_setup_steps()
{
	local fn faults=0 verified=0 lost=0

	[ -d $FAILFN ] || { fail "no fail_function in debugfs"; return 1; }
	robust_setup || return 1
	start_server || return 1
	# Client side: each step of building its connection, and resolving.
	for fn in cqn_cm_resolve cqn_conn_alloc_pd cqn_cq_create cqn_conn_create_qp \
		  cqn_conn_alloc_rings; do
		ep_remove cli
		ep_create cli role=client addr=$SERVER_ADDR iterations=20 || return 1
		inject $fn || return 1
		printf 1 >"$CQN_CFS/endpoints/cli/enable" 2>/dev/null
		ep_wait_state cli error 60 || { uninject; return 1; }
		uninject
		expect_match "$(ep_attr cli last_error)" "failed: -(ENOMEM|12)" "last_error after $fn" ||
			return 1
		ep_enable cli 0 && ep_enable cli 1 && ep_wait_state cli done 120 || return 1
		run_lost cli || return 1
		verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
		check_clean_run cli 20 || { reliability faults=$faults verified=$verified lost=$lost; return 1; }
		faults=$((faults + 1))
	done
	# Server side: its connection setup fails (the client's went first).
	ep_remove cli
	ep_create cli role=client addr=$SERVER_ADDR iterations=20 || return 1
	# space 2: the first call (size 1) passes (space > size), the next fails.
	inject cqn_conn_alloc_rings 2 || return 1
	ep_enable cli 1 || { uninject; return 1; }
	ep_wait_state cli error 60 || { uninject; return 1; }
	uninject
	expect_match "$(ep_attr cli last_error)" "rejected" "client of a failing server" || return 1
	[ "$(ep_stat srv conns_rejected)" -ge 1 ] || { fail "server did not count the rejection"; return 1; }
	ep_enable cli 0 && ep_enable cli 1 && ep_wait_state cli done 120 || return 1
	run_lost cli || return 1
	verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
	check_clean_run cli 20 || { reliability faults=$faults verified=$verified lost=$lost; return 1; }
	faults=$((faults + 1))
	# The listener itself.
	ep_remove cli srv
	ep_create srv role=server addr=$SERVER_ADDR || return 1
	inject cqn_cm_listen_id || return 1
	expect_write_err "$CQN_CFS/endpoints/srv/enable" 1 "Cannot allocate memory" ||
		{ uninject; return 1; }
	uninject
	expect_eq "$(ep_attr srv state)" error "server state after a failed listen" || return 1
	expect_match "$(ep_attr srv last_error)" "listen .* failed: -(ENOMEM|12)" "server last_error" ||
		return 1
	ep_enable srv 1 && ep_wait_state srv running 10 || return 1
	faults=$((faults + 1))
	echo "figure: $faults injected setup failures, each a clean error, each recovered"
	reliability faults=$faults verified=$verified lost=$lost
	ep_remove srv
}

# srq=1 on a device without shared receive queues (max_srq 0: neither rxe
# nor siw is one, so cqn_srq_dev_max_srq() is made to return 0, a
# fail_function of the NULL type): enable fails with -EOPNOTSUPP, the
# endpoint stays disabled with last_error naming the device, nothing is
# created or left (no SRQ, the devices hold what they held), and without
# the fault the same endpoint runs a clean client.
srq_device_without_srq()
{
	local res0 why

	[ -d $FAILFN ] || { fail "no fail_function in debugfs"; return 1; }
	robust_setup || return 1
	ep_create srv role=server addr=$SERVER_ADDR srq=1 srq_depth=64 || return 1
	res0=$(rdma_res)
	echo cqn_srq_dev_max_srq >$FAILFN/inject && echo 100 >$FAILFN/probability &&
		echo -1 >$FAILFN/times && echo 0 >$FAILFN/space && echo 0 >$FAILFN/interval ||
		{ fail "fail_function cannot inject cqn_srq_dev_max_srq"; uninject; return 1; }
	expect_write_err "$CQN_CFS/endpoints/srv/enable" 1 "Operation not supported" ||
		{ uninject; return 1; }
	uninject
	expect_eq "$(ep_attr srv enable)" 0 "enable after the refusal" || return 1
	why=$(ep_attr srv last_error)
	expect_match "$why" \
		"srq=1: device $SRV_DEV has no shared receive queues \(max_srq 0\)" "last_error" || return 1
	ep_stats srv || return 1
	expect_eq "${STATS[srq]}/${STATS[srqs]}/${STATS[wr_posted]}" 0/0/0 "srq/srqs/wr_posted" ||
		return 1
	wait_for 30 rdma_res_is "$res0" ||
		{ fail "resources after the refusal: $(rdma_res), before: $res0"; return 1; }
	ep_enable srv 1 && ep_wait_state srv running 10 || return 1
	ep_remove cli
	ep_create cli role=client addr=$SERVER_ADDR iterations=20 || return 1
	ep_enable cli 1 && ep_wait_state cli done 120 || return 1
	check_clean_run cli 20 || return 1
	[ "$(ep_stat srv srqs)" -ge 1 ] || { fail "no SRQ once the device has them"; return 1; }
	reliability bad_inputs=1
	echo "figure: srq=1 on a device without SRQs: '$why'; then 20/20 verified over an SRQ"
	ep_remove cli srv
}

# rdma_res: the RDMA resources (pd, cq, qp, cm_id, mr ...) each device
# holds now, one line a device ("rdma resource show").
rdma_res()
{
	rdma resource show 2>&1
}

# rdma_res_is TEXT: the devices hold what TEXT says (a leak check: what a
# failed attempt allocated was all released).
rdma_res_is()
{
	[ "$(rdma_res)" = "$1" ]
}

# failslab_enable EP SPACE: enable EP with failslab failing the first slab
# allocation past a budget of SPACE bytes made by the writing task
# (task-filter, make-it-fail), once. The file is opened before the task is
# marked, so that only the write, and what the module allocates for it, can
# fail (a redirection after the mark fails in open(), and the module never
# sees the write). Sets FS_RC (the write's status) and FS_ERR (its error).
failslab_enable()
{
	echo 1 >$FAILSLAB/times
	echo "$2" >$FAILSLAB/space
	(
		exec 3>"$CQN_CFS/endpoints/$1/enable" || exit 99
		echo 1 >/proc/self/make-it-fail || exit 99
		printf 1 >&3
	) 2>/tmp/cqn-failslab.err
	FS_RC=$?
	echo 0 >$FAILSLAB/times
	FS_ERR=$(</tmp/cqn-failslab.err)
	[ $FS_RC != 99 ] || fail "could not set up the attempt on $1 at space $2"
}

# failslab during enable, of a client (its rdma_cm id, address resolution)
# and of a second server (its id, bind, listen): at least one enable of
# each must fail with -ENOMEM through the module (the write's error, state
# error and last_error naming it); after each attempt the RDMA devices
# hold exactly what they held before it (a server's id is bound to rxe0:
# one left behind shows), and a later enable of each runs clean.
failslab_during_enable()
{
	local ep space why tried=0 failed=0 enomem=0 srv_enomem=0 res0 figs=

	[ -d $FAILSLAB ] || { fail "no failslab in debugfs"; return 1; }
	robust_setup || return 1
	start_server || return 1
	res0=$(rdma_res)
	echo Y >$FAILSLAB/task-filter && echo 100 >$FAILSLAB/probability &&
		echo 0 >$FAILSLAB/interval && echo 0 >$FAILSLAB/verbose &&
		echo N >$FAILSLAB/ignore-gfp-wait 2>/dev/null
	for ep in cli fsrv; do
		for space in 0 1024 4096 16384; do
			ep_remove $ep
			if [ $ep = cli ]; then
				ep_create cli role=client addr=$SERVER_ADDR iterations=10 || return 1
			else
				ep_create fsrv role=server addr=$SERVER_ADDR port=7480 || return 1
			fi
			failslab_enable $ep $space || { echo 0 >$FAILSLAB/probability; return 1; }
			tried=$((tried + 1))
			ep_wait_state $ep "done|error|idle|running" 120 ||
				{ echo 0 >$FAILSLAB/probability; return 1; }
			why=$(ep_attr $ep last_error)
			if [ $FS_RC != 0 ]; then
				failed=$((failed + 1))
				expect_eq "$(ep_attr $ep state)" error "$ep state after a failed enable (space $space)" ||
					return 1
				expect_eq "$(ep_attr $ep enable)" 0 "$ep enable after a failed enable" || return 1
				if [[ $FS_ERR == *"Cannot allocate memory"* && $why =~ ENOMEM|-12 ]]; then
					enomem=$((enomem + 1))
					[ $ep = cli ] || srv_enomem=$((srv_enomem + 1))
				fi
				figs+="${figs:+; }$ep space $space: refused (${FS_ERR##*: }), '$why'"
			else
				figs+="${figs:+; }$ep space $space: enabled, state $(ep_attr $ep state)"
			fi
			printf 0 >"$CQN_CFS/endpoints/$ep/enable"
			# Nothing of the attempt is left on the devices.
			wait_for 30 rdma_res_is "$res0" ||
				{ fail "$ep space $space: resources $(rdma_res), before: $res0"; return 1; }
		done
	done
	echo 0 >$FAILSLAB/probability
	echo "figure: failslab during enable: $tried attempts, $failed refused, $enomem with -ENOMEM through the module: $figs"
	[ $((enomem - srv_enomem)) -ge 1 ] && [ $srv_enomem -ge 1 ] ||
		{ fail "no enable of a client and of a server failed with -ENOMEM ($figs)"; return 1; }
	ep_enable fsrv 1 && ep_wait_state fsrv running 10 && ep_enable fsrv 0 || return 1
	ep_enable cli 0 && ep_enable cli 1 && ep_wait_state cli done 120 || return 1
	run_lost cli || return 1
	reliability faults=$failed verified=$RUN_VERIFIED lost=$RUN_LOST
	check_clean_run cli 10 || return 1
	ep_enable cli 0 || return 1
	wait_for 30 rdma_res_is "$res0" ||
		{ fail "after the clean runs: resources $(rdma_res), before: $res0"; return 1; }
	ep_remove cli fsrv srv
}

cqn_run_tests
rc=$?
uninject
echo 0 2>/dev/null >$FAILSLAB/probability
ep_remove cli fsrv srv 2>/dev/null
cqn_unload 2>/dev/null
exit $rc
