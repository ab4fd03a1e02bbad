#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reliability on faults, one of the robust suites (scripts/tests/lib.sh
# "the robust suites"): a soak over four connections, devices and
# providers removed under traffic, enable toggled under traffic, QP errors
# and reconnects, a CQ overflow and RNR retries running out (debugfs fault
# knobs). Each test is followed by the kernel gate of cqn_run_tests
# (splats) and the VM's kmemleak scan at the end.
. "$(dirname "$0")/lib.sh"

ALL_TESTS="
	soak_four_connections
	enable_toggled_under_traffic
	link_delete_repeated
	srq_link_delete_under_traffic
	rxe_unload_under_traffic
	qp_error_reconnect
	qp_error_one_of_four_reconnects
	reconnect_gives_up
	cq_overflow
	cq_overflow_rebuilds
	short_drain_counts_once
	short_drain_client_reposts_nothing
	rnr_retry_exceeded
"
# Rounds of the repeated tests: 10 link deletions and 20 enable toggles
# under traffic; on the debug kernel 5 deletions (11 s a round there) and
# 10 toggles (5.5 s each: 109 s for 20 in make check's longer lane).
LINK_ROUNDS=10
TOGGLES=20
if [ "$CQN_KERNEL" = debug ]; then
	LINK_ROUNDS=5
	TOGGLES=10
fi

soak_four_connections()
{
	local sizes=(1 4095 4096 65536) i n total=0

	robust_setup || return 1
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
	wait_conns_gone 30 srv || return 1
	check_accounted srv || return 1
	expect_eq "$(ep_stat srv msg_errors)" 0 "server msg_errors" || return 1
	expect_eq "$(ep_stat srv wc_errors)" 0 "server wc_errors" || return 1
	echo "figure: 4 connections, sizes ${sizes[*]}: clients sent $sent, verified $verified; server received $(ep_stat srv msgs_received), echo completions $(ep_stat srv msgs_sent) (+ flushed by the disconnects)"
	ep_remove c0 c1 c2 c3 srv
}

enable_toggled_under_traffic()
{
	local i verified=0 lost=0

	robust_setup || return 1
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
	wait_conns_gone 30 srv || return 1
	# rmdir of a running endpoint stops it first.
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	rmdir "$CQN_CFS/endpoints/cli" || { fail "rmdir of a running client"; return 1; }
	rmdir "$CQN_CFS/endpoints/srv" || { fail "rmdir of a running server"; return 1; }
	echo "figure: $TOGGLES enable toggles under traffic, $verified echoes verified, 0 errors, $lost lost beyond the 8 a stop may leave in flight"
}

link_delete_repeated()
{
	local i verified=0 lost=0

	robust_setup || return 1
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
	wait_conns_gone 60 srv || return 1
	ep_remove cli
	run_client cli iterations=$N || { reliability faults=$LINK_ROUNDS verified=$verified lost=$lost; return 1; }
	run_lost cli || return 1
	reliability faults=$LINK_ROUNDS verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
	check_clean_run cli $N || return 1
	echo "figure: $LINK_ROUNDS link deletions under traffic survived ($verified echoes verified before them, $lost lost beyond the 8 a stop may leave in flight), service works after"
	ep_remove cli srv
}

