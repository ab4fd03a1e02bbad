#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hostile configfs input, one of the robust suites (scripts/tests/lib.sh
# "the robust suites"): every writable attribute fuzzed against the ABI
# (FUZZ_ABI below), and enable, disable and concurrent writers raced.
# Each test is followed by the kernel gate of cqn_run_tests (splats) and
# the VM's kmemleak scan at the end.
. "$(dirname "$0")/lib.sh"

ALL_TESTS="
	configfs_fuzz
	configfs_state_sequences
"

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
	cq_mode) [[ $2 =~ ^(event|poll|adaptive|softirq|workqueue|irqpoll)$ ]] ;;
	workload) [[ $2 =~ ^(pingpong|stream)$ ]] ;;
	cq_share) [[ $2 =~ ^(conn|cpu|endpoint)$ ]] ;;
	poll_priority) [[ $2 =~ ^(low|normal)$ ]] ;;
	addr) [[ $2 =~ ^[0-9a-fA-F.:%]+$ ]] ;;
	poll_cpu) [[ $2 =~ ^-?[0-9]+$ ]] && [ "$2" -ge -1 ] && [ "$2" -lt "$(nproc)" ] ;;
	verify|enable|solicited_only|adaptive_moderation|reconnect|srq) [[ $2 =~ ^[01]$ ]] ;;
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
cq_mode choice event,poll,adaptive,softirq,workqueue,irqpoll
cq_count u32 0 65535
cq_period u32 0 65535
adaptive_moderation bool
poll_cpu s32 -1 cpu
poll_window_max_us u32 0 100000
poll_idle_us u32 0 100000
poll_priority choice low,normal
solicited_only bool
watchdog_ms u32 0 60000
max_events_per_ms u32 0 1000000
max_conns u32 1 1024
cq_share choice conn,cpu,endpoint
connections u32 1 1024
srq bool
srq_depth u32 16 65536
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
	local d=$CQN_CFS/endpoints/fz f a v i bounds=0 attrs=0 accepted writes=120

	# 120 writes an attribute (the 40 hostile ones, random ones after them)
	# on a stock kernel (200 took 91 s of stock 6.12's VM, make check
	# 2026-12-03); the debug kernel under TCG took 141 s for 200 on a fast
	# host and 360 s for 100 on a slow one (2026-12-03): it gets the
	# hostile ones and 15 random, the stock kernels the breadth.
	[ "$CQN_KERNEL" = debug ] && writes=55
	robust_setup || return 1
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
		for ((i = ${#HOSTILE[@]}; i < writes; i++)); do
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

	robust_setup || return 1
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

cqn_run_suite cli fz srv
