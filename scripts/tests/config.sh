#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# configfs attributes: defaults, strict parsing (every bad value gets a clear
# error and changes nothing), -EBUSY while enabled, the rules checked at enable.
. "$(dirname "$0")/lib.sh"

ALL_TESTS="defaults bad_values good_values busy_while_enabled enable_rules"
EP=$CQN_CFS/endpoints/t

setup()
{
	cqn_load || return 1
	ep_remove t
	mkdir "$EP" || fail "mkdir $EP"
}

defaults()
{
	local kv

	setup || return 1
	for kv in role=server addr=0.0.0.0 port=7471 msg_size=4096 send_depth=64 \
		  recv_depth=64 cq_depth=256 cq_depth_actual=0 cq_mode=event cq_count=0 \
		  cq_period=0 max_conns=16 workload=pingpong queue_depth=16 \
		  iterations=1000 duration_ms=0 verify=1 enable=0 state=idle poll_cpu=-1 \
		  poll_window_max_us=50 solicited_only=0 adaptive_moderation=0 watchdog_ms=0 \
		  max_events_per_ms=0 moderation_effective=off; do
		expect_eq "$(cat "$EP/${kv%%=*}")" "${kv#*=}" "default ${kv%%=*}" || return 1
	done
	expect_eq "$(cat "$EP/last_error")" "" "default last_error" || return 1
	ep_remove t
}

# attr|values that must fail with EINVAL (space-separated, _ is a space)
BAD_EINVAL="
role|client2 Server _server server_ 0 x
addr|localhost 10.77.0 10.77.0.256 1.2.3.4.5 fe80:::1 ::g _10.0.0.1
port|-1 0x10 abc 1.5 _1 1_ +1
msg_size|-5 1e3 0x100 4k
send_depth|-1 x 08
cq_mode|events POLL interrupt softIRQ
poll_cpu|x 1.0 --1 0x1
solicited_only|2 -1 yes
adaptive_moderation|2 on
workload|ping stream_
verify|2 -1 yes true on
enable|2 -1 yes
"
# attr|values that must fail with ERANGE
BAD_ERANGE="
port|65536 99999999999 4294967296
msg_size|0 1048577
send_depth|0 8193
recv_depth|0 8193
cq_depth|0 65537
cq_count|65536
cq_period|65536
max_conns|0 1025
queue_depth|0 8193
duration_ms|86400001
iterations|4294967296
poll_window_max_us|100001
watchdog_ms|60001
max_events_per_ms|1000001
poll_cpu|4096 -2
"

bad_values()
{
	local line attr vals v before n=0

	setup || return 1
	while IFS='|' read -r attr vals; do
		[ -n "$attr" ] || continue
		before=$(cat "$EP/$attr")
		for v in $vals; do
			expect_write_err "$EP/$attr" "${v//_/ }" "Invalid argument" || return 1
			n=$((n + 1))
		done
		expect_write_err "$EP/$attr" $'\n' "Invalid argument" || return 1
		expect_write_err "$EP/$attr" "$(printf '%0300d' 1)" "Invalid argument|out of range" || return 1
		expect_eq "$(cat "$EP/$attr")" "$before" "$attr unchanged" || return 1
	done <<<"$BAD_EINVAL"
	while IFS='|' read -r attr vals; do
		[ -n "$attr" ] || continue
		before=$(cat "$EP/$attr")
		for v in $vals; do
			expect_write_err "$EP/$attr" "$v" "Numerical result out of range" || return 1
			n=$((n + 1))
		done
		expect_eq "$(cat "$EP/$attr")" "$before" "$attr unchanged" || return 1
	done <<<"$BAD_ERANGE"
	# An embedded NUL is not a number followed by junk that gets ignored.
	if printf '12\0003' >"$EP/port" 2>/dev/null; then
		fail "port accepted an embedded NUL"
		return 1
	fi
	expect_eq "$(cat "$EP/port")" 7471 "port after embedded NUL" || return 1
	for attr in state last_error cq_depth_actual; do
		if printf 1 >"$EP/$attr" 2>/dev/null; then
			fail "read-only $attr accepted a write"
			return 1
		fi
	done
	echo "figure: $n bad values refused"
	ep_remove t
}

good_values()
{
	setup || return 1
	expect_write "$EP/addr" "fe80::1" && expect_eq "$(cat "$EP/addr")" "fe80::1" "IPv6 addr" || return 1
	expect_write "$EP/addr" "10.77.0.1" && expect_eq "$(cat "$EP/addr")" "10.77.0.1" "IPv4 addr" || return 1
	expect_write "$EP/role" "client" && expect_eq "$(cat "$EP/role")" client "role" || return 1
	expect_write "$EP/msg_size" "1048576" && expect_eq "$(cat "$EP/msg_size")" 1048576 "max msg_size" || return 1
	expect_write "$EP/cq_mode" "poll" && expect_eq "$(cat "$EP/cq_mode")" poll "cq_mode" || return 1
	expect_write "$EP/iterations" "4294967295" || return 1
	expect_eq "$(cat "$EP/iterations")" 4294967295 "max iterations" || return 1
	ep_remove t
}

busy_while_enabled()
{
	local attr

	setup || return 1
	expect_write "$EP/addr" "10.77.0.1" || return 1
	expect_write "$EP/port" "7999" || return 1
	expect_write "$EP/enable" 1 || return 1
	expect_eq "$(cat "$EP/state")" running "server state" || return 1
	for attr in role addr port msg_size send_depth recv_depth max_conns workload \
		    queue_depth iterations duration_ms verify; do
		expect_write_err "$EP/$attr" "$(cat "$EP/$attr")" "Device or resource busy" || return 1
	done
	# Live-tunable ones take a write while enabled (scripts/tests/cq.sh
	# tests what they do).
	for attr in cq_depth cq_mode cq_count cq_period adaptive_moderation poll_cpu \
		    poll_window_max_us solicited_only watchdog_ms max_events_per_ms; do
		expect_write "$EP/$attr" "$(cat "$EP/$attr")" || return 1
	done
	expect_write_err "$EP/enable" 1 "Device or resource busy" || return 1
	expect_eq "$(cat "$EP/port")" 7999 "port while enabled" || return 1
	expect_write "$EP/enable" 0 || return 1
	expect_write "$EP/enable" 0 || return 1
	expect_eq "$(cat "$EP/state")" idle "state after disable" || return 1
	expect_write "$EP/port" 7998 || return 1
	ep_remove t
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

cqn_run_tests
rc=$?
ep_remove t 2>/dev/null
cqn_unload 2>/dev/null
exit $rc
