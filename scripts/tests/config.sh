#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# configfs attributes: defaults, strict parsing (every bad value gets a clear
# error and changes nothing; each range's ends are accepted and one past
# them refused), -EBUSY while enabled, live changes reaching the running
# connection, the rules checked at enable.
. "$(dirname "$0")/lib.sh"

ALL_TESTS="defaults bad_values good_values busy_while_enabled enable_rules"
# Accepted values are parsing and storing (KUnit's cqnotify_parse, and the
# stock kernels); the debug kernel's time goes to the refused ones.
[ "$CQN_KERNEL" = debug ] &&
	CQN_SKIP[good_values]="valid values run on the stock kernels (the debug kernel takes the bad ones)"
EP=$CQN_CFS/endpoints/t

setup()
{
	cqn_load || return 1
	host_hold 1 || return 1
	adaptive_trials 1 || return 1
	ep_remove t
	mkdir "$EP" || fail "mkdir $EP"
}

defaults()
{
	local kv

	setup || return 1
	for kv in role=server addr=0.0.0.0 port=7471 msg_size=4096 send_depth=64 \
		  recv_depth=64 cq_depth=256 cq_depth_actual=0 cq_mode=event cq_count=0 \
		  cq_period=0 max_conns=16 connections=1 srq=0 srq_depth=4096 workload=pingpong queue_depth=16 \
		  iterations=1000 duration_ms=0 verify=1 enable=0 state=idle poll_cpu=-1 \
		  poll_window_max_us=200 poll_idle_us=100 poll_priority=low solicited_only=0 adaptive_moderation=0 watchdog_ms=0 \
		  max_events_per_ms=0 moderation_effective=off; do
		expect_eq "$(cat "$EP/${kv%%=*}")" "${kv#*=}" "default ${kv%%=*}" || return 1
	done
	expect_eq "$(cat "$EP/last_error")" "" "default last_error" || return 1
	ep_remove t
}

