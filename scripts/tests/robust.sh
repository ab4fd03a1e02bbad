#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reliability and security on the debug kernel: a soak over four
# connections, devices and providers removed under traffic, enable toggled
# under traffic, injected failures in every setup step and in slab
# allocations, a CQ overflow and RNR retries running out (debugfs fault
# knobs), hostile configfs input, hostile peers on the wire (a client that
# breaks the protocol, a server whose intact echoes lie about their order),
# and permissions. Each test is followed by the kernel gate of cqn_run_tests
# (splats) and the VM's kmemleak scan at the end.
. "$(dirname "$0")/lib.sh"

ALL_TESTS="
	soak_four_connections
	enable_toggled_under_traffic
	link_delete_repeated
	rxe_unload_under_traffic
	qp_error_reconnect
	reconnect_gives_up
	fail_function_setup_steps
	failslab_during_enable
	cq_overflow
	cq_overflow_rebuilds
	rnr_retry_exceeded
	configfs_fuzz
	configfs_state_sequences
	hostile_peer
	hostile_server_faithful
	hostile_server_wrong_seq
	hostile_server_duplicate
	hostile_server_reorder
	permissions
"
FAILFN=/sys/kernel/debug/fail_function
FAILSLAB=/sys/kernel/debug/failslab
# Rounds of the repeated tests: 10 link deletions and 20 enable toggles
# under traffic, on both kernels.
LINK_ROUNDS=10
TOGGLES=20
# hostile_peer: oversized messages per size (one connection each), empty
# and lying messages per run, connections per flood and flood rounds.
HP_OVERSIZE=10
HP_MSGS=200
HP_FLOOD=24
HP_ROUNDS=3
HP_MAX_CONNS=4
HOSTILE_BIN=$CQN_TOP/build/tools/cqn_hostile
# hostile_server_*: messages a client streams through cqn_hostile -m serve,
# one lie in every HS_EVERY, HS_LIES of them (the last well before the end).
HS_PORT=7472
HS_N=200
HS_EVERY=40
HS_LIES=4
if [ "$CQN_KERNEL" = debug ]; then
	HP_OVERSIZE=3
	HP_MSGS=50
	HP_FLOOD=12
	HP_ROUNDS=2
	HS_N=100
	HS_EVERY=25
	HS_LIES=3
else
	# Debian's kernels have no fault injection (CONFIG_FAULT_INJECTION unset).
	CQN_SKIP[fail_function_setup_steps]="the stock $CQN_KSERIES kernel has no fault injection"
	CQN_SKIP[failslab_during_enable]="the stock $CQN_KSERIES kernel has no fault injection"
fi

setup()
{
	rxe_reload || { fail "rxe0/rxe1 missing and cannot be re-added"; return 1; }
	cqn_load || return 1
	ep_remove srv cli good c0 c1 c2 c3 fsrv
}

# endless_client NAME [ATTR=VALUE...]: a client streaming until disabled.
endless_client()
{
	local name=$1

	shift
	ep_create "$name" role=client addr=$SERVER_ADDR workload=stream queue_depth=8 \
		iterations=0 duration_ms=0 "$@" || return 1
	ep_enable "$name" 1 && ep_wait_state "$name" running 60
}

soak_four_connections()
{
	local sizes=(1 4095 4096 65536) i n total=0

	setup || return 1
	start_server msg_size=65536 send_depth=16 recv_depth=16 cq_depth=64 || return 1
	for i in 0 1 2 3; do
		n=$((N * 2))
		[ "${sizes[$i]}" -gt 4096 ] && n=$((N / 2))
		ep_create c$i role=client addr=$SERVER_ADDR workload=stream queue_depth=8 \
			send_depth=16 recv_depth=16 cq_depth=64 msg_size=${sizes[$i]} \
			iterations=$n || return 1
	done
	for i in 0 1 2 3; do
		ep_enable c$i 1 || return 1
	done
	local sent=0 verified=0 lost=0
	for i in 0 1 2 3; do
		ep_wait_state c$i done 600 || return 1
		run_lost c$i || return 1
		sent=$((sent + STATS[msgs_sent]))
		verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
	done
	reliability verified=$verified lost=$lost
	for i in 0 1 2 3; do
		n=$((N * 2))
		[ "${sizes[$i]}" -gt 4096 ] && n=$((N / 2))
		check_clean_run c$i $n || return 1
		total=$((total + n))
	done
	# The server received every message. Its echoes' own send completions
	# may be flushed by a client's disconnect, which can overtake their
	# acknowledgements (6.12's rxe): once its connections are gone, every
	# work request it posted completed once, one way or another.
	wait_stat 30 srv msgs_received = $total || return 1
	wait_stat 30 srv conns_active = 0 || return 1
	check_accounted srv || return 1
	expect_eq "$(ep_stat srv msg_errors)" 0 "server msg_errors" || return 1
	expect_eq "$(ep_stat srv wc_errors)" 0 "server wc_errors" || return 1
	echo "figure: 4 connections, sizes ${sizes[*]}: clients sent $sent, verified $verified; server received $(ep_stat srv msgs_received), echo completions $(ep_stat srv msgs_sent) (+ flushed by the disconnects)"
	ep_remove c0 c1 c2 c3 srv
}

enable_toggled_under_traffic()
{
	local i verified=0 lost=0

	setup || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=8 iterations=0 \
		duration_ms=0 || return 1
	for i in $(seq 1 $TOGGLES); do
		ep_enable cli 1 && ep_wait_state cli running 60 || return 1
		wait_stat 30 cli msgs_verified -gt 0 || return 1
		ep_enable cli 0 || return 1
		stop_lost cli 8 || return 1
		verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
		check_stopped cli || { reliability faults=$i verified=$verified lost=$lost; return 1; }
	done
	reliability faults=$TOGGLES verified=$verified lost=$lost
	expect_eq "$(ep_attr srv state)" running "server after $TOGGLES client runs" || return 1
	wait_stat 30 srv conns_active = 0 || return 1
	# rmdir of a running endpoint stops it first.
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	rmdir "$CQN_CFS/endpoints/cli" || { fail "rmdir of a running client"; return 1; }
	rmdir "$CQN_CFS/endpoints/srv" || { fail "rmdir of a running server"; return 1; }
	echo "figure: $TOGGLES enable toggles under traffic, $verified echoes verified, 0 errors, $lost lost beyond the 8 a stop may leave in flight"
}

link_delete_repeated()
{
	local i verified=0 lost=0

	setup || return 1
	start_server || return 1
	for i in $(seq 1 $LINK_ROUNDS); do
		ep_remove cli
		endless_client cli || return 1
		wait_stat 30 cli msgs_verified -gt 5 || return 1
		timeout 120 rdma link delete rxe1 || { fail "rdma link delete rxe1 (round $i)"; return 1; }
		ep_wait_state cli error 60 || return 1
		expect_match "$(ep_attr cli last_error)" "rxe1" "last_error names the device" ||
			return 1
		rdma link add rxe1 type rxe netdev veth1 || { fail "rdma link add rxe1"; return 1; }
		stop_lost cli 8 || return 1
		verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
		check_stopped cli || { reliability faults=$i verified=$verified lost=$lost; return 1; }
	done
	wait_stat 60 srv conns_active = 0 || return 1
	ep_remove cli
	run_client cli iterations=$N || { reliability faults=$LINK_ROUNDS verified=$verified lost=$lost; return 1; }
	run_lost cli || return 1
	reliability faults=$LINK_ROUNDS verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
	check_clean_run cli $N || return 1
	echo "figure: $LINK_ROUNDS link deletions under traffic survived ($verified echoes verified before them, $lost lost beyond the 8 a stop may leave in flight), service works after"
	ep_remove cli srv
}

