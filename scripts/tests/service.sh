#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The RC send/recv service end to end over rxe: a cqnotify server on rxe0
# (10.77.0.1) and clients on rxe1 (10.77.0.2), verified echoes, counters that
# agree on both sides, userspace interop, and the ways a run can be cut short.
# With CQN_PROVIDER=siw (service_siw.sh) the same tests run over siw0/siw1.
. "$(dirname "$0")/lib.sh"

ALL_TESTS="
	pingpong_sizes
	stream_event
	stream_poll
	server_send_ring_full_keeps_order
	counters_agree
	counters_hold_across_close
	rdma_client_interop
	max_conns_enforced
	multi_conn_4
	multi_conn_16
	multi_conn_counters_sum
	multi_conn_server_full
	multi_conn_shared_cq
	multi_conn_teardown
	disconnect_midstream
	link_delete_under_traffic
	rmmod_under_traffic
	rmdir_running
	teardown_bounded_after_lost_events
	srq_clients_at_once
	srq_off_clients_at_once
	srq_shared_cq_clients_at_once
	srq_limit_event_rearmed
"
# Over siw, what the provider can change: traffic, teardown, device
# removal, SRQs; the counting and admission tests are the same code over
# either provider and run over rxe (80 s of the debug kernel saved).
if [ "$CQN_PROVIDER" = siw ]; then
	for t in counters_hold_across_close multi_conn_counters_sum srq_off_clients_at_once \
		max_conns_enforced multi_conn_server_full; do
		CQN_SKIP[$t]="provider-independent (counters, admission): runs over rxe"
	done
fi
SRQ_CLIENTS="c0 c1 c2 c3"
setup()
{
	cqn_load || return 1
	ep_remove srv cli cli2 cli3 $SRQ_CLIENTS
}

pingpong_sizes()
{
	local size n

	setup || return 1
	start_server msg_size=1048576 send_depth=4 recv_depth=4 cq_depth=16 || return 1
	for size in 1 64 4096 1048576; do
		# A megabyte is copied and checksummed per message: fewer of
		# them, 3 on the debug kernel (a round trip of 3 s over rxe
		# there, 8 s over siw).
		n=$N
		if [ $size -gt 4096 ]; then
			n=$((N / 10))
			[ "$CQN_KERNEL" = debug ] && n=3
		fi
		ep_remove cli
		run_client cli workload=pingpong msg_size=$size send_depth=4 recv_depth=4 \
			cq_depth=16 iterations=$n || return 1
		check_clean_run cli $n || return 1
		echo "figure: pingpong $size B: rtt_p50_ns $(ep_stat cli rtt_p50_ns)"
	done
	ep_remove cli srv
}

stream_mode()
{
	local mode=$1

	setup || return 1
	start_server cq_mode="$mode" || return 1
	run_client cli cq_mode="$mode" workload=stream queue_depth=16 msg_size=4096 \
		iterations=$((N * 5)) || return 1
	check_clean_run cli $((N * 5)) || return 1
	echo "figure: stream 4096 B $mode: msgs_per_sec $(ep_stat cli msgs_per_sec) cq_events $(ep_stat cli cq_events)"
	if [ "$mode" = poll ]; then
		poll_arms_naps_ep "poll stream" cli || return 1
	else
		[ "$(ep_stat cli cq_events)" -gt 0 ] || { fail "event mode saw no event"; return 1; }
	fi
	ep_remove cli srv
}

stream_event()
{
	stream_mode event
}

stream_poll()
{
	stream_mode poll
}

# A client keeps 32 messages in flight against a server with 2 send
# buffers: most receives wait in the server's FIFO for a send buffer
# (send_ring_full, which only that wait moves) and must still be echoed in
# the order they arrived: every echo verified, in sequence.
server_send_ring_full_keeps_order()
{
	local n=$((N * 2)) full

	setup || return 1
	start_server send_depth=2 || return 1
	run_client cli workload=stream queue_depth=32 msg_size=256 iterations=$n || return 1
	check_clean_run cli $n || return 1
	full=$(ep_stat srv send_ring_full)
	echo "figure: $n messages, 32 in flight, server send_depth 2: send_ring_full $full"
	[ "$full" -ge $((n / 4)) ] ||
		{ fail "only $full of $n echoes waited for a send buffer"; return 1; }
	ep_remove cli srv
}

# net_sent NETDEV: packets the network device under an RDMA device has sent.
net_sent()
{
	cat "/sys/class/net/$1/statistics/tx_packets"
}