# CPUs: poll_cpu takes -1 or an online CPU below nr_cpu_ids (the possible
# CPUs), so nr_cpu_ids is one past its range.
read -r CPUS_POSSIBLE </sys/devices/system/cpu/possible
NR_CPU_IDS=$((${CPUS_POSSIBLE##*[-,]} + 1))
read -r CPUS_ONLINE </sys/devices/system/cpu/online
MAX_CPU=${CPUS_ONLINE##*[-,]}

# attr|values that must fail with EINVAL (space-separated, _ is a space);
# -1 is one below the range of every attribute whose range starts at 0.
BAD_EINVAL="
role|client2 Server _server server_ 0 x
addr|localhost 10.77.0 10.77.0.256 1.2.3.4.5 fe80:::1 ::g _10.0.0.1
port|-1 0x10 abc 1.5 _1 1_ +1
msg_size|-5 1e3 0x100 4k
send_depth|-1 x 08
cq_mode|events POLL interrupt softIRQ
cq_count|-1
cq_period|-1
poll_window_max_us|-1
poll_idle_us|-1
watchdog_ms|-1
max_events_per_ms|-1
iterations|-1
duration_ms|-1
rate|-1
poll_cpu|x 1.0 --1 0x1
solicited_only|2 -1 yes
adaptive_moderation|2 -1 on
workload|ping stream_
poll_priority|idle LOW 19 0
verify|2 -1 yes true on
reconnect|2 -1 yes
srq|2 -1 yes on
enable|2 -1 yes
"
# attr|values that must fail with ERANGE: one past each end of the range
# (the ABI in Documentation/configfs-abi.rst), and far past it
BAD_ERANGE="
port|0 65536 99999999999 4294967296
msg_size|0 1048577
send_depth|0 8193
recv_depth|0 8193
cq_depth|0 65537
cq_count|65536
cq_period|65536
max_conns|0 1025
connections|0 1025 4294967296
srq_depth|0 15 65537
queue_depth|0 8193
duration_ms|86400001
iterations|4294967296
poll_window_max_us|100001
poll_idle_us|100001
watchdog_ms|60001
max_events_per_ms|1000001
rate|10000001
poll_cpu|$NR_CPU_IDS 4096 -2
"

# refuse_table TABLE ERROR: every value of each "attr|values" line of TABLE
# (_ is a space) is refused with ERROR and leaves the attribute as it was;
# for -EINVAL also a lone newline and 300 digits. REFUSED counts the
# writes.
refuse_table()
{
	local attr vals v before

	REFUSED=0
	while IFS='|' read -r attr vals; do
		[ -n "$attr" ] || continue
		before=$(cat "$EP/$attr")
		for v in $vals; do
			expect_write_err "$EP/$attr" "${v//_/ }" "$2" || return 1
			REFUSED=$((REFUSED + 1))
		done
		if [ "$2" = "Invalid argument" ]; then
			expect_write_err "$EP/$attr" $'\n' "Invalid argument" || return 1
			expect_write_err "$EP/$attr" "$(printf '%0300d' 1)" "Invalid argument|out of range" ||
				return 1
			REFUSED=$((REFUSED + 2))
		fi
		expect_eq "$(cat "$EP/$attr")" "$before" "$attr unchanged" || return 1
	done <<<"$1"
}

bad_values()
{
	local attr n=0

	setup || return 1
	refuse_table "$BAD_EINVAL" "Invalid argument" || return 1
	n=$REFUSED
	refuse_table "$BAD_ERANGE" "Numerical result out of range" || return 1
	n=$((n + REFUSED))
	# An embedded NUL is not a number followed by junk that gets ignored.
	if printf '12\0003' >"$EP/port" 2>/dev/null; then
		fail "port accepted an embedded NUL"
		return 1
	fi
	n=$((n + 1))
	expect_eq "$(cat "$EP/port")" 7471 "port after embedded NUL" || return 1
	for attr in state last_error cq_depth_actual moderation_effective; do
		if printf 1 >"$EP/$attr" 2>/dev/null; then
			fail "read-only $attr accepted a write"
			return 1
		fi
		n=$((n + 1))
	done
	echo "figure: $n bad values refused"
	reliability bad_inputs=$n
	ep_remove t
}

# attr|values that must be taken, in this order, each then read back as
# written: every range's largest and smallest value, every name, every
# boolean both ways. Each value differs from the one before it (the first
# from the default), so a store that succeeds and keeps the old value fails.
GOOD="
role|client server
addr|fe80::1 10.77.0.1 ::1 0.0.0.0
port|65535 1 7471
msg_size|1048576 1 4096
send_depth|8192 1 64
recv_depth|8192 1 64
cq_depth|65536 1 256
cq_mode|poll adaptive softirq workqueue irqpoll event
cq_count|65535 0
cq_period|65535 0
adaptive_moderation|1 0
poll_cpu|$MAX_CPU -1
poll_window_max_us|100000 0 50
poll_idle_us|100000 0 100
poll_priority|normal low
solicited_only|1 0
watchdog_ms|60000 0
max_events_per_ms|1000000 0
max_conns|1024 1 16
connections|1024 1
srq|1 0
srq_depth|65536 16 4096
workload|stream pingpong
queue_depth|8192 1 16
iterations|4294967295 0 1000
duration_ms|86400000 0
verify|0 1
rate|10000000 0
reconnect|1 0
"

# Every range's ends are accepted (so a range tightened by one fails here,
# one loosened by one in bad_values), and each value is stored: a store
# that returns success and ignores its value fails the read-back. The
# first value of each is written as echo(1) would, with a newline. What
# verify stores, the client does: with verify 0 it checks no echo.
good_values()
{
	local attr vals v nl how n=0

	setup || return 1
	while IFS='|' read -r attr vals; do
		[ -n "$attr" ] || continue
		nl=$'\n' how=" (with a newline)"
		for v in $vals; do
			printf '%s' "$v$nl" 2>/tmp/cqn-write.err >"$EP/$attr" ||
				{ fail "write '$v'$how to $EP/$attr failed: $(</tmp/cqn-write.err)"; return 1; }
			expect_eq "$(cat "$EP/$attr")" "$v" "$attr after writing '$v'$how" || return 1
			nl= how= n=$((n + 1))
		done
	done <<<"$GOOD"
	echo "figure: $n valid values stored and read back"
	ep_remove t
	# verify, stored and acted on: a client with verify 0 checks nothing.
	cqn_load || return 1
	ep_remove srv vcli
	start_server || return 1
	run_client vcli workload=pingpong iterations=20 verify=0 || return 1
	expect_eq "$(ep_stat vcli msgs_received)" 20 "echoes with verify 0" || return 1
	expect_eq "$(ep_stat vcli msgs_verified)" 0 "echoes verified with verify 0" || return 1
	ep_remove vcli
	run_client vcli workload=pingpong iterations=20 verify=1 || return 1
	expect_eq "$(ep_stat vcli msgs_verified)" 20 "echoes verified with verify 1" || return 1
	ep_remove vcli srv
}

# A non-live attribute refuses a new value while enabled (-EBUSY, the value
# kept); a live one takes it, and the server's running connection (a stream
# client, c, is connected) runs with it: the CQ size, the mode, the
# moderation it applies, the adaptive window, the arming, the storm guard
# and the poll thread's CPU are each checked where they act; watchdog_ms on
# the client, the side whose stall the watchdog can see.
busy_while_enabled()
{
	local rc win

	setup || return 1
	ep_remove c
	expect_write "$EP/addr" "10.77.0.1" || return 1
	expect_write "$EP/port" "7999" || return 1
	expect_write "$EP/enable" 1 || return 1
	expect_eq "$(cat "$EP/state")" running "server state" || return 1
	ep_create c role=client addr=10.77.0.1 port=7999 workload=stream queue_depth=8 \
		iterations=0 duration_ms=0 || return 1
	# Armed before the traffic (lib.sh says why), traced further down.
	trace_arm cqn_cq_arm || return 1
	ep_enable c 1 && ep_wait_state c running 60 || return 1
	wait_stat 30 t msgs_received -gt 20 || return 1
	busy_run
	rc=$?
	if [ $rc -ne 0 ] && [ -d "$CQN_CFS/endpoints/c" ]; then
		# A stall the watchdog did not end: end it, so that c disables.
		printf 0 >"$CQN_DFS/c/fault_drop_events" 2>/dev/null
		printf 100 >"$CQN_CFS/endpoints/c/watchdog_ms" 2>/dev/null
		sleep 1
	fi
	ep_remove c t
	trace_disarm
	return $rc
}

# t_moves: the server's stream moves on (50 more messages received); if
# not, what both ends' engines did is shown.
t_moves()
{
	local v ep k

	v=$(ep_stat t msgs_received) || return 1
	wait_stat 30 t msgs_received -gt $((v + 50)) && return 0
	for ep in t c; do
		ep_stats $ep
		for k in msgs_sent msgs_received cq_events cq_wakeups cq_arms cq_rearm_missed \
			 cq_events_dropped cq_watchdog_fires cq_fallbacks cq_storms; do
			echo "$ep $k ${STATS[$k]}"
		done
		echo "$ep cq_mode $(cat "$CQN_CFS/endpoints/$ep/cq_mode") moderation $(cat "$CQN_CFS/endpoints/$ep/moderation_effective") solicited_only $(cat "$CQN_CFS/endpoints/$ep/solicited_only")"
	done >&2
	return 1
}

# t_thread_nice_follows PID WHAT: WHAT's thread PID runs at nice 19 at
# poll_priority low, and at 0 once it is set to normal live; low again after.
t_thread_nice_follows()
{
	expect_eq "$(thread_nice "$1")" 19 "$2 thread nice at poll_priority low" || return 1
	expect_write "$EP/poll_priority" normal || return 1
	expect_eq "$(thread_nice "$1")" 0 "$2 thread nice after poll_priority normal" || return 1
	expect_write "$EP/poll_priority" low
}

# t_conn_stat KEY: a line of the server's one connection's stats.
t_conn_stat()
{
	local f line

	for f in "$CQN_DFS"/t/conns/*/stats; do
		while IFS= read -r line; do
			[ "${line%% *}" = "$1" ] && { echo "${line#* }"; return 0; }
		done <"$f"
	done
	return 1
}

busy_run()
{
	local kv attr val h pid

	for kv in role=client addr=10.77.0.2 port=7998 msg_size=100 send_depth=32 \
		  recv_depth=32 max_conns=2 connections=4 srq=1 srq_depth=64 workload=stream queue_depth=8 iterations=5 \
		  duration_ms=1000 verify=0 rate=100 reconnect=1; do
		attr=${kv%%=*} val=${kv#*=}
		expect_write_err "$EP/$attr" "$val" "Device or resource busy" || return 1
		[ "$(cat "$EP/$attr")" != "$val" ] || { fail "$attr took '$val' while enabled"; return 1; }
	done
	expect_eq "$(cat "$EP/port")" 7999 "port while enabled" || return 1
	expect_write_err "$EP/enable" 1 "Device or resource busy" || return 1
	# Live: each takes its new value, and the running connection shows it.
	expect_write "$EP/cq_depth" 300 || return 1
	[ "$(cat "$EP/cq_depth_actual")" -ge 300 ] && [ "$(t_conn_stat cq_depth_actual)" -ge 300 ] ||
		{ fail "cq_depth 300: cq_depth_actual $(cat "$EP/cq_depth_actual"), the connection's $(t_conn_stat cq_depth_actual)"; return 1; }
	expect_write "$EP/cq_mode" adaptive || return 1
	expect_eq "$(t_conn_stat cq_mode)" adaptive "the connection's cq_mode" || return 1
	# Its thread, just created, at poll_priority low's nice (the live
	# changes are checked further down, once it exists).
	read -r pid _ <<<"$(thread_pids cqn-adapt/t.)"
	[ -n "$pid" ] || { fail "no cqn-adapt/t.* thread in adaptive mode"; return 1; }
	expect_eq "$(thread_nice "$pid")" 19 "new adaptive thread nice at poll_priority low" ||
		return 1
	expect_write "$EP/cq_count" 16 || return 1
	check_moder t adaptive 16 0 0 || return 1
	expect_write "$EP/cq_period" 300 || return 1
	check_moder t adaptive 16 300 0 || return 1
	expect_write "$EP/adaptive_moderation" 1 || return 1
	check_moder t adaptive 16 300 1 || return 1
	expect_write "$EP/adaptive_moderation" 0 || return 1
	check_moder t adaptive 16 300 0 || return 1
	expect_write "$EP/cq_count" 0 && expect_write "$EP/cq_period" 0 || return 1
	check_moder t adaptive 0 0 0 || return 1
	# poll_window_max_us: at 1000 (debug: 100000) the adaptive window catches completions
	# (within 20 s); at 0 it closes and stays shut over 2 s of traffic. (A
	# window being polled as the value changes may finish with the old
	# bound: the first stretch of traffic lets it.)
	# The debug kernel's round trips under TCG are milliseconds: a 1 ms
	# window never covers a gap there, so it gets the largest one.
	win=1000
	[ "$CQN_KERNEL" = debug ] && win=100000
	# Windows open on make check's busy host too (setup sets 1 again).
	windows_free || return 1
	expect_write "$EP/poll_window_max_us" $win || return 1
	h=$(ep_stat t cq_window_hits)
	# (On 6.12 too: its rxe's work items, which run on the polling CPU,
	# preempt the window and it goes on, since the adaptive thread.)
	wait_stat 20 t cq_window_hits -gt "$h" || return 1
	expect_write "$EP/poll_window_max_us" 0 || return 1
	t_moves || return 1
	h=$(ep_stat t cq_window_hits)
	sleep 2
	t_moves || return 1
	expect_eq "$(ep_stat t cq_window_hits)" "$h" "window hits with poll_window_max_us 0" || return 1
	expect_eq "$(ep_stat t poll_window_us)" 0 "poll_window_us with poll_window_max_us 0" || return 1
	expect_write "$EP/poll_window_max_us" 50 || return 1
	expect_write "$EP/cq_mode" event || return 1
	expect_eq "$(t_conn_stat cq_mode)" event "the connection's cq_mode" || return 1
	# solicited_only 1: the server arms for solicited completions.
	trace_start || return 1
	t_moves || return 1
	! grep -q 'cq=t\.[0-9]* cq_id=[0-9]* flags=solicited' $TRACEFS/trace ||
		{ fail "solicited arms before solicited_only 1"; return 1; }
	expect_write "$EP/solicited_only" 1 || return 1
	t_moves || return 1
	grep -q 'cq=t\.[0-9]* cq_id=[0-9]* flags=solicited' $TRACEFS/trace ||
		{ fail "no solicited arm with solicited_only 1"; return 1; }
	trace_stop
	expect_write "$EP/solicited_only" 0 || return 1
	# watchdog_ms 200: lost events no longer stall the connection. On the
	# client: the watchdog looks for work outstanding (sends, echoes
	# awaited), which a server whose receives wait in an unarmed CQ has not.
	expect_write "$CQN_CFS/endpoints/c/watchdog_ms" 200 || return 1
	expect_write "$CQN_DFS/c/fault_drop_events" 1000000 || return 1
	wait_stat 30 c cq_watchdog_fires -ge 1 || return 1
	t_moves || return 1
	# The last event lost may have left c's CQ unarmed: the watchdog stays
	# on until the stream has moved with events delivered again.
	expect_write "$CQN_DFS/c/fault_drop_events" 0 || return 1
	t_moves || return 1
	expect_write "$CQN_CFS/endpoints/c/watchdog_ms" 0 || return 1
	# max_events_per_ms: off, a burst of spurious events is no storm; at
	# 10, it is.
	expect_write "$CQN_DFS/t/fault_spurious_events" 1000 || return 1
	t_moves || return 1
	expect_eq "$(ep_stat t cq_storms)" 0 "storms with max_events_per_ms 0" || return 1
	expect_write "$EP/max_events_per_ms" 10 || return 1
	expect_write "$CQN_DFS/t/fault_spurious_events" 1000 || return 1
	wait_stat 30 t cq_storms -ge 1 || return 1
	expect_write "$EP/max_events_per_ms" 0 || return 1
	# poll_cpu: the poll thread moves.
	expect_write "$EP/cq_mode" poll || return 1
	expect_write "$EP/poll_cpu" "$MAX_CPU" || return 1
	read -r pid _ <<<"$(poll_pids t)"
	[ -n "$pid" ] || { fail "no cqn-poll/t.* thread in poll mode"; return 1; }
	expect_eq "$(thread_cpus "$pid")" "$MAX_CPU" \
		"poll thread CPUs after poll_cpu $MAX_CPU" || return 1
	# poll_priority: the poll thread's nice value ...
	t_thread_nice_follows "$pid" poll || return 1
	# ... and adaptive mode's thread's.
	expect_write "$EP/poll_cpu" -1 && expect_write "$EP/cq_mode" adaptive || return 1
	read -r pid _ <<<"$(thread_pids cqn-adapt/t.)"
	[ -n "$pid" ] || { fail "no cqn-adapt/t.* thread in adaptive mode"; return 1; }
	t_thread_nice_follows "$pid" adaptive || return 1
	t_moves || return 1
	expect_write "$EP/cq_mode" event || return 1
	t_moves || return 1
	expect_eq "$(cat "$EP/state")" running "server state after the live changes" || return 1
	ep_enable c 0 && check_stopped c || return 1
	expect_write "$EP/enable" 0 || return 1
	expect_write "$EP/enable" 0 || return 1
	expect_eq "$(cat "$EP/state")" idle "state after disable" || return 1
	expect_write "$EP/port" 7998 || return 1
	expect_eq "$(cat "$EP/port")" 7998 "port once disabled" || return 1
}

enable_rules()
{
	setup || return 1
	expect_write "$EP/cq_depth" 100 || return 1
	expect_write_err "$EP/enable" 1 "Invalid argument" || return 1
	expect_match "$(cat "$EP/last_error")" "cq_depth 100 < send_depth \+ recv_depth \+ 1 = 129" \
		"last_error for a small CQ" || return 1
	expect_eq "$(cat "$EP/enable")" 0 "enable after refusal" || return 1
	expect_eq "$(cat "$EP/state")" idle "state after refusal" || return 1
	expect_write "$EP/cq_depth" 129 || return 1
	expect_write "$EP/msg_size" 1048576 || return 1
	expect_write_err "$EP/enable" 1 "Numerical result out of range" || return 1
	expect_write "$EP/msg_size" 4096 || return 1
	# One SRQ's buffers: 16384 * 4096 bytes is 64 MiB, one more is too many.
	expect_write "$EP/srq" 1 && expect_write "$EP/srq_depth" 16385 || return 1
	expect_write_err "$EP/enable" 1 "Numerical result out of range" || return 1
	expect_match "$(cat "$EP/last_error")" "SRQ buffers srq_depth \* msg_size = 67112960 bytes" \
		"last_error for too many SRQ buffers" || return 1
	expect_eq "$(cat "$EP/enable")" 0 "enable after the SRQ refusal" || return 1
	expect_write "$EP/srq_depth" 4096 && expect_write "$EP/srq" 0 || return 1
	expect_write "$EP/role" client || return 1
	expect_write_err "$EP/enable" 1 "Invalid argument" || return 1
	expect_match "$(cat "$EP/last_error")" "server's address" "client without addr" || return 1
	# Nothing listens on this port: the client ends in error with a reason.
	expect_write "$EP/addr" 10.77.0.1 || return 1
	expect_write "$EP/port" 7000 || return 1
	expect_write "$EP/enable" 1 || return 1
	ep_wait_state t error 60 || return 1
	expect_match "$(cat "$EP/last_error")" "rejected|unreachable|connect" "client to a closed port" || return 1
	ep_remove t
}

cqn_run_suite t