# rxe_reload: bring rxe0 and rxe1 back (vm-init's routing stays).
rxe_reload()
{
	lsmod | grep -q '^rdma_rxe' || modprobe rdma_rxe || return 1
	[ -e /sys/class/infiniband/rxe0 ] || rdma link add rxe0 type rxe netdev veth0 || return 1
	[ -e /sys/class/infiniband/rxe1 ] || rdma link add rxe1 type rxe netdev veth1
}

rxe_unload_under_traffic()
{
	local ok=1 verified lost

	setup || return 1
	start_server || return 1
	endless_client cli || return 1
	wait_stat 30 cli msgs_verified -gt 5 || return 1
	timeout 120 rmmod rdma_rxe || { fail "rmmod rdma_rxe under traffic"; rxe_reload; return 1; }
	ep_wait_state cli error 60 && stop_lost cli 8 || ok=0
	verified=${RUN_VERIFIED:-0} lost=${RUN_LOST:-0}
	[ $ok = 1 ] && ep_wait_state srv error 60 &&
		expect_match "$(ep_attr cli last_error)" "removed|disconnected" "client last_error" &&
		expect_match "$(ep_attr srv last_error)" "device rxe0 removed" "server last_error" &&
		check_stopped cli || ok=0
	rxe_reload || { fail "reloading rxe"; return 1; }
	[ $ok = 1 ] || return 1
	ep_enable srv 0 && ep_enable srv 1 && ep_wait_state srv running 10 || return 1
	ep_remove cli
	run_client cli iterations=$N || { reliability faults=1 verified=$verified lost=$lost; return 1; }
	run_lost cli || return 1
	reliability faults=1 verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
	check_clean_run cli $N || return 1
	echo "figure: rdma_rxe unloaded under traffic ($verified echoes verified before it, $lost lost beyond the 8 in flight), both ends in error with reasons, service works after"
	ep_remove cli srv
}

# hw_counter DEV NAME: one of rxe's port counters.
hw_counter()
{
	local v

	read -r v <"/sys/class/infiniband/$1/ports/1/hw_counters/$2" || return 1
	echo "$v"
}

# stream_client NAME: an endless stream client, enabled (it may fail at once).
stream_client()
{
	ep_create "$1" role=client addr=$SERVER_ADDR workload=stream queue_depth=16 \
		iterations=0 duration_ms=0 || return 1
	ep_enable "$1" 1
}

# A CQ far below send_depth + recv_depth + 1 (fault_cq_undersize) overflows
# under traffic: on rxe the provider drops completions and raises
# IB_EVENT_CQ_ERR from its tasklet. Client side, then server side.
cq_overflow()
{
	local need=$((64 + 64 + 1)) cqe cfig sfig verified lost

	setup || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=16 \
		iterations=0 duration_ms=0 || return 1
	expect_write "$CQN_DFS/cli/fault_cq_undersize" 1 || return 1
	expect_eq "$(<"$CQN_DFS/cli/fault_cq_undersize")" 1 "fault_cq_undersize read back" || return 1
	ep_enable cli 1 || return 1
	ep_wait_state cli error 60 || return 1
	expect_match "$(ep_attr cli last_error)" "^CQ overflow" "client last_error" || return 1
	cqe=$(ep_attr cli cq_depth_actual)
	[ "$cqe" -lt $need ] || { fail "client CQ of $cqe entries is not undersized"; return 1; }
	expect_eq "$(<"$CQN_DFS/cli/fault_cq_undersize")" 0 "the knob is spent" || return 1
	# Torn down without hanging, every work request accounted for (a
	# connection's counters reach the endpoint's totals once it is gone).
	wait_stat 60 cli conns_closed = 1 || return 1
	[ "$(ep_stat cli cq_overflows)" -ge 1 ] || { fail "client cq_overflows not counted"; return 1; }
	check_accounted cli || return 1
	wait_stat 60 srv conns_active = 0 || return 1
	wait_stat 60 srv conns_closed = 1 || return 1
	check_accounted srv || return 1
	expect_eq "$(ep_stat srv wc_lost)" 0 "server wc_lost (its CQ was sized)" || return 1
	cfig="client CQ size $cqe (rule: $need): '$(ep_attr cli last_error)', cq_overflows $(ep_stat cli cq_overflows), $(accounting cli); server $(accounting srv)"
	# No reconnect mechanism: disable and enable again (the knob was one-shot).
	ep_enable cli 0 || return 1
	ep_remove cli
	# The overflowing runs lose completions by design; the clean runs after
	# them are the reliability figures.
	run_client cli workload=stream queue_depth=16 iterations=$N || return 1
	run_lost cli || return 1
	verified=$RUN_VERIFIED lost=$RUN_LOST
	check_clean_run cli $N || { reliability faults=1 verified=$verified lost=$lost; return 1; }
	expect_eq "$(ep_stat cli wc_lost)" 0 "client wc_lost after re-enable" || return 1
	expect_eq "$(ep_stat cli cq_overflows)" 0 "client cq_overflows after re-enable" || return 1

	# Server side: its next connection's CQ overflows; the server keeps serving.
	ep_remove cli
	wait_stat 60 srv conns_active = 0 || return 1
	wait_stat 60 srv conns_closed = 2 || return 1
	expect_write "$CQN_DFS/srv/reset" 1 || return 1
	expect_write "$CQN_DFS/srv/fault_cq_undersize" 1 || return 1
	stream_client cli || return 1
	ep_wait_state cli error 120 || return 1
	wait_stat 60 srv conns_active = 0 || return 1
	wait_stat 60 srv conns_closed = 1 || return 1
	[ "$(ep_stat srv cq_overflows)" -ge 1 ] || { fail "server cq_overflows not counted"; return 1; }
	check_accounted srv || return 1
	wait_stat 60 cli conns_closed = 1 || return 1
	check_accounted cli || return 1
	expect_eq "$(ep_attr srv state)" running "server state after its CQ overflowed" || return 1
	sfig="server CQ size 1 overflowed: cq_overflows $(ep_stat srv cq_overflows), $(accounting srv); its client: '$(ep_attr cli last_error)'"
	ep_remove cli
	run_client cli iterations=$N || { reliability faults=2 verified=$verified lost=$lost; return 1; }
	run_lost cli || return 1
	verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
	reliability faults=2 verified=$verified lost=$lost
	check_clean_run cli $N || return 1
	echo "figure: $cfig"
	echo "figure: $sfig"
	echo "figure: after each: re-enabled client $N/$N verified, 0 lost"
	ep_remove cli srv
}