# Client sent == server echoed == client verified, and re-running works.
# The client's packets really leave its device's netdev (veth1 under rxe1,
# veth3 under siw1), not a loop inside one device.
counters_agree()
{
	local run sent0 echoed

	setup || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=8 \
		msg_size=4095 iterations=$N || return 1
	for run in 1 2; do
		printf 1 >"$CQN_DFS/srv/reset"
		sent0=$(net_sent $CLI_NETDEV)
		ep_enable cli 1 || return 1
		ep_wait_state cli done 240 || return 1
		check_clean_run cli $N || return 1
		[ $(($(net_sent $CLI_NETDEV) - sent0)) -ge $N ] ||
			{ fail "$CLI_NETDEV sent $(($(net_sent $CLI_NETDEV) - sent0)) packets for $N messages"; return 1; }
		wait_stat 20 srv msgs_received = $N || return 1
		# The client disconnects once its last echo is in; the send
		# completions of the server's last echoes (at most queue_depth)
		# may be flushed by that before their acknowledgements are
		# processed (6.12's rxe). What completed agrees with itself.
		echoed=$(ep_stat srv msgs_sent)
		[ "$echoed" -le $N ] && [ "$echoed" -ge $((N - 8)) ] ||
			{ fail "server echo completions $echoed, want $((N - 8))..$N (run $run)"; return 1; }
		expect_eq "$(ep_stat srv bytes_sent)" $((echoed * 4095)) "server bytes echoed" || return 1
		ep_enable cli 0 || return 1
		expect_eq "$(ep_attr cli state)" idle "state after disable" || return 1
	done
	wait_conns_gone 20 srv || return 1
	# The second run's connection closed after the last reset.
	[ "$(ep_stat srv conns_closed)" -ge 1 ] || { fail "server counted no closed connection"; return 1; }
	ep_remove cli srv
}

# An endpoint's counters never step back while its connections close: a
# closing connection's counters stay in the sum while the reaper drains and
# destroys it, then join the totals in one step. Watched as fast as the
# shell can read (each read one snapshot), on both sides, across each run's
# end: the client's connection closes at "done", the server's when the
# client has gone. Four runs; two on the debug kernel (16 s a run there).
counters_hold_across_close()
{
	local run runs=4 n=$((N / 2)) reads after st end s1 s2
	local verified sent echoed closed

	[ "$CQN_KERNEL" = debug ] && runs=2
	setup || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=8 \
		iterations=$n || return 1
	for ((run = 1; run <= runs; run++)); do
		printf 1 >"$CQN_DFS/srv/reset"
		ep_enable cli 1 || return 1
		verified=0 sent=0 echoed=0 closed=0 reads=0 after=0 end=$((SECONDS + 240))
		# Until the server has retired its connection, and 200 reads more.
		while [ $after -lt 200 ]; do
			ep_stats cli || { fail "reading cli stats"; return 1; }
			s1=${STATS[msgs_verified]} s2=${STATS[msgs_sent]}
			[ "$s1" -ge $verified ] && [ "$s2" -ge $sent ] ||
				{ fail "run $run, read $reads: client msgs_verified $verified -> $s1, msgs_sent $sent -> $s2"; return 1; }
			verified=$s1 sent=$s2
			ep_stats srv || { fail "reading srv stats"; return 1; }
			s1=${STATS[msgs_sent]} s2=${STATS[conns_closed]}
			[ "$s1" -ge $echoed ] && [ "$s2" -ge $closed ] ||
				{ fail "run $run, read $reads: server msgs_sent $echoed -> $s1, conns_closed $closed -> $s2"; return 1; }
			echoed=$s1 closed=$s2
			IFS= read -r st <"$CQN_CFS/endpoints/cli/state"
			case $st in
			done) [ "$closed" -ge 1 ] && after=$((after + 1)) ;;
			connecting|running) ;;
			*) fail "run $run: client state '$st' ($(ep_attr cli last_error))"; return 1 ;;
			esac
			reads=$((reads + 1))
			[ $SECONDS -lt $end ] || { fail "run $run: not over in 240 s (state $st, server conns_closed $closed)"; return 1; }
		done
		# The server received every message; its echoes' own send
		# completions may be flushed by the client's disconnect, which
		# can overtake their acknowledgements (seen on 6.12's rxe, whose
		# completer is a work item): each completed once, either way.
		expect_eq "$verified/$sent/$(ep_stat srv msgs_received)" "$n/$n/$n" \
			"run $run: client verified/sent, server received" || return 1
		check_accounted srv || return 1
		check_clean_run cli $n || return 1
		echo "figure: run $run: $reads reads of both stats files, none stepped back"
		ep_enable cli 0 || return 1
	done
	ep_remove cli srv
}

rdma_client_interop()
{
	local out sent how

	command -v rdma_client >/dev/null || { fail "rdma_client (rdmacm-utils) not installed"; return 1; }
	setup || return 1
	start_server || return 1
	# rdma_client exits 0 once its receive completed: the echo reached it.
	out=$(timeout 60 rdma_client -s $SERVER_ADDR 2>&1) || { fail "rdma_client failed: $out"; return 1; }
	echo "$out"
	wait_stat 20 srv conns_closed = 1 || return 1
	expect_eq "$(ep_stat srv msgs_received)" 1 "server msgs_received" || return 1
	expect_eq "$(ep_stat srv msgs_malformed)" 0 "server msgs_malformed" || return 1
	expect_eq "$(ep_stat srv wc_errors)" 0 "server wc_errors" || return 1
	# rdma_client disconnects as soon as the echo arrives: the server's
	# send completion may come before the disconnect (msgs_sent 1) or be
	# flushed by it (the acknowledgement was still on its way; msgs_sent
	# 0, counted in wc_flushed). Either way it completed exactly once.
	sent=$(ep_stat srv msgs_sent)
	[ "$sent" -le 1 ] || { fail "server sent more than one echo"; return 1; }
	check_accounted srv || return 1
	[ "$sent" = 1 ] && how=success || how="flushed by the client's disconnect"
	echo "figure: rdma_client got its echo; the server's send completion: $how; $(accounting srv)"
	ep_remove srv
}

