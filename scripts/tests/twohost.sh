#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two hosts on a lossy link: runs in both VMs of scripts/vm/pair, which
# joins them with a QEMU socket network and sets CQN_PAIR_ROLE and
# CQN_PAIR_MAC. Each VM puts rxe0 on its NIC to the other, behind netem
# (1% loss, 1 ms delay, on both sides); the server VM runs a cqnotify server,
# the client VM a verified stream (reconnect=1) through it. Pass: the RC
# transport had to retransmit (rxe's completer_retry_err moved) and the
# application lost nothing (client msg_errors 0, every message verified,
# the server echoed exactly what it received and what the client sent).
# At the end the client tells the server over TCP (port 7999) and gets its
# counters back.
. "$(dirname "$0")/lib.sh"

ROLE=${CQN_PAIR_ROLE:-}
SERVER_ADDR=10.78.0.1
CLIENT_ADDR=10.78.0.2
CTL_PORT=7999
# netem's arguments on both NICs; CQN_TWOHOST_NETEM replaces them, e.g.
# "delay 1ms" to see the test fail without loss.
NETEM=${CQN_TWOHOST_NETEM:-loss 1% delay 1ms}
MSG_SIZE=4096
# Messages: under 1% loss per packet, enough for retransmissions to be
# certain (4 packets per 4 KiB message with rxe's MTU of 1024, each echoed:
# 400 messages saw 51 drops and 35 retransmission rounds) while the run
# stays well under a minute (4000 took 36 s on the distro kernel).
TH_N=${CQN_TEST_ITERATIONS:-4000}
[ "$CQN_KERNEL" = debug ] && TH_N=${CQN_TEST_ITERATIONS:-800}
# How long the server waits for the client: both VMs boot at once, but the
# debug kernel under TCG is slow.
SERVER_WAIT=600
HWC=/sys/class/infiniband/rxe0/ports/1/hw_counters
# The counters that show the requester retransmitting and the responder
# seeing why: a retry started (NAK or timeout), a sequence-error NAK
# received, a gap or a duplicate seen.
RETRANS_COUNTERS="completer_retry_err rcvd_seq_err out_of_seq_request duplicate_request"

case "$ROLE" in
server) ALL_TESTS=serve_lossy_link ;;
client) ALL_TESTS=netem_loss_zero_app_loss ;;
*)
	echo "not ok - twohost@$CQN_KLABEL: CQN_PAIR_ROLE is '$ROLE', not server or client (run it with scripts/vm/pair)"
	exit 1 ;;
esac

rxe_active()
{
	local st=

	read -r st <"/sys/class/infiniband/$1/ports/1/state" 2>/dev/null || true
	[ "$st" = "4: ACTIVE" ]
}

# pair_nic: the interface with the MAC vm-pair gave this VM.
pair_nic()
{
	local d mac

	for d in /sys/class/net/*; do
		read -r mac <"$d/address" 2>/dev/null || continue
		[ "$mac" = "$CQN_PAIR_MAC" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

peer_reachable()
{
	busybox ping -c 1 -W 1 -q "$1" >/dev/null 2>&1
}

# netem_drops NIC: packets netem dropped on NIC so far.
netem_drops()
{
	tc -s qdisc show dev "$1" | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1
}

declare -A HW0
hw_mark()
{
	local f

	for f in "$HWC"/*; do
		read -r "HW0[${f##*/}]" <"$f"
	done
}

# hw_moved: "name=+delta" for every rxe0 counter that moved since hw_mark.
hw_moved()
{
	local f v out=

	for f in "$HWC"/*; do
		read -r v <"$f"
		[ "$v" = "${HW0[${f##*/}]}" ] || out+=" ${f##*/}=+$((v - HW0[${f##*/}]))"
	done
	echo "${out# }"
}

# hw_delta NAME: how much one counter moved since hw_mark.
hw_delta()
{
	local v

	read -r v <"$HWC/$1"
	echo $((v - HW0[$1]))
}

