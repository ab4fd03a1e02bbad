#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hostile peers on the wire, one of the robust suites (scripts/tests/lib.sh
# "the robust suites"): cqn_hostile (tools/testing/) as a client that breaks the
# protocol (oversized, empty and lying messages, connection floods) while
# a well-behaved client runs, and as a server whose intact echoes lie
# about their order. Each test is followed by the kernel gate of
# cqn_run_tests (splats) and the VM's kmemleak scan at the end.
. "$(dirname "$0")/lib.sh"

ALL_TESTS="
	hostile_peer
	hostile_server_faithful
	hostile_server_wrong_seq
	hostile_server_duplicate
	hostile_server_reorder
"
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
fi

# hostile_run ARGS...: one run of cqn_hostile against the server; its
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
	robust_setup || return 1
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
	robust_setup || return 1
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

# hs_case LIE COST KEY=VALUE...: one hostile_server_* test: cqn_hostile
# serves with LIE (hostile_serve), its figures are reported (hs_figures
# LIE COST), the client ends done with intact echoes (hs_intact), the
# counters KEY=VALUE (hs_expect) and every work request accounted for.
hs_case()
{
	local lie=$1 cost=$2

	shift 2
	hostile_serve "$lie" || return 1
	hs_figures "$lie" "$cost"
	expect_eq "$(ep_attr cli state)" done "client state" || return 1
	hs_intact && hs_expect "$@" || return 1
	check_accounted cli || return 1
	ep_remove cli
}

# A faithful echo server that is not cqnotify's: the positive control of
# the lying ones below. Every message comes back and verifies.
hostile_server_faithful()
{
	hs_case none 0 msg_errors=0 err_lost=0 err_stale=0 msgs_sent=$HS_N \
		msgs_received=$HS_N msgs_verified=$HS_N
}

# The echo of message i carries sequence number i + 1 (checksum right):
# the client sees a gap (err_lost) and resynchronises after i + 1, so the
# true echo of i + 1 is then one it has seen (err_stale). Two messages
# unverified per lie, nothing else.
hostile_server_wrong_seq()
{
	hs_case seq $((2 * HS_LIES)) err_lost=$HS_LIES err_stale=$HS_LIES \
		msg_errors=$((2 * HS_LIES)) msgs_sent=$HS_N msgs_received=$HS_N \
		msgs_verified=$((HS_N - 2 * HS_LIES))
}

# The echo of message i comes twice: the second is stale (err_stale), every
# message is verified once. A duplicate accounts for no message still
# outstanding, so the client waits for every true echo before it is done
# (it once counted itself done early and left one echo per lie unverified).
hostile_server_duplicate()
{
	hs_case dup 0 err_lost=0 err_stale=$HS_LIES msg_errors=$HS_LIES \
		msgs_sent=$HS_N msgs_verified=$HS_N msgs_received=$((HS_N + HS_LIES))
}

# The echo of message i waits for that of i + 1 and goes after it: the
# client sees a gap at i + 1 (err_lost) and i late (err_stale).
hostile_server_reorder()
{
	hs_case reorder $((2 * HS_LIES)) err_lost=$HS_LIES err_stale=$HS_LIES \
		msg_errors=$((2 * HS_LIES)) msgs_sent=$HS_N msgs_received=$HS_N \
		msgs_verified=$((HS_N - 2 * HS_LIES)) || return 1
	expect_eq "$(hp_field hold_timeouts)" 0 "echoes held with no next message"
}

cqn_run_suite cli good srv