max_conns_enforced()
{
	setup || return 1
	start_server max_conns=2 || return 1
	ep_create cli role=client addr=$SERVER_ADDR iterations=0 duration_ms=0 || return 1
	ep_create cli2 role=client addr=$SERVER_ADDR iterations=0 duration_ms=0 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	ep_enable cli2 1 && ep_wait_state cli2 running 60 || return 1
	ep_create cli3 role=client addr=$SERVER_ADDR iterations=10 || return 1
	ep_enable cli3 1 || return 1
	ep_wait_state cli3 error 60 || return 1
	expect_match "$(ep_attr cli3 last_error)" "rejected" "third client's reason" || return 1
	expect_eq "$(ep_stat srv conns_rejected)" 1 "server conns_rejected" || return 1
	expect_eq "$(ep_stat srv conns_active)" 2 "server conns_active" || return 1
	# The two accepted clients are still exchanging verified messages.
	expect_eq "$(ep_stat cli msg_errors)" 0 "cli msg_errors" || return 1
	ep_remove cli cli2 cli3 srv
}

# check_slots CLIENT C N: after a run of N iterations over C connections,
# debugfs "slots" has C lines, each slot done, with no reconnect or error,
# and each sent and verified exactly its share (N / C, the first N % C one
# more); the slots sum to the endpoint's totals. A client that sent all
# its traffic over one connection, or split it otherwise, fails here.
check_slots()
{
	local c=$2 n=$3 line share f sent=0 ver=0 recv=0 idx
	local -a slots

	mapfile -t slots <"$CQN_DFS/$1/slots" || { fail "$1: no slots file"; return 1; }
	expect_eq "${#slots[@]}" "$c" "$1: slots" || return 1
	for line in "${slots[@]}"; do
		read -ra f <<<"$line"
		# 0 conn - done reconnects 0 msgs_sent S msgs_received R msgs_verified V
		#   msg_errors E err_lost L msgs_resent X
		idx=${f[0]}
		share=$((n / c + (idx < n % c ? 1 : 0)))
		expect_eq "${f[3]} ${f[5]}" "done 0" "slot $idx: state, reconnects" || return 1
		expect_eq "${f[7]}/${f[9]}/${f[11]}" "$share/$share/$share" \
			"slot $idx: sent/received/verified (its share of $n over $c)" || return 1
		expect_eq "${f[13]} ${f[15]}" "0 0" "slot $idx: msg_errors, err_lost" || return 1
		sent=$((sent + f[7])) recv=$((recv + f[9])) ver=$((ver + f[11]))
	done
	expect_eq "$sent/$recv/$ver" \
		"$(ep_stat "$1" msgs_sent)/$(ep_stat "$1" msgs_received)/$(ep_stat "$1" msgs_verified)" \
		"$1: the slots' sent/received/verified sum to the endpoint's" || return 1
	echo "figure: $c connections, $n messages: each slot sent and verified its share ($((n / c))), ${slots[0]}"
}

# multi_conn C: a client of connections=C runs a verified stream of
# iterations over C RC connections to one server: the server accepted C
# connections, every echo verified, and each connection ran its share
# (check_slots). The client's own max_conns (1) is no limit on them.
multi_conn()
{
	local c=$1 n=$((N * 4))

	setup || return 1
	start_server max_conns=$((c + 2)) || return 1
	ep_create cli role=client addr=$SERVER_ADDR connections=$c max_conns=1 workload=stream \
		queue_depth=4 iterations=$n || return 1
	ep_enable cli 1 || return 1
	ep_wait_state cli done 240 || return 1
	check_clean_run cli $n || return 1
	expect_eq "$(ep_stat srv conns_accepted)" "$c" "server conns_accepted" || return 1
	expect_eq "$(ep_stat srv conns_rejected)" 0 "server conns_rejected" || return 1
	expect_eq "$(ep_stat srv msgs_received)" "$n" "server msgs_received" || return 1
	check_slots cli "$c" "$n" || return 1
	# Each closes once its share is done.
	wait_stat 30 srv conns_closed = "$c" || return 1
	wait_stat 30 cli conns_closed = "$c" || return 1
	echo "figure: $c connections: $(ep_stat cli msgs_per_sec) msgs/s"
	ep_remove cli srv
}

multi_conn_4()
{
	multi_conn 4
}

multi_conn_16()
{
	multi_conn 16
}

# conn_stat DIR KEY: a line of a connection's conns/<id>/stats.
conn_stat()
{
	awk -v k="$2" '$1 == k { print $2; found = 1 } END { exit !found }' "$1/stats"
}

# conn_moved DIR: the connection has verified more than 5 echoes.
conn_moved()
{
	[ "$(conn_stat "$1" msgs_verified)" -gt 5 ]
}