# srq=1 with the server listening on every address, so that it outlives
# the device its connections are on: deleting rxe0 under traffic closes
# those connections and destroys the SRQs on rxe0 (their buffers counted
# discarded, none left queued) while the server keeps running; over the
# re-added rxe0 new connections receive from a new SRQ. Every work request
# is accounted for on both sides, nothing verified is lost.
srq_link_delete_under_traffic()
{
	local c srqs0 discarded0 verified=0 lost=0

	robust_setup || return 1
	start_server addr=0.0.0.0 srq=1 srq_depth=64 send_depth=4 || return 1
	for c in c0 c1; do
		endless_client $c || return 1
	done
	for c in c0 c1; do
		wait_stat 60 $c msgs_verified -gt 20 || return 1
	done
	ep_stats srv || return 1
	srqs0=${STATS[srqs]} discarded0=${STATS[srq_recvs_discarded]}
	[ "$srqs0" -ge 1 ] || { fail "no SRQ created with srq=1"; return 1; }
	# Under traffic the SRQs lack at most the buffers in flight (8 per client).
	[ "${STATS[srq_recvs_queued]}" -ge $((64 * srqs0 - 16)) ] ||
		{ fail "srq_recvs_queued ${STATS[srq_recvs_queued]} under traffic, $srqs0 SRQs of 64"; return 1; }
	timeout 120 rdma link delete rxe0 || { fail "rdma link delete rxe0 hung or failed"; return 1; }
	wait_conns_gone 60 srv || return 1
	for c in c0 c1; do
		ep_wait_state $c error 120 || return 1
		stop_lost $c 8 || return 1
		verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
		check_stopped $c || return 1
	done
	expect_eq "$(ep_attr srv state)" running "server state after its connections' device went" ||
		return 1
	ep_stats srv || return 1
	expect_eq "${STATS[srqs]}/${STATS[srq_recvs_queued]}" 0/0 \
		"SRQs and their buffers queued once rxe0's SRQs are gone" || return 1
	# All but the buffers whose messages were in flight.
	[ "${STATS[srq_recvs_discarded]}" -ge $((discarded0 + 64 * srqs0 - 16)) ] ||
		{ fail "srq_recvs_discarded ${STATS[srq_recvs_discarded]}: rxe0's SRQs' buffers not discarded"; return 1; }
	check_accounted srv || return 1
	rdma link add rxe0 type rxe netdev veth0 || { fail "rdma link add rxe0"; return 1; }
	wait_for 30 test -e /sys/class/infiniband/rxe0 || return 1
	ep_remove c0 c1
	run_client c0 iterations=$N || { reliability faults=1 verified=$verified lost=$lost; return 1; }
	run_lost c0 || return 1
	reliability faults=1 verified=$((verified + RUN_VERIFIED)) lost=$((lost + RUN_LOST))
	check_clean_run c0 $N || return 1
	ep_stats srv || return 1
	[ "${STATS[srqs]}" -ge 1 ] || { fail "srqs ${STATS[srqs]}: no new SRQ on the re-added rxe0"; return 1; }
	expect_eq "${STATS[srq_recvs_queued]}" $((64 * STATS[srqs])) "the new SRQs' buffers queued" ||
		return 1
	check_accounted srv || return 1
	echo "figure: srq=1, rxe0 deleted under 2 streams: $srqs0 SRQs destroyed with the connections (srq_recvs_discarded $((STATS[srq_recvs_discarded] - discarded0)) buffers), server kept running; $verified echoes verified before, $lost lost beyond the 8 a stop may leave in flight; after re-add $N/$N verified from ${STATS[srqs]} new SRQ(s); $(accounting srv)"
	ep_remove c0 c1 srv
}

rxe_unload_under_traffic()
{
	local ok=1 verified lost

	robust_setup || return 1
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

	robust_setup || return 1
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
	wait_conns_gone 60 srv || return 1
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
	wait_conns_gone 60 srv || return 1
	wait_stat 60 srv conns_closed = 2 || return 1
	expect_write "$CQN_DFS/srv/reset" 1 || return 1
	expect_write "$CQN_DFS/srv/fault_cq_undersize" 1 || return 1
	stream_client cli || return 1
	ep_wait_state cli error 120 || return 1
	wait_conns_gone 60 srv || return 1
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

	robust_setup || return 1
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
	wait_conns_gone 60 srv || return 1
	wait_stat 60 srv conns_closed = $(($(ep_stat cli reconnects) + 1)) || return 1
	check_accounted srv || return 1
	expect_eq "$(ep_attr srv state)" running "server state" || return 1
	echo "figure: client CQ overflow ($(ep_stat cli cq_overflows) completions dropped)," \
		"then server CQ overflow ($(ep_stat srv cq_overflows)): $(ep_stat cli reconnects)" \
		"reconnects, $(ep_stat cli msgs_resent) messages resent, $(ep_stat cli msgs_verified)" \
		"verified in sequence; client $(accounting cli); server $(accounting srv)"
	ep_remove cli srv
}