# setup_link ADDR: the pair NIC up with ADDR, netem on it, rxe0 on it.
# The server starts its endpoint (bound to 0.0.0.0) before giving the NIC
# its address, so the client's first ping that is answered means the
# server is listening.
NIC=
setup_link()
{
	local i

	modprobe -a virtio_net sch_netem rdma_rxe rdma_cm || { fail "modprobe"; return 1; }
	wait_for 10 pair_nic >/dev/null || return 1
	NIC=$(pair_nic)
	ip link set "$NIC" up || { fail "ip link set $NIC up"; return 1; }
	tc qdisc add dev "$NIC" root netem $NETEM ||
		{ fail "tc qdisc add dev $NIC root netem $NETEM"; return 1; }
	rdma link add rxe0 type rxe netdev "$NIC" || { fail "rdma link add rxe0 on $NIC"; return 1; }
	for ((i = 0; i < 100; i++)); do
		rxe_active rxe0 && break
		sleep 0.3
	done
	rxe_active rxe0 || { fail "rxe0 on $NIC not ACTIVE after 30 s"; return 1; }
	hw_mark
	echo "figure: $ROLE: rxe0 on $NIC ($CQN_PAIR_MAC), tc qdisc netem $NETEM"
}

link_addr()
{
	ip addr add "$1/24" dev "$NIC" || fail "ip addr add $1/24 dev $NIC"
}

# kv_get LINE KEY: the value of KEY=VALUE in LINE.
kv_get()
{
	local w

	for w in $1; do
		[ "${w%%=*}" = "$2" ] && { echo "${w#*=}"; return 0; }
	done
	return 1
}

serve_lossy_link()
{
	local line received sent drops retries reply c wfd i echoed cut flushed posted acct

	setup_link || return 1
	cqn_load || return 1
	ep_create srv role=server addr=0.0.0.0 msg_size=$MSG_SIZE || return 1
	ep_enable srv 1 && ep_wait_state srv running 10 || return 1
	coproc CTL { exec busybox nc -l -p $CTL_PORT; }
	link_addr $SERVER_ADDR || return 1
	read -r -t $SERVER_WAIT line <&"${CTL[0]}" ||
		{ fail "no word from the client within $SERVER_WAIT s"; return 1; }
	echo "client says: $line"
	received=$(kv_get "$line" received) && sent=$(kv_get "$line" sent) ||
		{ fail "bad line from the client: '$line'"; return 1; }
	# Every echo the client received was sent, but its send completes
	# only with the client's ACK. A lost ACK waits for the retransmit
	# timer, and the client closes once it has every echo: then the
	# retransmission finds no QP, and the close flushes the send of an
	# echo that was delivered (counted in wc_flushed, 2026-12-06: 799 of
	# 800 completed, the client verified 800). Those are "cut". Once the
	# server's connection is closed its counters are final: one read
	# (STATS) serves every check below.
	wait_stat 60 srv msgs_received -ge "$sent" || return 1
	wait_stat 60 srv conns_closed -ge 1 || return 1
	ep_stats srv || return 1
	posted=${STATS[wr_posted]} echoed=${STATS[msgs_sent]} flushed=${STATS[wc_flushed]}
	acct=$((echoed + STATS[msgs_received] + STATS[wc_errors] + flushed + STATS[wc_lost]))
	cut=$((received > echoed ? received - echoed : 0))
	drops=$(netem_drops "$NIC")
	retries=$(hw_delta completer_retry_err)
	reply="received=${STATS[msgs_received]} echoed=$echoed cut=$cut"
	reply+=" wc_errors=${STATS[wc_errors]} conns=${STATS[conns_accepted]}"
	reply+=" drops=$drops retries=$retries"
	for c in $RETRANS_COUNTERS sent_pkts; do
		reply+=" hw_$c=$(hw_delta $c)"
	done
	wfd=${CTL[1]}
	echo "$reply" >&"$wfd"
	exec {wfd}>&-
	# nc ends when the client closes; it is not worth hanging for.
	c=$CTL_PID
	for ((i = 0; i < 50; i++)); do
		kill -0 "$c" 2>/dev/null || break
		sleep 0.2
	done
	kill "$c" 2>/dev/null
	echo "figure: server: $reply"
	echo "figure: server rxe0 counters moved: $(hw_moved)"
	# Every work request the server posted ended counted (an uncounted
	# echo would pass for a cut one); an echo is cut only by the close,
	# at most a queue's worth, each counted as a flush; the rest
	# completed, one for each message.
	expect_eq "$acct" "$posted" \
		"server: sent + received + wc_errors + wc_flushed + wc_lost = wr_posted" || return 1
	[ "$cut" -le 16 ] || { fail "server: $cut echoes unacknowledged, more than queue_depth 16"; return 1; }
	[ "$cut" -le "$flushed" ] ||
		{ fail "server: $cut echoes unacknowledged but only $flushed completions flushed"; return 1; }
	expect_eq "$((echoed + cut))" "${STATS[msgs_received]}" \
		"server: echoes completed or cut by the close = messages received" || return 1
	ep_remove srv
}