# An endless pingpong client of connections=4: four connections live in
# its conns/ and four on the server, each moving traffic, and the
# connections' counters (conns/<id>/stats) sum to the endpoint's stats:
# read once every connection stalled (every completion event lost, no
# watchdog), so that nothing moves between the reads. Disabling the
# stalled client still ends within a bound (each connection's drain is
# bounded), and every work request is accounted for.
multi_conn_counters_sum()
{
	local d n=0 k sum want t0

	setup || return 1
	start_server || return 1
	endless_client cli connections=4 workload=pingpong watchdog_ms=0 || return 1
	expect_eq "$(ep_stat srv conns_active)" 4 "server conns_active" || return 1
	expect_eq "$(ep_stat cli conns_active)" 4 "client conns_active" || return 1
	wait_stat 60 cli msgs_verified -gt 100 || return 1
	for d in "$CQN_DFS"/cli/conns/*/; do
		wait_for 60 conn_moved "$d" || return 1
		n=$((n + 1))
	done
	expect_eq "$n" 4 "client connections in conns/" || return 1
	stall_by_lost_events cli || return 1
	for k in msgs_sent msgs_received msgs_verified wr_posted cq_events; do
		sum=0
		for d in "$CQN_DFS"/cli/conns/*/; do
			sum=$((sum + $(conn_stat "$d" $k)))
		done
		want=$(ep_stat cli $k)
		expect_eq "$sum" "$want" "$k: the connections' sum vs the endpoint's" || return 1
	done
	t0=$SECONDS
	timeout 60 sh -c "printf 0 >$CQN_CFS/endpoints/cli/enable" ||
		{ fail "disable of a stalled 4-connection client failed or hung"; return 1; }
	expect_eq "$(ep_stat cli conns_active)" 0 "cli conns_active after disable" || return 1
	expect_eq "$(ep_stat cli conns_closed)" 4 "cli conns_closed after disable" || return 1
	check_accounted cli || return 1
	expect_eq "$(ep_stat cli msg_errors)" 0 "cli msg_errors" || return 1
	wait_conns_gone 30 srv || return 1
	echo "figure: 4 connections stalled at $STALLED_AT verified; their counters sum to the endpoint's; disable took $((SECONDS - t0)) s"
	ep_remove cli srv
}

# A client of connections=8 with cq_share=endpoint: one CQ engine serves
# its 8 QPs (debugfs cqs: one line, qps 8), sized for its connections
# (not for one QP, nor for its own max_conns: that would take more
# engines), and all 8 move verified traffic; nothing lost at the stop.
multi_conn_shared_cq()
{
	local d n=0 cqs

	setup || return 1
	start_server || return 1
	endless_client cli connections=8 max_conns=1 cq_share=endpoint || return 1
	mapfile -t cqs <"$CQN_DFS/cli/cqs" || { fail "cli: no cqs file"; return 1; }
	expect_eq "${#cqs[@]}" 1 "cli: CQ engines (${cqs[*]})" || return 1
	expect_match "${cqs[0]}" " qps 8 " "cli: the engine's QPs" || return 1
	for d in "$CQN_DFS"/cli/conns/*/; do
		wait_for 60 conn_moved "$d" || return 1
		n=$((n + 1))
	done
	expect_eq "$n" 8 "client connections in conns/" || return 1
	ep_enable cli 0 || return 1
	check_stopped cli || return 1
	expect_eq "$(ep_stat cli err_lost)" 0 "cli err_lost" || return 1
	# siw drops the sends in flight when a QP goes to error, without a
	# completion, which teardown counts as wc_lost (as scale.sh's
	# clients_stop allows there; seen: 5 of 8 connections' sends on the
	# debug kernel); rxe never does. Every work request is accounted for.
	[ "$CQN_PROVIDER" != rxe ] || expect_eq "$(ep_stat cli wc_lost)" 0 "cli wc_lost" || return 1
	check_accounted cli || return 1
	wait_conns_gone 60 srv || return 1
	echo "figure: 8 connections on one shared CQ: ${cqs[0]}; cli wc_lost $(ep_stat cli wc_lost)"
	ep_remove cli srv
}

# mc_streaming: a server and an endless 4-connection stream client, each
# connection moving.
mc_streaming()
{
	local d

	setup || return 1
	start_server || return 1
	endless_client cli connections=4 || return 1
	for d in "$CQN_DFS"/cli/conns/*/; do
		wait_for 60 conn_moved "$d" || return 1
	done
	expect_eq "$(ep_stat srv conns_active)" 4 "server conns_active" || return 1
}