# A server connection whose teardown drain ends short (fault_drain_short:
# the drain requests are posted, not waited for) on a shared CQ that its
# other connection keeps, three times: what its QP's flushed work requests
# left on the CQ is handed over after the QP is destroyed, by the engine
# or by the flush before it leaves (the kernel log: "drain ended short; N
# completions taken from its shared CQ"), its handlers never reading the
# destroyed QP (the debug kernel's KASAN judges), and each work request is
# counted once: wr_posted is the sum of the outcomes and wr_completed +
# wc_lost = wr_posted (stop 30's siw run counted 3 completions twice, as
# wc_lost at the drain's end and again when the CQ handed them over). The
# other connection's stream goes on undisturbed.
short_drain_counts_once()
{
	local mark v r taken= re="srv: connection [0-9]+: drain ended short; [0-9]+ completions taken from its shared CQ"

	robust_setup || return 1
	start_server cq_share=endpoint max_conns=4 || return 1
	endless_client cli2 || return 1
	for r in 1 2 3; do
		if [ $r = 1 ]; then
			endless_client cli1 || return 1
		else
			ep_enable cli1 1 && ep_wait_state cli1 running 60 || return 1
		fi
		wait_stat 60 cli1 msgs_verified -gt 20 && wait_stat 60 cli2 msgs_verified -gt 20 ||
			return 1
		expect_match "$(<"$CQN_DFS/srv/cqs")" " qps 2 " "srv: both connections on one CQ" ||
			return 1
		cqn_klog_read || { fail "dmesg"; return 1; }
		mark=${#CQN_KLOG[@]}
		expect_write "$CQN_DFS/srv/fault_drain_short" 1 || return 1
		ep_enable cli1 0 && check_stopped cli1 || return 1
		wait_stat 30 srv conns_active = 1 && wait_stat 30 srv conns_closing = 0 || return 1
		expect_write "$CQN_DFS/srv/fault_drain_short" 0 || return 1
		cqn_klog_read || { fail "dmesg"; return 1; }
		cqn_klog_match "$mark" "$re"
		[ "$KLOG_NMATCH" = 1 ] ||
			{ fail "round $r: $KLOG_NMATCH short drains of a server connection leaving its shared CQ, not 1 ('$re')"; return 1; }
		v=${KLOG_MATCHES##*drain ended short; }
		taken+=" ${v%% *}"
	done
	v=$(ep_stat cli2 msgs_verified)
	wait_stat 30 cli2 msgs_verified -gt $((v + 20)) || return 1
	ep_enable cli2 0 && check_stopped cli2 || return 1
	expect_eq "$(ep_stat cli2 reconnects)" 0 "cli2 reconnects" || return 1
	wait_conns_gone 30 srv || return 1
	check_accounted srv || return 1
	expect_eq "$((STATS[wr_completed] + STATS[wc_lost]))" "${STATS[wr_posted]}" \
		"srv: wr_completed + wc_lost = wr_posted" || return 1
	echo "figure: 3 short drains, completions the flush took:$taken; server $(accounting srv), wr_completed ${STATS[wr_completed]}"
	ep_remove cli1 cli2 srv
}

# The client's side of short_drain_counts_once: a client of four
# connections on one CQ (cq_share=endpoint) streams, 32 messages in
# flight on each, which keeps the engine behind; its teardown drains end
# short (fault_drain_short on the client), so echoes a QP received before
# its drain are still on the CQ when that QP and its rdma_cm id are
# destroyed, and are handed over then (cqn_ep_cq_leave(): "cli:
# connection N: drain ended short; M completions taken", three a round:
# the last QP destroys the CQ). Teardown began, the receive handler
# reposts none of them, which would reach the destroyed QP (the debug
# kernel's KASAN; found on 2026-12-07 with rxe's lookups slowed), and
# neither it nor a tracepoint reads the destroyed QP or id: cqn_rtt and
# cqn_wc_error are traced throughout (the DMA sync took the device from
# the freed id, the tracepoints the QP number from the freed QP). Five
# rounds, each work request counted once. With two connections and 16 in
# flight the engine kept up: on the debug kernel with the rxe fix (whose
# grace period gives it time) a client that reposted them passed.
short_drain_client_reposts_nothing()
{
	local r taken= mark re="cli: connection [0-9]+: drain ended short; [0-9]+ completions taken from its shared CQ"

	robust_setup || return 1
	start_server max_conns=4 || return 1
	trace_arm cqn_rtt cqn_wc_error && trace_start || return 1
	for r in 1 2 3 4 5; do
		endless_client cli connections=4 cq_share=endpoint queue_depth=32 || return 1
		wait_stat 60 cli msgs_verified -gt 100 || return 1
		expect_match "$(<"$CQN_DFS/cli/cqs")" " qps 4 " "cli: its connections on one CQ" ||
			return 1
		cqn_klog_read || { fail "dmesg"; return 1; }
		mark=${#CQN_KLOG[@]}
		expect_write "$CQN_DFS/cli/fault_drain_short" 1 || return 1
		ep_enable cli 0 && check_stopped cli || return 1
		cqn_klog_read || { fail "dmesg"; return 1; }
		cqn_klog_match "$mark" "$re"
		[ "$KLOG_NMATCH" = 3 ] ||
			{ fail "round $r: $KLOG_NMATCH short drains of a client connection leaving its shared CQ, not 3 ('$re')"; return 1; }
		taken+=" $(sed -n 's/.*drain ended short; \([0-9]*\) .*/\1/p' <<<"$KLOG_MATCHES" | paste -sd+)"
		check_accounted cli || return 1
		expect_eq "$((STATS[wr_completed] + STATS[wc_lost]))" "${STATS[wr_posted]}" \
			"cli: wr_completed + wc_lost = wr_posted" || return 1
		ep_remove cli
	done
	trace_disarm
	echo "figure: 5 rounds of 3 short client drains, completions the flushes took:$taken"
	ep_remove srv
}

# The server stops reposting receives (fault_stop_replenish) and advertises
# a finite RNR retry count (fault_rnr_retry): the client's sends meet RNR
# NAKs, each retried after the minimum RNR timer (655 ms, the rdma_cm
# default), until the retries run out with IB_WC_RNR_RETRY_EXC_ERR.
rnr_retry_exceeded()
{
	local rnr=3 t0 ms rcvd sent exc rcvd0 sent0 exc0 t1 t2

	robust_setup || return 1
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
	wait_conns_gone 60 srv || return 1
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

	robust_setup || return 1
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
	wait_conns_gone 60 srv || return 1
	wr_balanced srv || return 1
	echo "figure: $hits QP errors forced, $(ep_stat cli reconnects) reconnects," \
		"$(ep_stat cli wc_flushed) + $(ep_stat srv wc_flushed) work requests flushed," \
		"$(ep_stat cli msgs_resent) messages resent, $(ep_stat cli msgs_verified) verified" \
		"in sequence, 0 lost or duplicated"
	ep_remove cli srv
}

# conn_ids CLIENT: the ids of CLIENT's live connections, sorted, one line.
conn_ids()
{
	local d out=

	for d in "$CQN_DFS/$1"/conns/*/; do
		[ -d "$d" ] || continue
		d=${d%/}
		out+="${d##*/} "
	done
	echo $out | tr ' ' '\n' | sort -n | tr '\n' ' '
}

# slot_of CLIENT CONN: the line of CLIENT's debugfs "slots" whose slot has
# connection CONN.
slot_of()
{
	local line

	while IFS= read -r line; do
		[[ $line =~ ^[0-9]+\ conn\ $2\  ]] && { echo "$line"; return 0; }
	done <"$CQN_DFS/$1/slots"
	fail "$1: no slot has connection $2"
}

# A client of connections=4 and reconnect=1; one connection's QP alone is
# forced into error (its conns/<id>/fault_qp_error): that connection's
# slot reconnects and resumes its own sequence (what was in flight is
# resent: msgs_resent), nothing is lost (every echo verified, no
# msg_error, err_lost 0), and the other three keep their connections (the
# same conns/<id>, their slots never reconnected) and move on meanwhile.
qp_error_one_of_four_reconnects()
{
	local ids hit others id before after slots line nrec=0 idx f

	robust_setup || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR connections=4 workload=stream queue_depth=8 \
		iterations=0 duration_ms=0 reconnect=1 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	wait_stat 120 cli msgs_verified -gt 200 || return 1
	ids=$(conn_ids cli)
	expect_eq "$(wc -w <<<"$ids")" 4 "live connections ($ids)" || return 1
	# The newest connection (not slot 0's, most likely: slots resolve in order).
	hit=${ids% }
	hit=${hit##* }
	others=${ids% $hit }
	line=$(slot_of cli "$hit") || return 1
	idx=${line%% *}
	expect_write "$CQN_DFS/cli/conns/$hit/fault_qp_error" 1 || return 1
	wait_stat 60 cli reconnects -ge 1 || return 1
	ep_wait_state cli running 60 || return 1
	# The others: the same connections, still there, still moving.
	for id in $others; do
		[ -d "$CQN_DFS/cli/conns/$id" ] || { fail "connection $id went with $hit's QP error"; return 1; }
	done
	[ ! -d "$CQN_DFS/cli/conns/$hit" ] || { fail "connection $hit still live after its QP error"; return 1; }
	expect_eq "$(wc -w <<<"$(conn_ids cli)")" 4 "live connections after the reconnect" || return 1
	before=$(ep_stat cli msgs_verified)
	wait_stat 120 cli msgs_verified -gt $((before + 200)) || return 1
	for id in $others; do
		after=$(awk '$1 == "msgs_verified" { print $2 }' "$CQN_DFS/cli/conns/$id/stats")
		[ "${after:-0}" -gt 0 ] || { fail "connection $id verified nothing"; return 1; }
	done
	mapfile -t slots <"$CQN_DFS/cli/slots"
	for line in "${slots[@]}"; do
		read -ra f <<<"$line"
		if [ "${f[0]}" = "$idx" ]; then
			expect_eq "${f[5]}" 1 "slot $idx (connection $hit): reconnects" || return 1
			[ "${f[17]}" -gt 0 ] ||
				{ fail "slot $idx resent nothing after its QP error: $line"; return 1; }
		else
			expect_eq "${f[5]}" 0 "slot ${f[0]}: reconnects" || return 1
		fi
	done
	for id in $others; do
		slot_of cli "$id" >/dev/null || return 1
	done
	ep_enable cli 0 || return 1
	stop_lost cli 32 || return 1
	reliability faults=1 verified=$RUN_VERIFIED lost=$RUN_LOST
	check_stopped cli || return 1
	expect_eq "$(ep_stat cli err_lost)" 0 "cli err_lost" || return 1
	expect_eq "$(ep_stat cli reconnects)" 1 "one reconnect" || return 1
	expect_eq "$(ep_stat srv conns_accepted)" 5 "server conns_accepted (4, and the one reconnect)" || return 1
	wr_balanced cli || return 1
	echo "figure: 1 of 4 QPs forced into error: its slot reconnected, the 3 others kept their connections; $(ep_stat cli msgs_resent) resent, $(ep_stat cli msgs_verified) verified in sequence"
	ep_remove cli srv
}

# Without a server, reconnect=1 tries CQN_RECONNECT_ATTEMPTS (8) times with
# backoff, then fails with the reason; reconnect=0 fails at the first loss.
reconnect_gives_up()
{
	robust_setup || return 1
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

cqn_run_suite cli c0 c1 c2 c3 srv