# client_connect: enable the client until it gets through (the server VM
# may still be booting: reconnect=1 retries for a few seconds only).
client_connect()
{
	local end=$((SECONDS + 300)) st

	while :; do
		ep_enable cli 1 || return 1
		while st=$(ep_attr cli state); [ "$st" = connecting ]; do
			sleep 0.2
		done
		[ "$st" = running ] || [ "$st" = "done" ] && return 0
		[ $SECONDS -lt $end ] ||
			{ fail "client could not connect in 300 s: $(ep_attr cli last_error)"; return 1; }
		ep_enable cli 0 || return 1
		sleep 1
	done
}

netem_loss_zero_app_loss()
{
	local t0 ms sent received verified errs wcerr rec resent drops reply i
	local sdrops sretries retries op

	setup_link || return 1
	link_addr $CLIENT_ADDR || return 1
	wait_for 300 peer_reachable $SERVER_ADDR || return 1
	cqn_load || return 1
	hw_mark
	drops=$(netem_drops "$NIC")
	ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=16 \
		msg_size=$MSG_SIZE iterations=$TH_N verify=1 reconnect=1 || return 1
	t0=${EPOCHREALTIME/./}
	client_connect || return 1
	ep_wait_state cli "done" 600 || return 1
	ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
	drops=$(($(netem_drops "$NIC") - drops))
	sent=$(ep_stat cli msgs_sent)
	received=$(ep_stat cli msgs_received)
	verified=$(ep_stat cli msgs_verified)
	errs=$(ep_stat cli msg_errors)
	wcerr=$(ep_stat cli wc_errors)
	rec=$(ep_stat cli reconnects)
	resent=$(ep_stat cli msgs_resent)
	retries=$(hw_delta completer_retry_err)

	for ((i = 0; i < 30; i++)); do
		{ exec 3<>"/dev/tcp/$SERVER_ADDR/$CTL_PORT"; } 2>/dev/null && break
		sleep 1
	done
	[ $i -lt 30 ] || { fail "cannot reach the server's control port $CTL_PORT"; return 1; }
	echo "done sent=$sent received=$received verified=$verified" >&3
	read -r -t 120 reply <&3 || { fail "no counters from the server"; return 1; }
	exec 3>&-
	echo "server says: $reply"
	sdrops=$(kv_get "$reply" drops) && sretries=$(kv_get "$reply" retries) ||
		{ fail "bad reply from the server: '$reply'"; return 1; }

	echo "figure: $TH_N x $MSG_SIZE B stream (queue_depth 16) in $ms ms over 2 VMs: sent $sent, received $received, verified $verified, msg_errors $errs, wc_errors $wcerr, reconnects $rec, resent $resent"
	echo "figure: server: $reply"
	echo "figure: netem dropped $drops (client) + $sdrops (server) packets; retransmission rounds (completer_retry_err): client $retries, server $sretries"
	echo "figure: client rxe0 counters moved: $(hw_moved)"
	# Lost: sent once (a reconnect's copies are not counted twice) and not
	# verified, from the client's counters.
	reliability faults=$((drops + sdrops)) verified=$verified lost=$((sent - resent - verified))

	expect_eq "$errs" 0 "client msg_errors" || return 1
	expect_eq "$verified" "$TH_N" "client msgs_verified" || return 1
	expect_eq "$received" "$verified" "client: msgs_received = msgs_verified" || return 1
	# A reconnect (none expected at 1% loss) resends what was in flight:
	# then the server may have received and echoed more than once.
	op="-eq"
	[ "$rec" = 0 ] || op="-ge"
	test "$(kv_get "$reply" received)" "$op" "$sent" ||
		{ fail "server received $(kv_get "$reply" received), client sent $sent"; return 1; }
	# An echo whose send the client's close flushed (cut) was delivered.
	test "$(($(kv_get "$reply" echoed) + $(kv_get "$reply" cut)))" "$op" "$received" ||
		{ fail "server echoed $(kv_get "$reply" echoed) (and $(kv_get "$reply" cut) cut by the close), client received $received"; return 1; }
	[ $((drops + sdrops)) -gt 0 ] || { fail "netem dropped nothing: no loss was tested"; return 1; }
	[ $((retries + sretries)) -gt 0 ] ||
		{ fail "no retransmission counted (completer_retry_err) on either side"; return 1; }
	ep_remove cli
}

cqn_run_tests