# Every way a 4-connection client under traffic can be stopped ends
# bounded and clean: rdma link delete of its device (error "rxe1 removed",
# all four gone on both sides, then a clean run once the device is back),
# rmmod cqnotify (endpoints idle, no debugfs left), rmdir.
multi_conn_teardown()
{
	mc_streaming || return 1
	timeout 120 rdma link delete $CLI_DEV ||
		{ fail "rdma link delete $CLI_DEV hung or failed"; return 1; }
	ep_wait_state cli error 30 || return 1
	expect_match "$(ep_attr cli last_error)" "$CLI_DEV removed" "client's reason" || return 1
	expect_eq "$(ep_stat cli conns_active)" 0 "client conns_active after removal" || return 1
	expect_eq "$(ep_stat cli msg_errors)" 0 "no message error before removal" || return 1
	wait_conns_gone 60 srv || return 1
	rdma link add $CLI_DEV type $CQN_PROVIDER netdev $CLI_NETDEV ||
		{ fail "rdma link add $CLI_DEV"; return 1; }
	ep_enable cli 0 || return 1
	expect_write "$CQN_CFS/endpoints/cli/iterations" $N || return 1
	ep_enable cli 1 && ep_wait_state cli done 240 || return 1
	check_clean_run cli $N || return 1
	ep_remove cli srv
	mc_streaming || return 1
	timeout 120 rmmod cqnotify || { fail "rmmod cqnotify under 4-connection traffic failed or hung"; return 1; }
	[ ! -e "$CQN_DFS/cli" ] || { fail "debugfs left after rmmod"; return 1; }
	expect_eq "$(ep_attr cli state)" idle "client state without the service" || return 1
	cqn_load || return 1
	ep_enable srv 1 && ep_wait_state srv running 10 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	wait_stat 60 cli msgs_verified -gt 50 || return 1
	rmdir "$CQN_CFS/endpoints/cli" || { fail "rmdir of a running 4-connection client"; return 1; }
	[ ! -e "$CQN_DFS/cli" ] || { fail "debugfs directory left after rmdir"; return 1; }
	wait_conns_gone 60 srv || return 1
	echo "figure: 4-connection client: link delete, rmmod and rmdir under traffic, each clean"
	ep_remove srv
}

# A server of max_conns=4 and a client of connections=8: the server
# accepts four and refuses the other four cleanly (conns_rejected), and
# the client fails with a reason naming the refused connection; disabling
# it then takes the four accepted ones down.
multi_conn_server_full()
{
	setup || return 1
	start_server max_conns=4 || return 1
	ep_create cli role=client addr=$SERVER_ADDR connections=8 iterations=0 duration_ms=0 || return 1
	ep_enable cli 1 || return 1
	ep_wait_state cli error 60 || return 1
	expect_match "$(ep_attr cli last_error)" "^connection [0-7] of 8: peer rejected" \
		"client's reason" || return 1
	wait_stat 60 srv conns_rejected = 4 || return 1
	expect_eq "$(ep_stat srv conns_accepted)" 4 "server conns_accepted" || return 1
	expect_eq "$(ep_stat srv conns_active)" 4 "server conns_active" || return 1
	expect_eq "$(ep_attr srv state)" running "server state" || return 1
	# The run starts when every connection is up: the 4 accepted ones,
	# an endless stream each, waited for the rest and sent nothing.
	sleep 1
	expect_eq "$(ep_stat cli msgs_sent)" 0 "client msgs_sent, 4 of 8 connections up" || return 1
	expect_eq "$(ep_stat srv msgs_received)" 0 "server msgs_received" || return 1
	ep_enable cli 0 || return 1
	expect_eq "$(ep_stat cli conns_active)" 0 "client conns_active after disable" || return 1
	expect_eq "$(ep_stat cli msg_errors)" 0 "client msg_errors" || return 1
	wait_conns_gone 60 srv || return 1
	echo "figure: max_conns 4 vs connections 8: 4 accepted, $(ep_stat srv conns_rejected) rejected; client: $(ep_attr cli last_error)"
	ep_remove cli srv
}

# streaming SECONDS: a server and an endless stream client "cli"
# (queue_depth 16) that has verified more than 50 echoes within SECONDS.
streaming()
{
	setup || return 1
	start_server || return 1
	endless_client cli queue_depth=16 || return 1
	wait_stat "$1" cli msgs_verified -gt 50
}

disconnect_midstream()
{
	local before

	streaming 30 || return 1
	ep_enable cli 0 || return 1
	expect_eq "$(ep_stat cli msg_errors)" 0 "cli msg_errors after stop" || return 1
	wait_conns_gone 30 srv || return 1
	expect_eq "$(ep_attr srv state)" running "server keeps serving" || return 1
	before=$(ep_stat srv wc_errors)
	ep_remove cli
	run_client cli iterations=$N || return 1
	check_clean_run cli $N || return 1
	expect_eq "$(ep_stat srv wc_errors)" "$before" "server wc_errors" || return 1
	ep_remove cli srv
}