# With reconnect=1 a CQ overflow is a lost connection like any other: the
# client's connection is torn down and rebuilt (the knob is one-shot, so the
# new CQ is sized by the rule), and the stream resumes at the first message
# whose echo was not verified. Then the server's CQ overflows: it closes that
# connection, the client connects again. Nothing is lost or duplicated.
cq_overflow_rebuilds()
{
	local before

	setup || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=16 \
		iterations=0 duration_ms=0 reconnect=1 || return 1
	expect_write "$CQN_DFS/cli/fault_cq_undersize" 1 || return 1
	ep_enable cli 1 || return 1
	# The client's first CQ overflows; its second one is sized by the rule.
	wait_stat 60 cli cq_overflows -ge 1 || return 1
	wait_stat 60 cli reconnects -ge 1 || return 1
	ep_wait_state cli running 60 || return 1
	wait_stat 120 cli msgs_verified -gt 100 || return 1
	expect_eq "$(<"$CQN_DFS/cli/fault_cq_undersize")" 0 "client: the knob is spent" || return 1
	expect_match "$(ep_attr cli last_error)" "^CQ overflow" "the loss the client recovered from" ||
		return 1
	# The server's next connection gets a CQ of one entry: a forced QP error
	# makes the client connect again, into it; it overflows, the server
	# closes it, and the client connects a third time.
	expect_write "$CQN_DFS/srv/fault_cq_undersize" 1 || return 1
	expect_write "$CQN_DFS/cli/fault_qp_error" 1 || return 1
	wait_stat 60 srv cq_overflows -ge 1 || return 1
	wait_stat 60 cli reconnects -ge 3 || return 1
	ep_wait_state cli running 60 || return 1
	before=$(ep_stat cli msgs_verified)
	wait_stat 120 cli msgs_verified -gt $((before + 100)) || return 1
	expect_eq "$(<"$CQN_DFS/srv/fault_cq_undersize")" 0 "server: the knob is spent" || return 1
	ep_enable cli 0 || return 1
	# What a reconnect resends is not counted twice; what the overflows cost
	# was resent: beyond what the stop left in flight, nothing is missing.
	stop_lost cli 16 || return 1
	reliability faults=3 verified=$RUN_VERIFIED lost=$RUN_LOST
	check_stopped cli || return 1
	expect_eq "$(ep_stat cli reconnects)" 3 "reconnects (overflow, QP error, server overflow)" ||
		return 1
	# rxe raises IB_EVENT_CQ_ERR once per completion it drops.
	[ "$(ep_stat srv cq_overflows)" -ge 1 ] || { fail "server cq_overflows not counted"; return 1; }
	check_accounted cli || return 1
	# Off the list is not yet destroyed: a closing connection's drain is
	# still flushing its queues (its counters are summed meanwhile, the
	# lost ones counted at the end). Closed means done: one per connect.
	wait_stat 60 srv conns_active = 0 || return 1
	wait_stat 60 srv conns_closed = $(($(ep_stat cli reconnects) + 1)) || return 1
	check_accounted srv || return 1
	expect_eq "$(ep_attr srv state)" running "server state" || return 1
	echo "figure: client CQ overflow ($(ep_stat cli cq_overflows) completions dropped)," \
		"then server CQ overflow ($(ep_stat srv cq_overflows)): $(ep_stat cli reconnects)" \
		"reconnects, $(ep_stat cli msgs_resent) messages resent, $(ep_stat cli msgs_verified)" \
		"verified in sequence; client $(accounting cli); server $(accounting srv)"
	ep_remove cli srv
}

# The server stops reposting receives (fault_stop_replenish) and advertises
# a finite RNR retry count (fault_rnr_retry): the client's sends meet RNR
# NAKs, each retried after the minimum RNR timer (655 ms, the rdma_cm
# default), until the retries run out with IB_WC_RNR_RETRY_EXC_ERR.
rnr_retry_exceeded()
{
	local rnr=3 t0 ms rcvd sent exc rcvd0 sent0 exc0 t1 t2

	setup || return 1
	start_server send_depth=16 recv_depth=16 cq_depth=64 || return 1
	expect_write "$CQN_DFS/srv/fault_rnr_retry" $rnr || return 1
	expect_eq "$(<"$CQN_DFS/srv/fault_rnr_retry")" $rnr "fault_rnr_retry read back" || return 1
	expect_write "$CQN_DFS/srv/fault_stop_replenish" 1 || return 1
	rcvd0=$(hw_counter rxe1 rcvd_rnr_err) && sent0=$(hw_counter rxe0 send_rnr_err) &&
		exc0=$(hw_counter rxe1 retry_rnr_exceeded_err) ||
		{ fail "no rxe hw_counters"; return 1; }
	t0=${EPOCHREALTIME/./}
	ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=8 \
		iterations=0 duration_ms=0 || return 1
	ep_enable cli 1 || return 1
	ep_wait_state cli error 120 || return 1
	ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
	expect_match "$(ep_attr cli last_error)" "RNR retry counter exceeded" "client last_error" ||
		return 1
	expect_eq "$(ep_stat cli wc_errors)" 1 "client wc_errors" || return 1
	rcvd=$(($(hw_counter rxe1 rcvd_rnr_err) - rcvd0))
	sent=$(($(hw_counter rxe0 send_rnr_err) - sent0))
	exc=$(($(hw_counter rxe1 retry_rnr_exceeded_err) - exc0))
	[ $rcvd -ge $((rnr + 1)) ] || { fail "rxe1 rcvd_rnr_err +$rcvd, expected >= $((rnr + 1))"; return 1; }
	[ $sent -ge $((rnr + 1)) ] || { fail "rxe0 send_rnr_err +$sent, expected >= $((rnr + 1))"; return 1; }
	expect_eq "$exc" 1 "rxe1 retry_rnr_exceeded_err" || return 1
	# rnr retries, each after at least the 655 ms RNR timer.
	[ $ms -ge $((rnr * 600)) ] || { fail "error after $ms ms: the RNR timer was not honoured"; return 1; }
	[ "$(ep_stat srv recvs_withheld)" -ge 16 ] || { fail "server withheld $(ep_stat srv recvs_withheld) receives"; return 1; }
	expect_eq "$(ep_attr srv state)" running "server state" || return 1
	t1=$SECONDS
	wait_stat 60 cli conns_closed = 1 || return 1
	check_accounted cli || return 1
	wait_stat 60 srv conns_active = 0 || return 1
	wait_stat 60 srv conns_closed = 1 || return 1
	check_accounted srv || return 1
	t1=$((SECONDS - t1))
	echo "figure: rnr_retry $rnr: client error after $ms ms: '$(ep_attr cli last_error)', wc_errors $(ep_stat cli wc_errors); rxe1 rcvd_rnr_err +$rcvd, retry_rnr_exceeded_err +$exc; rxe0 send_rnr_err +$sent; server withheld $(ep_stat srv recvs_withheld) receives"
	echo "figure: both connections torn down within $t1 s; client $(accounting cli); server $(accounting srv)"
	# Knobs cleared, the client enabled again: a clean run.
	expect_write "$CQN_DFS/srv/fault_stop_replenish" 0 || return 1
	expect_write "$CQN_DFS/srv/fault_rnr_retry" 7 || return 1
	ep_enable cli 0 || return 1
	ep_remove cli
	t2=$SECONDS
	run_client cli workload=stream queue_depth=8 iterations=$N || { reliability faults=1; return 1; }
	t2=$((SECONDS - t2))
	run_lost cli || return 1
	reliability faults=1 verified=$RUN_VERIFIED lost=$RUN_LOST
	check_clean_run cli $N || return 1
	expect_eq "$(ep_stat cli wc_lost)" 0 "client wc_lost after clearing" || return 1
	echo "figure: knobs cleared, client re-enabled: $N/$N verified in $t2 s"
	ep_remove cli srv
}