link_delete_under_traffic()
{
	streaming 30 || return 1
	# The server's side of the connection is on rxe0, the client's on rxe1.
	expect_match "$(cat "$CQN_DFS"/srv/conns/*/stats)" "^device $SRV_DEV\$" \
		"server connection device" || return 1
	timeout 120 rdma link delete $CLI_DEV ||
		{ fail "rdma link delete $CLI_DEV hung or failed"; return 1; }
	ep_wait_state cli error 30 || return 1
	expect_match "$(ep_attr cli last_error)" "$CLI_DEV removed" "client's reason" || return 1
	expect_eq "$(ep_stat cli msg_errors)" 0 "no message error before removal" || return 1
	wait_conns_gone 60 srv || return 1
	rdma link add $CLI_DEV type $CQN_PROVIDER netdev $CLI_NETDEV ||
		{ fail "rdma link add $CLI_DEV"; return 1; }
	ep_enable cli 0 || return 1
	expect_write "$CQN_CFS/endpoints/cli/duration_ms" 0 || return 1
	expect_write "$CQN_CFS/endpoints/cli/iterations" $N || return 1
	ep_enable cli 1 && ep_wait_state cli done 240 || return 1
	check_clean_run cli $N || return 1
	ep_remove cli srv
}

rmmod_under_traffic()
{
	streaming 60 || return 1
	# The service goes under traffic: every endpoint stops cleanly. The
	# directories live in cqnotify_configfs.ko and keep their configuration.
	timeout 120 rmmod cqnotify || { fail "rmmod cqnotify under traffic failed or hung"; return 1; }
	[ ! -d /sys/module/cqnotify ] || { fail "cqnotify still loaded"; return 1; }
	[ ! -e "$CQN_DFS/cli" ] || { fail "debugfs left after rmmod"; return 1; }
	expect_eq "$(ep_attr cli state)" idle "client state without the service" || return 1
	expect_eq "$(ep_attr cli enable)" 0 "client enable without the service" || return 1
	expect_match "$(ep_attr cli last_error)" "unloaded" "client's reason" || return 1
	expect_eq "$(ep_attr srv addr)" "$SERVER_ADDR" "server addr kept" || return 1
	expect_eq "$(ep_attr cli workload)" stream "client workload kept" || return 1
	expect_write_err "$CQN_CFS/endpoints/srv/enable" 1 "No such device" || return 1
	# Back: the directories get new service endpoints, idle, and run again.
	cqn_load || return 1
	[ -e "$CQN_DFS/cli/stats" ] || { fail "debugfs not recreated on load"; return 1; }
	expect_eq "$(ep_attr cli state)" idle "client state after reload" || return 1
	ep_enable srv 1 && ep_wait_state srv running 10 || return 1
	expect_write "$CQN_CFS/endpoints/cli/iterations" $N || return 1
	ep_enable cli 1 && ep_wait_state cli done 240 || return 1
	run_lost cli || return 1
	reliability faults=1 verified=$RUN_VERIFIED lost=$RUN_LOST
	check_clean_run cli $N || return 1
	echo "figure: rmmod cqnotify under traffic: clean; after reload $RUN_VERIFIED/$N verified"
	ep_remove cli srv
	cqn_unload
}

rmdir_running()
{
	setup || return 1
	start_server || return 1
	endless_client cli queue_depth=16 || return 1
	rmdir "$CQN_CFS/endpoints/srv" || { fail "rmdir running server"; return 1; }
	ep_wait_state cli error 30 || return 1
	expect_match "$(ep_attr cli last_error)" "disconnect|wc status|QP event" "client sees the server go" || return 1
	rmdir "$CQN_CFS/endpoints/cli" || { fail "rmdir client"; return 1; }
	[ ! -e "$CQN_DFS/cli" ] || fail "debugfs directory left after rmdir"
}

# --- srq=1: the server's connections receive from shared receive queues ---

# srq_clients SRQ [ATTR=VALUE...]: a server with srq=SRQ and the ATTRs
# (srq_depth 64: more than the 32
# messages the four clients keep in flight, so that the SRQ never runs dry:
# siw, iWARP, has no RNR and would end the connection) and four client
# endpoints streaming at once (queue_depth 8, each its own connection),
# all four connected while each verifies echoes; then stopped one by one.
# Every echo verified, no error on either side, every work request
# accounted for.
srq_clients()
{
	local srq=$1 c total=0

	shift
	setup || return 1
	start_server srq="$srq" srq_depth=64 send_depth=4 "$@" || return 1
	for c in $SRQ_CLIENTS; do
		endless_client $c || return 1
	done
	for c in $SRQ_CLIENTS; do
		wait_stat 60 $c msgs_verified -gt $((N / 2)) || return 1
	done
	expect_eq "$(ep_stat srv conns_active)" 4 "server connections at once" || return 1
	SRQ_SEEN=$(ep_stat srv srq)
	for c in $SRQ_CLIENTS; do
		ep_enable $c 0 && check_stopped $c || return 1
		expect_eq "$(ep_stat $c wc_errors)" 0 "$c wc_errors" || return 1
		total=$((total + $(ep_stat $c msgs_verified)))
	done
	wait_conns_gone 30 srv || return 1
	ep_stats srv || return 1
	expect_eq "${STATS[wc_errors]}/${STATS[peer_errors]}" 0/0 "server wc_errors/peer_errors" ||
		return 1
	# siw may drop the completion of a send in flight at a disconnect
	# (wc_lost; its clients show it with srq=0 too): rxe never does.
	[ "$CQN_PROVIDER" != rxe ] || expect_eq "${STATS[wc_lost]}" 0 "server wc_lost" || return 1
	[ "${STATS[msgs_received]}" -ge "$total" ] ||
		{ fail "server received ${STATS[msgs_received]} of the $total messages verified"; return 1; }
	check_accounted srv || return 1
	echo "figure: srq=$srq: 4 clients at once, $total echoes verified; server wc_lost ${STATS[wc_lost]}, srqs ${STATS[srqs]}, srq_recvs_posted ${STATS[srq_recvs_posted]}, srq_empty ${STATS[srq_empty]}, srq_limit_events ${STATS[srq_limit_events]}, recv_ring_empty ${STATS[recv_ring_empty]}; $(accounting srv)"
}

# srq=1: the SRQ path carried the receives (srq_recvs_posted, which only it
# moves: the first fill of each SRQ, then one repost per message received,
# and one per flushed receive of a closing QP), no connection had a ring
# of its own to run dry, and the SRQs outlive the connections until disable.
srq_clients_at_once()
{
	srq_clients 1 || return 1
	expect_eq "$SRQ_SEEN" 1 "srq while running" || return 1
	[ "${STATS[srqs]}" -ge 1 ] || { fail "no SRQ created"; return 1; }
	[ "${STATS[srq_recvs_posted]}" -ge $((64 * STATS[srqs] + STATS[msgs_received])) ] ||
		{ fail "srq_recvs_posted ${STATS[srq_recvs_posted]} < 64 * ${STATS[srqs]} SRQs + ${STATS[msgs_received]} received"; return 1; }
	expect_eq "${STATS[srq_recvs_queued]}" $((64 * STATS[srqs])) \
		"SRQ buffers posted once the connections are gone" || return 1
	expect_eq "${STATS[recv_ring_empty]}" 0 "server recv_ring_empty (no ring)" || return 1
	ep_enable srv 0 || return 1
	ep_stats srv || return 1
	expect_eq "${STATS[srq]}/${STATS[srqs]}/${STATS[srq_recvs_queued]}" 0/0/0 \
		"srq/srqs/srq_recvs_queued after disable" || return 1
	check_accounted srv || return 1
	ep_remove $SRQ_CLIENTS srv
}

# srq=1 with the four QPs on one shared CQ engine (cq_share=endpoint): the
# SRQ's receives complete on the engine of whichever QP took them.
srq_shared_cq_clients_at_once()
{
	srq_clients 1 cq_share=endpoint || return 1
	[ "${STATS[srq_recvs_posted]}" -ge $((64 * STATS[srqs] + STATS[msgs_received])) ] ||
		{ fail "srq_recvs_posted ${STATS[srq_recvs_posted]} < 64 * ${STATS[srqs]} SRQs + ${STATS[msgs_received]} received"; return 1; }
	expect_eq "${STATS[srq_recvs_queued]}" $((64 * STATS[srqs])) \
		"SRQ buffers posted once the connections are gone" || return 1
	ep_remove $SRQ_CLIENTS srv
}

# srq=0: the same runs on the connections' own rings; the SRQ path is idle.
srq_off_clients_at_once()
{
	srq_clients 0 || return 1
	expect_eq "$SRQ_SEEN/${STATS[srqs]}/${STATS[srq_recvs_posted]}" 0/0/0 \
		"srq/srqs/srq_recvs_posted with srq=0" || return 1
	ep_remove $SRQ_CLIENTS srv
}

# srq_run NAME N: a pingpong client NAME of N messages, run to the end, clean.
srq_run()
{
	ep_remove "$1"
	run_client "$1" workload=pingpong iterations="$2" || return 1
	check_clean_run "$1" "$2"
}