# inject FUNCTION [SPACE]: a call of FUNCTION returns -ENOMEM, once; with
# SPACE, the calls pass while SPACE > 1 (fault-inject's "space" budget).
# wr_balanced NAME: every work request the endpoint posted has completed
# exactly once (successfully, flushed or in error).
wr_balanced()
{
	local posted done

	posted=$(ep_stat "$1" wr_posted) && done=$(ep_stat "$1" wr_completed) || return 1
	[ "$posted" -gt 0 ] || { fail "$1: no work request posted"; return 1; }
	expect_eq "$done" "$posted" "$1: work requests completed vs posted"
}

# QP errors forced through debugfs on both sides of an endless verified
# stream: every outstanding work request completes once (flush), the client
# reconnects with backoff and resumes from the first message not echoed.
# Verification checks every sequence number across the reconnects: a
# message lost or echoed twice at a resume point would be a msg_error.
qp_error_reconnect()
{
	local i hits=0 before

	setup || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=16 \
		iterations=0 duration_ms=0 reconnect=1 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	for i in 1 2 3; do
		before=$(ep_stat cli msgs_verified)
		wait_stat 120 cli msgs_verified -gt $((before + 100)) || return 1
		# Twice the client's QP, once the server's.
		if [ $i = 2 ]; then
			expect_write "$CQN_DFS/srv/fault_qp_error" 1 || return 1
		else
			expect_write "$CQN_DFS/cli/fault_qp_error" 1 || return 1
		fi
		hits=$((hits + 1))
		wait_stat 60 cli reconnects -ge $i || return 1
		ep_wait_state cli running 60 || return 1
	done
	before=$(ep_stat cli msgs_verified)
	wait_stat 120 cli msgs_verified -gt $((before + 100)) || return 1
	ep_enable cli 0 || return 1
	stop_lost cli 16 || return 1
	reliability faults=$hits verified=$RUN_VERIFIED lost=$RUN_LOST
	check_stopped cli || return 1
	expect_eq "$(ep_stat cli reconnects)" $hits "one reconnect per fault" || return 1
	[ "$(ep_stat cli wc_flushed)" -gt 0 ] || { fail "no flushed work request counted"; return 1; }
	wr_balanced cli || return 1
	wait_stat 60 srv conns_active = 0 || return 1
	wr_balanced srv || return 1
	echo "figure: $hits QP errors forced, $(ep_stat cli reconnects) reconnects," \
		"$(ep_stat cli wc_flushed) + $(ep_stat srv wc_flushed) work requests flushed," \
		"$(ep_stat cli msgs_resent) messages resent, $(ep_stat cli msgs_verified) verified" \
		"in sequence, 0 lost or duplicated"
	ep_remove cli srv
}

# Without a server, reconnect=1 tries CQN_RECONNECT_ATTEMPTS (8) times with
# backoff, then fails with the reason; reconnect=0 fails at the first loss.
reconnect_gives_up()
{
	setup || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR workload=stream iterations=0 duration_ms=0 \
		reconnect=1 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	ep_enable srv 0 || return 1
	ep_wait_state cli error 60 || return 1
	expect_match "$(ep_attr cli last_error)" "gave up after 8 reconnect attempts" "reason" || return 1
	expect_eq "$(ep_stat cli reconnects)" 8 "reconnect attempts" || return 1
	wr_balanced cli || return 1
	ep_enable cli 0 && expect_write "$CQN_CFS/endpoints/cli/reconnect" 0 || return 1
	ep_enable srv 1 && ep_wait_state srv running 10 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	expect_write "$CQN_DFS/cli/fault_qp_error" 1 || return 1
	ep_wait_state cli error 60 || return 1
	expect_match "$(ep_attr cli last_error)" "flushed|QP in error" "reason without reconnect" || return 1
	expect_eq "$(ep_stat cli reconnects)" 0 "no reconnect with reconnect=0" || return 1
	echo "figure: 8 reconnect attempts with backoff, then a clean error"
	reliability faults=2
	ep_remove cli srv
}

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
	setup || return 1
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
	setup || return 1
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

# The hostile values every attribute gets, besides random bytes.
HOSTILE=(
	"" " " "\n" "\n\n" " 1" "1 " "1\n\n" "\t1" "1\t" "-1" "-0" "+1" "0x10" "010" "1e3"
	"1.5" "4294967296" "4294967295" "99999999999999999999" "18446744073709551616"
	"-2147483649" "abc" "server\0" "1\0" "\0" "\0\0\0" "1\x002" "\xff" "\xc3\xa9"
	"event " "EVENT" "poll\r" "$(printf 'a%.0s' $(seq 1 100))" "::::" "1.2.3.4.5"
	"256.1.1.1" "[::1]" "fe80::1%999999" "client\nserver" "1 2"
)

# in_range ATTR VALUE: the value read back is one the attribute can hold.
in_range()
{
	case $1 in
	role) [[ $2 =~ ^(server|client)$ ]] ;;
	cq_mode) [[ $2 =~ ^(event|poll|adaptive|softirq|workqueue)$ ]] ;;
	workload) [[ $2 =~ ^(pingpong|stream)$ ]] ;;
	addr) [[ $2 =~ ^[0-9a-fA-F.:%]+$ ]] ;;
	poll_cpu) [[ $2 =~ ^-?[0-9]+$ ]] && [ "$2" -ge -1 ] && [ "$2" -lt "$(nproc)" ] ;;
	verify|enable|solicited_only|adaptive_moderation|reconnect) [[ $2 =~ ^[01]$ ]] ;;
	*) [[ $2 =~ ^[0-9]+$ ]] ;;
	esac
}

# random_escapes N: N random bytes as printf %b escapes (no process spawned:
# thousands of writes must stay fast on the debug kernel). No newline but
# at the end: bash's printf would write the value in several pieces.
random_escapes()
{
	local i b n out=

	for ((i = 0; i < $1; i++)); do
		n=$((RANDOM % 256))
		[ $n != 10 ] || [ $i = $(($1 - 1)) ] || n=11
		printf -v b '\\x%02x' $n
		out+=$b
	done
	REPLY=$out
}

# The configfs ABI the fuzz holds every write to (Documentation/
# configfs-abi.rst), one attribute a line: NAME KIND [MIN MAX | NAMES].
# KIND u32 and s32: a decimal number, no sign (s32: "-" allowed), no
# leading zero, in MIN..MAX, else -EINVAL (not a number) or -ERANGE (out of
# range or overflowing); bool: 0 or 1, else -EINVAL; choice: one of the
# comma-separated NAMES, else -EINVAL; addr: a numeric IPv4 or IPv6
# address; wo1: write-only, "1" only; ro: read-only. poll_cpu's range is
# -1 and the online CPUs (FUZZ_CPU_*, read at the test's start). A token is
# what was written less one trailing newline; empty, 64 bytes or more,
# whitespace, control, NUL or non-ASCII bytes are -EINVAL.
FUZZ_ABI="
role choice server,client
addr addr
port u32 1 65535
msg_size u32 1 1048576
send_depth u32 1 8192
recv_depth u32 1 8192
cq_depth u32 1 65536
cq_mode choice event,poll,adaptive,softirq,workqueue
cq_count u32 0 65535
cq_period u32 0 65535
adaptive_moderation bool
poll_cpu s32 -1 cpu
poll_window_max_us u32 0 100000
solicited_only bool
watchdog_ms u32 0 60000
max_events_per_ms u32 0 1000000
max_conns u32 1 1024
workload choice pingpong,stream
queue_depth u32 1 8192
iterations u32 0 4294967295
duration_ms u32 0 86400000
verify bool
rate u32 0 10000000
reconnect bool
enable bool
reset wo1
state ro
last_error ro
cq_depth_actual ro
moderation_effective ro
"
declare -A FUZZ_KIND=() FUZZ_MIN=() FUZZ_MAX=() FUZZ_NAMES=()