# The limit event of an SRQ of 16 buffers is armed at 4: with the server's
# fault_stop_replenish on, each message keeps its buffer, so the 13th
# leaves 3 posted and must fire it (rxe and siw both test on each receive).
# Turned off, the kept buffers go back, and the refill to half the SRQ
# arms it again (not before: 3 or 4 posted is not enough). A new connection may land on another SRQ (one per completion
# vector, each armed from the start): the round is repeated until there
# were more events than SRQs, which no SRQ armed only once can give. On
# rxe an SRQ then runs dry under one connection (16 kept): its 17th
# message meets RNR NAKs (rxe0's send_rnr_err), the client retries
# (infinite RNR retries) and goes on once the buffers are back. Every
# echo verified throughout.
srq_limit_event_rearmed()
{
	local k=0 srqs rnr0 rnr

	setup || return 1
	start_server srq=1 srq_depth=16 || return 1
	srq_run cli 20 || return 1
	expect_eq "$(ep_stat srv srq_limit_events)" 0 "limit events while the SRQ stays full" || return 1
	srqs=$(ep_stat srv srqs)
	while [ $k -le "$srqs" ]; do
		k=$((k + 1))
		[ $k -le 4 ] || { fail "$srqs SRQs after $k rounds"; return 1; }
		expect_write "$CQN_DFS/srv/fault_stop_replenish" 1 || return 1
		srq_run cli 13 || return 1
		srqs=$(ep_stat srv srqs)
		wait_stat 10 srv srq_limit_events = $k || return 1
		ep_stats srv || return 1
		expect_eq "${STATS[srq_recvs_queued]}/${STATS[srq_limit_rearms]}" \
			"$((16 * srqs - 13))/$((k - 1))" "round $k: queued/re-armed with 13 kept" || return 1
		expect_write "$CQN_DFS/srv/fault_stop_replenish" 0 || return 1
		wait_stat 10 srv srq_limit_rearms = $k || return 1
		expect_eq "$(ep_stat srv srq_recvs_queued)" $((16 * srqs)) "round $k: buffers back" ||
			return 1
	done
	if [ "$CQN_PROVIDER" = rxe ]; then
		read -r rnr0 <"/sys/class/infiniband/$SRV_DEV/ports/1/hw_counters/send_rnr_err" || return 1
		expect_write "$CQN_DFS/srv/fault_stop_replenish" 1 || return 1
		ep_remove cli
		ep_create cli role=client addr=$SERVER_ADDR workload=pingpong iterations=20 || return 1
		ep_enable cli 1 || return 1
		wait_stat 60 cli msgs_verified = 16 || return 1
		wait_stat 10 srv srq_empty -ge 1 || return 1
		for _ in $(seq 1 50); do
			read -r rnr <"/sys/class/infiniband/$SRV_DEV/ports/1/hw_counters/send_rnr_err"
			[ "$rnr" -gt "$rnr0" ] && break
			sleep 0.2
		done
		[ "$rnr" -gt "$rnr0" ] || { fail "no RNR NAK from $SRV_DEV with its SRQ dry"; return 1; }
		expect_eq "$(ep_stat cli msgs_verified)" 16 "echoes while the SRQ is dry" || return 1
		expect_write "$CQN_DFS/srv/fault_stop_replenish" 0 || return 1
		ep_wait_state cli done 60 || return 1
		check_clean_run cli 20 || return 1
		echo "figure: SRQ dry after 16 messages: $SRV_DEV sent $((rnr - rnr0)) RNR NAKs, then 20/20 echoes verified"
	fi
	ep_stats srv || return 1
	expect_eq "${STATS[wc_errors]}" 0 "server wc_errors" || return 1
	echo "figure: srq_depth 16 (limit 4), $srqs SRQs, $k rounds: srq_limit_events ${STATS[srq_limit_events]}, srq_limit_rearms ${STATS[srq_limit_rearms]}, srq_empty ${STATS[srq_empty]}, withheld ${STATS[recvs_withheld]}"
	ep_remove cli srv
}

if [ "$CQN_PROVIDER" = siw ] && ! siw_pair_up; then
	echo "not ok - service@$CQN_KLABEL/siw: siw0/siw1 could not be set up"
	exit 1
fi
# A lost interrupt with no watchdog (watchdog_ms 0, the default) stalls the
# client: its CQ holds completions and is not armed. Disabling it must still
# end within a bound: teardown's drain polls the CQ instead of waiting for an
# event (ib_drain_qp() waited forever here: the write to enable never
# returned, and the module could no longer be unloaded). Every work request
# is accounted for, and the module unloads.
teardown_bounded_after_lost_events()
{
	local i pid t0 rc

	setup || return 1
	start_server || return 1
	endless_client cli workload=pingpong watchdog_ms=0 || return 1
	stall_by_lost_events cli || return 1
	# The write in the background, so that a hang fails the test instead of
	# stopping the suite.
	t0=$SECONDS
	(printf 0 >"$CQN_CFS/endpoints/cli/enable") &
	pid=$!
	for i in $(seq 1 300); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 $pid 2>/dev/null; then
		fail "echo 0 > enable of a stalled client has not returned in 60 s"
		return 1
	fi
	wait $pid
	rc=$?
	expect_eq "$rc" 0 "echo 0 > enable of a stalled client" || return 1
	ep_wait_state cli 'idle|error' 10 || return 1
	expect_eq "$(ep_stat cli conns_active)" 0 "cli conns_active after disable" || return 1
	check_accounted cli || return 1
	expect_eq "$(ep_stat cli msg_errors)" 0 "cli msg_errors" || return 1
	echo "figure: stalled at $STALLED_AT messages; disable returned after $((SECONDS - t0)) s, state $(ep_attr cli state)," \
		"wc_flushed $(ep_stat cli wc_flushed), wc_lost $(ep_stat cli wc_lost)"
	# The provider flushed every posted receive: teardown polled them out
	# of a CQ that raises no events (a drain that waits for events finds
	# none within its bound and counts them lost).
	[ "$(ep_stat cli wc_flushed)" -gt 0 ] || { fail "no flushed completion counted"; return 1; }
	expect_eq "$(ep_stat cli wc_lost)" 0 "cli wc_lost (flushed requests taken for lost)" || return 1
	ep_remove cli srv
	cqn_unload || { fail "module unload after the stalled teardown"; return 1; }
}

cqn_run_tests
rc=$?
ep_remove cli cli2 cli3 $SRQ_CLIENTS srv 2>/dev/null
cqn_unload 2>/dev/null
[ "$CQN_PROVIDER" = rxe ] || siw_pair_down
exit $rc