fuzz_abi_load()
{
	local name kind a b

	while read -r name kind a b; do
		[ -n "$name" ] || continue
		FUZZ_KIND[$name]=$kind FUZZ_MIN[$name]=$a FUZZ_MAX[$name]=$b FUZZ_NAMES[$name]=$a
	done <<<"$FUZZ_ABI"
	# Possible CPUs (past them: -ERANGE) and online ones (else -EINVAL).
	read -r a </sys/devices/system/cpu/possible
	FUZZ_CPU_POSSIBLE_MAX=${a##*[-,]}
	read -r FUZZ_CPU_ONLINE </sys/devices/system/cpu/online
}

# fuzz_cpu_online N: is CPU N in the online list ("0-1", "0,2-3")?
fuzz_cpu_online()
{
	local r lo hi

	for r in ${FUZZ_CPU_ONLINE//,/ }; do
		lo=${r%-*} hi=${r#*-}
		[ "$1" -ge "$lo" ] && [ "$1" -le "$hi" ] && return 0
	done
	return 1
}

# fuzz_ipv6 TOKEN: set REPLY to the 8 groups of an IPv6 address without an
# embedded IPv4 part, as 8 4-digit lowercase hex groups; fail if TOKEN is
# not one.
fuzz_ipv6()
{
	local t=${1,,} head tail g n=0 out=() h=() tl=()

	[[ $t =~ ^[0-9a-f:]+$ ]] || return 1
	if [[ $t == *::* ]]; then
		head=${t%%::*} tail=${t#*::}
		[[ $tail != *::* ]] || return 1
		[ -z "$head" ] || IFS=: read -r -a h <<<"$head"
		[ -z "$tail" ] || IFS=: read -r -a tl <<<"$tail"
		[ $((${#h[@]} + ${#tl[@]})) -le 7 ] || return 1
		out=("${h[@]}")
		for ((n = ${#h[@]} + ${#tl[@]}; n < 8; n++)); do
			out+=(0)
		done
		out+=("${tl[@]}")
	else
		IFS=: read -r -a out <<<"$t"
		[ ${#out[@]} -eq 8 ] && [[ $t != *: ]] || return 1
	fi
	REPLY=
	for g in "${out[@]}"; do
		[[ $g =~ ^[0-9a-f]{1,4}$ ]] || return 1
		printf -v g '%04x' $((16#$g))
		REPLY+=$g
	done
}

# fuzz_model ATTR BYTES_FILE: what the ABI says a write of the file's bytes
# to ATTR does. Returns 0 (accepted: EXPECT is the value to read back),
# 1 (-EINVAL), 2 (-ERANGE), 3 (a colon form the model does not decide, such
# as an embedded IPv4 part: accepted, reading back an address, or -EINVAL)
# or 4 (an IPv6 address: accepted, reading back the same 16 bytes, whose 32
# hex digits EXPECT holds).
fuzz_model()
{
	local LC_ALL=C kind=${FUZZ_KIND[$1]} tok digits v

	EXPECT=
	# A NUL byte ends read's delimiter search: refused, whatever follows.
	IFS= read -r -d '' tok <"$2" && return 1
	tok=${tok%$'\n'}
	[ -n "$tok" ] && [ ${#tok} -lt 64 ] && [[ $tok != *[![:graph:]]* ]] || return 1
	case $kind in
	u32|bool|wo1)
		[[ $tok =~ ^(0|[1-9][0-9]*)$ ]] || return 1
		if [ $kind = bool ]; then
			[[ $tok =~ ^[01]$ ]] || return 1
			EXPECT=$tok
			return 0
		fi
		[ $kind = wo1 ] && { [ "$tok" = 1 ] && return 0; return 2; }
		[ ${#tok} -le 10 ] || return 2
		v=$((10#$tok))
		[ $v -ge "${FUZZ_MIN[$1]}" ] && [ $v -le "${FUZZ_MAX[$1]}" ] || return 2
		EXPECT=$v
		;;
	s32)
		[[ $tok =~ ^-?(0|[1-9][0-9]*)$ ]] || return 1
		digits=${tok#-}
		[ ${#digits} -le 10 ] || return 2
		v=$((10#$digits))
		[ "$tok" = "$digits" ] || v=$((-v))
		[ $v -ge -1 ] && [ $v -le "$FUZZ_CPU_POSSIBLE_MAX" ] || return 2
		[ $v = -1 ] || fuzz_cpu_online $v || return 1
		EXPECT=$v
		;;
	choice)
		[[ ",${FUZZ_NAMES[$1]}," == *",$tok,"* ]] || return 1
		EXPECT=$tok
		;;
	addr)
		if [[ $tok =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then
			# in4_pton: any leading zeros, each part at most 255.
			for v in "${BASH_REMATCH[@]:1}"; do
				[[ $v =~ ^0*([0-9]{1,3})$ ]] && [ $((10#${BASH_REMATCH[1]})) -le 255 ] ||
					return 1
				EXPECT+=${EXPECT:+.}$((10#${BASH_REMATCH[1]}))
			done
			return 0
		fi
		# in6_pton stops at anything else, and at a second "::".
		[[ $tok == *:* && $tok =~ ^[0-9a-fA-F:.]+$ && $tok != *::*::* ]] || return 1
		fuzz_ipv6 "$tok" || return 3
		EXPECT=$REPLY
		return 4
		;;
	*)
		return 1 ;;
	esac
	return 0
}

# fuzz_boundaries ATTR: the values at and just past each end of ATTR's
# range (and each name of a choice), into the array BOUNDS.
fuzz_boundaries()
{
	local min=${FUZZ_MIN[$1]} max=${FUZZ_MAX[$1]} n

	BOUNDS=()
	case ${FUZZ_KIND[$1]} in
	u32)
		BOUNDS=("$min" "$max" "$max\n" "$((max + 1))")
		[ "$min" = 0 ] && BOUNDS+=("-1") || BOUNDS+=("$((min - 1))")
		;;
	s32)
		BOUNDS=(-1 -2 0 "$((FUZZ_CPU_POSSIBLE_MAX + 1))" "$FUZZ_CPU_POSSIBLE_MAX")
		;;
	bool) BOUNDS=(0 1 "1\n" 2) ;;
	wo1) BOUNDS=(1 0 2) ;;
	choice)
		for n in ${FUZZ_NAMES[$1]//,/ }; do
			BOUNDS+=("$n" "$n\n" "${n^^}" "$n$n")
		done
		;;
	addr) BOUNDS=("10.77.0.1" "0.0.0.0" "255.255.255.255" "010.077.000.001" "::1" "fe80::1"
		      "1:2:3:4:5:6:7:8" "::" "256.0.0.1" "1.2.3" "1:2:3:4:5:6:7:8:9" "::1::") ;;
	esac
}

FUZZ_FAILS=0
# The attributes that get the values with a newline before their end.
FUZZ_MULTILINE="port poll_cpu verify enable role addr reset"
# fuzz_write FILE VALUE: write VALUE (printf %b escapes) to the attribute
# FILE in one write and hold the outcome to fuzz_model: accepted writes read
# back exactly the value written, refused ones fail with the errno the ABI
# gives and change nothing. The attribute's value is kept in FUZZ_CUR.
# Counts the write in FUZZ_REFUSED or FUZZ_ACCEPTED; a disagreement is
# reported (the first 10) and counted in FUZZ_FAILS.
fuzz_write()
{
	local f=$1 a=${1##*/} want rc err got kind lines

	kind=${FUZZ_KIND[$a]}
	printf '%b' "$2" >/tmp/cqn-fuzz.val
	# printf writes nothing at all for an empty value: no write to judge.
	[ -s /tmp/cqn-fuzz.val ] || return 0
	fuzz_model "$a" /tmp/cqn-fuzz.val
	want=$?
	# An endpoint enabled would turn every later write into -EBUSY: enable
	# gets only what the model says it refuses, and 0.
	[ "$a" != enable ] || [ $want != 0 ] || [ "$EXPECT" = 0 ] || return 0
	# bash's printf writes line by line: a value with a newline before its
	# end would reach the attribute as several writes. dd writes it in one;
	# a process each, so only for one attribute of each kind.
	mapfile lines </tmp/cqn-fuzz.val
	if [ ${#lines[@]} -gt 1 ]; then
		[[ " $FUZZ_MULTILINE " == *" $a "* ]] || return 0
		dd if=/tmp/cqn-fuzz.val of="$f" bs=4096 count=1 conv=notrunc status=none \
			2>/tmp/cqn-fuzz.err
	else
		printf '%b' "$2" >"$f" 2>/tmp/cqn-fuzz.err
	fi
	rc=$?
	err=
	[ $rc = 0 ] || IFS= read -r err </tmp/cqn-fuzz.err
	got=$FUZZ_CUR
	[ "$kind" = wo1 ] || IFS= read -r got <"$f"
	case $want/$rc in
	0/0|3/0|4/0)
		FUZZ_ACCEPTED=$((FUZZ_ACCEPTED + 1))
		if [ $want = 4 ]; then
			fuzz_ipv6 "$got" && [ "$REPLY" = "$EXPECT" ] ||
				fuzz_bad "$a: '$2' accepted, reads back '$got', another address"
		elif [ $want = 3 ]; then
			fuzz_ipv6 "$got" || [[ $got =~ ^[0-9.:a-f]+$ ]] ||
				fuzz_bad "$a: '$2' accepted, reads back '$got', no address"
		elif [ "$kind" != wo1 ] && [ "$got" != "$EXPECT" ]; then
			fuzz_bad "$a: '$2' accepted, reads back '$got', not '$EXPECT'"
		fi
		[ "$kind" = wo1 ] || FUZZ_CUR=$got
		return 0
		;;
	0/*|4/*) fuzz_bad "$a: valid '$2' refused: $err" ;;
	*/0) fuzz_bad "$a: '$2' accepted (reads back '$got'), the ABI refuses it" ;;
	1/*|3/*)
		[[ $err == *"Invalid argument" ]] ||
			fuzz_bad "$a: '$2' refused with '$err', not 'Invalid argument'" ;;
	2/*)
		[[ $err == *"Numerical result out of range" ]] ||
			fuzz_bad "$a: '$2' refused with '$err', not 'Numerical result out of range'" ;;
	esac
	FUZZ_REFUSED=$((FUZZ_REFUSED + 1))
	[ "$got" = "$FUZZ_CUR" ] || fuzz_bad "$a: refused '$2' changed the value from '$FUZZ_CUR' to '$got'"
	FUZZ_CUR=$got
}

fuzz_bad()
{
	FUZZ_FAILS=$((FUZZ_FAILS + 1))
	[ $FUZZ_FAILS -gt 10 ] || echo "FAIL: $*" >&2
}

configfs_fuzz()
{
	local d=$CQN_CFS/endpoints/fz f a v i bounds=0 attrs=0 accepted

	setup || return 1
	fuzz_abi_load || { fail "reading the CPU lists"; return 1; }
	mkdir "$d" || { fail "mkdir"; return 1; }
	FUZZ_ACCEPTED=0 FUZZ_REFUSED=0 FUZZ_FAILS=0
	for f in "$d"/*; do
		a=${f##*/}
		[ -n "${FUZZ_KIND[$a]:-}" ] || { fuzz_bad "$a: not in FUZZ_ABI (add its rule)"; continue; }
		[ "${FUZZ_KIND[$a]}" != ro ] || continue
		attrs=$((attrs + 1))
		FUZZ_CUR=
		[ "${FUZZ_KIND[$a]}" = wo1 ] || IFS= read -r FUZZ_CUR <"$f"
		for v in "${HOSTILE[@]}"; do
			fuzz_write "$f" "$v"
		done
		for ((i = ${#HOSTILE[@]}; i < 200; i++)); do
			random_escapes $((RANDOM % 24 + 1))
			fuzz_write "$f" "$REPLY"
		done
		# The ends of the range: valid ones are no bad input.
		fuzz_boundaries "$a"
		accepted=$FUZZ_ACCEPTED
		for v in "${BOUNDS[@]}"; do
			fuzz_write "$f" "$v"
		done
		bounds=$((bounds + FUZZ_ACCEPTED - accepted))
		FUZZ_ACCEPTED=$accepted
	done
	[ "$(ep_attr fz enable)" = 0 ] || printf 0 >"$d/enable"
	rmdir "$d" || { fail "rmdir after fuzzing"; return 1; }
	echo "figure: configfs fuzz: $attrs attributes, $((FUZZ_ACCEPTED + FUZZ_REFUSED)) hostile writes: $FUZZ_REFUSED refused with the errno the ABI gives and nothing changed, $FUZZ_ACCEPTED accepted and read back as written; $bounds valid values at the ends of the ranges accepted"
	reliability bad_inputs=$((FUZZ_ACCEPTED + FUZZ_REFUSED))
	[ $FUZZ_FAILS = 0 ] ||
		{ fail "$FUZZ_FAILS writes disagreed with the ABI (the first 10 above)"; return 1; }
	[ $attrs -ge 25 ] || { fail "only $attrs writable attributes fuzzed"; return 1; }
}

configfs_state_sequences()
{
	local i f n refused=3

	setup || return 1
	start_server || return 1
	# Enable twice, and writes to non-live attributes while enabled.
	expect_write_err "$CQN_CFS/endpoints/srv/enable" 1 "busy" || return 1
	expect_write_err "$CQN_CFS/endpoints/srv/port" 7000 "busy" || return 1
	expect_write_err "$CQN_CFS/endpoints/srv/role" client "busy" || return 1
	expect_eq "$(ep_attr srv port)" 7471 "port after a refused write" || return 1
	# Concurrent writers against an enable/disable loop.
	ep_create cli role=client addr=$SERVER_ADDR iterations=5 || return 1
	# Each writer counts the writes refused (-EBUSY while enabled, a live
	# change refused), the only ones that are bad inputs.
	for i in 1 2 3; do
		(
			n=0
			for _ in $(seq 1 100); do
				for f in queue_depth:8 cq_depth:300 cq_mode:adaptive cq_mode:event \
					 cq_count:16; do
					printf '%s' "${f#*:}" >"$CQN_CFS/endpoints/cli/${f%%:*}" ||
						n=$((n + 1))
				done
			done 2>/dev/null
			echo $n >/tmp/cqn-racer.$i
		) &
	done
	for i in $(seq 1 15); do
		printf 1 >"$CQN_CFS/endpoints/cli/enable" 2>/dev/null || refused=$((refused + 1))
		sleep 0.1
		printf 0 >"$CQN_CFS/endpoints/cli/enable" 2>/dev/null || refused=$((refused + 1))
	done
	wait
	for i in 1 2 3; do
		read -r n </tmp/cqn-racer.$i || { fail "racer $i counted nothing"; return 1; }
		refused=$((refused + n))
	done
	expect_eq "$(ep_stat cli msg_errors)" 0 "msg_errors under concurrent writers" || return 1
	in_range cq_mode "$(ep_attr cli cq_mode)" || { fail "cq_mode out of range"; return 1; }
	ep_enable cli 1 && ep_wait_state cli done 120 || return 1
	run_lost cli || return 1
	echo "figure: 3 writes refused while enabled, then 3 writers of 500 writes each against 15 enable/disable pairs: $((refused - 3)) of their writes refused"
	# The refused writes: 3, and those of the race.
	reliability bad_inputs=$refused verified=$RUN_VERIFIED lost=$RUN_LOST
	check_clean_run cli 5 || return 1
	ep_remove cli srv
}

# hostile_run ARGS...: one run of tools/cqn_hostile against the server; its
# result line is left in REPLY. The well-behaved client "good" must have
# verified more echoes by the end, and still be running.
hostile_run()
{
	local v out rc

	v=$(ep_stat good msgs_verified)
	out=$("$HOSTILE_BIN" -a $SERVER_ADDR -t 60000 "$@" 2>/tmp/cqn-hostile.err)
	rc=$?
	echo "$out"
	sed 's/^/  /' /tmp/cqn-hostile.err
	REPLY=$out
	[ $rc -eq 0 ] ||
		{ fail "cqn_hostile $* exited $rc: $out $(head -n 3 /tmp/cqn-hostile.err)"; return 1; }
	wait_stat 30 good msgs_verified -gt "$v" || return 1
	expect_eq "$(ep_attr good state)" running "good client after cqn_hostile $*"
}

# hp_field KEY: a value of the last cqn_hostile result line.
hp_field()
{
	[[ " $REPLY " =~ \ $1=([^ ]*)\  ]] && echo "${BASH_REMATCH[1]}"
}

hostile_peer()
{
	local size r n mark start secs limit kind logged=0
	local oversize=0 malformed=0 accepted=0 rejected=0 verified lost

	[ -x "$HOSTILE_BIN" ] || { fail "$HOSTILE_BIN missing: run make tools"; return 1; }
	setup || return 1
	start_server max_conns=$HP_MAX_CONNS || return 1
	endless_client good verify=1 || return 1
	wait_stat 30 good msgs_verified -gt 5 || return 1
	cqn_klog_read || { fail "reading the kernel log"; return 1; }
	mark=${#CQN_KLOG[@]}
	start=$SECONDS
	# Larger than the server's msg_size (4096): each connection dropped.
	for size in 4097 65536; do
		hostile_run -m oversize -n $HP_OVERSIZE -s $size || return 1
		oversize=$((oversize + $(hp_field dropped)))
	done
	wait_stat 30 srv peer_errors = $oversize || return 1
	# Empty, and headers claiming more than they carry: echoed verbatim.
	hostile_run -m empty -n $HP_MSGS || return 1
	malformed=$((malformed + $(hp_field verbatim)))
	for size in 64 4096; do
		hostile_run -m lying -n $((HP_MSGS / 2)) -s $size || return 1
		malformed=$((malformed + $(hp_field verbatim)))
	done
	wait_stat 30 srv msgs_malformed = $malformed || return 1
	# Past max_conns: the good client holds one, so max_conns - 1 get in.
	for r in $(seq 1 $HP_ROUNDS); do
		wait_stat 30 srv conns_active = 1 || return 1
		hostile_run -m flood -c $HP_FLOOD -H 500 || return 1
		expect_eq "$(hp_field accepted)" $((HP_MAX_CONNS - 1)) "flood round $r accepted" ||
			return 1
		accepted=$((accepted + $(hp_field accepted)))
		rejected=$((rejected + $(hp_field rejected)))
	done
	wait_stat 30 srv conns_active = 1 || return 1
	expect_eq "$(ep_stat srv conns_rejected)" $rejected "server conns_rejected" || return 1
	# The only completion errors were the oversized messages.
	expect_eq "$(ep_stat srv wc_errors)" $oversize "server wc_errors" || return 1
	expect_eq "$(ep_attr srv state)" running "server state" || return 1

	# Every kind of complaint is ratelimited: at most a burst of 10 per 5 s.
	secs=$((SECONDS - start))
	limit=$((10 * (secs / 5 + 2)))
	cqn_klog_read || { fail "reading the kernel log"; return 1; }
	for kind in "peer's message refused" "empty message, echoed" "header claims" \
		    "rejected connection from"; do
		cqn_klog_match "$mark" "cqnotify: srv: .*$kind"
		n=$KLOG_NMATCH
		[ "$n" -le $limit ] ||
			{ fail "$n log lines '$kind' in $secs s: not ratelimited (limit $limit)"; return 1; }
		logged=$((logged + n))
	done
	cqn_klog_match "$mark" "completion failed"
	expect_eq "$KLOG_NMATCH" 0 "generic completion-error log lines" || return 1

	ep_enable good 0 || return 1
	stop_lost good 8 || return 1
	verified=$RUN_VERIFIED lost=$RUN_LOST
	check_stopped good || return 1
	expect_eq "$(ep_stat good wc_errors)" 0 "good client wc_errors" || return 1
	# A new client is served as before.
	run_client cli iterations=$N || return 1
	run_lost cli || return 1
	# The hostile messages and connections refused or checked: counted as
	# the peer saw them (dropped, echoed verbatim, rejected).
	reliability bad_inputs=$((oversize + malformed + rejected)) \
		verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
	check_clean_run cli $N || return 1
	echo "figure: hostile peer: $oversize oversized messages (4097 and 65536 B) each dropped its connection (peer_errors $oversize), $malformed empty or lying messages echoed verbatim (msgs_malformed $malformed), $HP_ROUNDS floods of $HP_FLOOD connections: $accepted accepted, $rejected rejected"
	echo "figure: good client meanwhile: $verified echoes verified, 0 errors, $lost lost beyond the 8 the stop may leave in flight; server log: $logged lines for $((oversize + malformed + rejected)) hostile messages and connections in $secs s (ratelimit: at most $limit per kind)"
	ep_remove cli good srv
}

# hostile_serve LIE: cqn_hostile serves one connection on the server's
# address (port HS_PORT), lying LIE about one echo in every HS_EVERY, at
# most HS_LIES times; the client "cli" streams HS_N verified messages
# (queue_depth 8) through it until done. The tool's result line is left
# in REPLY, and STATS holds the client's counters (one snapshot).
hostile_serve()
{
	local pid i line rc

	[ -x "$HOSTILE_BIN" ] || { fail "$HOSTILE_BIN missing: run make tools"; return 1; }
	setup || return 1
	# Emptied first: the job's own redirection may come after the first
	# look for "listening" (which would then find the last run's).
	: >/tmp/cqn-hs.out
	"$HOSTILE_BIN" -m serve -a $SERVER_ADDR -p $HS_PORT -L "$1" -e $HS_EVERY -n $HS_LIES \
		-t 240000 -v >/tmp/cqn-hs.out 2>/tmp/cqn-hs.err &
	pid=$!
	for ((i = 0; i < 150; i++)); do
		line=
		IFS= read -r line </tmp/cqn-hs.out
		[[ $line == *listening* ]] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.2
	done
	[[ $line == *listening* ]] ||
		{ fail "cqn_hostile -m serve not listening: $(head -n 3 /tmp/cqn-hs.err)"; kill $pid; return 1; }
	if ! ep_create cli role=client addr=$SERVER_ADDR port=$HS_PORT workload=stream \
		queue_depth=8 iterations=$HS_N verify=1 || ! ep_enable cli 1 ||
	   ! ep_wait_state cli "done|error" 240; then
		kill $pid
		return 1
	fi
	# The client disconnects when it is done, and the tool then exits.
	[ "$(ep_attr cli state)" = done ] || kill $pid
	wait $pid
	rc=$?
	REPLY=$(tail -n 1 /tmp/cqn-hs.out)
	echo "$REPLY"
	sed 's/^/  /' /tmp/cqn-hs.err
	[ $rc = 0 ] || { fail "cqn_hostile -m serve -L $1 exited $rc: $REPLY; client $(ep_attr cli state): '$(ep_attr cli last_error)'"; return 1; }
	expect_eq "$(hp_field lies)" "$([ "$1" = none ] && echo 0 || echo $HS_LIES)" \
		"lies cqn_hostile told" || return 1
	expect_eq "$(hp_field received)" $HS_N "messages cqn_hostile received" || return 1
	wait_stat 30 cli conns_closed = 1 || return 1
	ep_stats cli || { fail "no client stats"; return 1; }
}

# hs_expect KEY=VALUE...: the client's counters (STATS) hold those values.
hs_expect()
{
	local kv

	for kv in "$@"; do
		expect_eq "${STATS[${kv%%=*}]}" "${kv#*=}" "client ${kv%%=*}" || return 1
	done
}

# The echoes were intact (length, magic, checksum): the client saw each lie
# for what it was, an error of order, not a corrupt message.
hs_intact()
{
	hs_expect err_bad_len=0 err_bad_magic=0 err_corrupt=0 wc_errors=0
}

# hs_figures LIE: the figure and the reliability line of a hostile server
# run: verified, and lost as what the client sent less what it verified
# less what the lies cost (each lie leaves COST messages unverified).
hs_figures()
{
	local lie=$1 cost=$2

	echo "figure: cqn_hostile -m serve -L $lie, one lie in $HS_EVERY: $REPLY; client: sent ${STATS[msgs_sent]}, received ${STATS[msgs_received]}, verified ${STATS[msgs_verified]}, msg_errors ${STATS[msg_errors]} (err_lost ${STATS[err_lost]}, err_stale ${STATS[err_stale]})"
	reliability bad_inputs=$(hp_field lies) verified=${STATS[msgs_verified]} \
		lost=$((STATS[msgs_sent] - STATS[msgs_verified] - cost))
}

# A faithful echo server that is not cqnotify's: the positive control of
# the lying ones below. Every message comes back and verifies.
hostile_server_faithful()
{
	hostile_serve none || return 1
	hs_figures none 0
	expect_eq "$(ep_attr cli state)" done "client state" || return 1
	hs_intact && hs_expect msg_errors=0 err_lost=0 err_stale=0 msgs_sent=$HS_N \
		msgs_received=$HS_N msgs_verified=$HS_N || return 1
	check_accounted cli || return 1
	ep_remove cli
}

# The echo of message i carries sequence number i + 1 (checksum right):
# the client sees a gap (err_lost) and resynchronises after i + 1, so the
# true echo of i + 1 is then one it has seen (err_stale). Two messages
# unverified per lie, nothing else.
hostile_server_wrong_seq()
{
	hostile_serve seq || return 1
	hs_figures seq $((2 * HS_LIES))
	expect_eq "$(ep_attr cli state)" done "client state" || return 1
	hs_intact && hs_expect err_lost=$HS_LIES err_stale=$HS_LIES msg_errors=$((2 * HS_LIES)) \
		msgs_sent=$HS_N msgs_received=$HS_N msgs_verified=$((HS_N - 2 * HS_LIES)) || return 1
	check_accounted cli || return 1
	ep_remove cli
}

# The echo of message i comes twice: the second is stale (err_stale), every
# message is verified once. A duplicate accounts for no message still
# outstanding, so the client waits for every true echo before it is done
# (it once counted itself done early and left one echo per lie unverified).
hostile_server_duplicate()
{
	hostile_serve dup || return 1
	hs_figures dup 0
	expect_eq "$(ep_attr cli state)" done "client state" || return 1
	hs_intact && hs_expect err_lost=0 err_stale=$HS_LIES msg_errors=$HS_LIES \
		msgs_sent=$HS_N msgs_verified=$HS_N msgs_received=$((HS_N + HS_LIES)) || return 1
	check_accounted cli || return 1
	ep_remove cli
}

# The echo of message i waits for that of i + 1 and goes after it: the
# client sees a gap at i + 1 (err_lost) and i late (err_stale).
hostile_server_reorder()
{
	hostile_serve reorder || return 1
	hs_figures reorder $((2 * HS_LIES))
	expect_eq "$(ep_attr cli state)" done "client state" || return 1
	expect_eq "$(hp_field hold_timeouts)" 0 "echoes held with no next message" || return 1
	hs_intact && hs_expect err_lost=$HS_LIES err_stale=$HS_LIES msg_errors=$((2 * HS_LIES)) \
		msgs_sent=$HS_N msgs_received=$HS_N msgs_verified=$((HS_N - 2 * HS_LIES)) || return 1
	check_accounted cli || return 1
	ep_remove cli
}

# The modes the module gives its debugfs files (src/debugfs.c): read-only
# stats 0400, knobs that can be read 0600, write-only controls 0200.
PERM_MODES="stats:400 latency:400 cq:400 reset:200 fault_drop_events:200
	fault_spurious_events:200 fault_arm_delay_us:200 fault_qp_error:200 fault_cq_undersize:600
	fault_stop_replenish:600 fault_rnr_retry:600"

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

	setup || return 1
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
	[ ! -e "$CQN_CFS/endpoints/evil" ] || { fail "endpoint evil exists"; return 1; }
	# Each attempt above was refused, and checked to be.
	reliability bad_inputs=$n
	ep_remove srv
}

cqn_run_tests
rc=$?
uninject
echo 0 2>/dev/null >$FAILSLAB/probability
ep_remove cli good c0 c1 c2 c3 fz fsrv srv 2>/dev/null
cqn_unload 2>/dev/null
exit $rc
