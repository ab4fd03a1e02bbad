# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the guest test scripts (they run inside scripts/vm-run).
# A test script sets ALL_TESTS to its test functions and calls cqn_run_tests.
# Each test prints one line "ok - <script>: <test>" or "not ok - ...: <why>";
# a test also fails when the kernel printed a splat while it ran.
# shellcheck shell=bash

CQN_TOP=${CQN_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# CQN_KERNEL: debug or distro (a stock kernel), what the tests size
# themselves by; CQN_KSERIES: 6.1 or 6.12; CQN_KLABEL names the kernel in
# every TAP line (6.1-debug, 6.1, 6.12). All three come from scripts/vm-run.
CQN_KERNEL=${CQN_KERNEL:-debug}
CQN_KSERIES=${CQN_KSERIES:-6.1}
CQN_KLABEL=${CQN_KLABEL:-6.1-debug}
# CQN_KO_DIR=DIR (set by the caller) loads cqnotify from DIR instead: a
# build with a planted bug, kept out of the shared build/<kernel>/.
if [ -n "${CQN_KO_DIR:-}" ]; then
	:
elif [ "$CQN_KERNEL" = debug ]; then
	CQN_KO_DIR=$CQN_TOP/build/debug
else
	CQN_KO_DIR=$CQN_TOP/build/$CQN_KSERIES
fi
CQN_CFS=/sys/kernel/config/cqnotify
CQN_DFS=/sys/kernel/debug/cqnotify
TRACEFS=/sys/kernel/tracing
CQN_TEST_FAILS=0
# CQN_SPLAT_RE, CQN_TAINT_OK, cqn_kmemleak_scan
. "$CQN_TOP/scripts/gate.sh"

# fail MSG: record why the current test fails and return non-zero.
fail()
{
	echo "FAIL: $*" >&2
	return 1
}

# expect_eq ACTUAL EXPECTED WHAT
expect_eq()
{
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
}

# expect_match TEXT REGEX WHAT
expect_match()
{
	grep -qE -- "$2" <<<"$1" || fail "$3: '$2' not found in: $1"
}

# expect_write FILE VALUE: the write must succeed.
# (No subshell or process on the way: the debug kernel under TCG takes up to
# a second to start one, and the suites write thousands of values.)
expect_write()
{
	printf '%s' "$2" 2>/tmp/cqn-write.err >"$1" ||
		fail "write '$2' to $1 failed: $(</tmp/cqn-write.err)"
}

# expect_write_err FILE VALUE ERRNO_TEXT: the write must fail with that error
# (e.g. "Invalid argument", "Device or resource busy").
# Forks nothing (the error is one line, matched by bash itself): the fuzz
# tests make thousands of these on the debug kernel.
expect_write_err()
{
	local err=

	if printf '%s' "$2" 2>/tmp/cqn-write.err >"$1"; then
		fail "write '$2' to $1 succeeded, expected '$3'"
		return 1
	fi
	IFS= read -r err </tmp/cqn-write.err
	[[ $err =~ $3 ]] || fail "error of write '$2' to $1: '$3' not found in: $err"
}

# cqn_klog_read: the kernel log into the array CQN_KLOG, a line an element:
# one exec of dmesg (each exec costs about half a second in the debug VM,
# whose binaries come over 9p: the gate after every test runs this once).
# Through a file: the guest has no /dev/fd for a process substitution.
cqn_klog_read()
{
	dmesg >/tmp/cqn-klog.txt && mapfile -t CQN_KLOG </tmp/cqn-klog.txt
}

# cqn_klog_match FROM REGEX [MAX]: set KLOG_MATCHES to the lines of CQN_KLOG
# from index FROM on that match REGEX (the first MAX of them, when given),
# one a line, and KLOG_NMATCH to their number.
cqn_klog_match()
{
	local i max=${3:-0}

	KLOG_MATCHES= KLOG_NMATCH=0
	for ((i = $1; i < ${#CQN_KLOG[@]}; i++)); do
		[[ ${CQN_KLOG[i]} =~ $2 ]] || continue
		KLOG_MATCHES+="${KLOG_MATCHES:+$'\n'}${CQN_KLOG[i]}"
		KLOG_NMATCH=$((KLOG_NMATCH + 1))
		[ "$KLOG_NMATCH" != "$max" ] || break
	done
}

# cqn_load: insert the configfs front end and the service built for this
# kernel (cqnotify.ko needs cqnotify_configfs.ko).
cqn_load()
{
	if [ ! -d /sys/module/cqnotify_configfs ]; then
		insmod "$CQN_KO_DIR/cqnotify_configfs.ko" ||
			{ fail "insmod cqnotify_configfs.ko failed"; return 1; }
	fi
	[ -d /sys/module/cqnotify ] && return 0
	insmod "$CQN_KO_DIR/cqnotify.ko" || fail "insmod cqnotify.ko failed"
}

# host_hold 0|1: the module parameter poll_host_hold (src/cq_poll_host.c):
# 1, the default, holds the poll threads and closes adaptive mode's
# windows while the guest judges its host busy, as it does all along in
# make check, whose two VMs share two host CPUs; a test of adaptive mode's
# windows themselves sets 0 (its setup sets 1 again).
host_hold()
{
	echo "$1" >/sys/module/cqnotify/parameters/poll_host_hold ||
		{ fail "cannot write $1 to poll_host_hold"; return 1; }
}

# adaptive_trials 0|1: the module parameter adaptive_trials
# (src/cq_adaptive.c): 1, the default, has adaptive mode's threads try
# their events alone once a second and ride them while they are faster,
# which make check's busy host may have them do; a test of the windows
# themselves sets 0 (its setup sets 1 again).
adaptive_trials()
{
	echo "$1" >/sys/module/cqnotify/parameters/adaptive_trials ||
		{ fail "cannot write $1 to adaptive_trials"; return 1; }
}

# windows_free: a test of adaptive mode's windows themselves, or of the
# poll threads' spinning, on make check's busy host: no hold for the host
# (host_hold 0) and no trial of the events alone (adaptive_trials 0).
# After the test's setup, which sets both back to 1.
windows_free()
{
	host_hold 0 && adaptive_trials 0
}

# cqn_unload: remove both (no endpoint directory may be left), and prove
# they are gone.
cqn_unload()
{
	local m

	for m in cqnotify cqnotify_configfs; do
		[ -d /sys/module/$m ] || continue
		rmmod $m || { fail "rmmod $m failed"; return 1; }
		[ ! -d /sys/module/$m ] || { fail "$m still loaded after rmmod"; return 1; }
	done
}

# reliability KEY=N...: a test's contribution to make check's reliability
# summary. Keys: faults (injected and survived), bad_inputs (tried),
# verified (messages verified), lost (messages lost: must be 0).
reliability()
{
	echo "reliability: $*"
}

# cqn_kmemleak_gate: print what kmemleak reports now, and clear it.
cqn_kmemleak_gate()
{
	cqn_kmemleak_scan || return 0
	head -n 40 "$CQN_KMEMLEAK"
	echo clear >"$CQN_KMEMLEAK"
}

# Tests that do not apply here: CQN_SKIP[test]=reason (set by a script
# before cqn_run_tests, e.g. for a kernel without siw). A skipped test
# still gets its line, "ok - script: test # SKIP reason", as TAP has it.
declare -A CQN_SKIP=()

# cqn_plan SCRIPT: set CQN_PLAN to the tests to run (ALL_TESTS, or those of
# CQN_TESTS) and announce "# plan: SCRIPT N", which scripts/check holds the
# results against (a suite that dies half way has fewer). Fails, with a
# not-ok line, on a run of no test, on a name that is no function (a typo
# in ALL_TESTS) and on a CQN_TESTS name that is not in ALL_TESTS.
cqn_plan()
{
	local script=$1 t bad= all

	# shellcheck disable=SC2086 # one space between names, not tabs/newlines
	all=" $(echo $ALL_TESTS) "
	CQN_PLAN=
	for t in $ALL_TESTS; do
		declare -F "$t" >/dev/null || bad+=" $t"
		[ -z "${CQN_TESTS:-}" ] || [[ " $CQN_TESTS " == *" $t "* ]] || continue
		CQN_PLAN+=" $t"
	done
	for t in ${CQN_TESTS:-}; do
		[[ $all == *" $t "* ]] || bad+=" $t"
	done
	CQN_PLAN=${CQN_PLAN# }
	set -- $CQN_PLAN
	echo "# plan: $script $#"
	if [ -n "$bad" ]; then
		echo "not ok - $script: no such test:$bad"
		return 1
	fi
	if [ $# -eq 0 ]; then
		echo "not ok - $script: no test to run (ALL_TESTS '$ALL_TESTS', CQN_TESTS '${CQN_TESTS:-}')"
		return 1
	fi
}

# cqn_run_tests: run every function named in ALL_TESTS (only those also
# named in CQN_TESTS, when it is set: for running a few by hand). After each
# test the kernel is checked: no splat in its log, no new taint flag; with
# CQN_GATE_EACH=1 also kmemleak (scan, 5 s, scan: about 30 s a test on the
# debug kernel under TCG, so by default the VM's gate does it once at the
# end). Each test's window on the guest's clock goes to
# $CQN_OUT/test-windows.txt ("START END SCRIPT: TEST", uptime seconds):
# scripts/vm-run names the test during which each object the VM gate's
# kmemleak reports was allocated.
cqn_run_tests()
{
	local script t mark rc log splats start taint0 taint leaks up0 up1 line windows=

	# "service@6.12: ...", "service_siw@6.1-debug/siw: ...": the kernel
	# and (unless rxe) the provider, so each run's lines can be told apart.
	script=${0##*/}
	script=${script%.sh}@$CQN_KLABEL
	[ "$CQN_PROVIDER" = rxe ] || script+="/$CQN_PROVIDER"
	log=/tmp/cqn-test.log
	[ -z "${CQN_OUT:-}" ] || windows=$CQN_OUT/test-windows.txt
	# Each test's kernel lines are those after the log's length when it
	# started: the log read after the test before (nothing runs between).
	cqn_klog_read || { echo "not ok - $script: cannot read the kernel log"; return 1; }
	cqn_plan "$script" || return 1
	for t in $CQN_PLAN; do
		if [ -n "${CQN_SKIP[$t]:-}" ]; then
			echo "ok - $script: $t # SKIP ${CQN_SKIP[$t]}"
			continue
		fi
		read -r up0 _ </proc/uptime
		mark=${#CQN_KLOG[@]}
		read -r taint0 </proc/sys/kernel/tainted
		start=$SECONDS
		( set -o pipefail; "$t" ) >"$log" 2>&1
		rc=$?
		echo "# $script: $t took $((SECONDS - start)) s"
		while IFS= read -r line; do
			case $line in
			"figure: "*) echo "#   ${line#figure: }" ;;
			"reliability: "*) echo "# reliability: $script $t ${line#reliability: }" ;;
			esac
		done <"$log"
		if cqn_klog_read; then
			cqn_klog_match "$mark" "$CQN_SPLAT_RE" 5
			splats=$KLOG_MATCHES
		else
			splats="cannot read the kernel log (dmesg failed)"
		fi
		read -r taint </proc/sys/kernel/tainted
		taint=$(((taint & ~taint0) & ~CQN_TAINT_OK))
		[ "$taint" = 0 ] || splats+="${splats:+$'\n'}kernel tainted: new flags $taint (see Documentation/admin-guide/tainted-kernels.rst)"
		if [ "${CQN_GATE_EACH:-0}" = 1 ]; then
			leaks=$(cqn_kmemleak_gate)
			[ -z "$leaks" ] || splats+="${splats:+$'\n'}$leaks"
		fi
		read -r up1 _ </proc/uptime
		[ -z "$windows" ] || echo "$up0 $up1 $script: $t" >>"$windows"
		if [ $rc -eq 0 ] && [ -z "$splats" ]; then
			echo "ok - $script: $t"
		else
			CQN_TEST_FAILS=$((CQN_TEST_FAILS + 1))
			if [ -n "$splats" ]; then
				echo "not ok - $script: $t: kernel splat"
				sed 's/^/#   /' <<<"$splats"
			else
				echo "not ok - $script: $t: $(grep -m1 '^FAIL: ' "$log" | cut -c7-)"
			fi
			sed 's/^/# /' "$log" | tail -n 20
		fi
	done
	[ "$CQN_TEST_FAILS" -eq 0 ]
}

# cqn_run_suite [ENDPOINT...]: a suite's last line: run its tests
# (cqn_run_tests), then, whatever they left, remove ENDPOINTs and unload
# the modules; exit with the tests' status.
cqn_run_suite()
{
	local rc

	cqn_run_tests
	rc=$?
	ep_remove "$@" 2>/dev/null
	cqn_unload 2>/dev/null
	exit $rc
}

# check_accounted EP: every work request the endpoint posted completed
# (successfully, in error or flushed), was counted lost, or (srq=1) is a
# receive still posted to an SRQ or discarded with it. Meaningful once its
# connections are gone (conns_active and conns_closing 0: wait_conns_gone). One
# snapshot of the stats.
check_accounted()
{
	local done

	ep_stats "$1" && [ -n "${STATS[wr_posted]:-}" ] || { fail "$1: no wr_posted"; return 1; }
	expect_eq "${STATS[wc_duplicates]}" 0 "$1: wc_duplicates (work requests completed twice)" ||
		return 1
	done=$((STATS[msgs_sent] + STATS[msgs_received] + STATS[wc_errors] + STATS[wc_flushed] +
		STATS[wc_lost] + STATS[srq_recvs_queued] + STATS[srq_recvs_discarded]))
	expect_eq "$done" "${STATS[wr_posted]}" "$1: sent + received + wc_errors + wc_flushed + wc_lost + srq_recvs_queued + srq_recvs_discarded = wr_posted"
}

# accounting EP: the figure behind check_accounted.
accounting()
{
	ep_stats "$1" || return 1
	echo "posted ${STATS[wr_posted]} = sent ${STATS[msgs_sent]} + received ${STATS[msgs_received]} + errors ${STATS[wc_errors]} + flushed ${STATS[wc_flushed]} + lost ${STATS[wc_lost]} + srq queued ${STATS[srq_recvs_queued]} + srq discarded ${STATS[srq_recvs_discarded]}"
}

# wait_conns_gone SECS EP: EP has no connection left, alive or closing
# (conns_closing: closed, still being torn down; their work requests are
# accounted when they are gone, so check_accounted waits for this).
wait_conns_gone()
{
	wait_stat "$1" "$2" conns_active = 0 && wait_stat "$1" "$2" conns_closing = 0
}

# check_stopped CLIENT: a client stopped mid-stream lost nothing it got back.
check_stopped()
{
	local c=$1

	expect_eq "$(ep_stat "$c" msg_errors)" 0 "$c msg_errors" || return 1
	expect_eq "$(ep_stat "$c" msgs_verified)" "$(ep_stat "$c" msgs_received)" \
		"$c: every echo verified" || return 1
}

# tracefs_up: tracefs is mounted at $TRACEFS (mounted here if it is not),
# tracing is on (a test that failed between trace_arm and trace_disarm
# below may have left it off), and enabling an event patches nothing but
# its own site: record-cmd off. With it on (the default), the first event
# enabled also hooks the scheduler's sched_switch and sched_wakeup
# tracepoints to record task names, patching their sites in code every
# vCPU runs all the time (see "Tracepoints under TCG" below): a stock
# 6.12 VM of make check died with "Oops: int3" in ttwu_do_activate(), an
# idle vCPU taking a wakeup IPI, when config's busy_while_enabled armed
# cqn_cq_arm (2026-12-05). The trace shows "<...>" for task names.
tracefs_up()
{
	[ -d $TRACEFS/events ] || mount -t tracefs nodev $TRACEFS || { fail "no tracefs"; return 1; }
	echo 0 >$TRACEFS/options/record-cmd || { fail "record-cmd 0"; return 1; }
	echo 1 >$TRACEFS/tracing_on
}

# loops_start [-n NICE] CPU...|all: a CPU-bound shell loop bound to each
# CPU (every CPU for "all"), at nice NICE (0 unless given); their PIDs in
# LOOPS. The host's view of a busy guest CPU, for the poll tests.
loops_start()
{
	local nice=0 cpu

	LOOPS=()
	[ "$1" = -n ] && { nice=$2; shift 2; }
	[ "$1" = all ] && set -- $(seq 0 $(($(nproc) - 1)))
	for cpu; do
		taskset -c "$cpu" nice -n "$nice" sh -c 'while :; do :; done' &
		LOOPS+=($!)
	done
}

# loops_stop: the loops of loops_start ended and reaped.
loops_stop()
{
	[ ${#LOOPS[@]} -gt 0 ] || return 0
	kill "${LOOPS[@]}" 2>/dev/null
	wait "${LOOPS[@]}" 2>/dev/null
	LOOPS=()
}

# Tracepoints under TCG. Enabling or disabling a tracepoint patches its
# static-key jump in the kernel's text (text_poke_bp(): an int3 first, the
# rest, then the first byte, each step synced across CPUs), and under TCG a
# vCPU that runs the site while it is patched does not always survive it:
# a stock 6.12 VM of make check died with "Oops: int3" on cqn_cq_poll's site
# in cqn_cq_process() (2026-12-05) while share_cpu_trace enabled it under
# traffic on both vCPUs. So a test switches cqnotify's events while no
# traffic runs through their sites, and takes its window of traffic with
# tracing_on (a flag, nothing patched) or an event's filter.

# trace_arm EVENT...: tracing off, cqnotify's EVENTs enabled, the trace
# empty. Before the traffic to trace starts.
trace_arm()
{
	local e

	tracefs_up || return 1
	echo 0 >$TRACEFS/tracing_on || { fail "tracing_on 0"; return 1; }
	for e; do
		echo 1 >$TRACEFS/events/cqnotify/$e/enable || { fail "no event $e"; return 1; }
	done
	echo >$TRACEFS/trace
}

# trace_start: the trace emptied and tracing on: the armed events record.
trace_start()
{
	echo >$TRACEFS/trace && echo 1 >$TRACEFS/tracing_on || { fail "tracing_on 1"; return 1; }
}

# trace_stop: tracing off; the trace keeps what it holds.
trace_stop()
{
	echo 0 >$TRACEFS/tracing_on
}

# trace_mute EVENT: cqnotify's EVENT records nothing more, its site left as
# it is (a filter no connection matches: QP 0 is the subnet manager's).
trace_mute()
{
	echo 'qpn == 0' >$TRACEFS/events/cqnotify/$1/filter || { fail "filter on $1"; return 1; }
}

# trace_disarm: cqnotify's events off, their filters gone, the trace empty
# and tracing on again. Once the traffic through their sites has stopped.
trace_disarm()
{
	local f

	[ -d $TRACEFS/events/cqnotify ] || return 0
	echo 0 >$TRACEFS/events/cqnotify/enable
	for f in $TRACEFS/events/cqnotify/*/filter; do
		echo 0 >"$f"
	done
	echo >$TRACEFS/trace
	echo 1 >$TRACEFS/tracing_on
}

# ep_create NAME [ATTR=VALUE...]: a new endpoint with those attributes.
ep_create()
{
	local name=$1 kv

	shift
	mkdir "$CQN_CFS/endpoints/$name" || { fail "mkdir endpoint $name"; return 1; }
	for kv in "$@"; do
		expect_write "$CQN_CFS/endpoints/$name/${kv%%=*}" "${kv#*=}" || return 1
	done
}

# ep_attr NAME ATTR: read an attribute.
ep_attr()
{
	local v

	IFS= read -r v <"$CQN_CFS/endpoints/$1/$2" || [ -n "$v" ] || return 1
	printf '%s\n' "$v"
}

# ep_enable NAME 0|1
ep_enable()
{
	expect_write "$CQN_CFS/endpoints/$1/enable" "$2"
}

# ep_remove NAME...: disable and remove endpoints (ignores missing ones).
ep_remove()
{
	local name

	for name in "$@"; do
		[ -d "$CQN_CFS/endpoints/$name" ] || continue
		printf 0 >"$CQN_CFS/endpoints/$name/enable" 2>/dev/null
		rmdir "$CQN_CFS/endpoints/$name" || fail "rmdir endpoint $name"
	done
}

# ep_wait_state NAME REGEX SECONDS: wait until the state matches.
ep_wait_state()
{
	local end=$((SECONDS + $3)) state

	while :; do
		state=$(<"$CQN_CFS/endpoints/$1/state")
		[[ $state =~ ^($2)$ ]] && return 0
		[ $SECONDS -lt $end ] || break
		sleep 0.2
	done
	fail "$1: state '$state' (last_error '$(ep_attr "$1" last_error)'), wanted '$2' within $3 s"
}

# ep_stats NAME: read NAME's debugfs stats into the associative array STATS
# (key -> value), all from one snapshot. The file is read in one go
# (mapfile): a seq_file generates itself again on every lseek, and a
# "while read" loop seeks back after each line, so lines read one by one
# would each come from another moment (and a line whose value grew a digit
# could be cut in the wrong place).
declare -gA STATS=()
ep_stats()
{
	local line lines

	STATS=()
	mapfile -t lines <"$CQN_DFS/$1/stats" || return 1
	for line in "${lines[@]}"; do
		STATS[${line%% *}]=${line#* }
	done
	[ ${#STATS[@]} -gt 0 ]
}

# ep_stat NAME KEY: one value of debugfs stats.
ep_stat()
{
	ep_stats "$1" && [ -n "${STATS[$2]+set}" ] || return 1
	printf '%s\n' "${STATS[$2]}"
}

# poll_arms_naps WHAT EVENTS ARMS NAPS NAP_WAKEUPS [STRETCH]: poll mode arms
# its CQ only to nap (src/cq_poll.c): once per nap, and again at the end of
# each wakeup of the work item during one, so its arms are at most its naps
# and nap wakeups, and its events at most its arms. Counts since the
# endpoint was created, or with STRETCH (1) the differences of two
# snapshots taken while traffic ran: a snapshot may fall between a nap (or
# a wakeup) counted and its arm, and an event of an arm from before the
# stretch may come in it, so the stretch allows 2 arms and 1 event more.
poll_arms_naps()
{
	local arms=0 events=0

	[ "${6:-0}" = 1 ] && arms=2 events=1
	[ "$3" -le $(($4 + $5 + arms)) ] ||
		{ fail "$1: $3 arms in poll mode for $4 naps and $5 nap wakeups"; return 1; }
	[ "$2" -le $(($3 + events)) ] ||
		{ fail "$1: $2 events in poll mode for $3 arms"; return 1; }
}

# poll_arms_naps_ep WHAT EP: poll_arms_naps for EP's counts so far.
poll_arms_naps_ep()
{
	ep_stats "$2" || return 1
	poll_arms_naps "$1" "${STATS[cq_events]}" "${STATS[cq_arms]}" "${STATS[cq_poll_naps]}" \
		"${STATS[cq_nap_wakeups]}"
}

# hist_samples NAME HIST: the samples of one histogram of NAME's debugfs
# "histograms" (its header line).
hist_samples()
{
	sed -n "s/^# histogram $2 unit [a-z]* samples \([0-9]*\) .*/\1/p" "$CQN_DFS/$1/histograms"
}

# wait_for SECONDS CMD...: run CMD again every 0.2 s until it succeeds.
# CMD is re-run, its arguments are not re-evaluated: to wait on a value
# that changes, use wait_stat.
wait_for()
{
	local secs=$1 end=$((SECONDS + $1))

	shift
	while :; do
		"$@" && return 0
		[ $SECONDS -lt $end ] || break
		pause 0.2
	done
	fail "timed out after $secs s waiting for: $*"
}

# stat_test NAME KEY OP VALUE: test(1) the current value of a stat.
stat_test()
{
	local -A STATS

	# No fork: ep_stats fills this local STATS, the caller's stays.
	ep_stats "$1" && [ -n "${STATS[$2]+set}" ] || return 1
	test "${STATS[$2]}" "$3" "$4"
}

# wait_stat SECONDS NAME KEY OP VALUE: wait until stat KEY of endpoint
# NAME satisfies OP VALUE (a test(1) operator), re-reading it each time.
wait_stat()
{
	local secs=$1 end=$((SECONDS + $1))

	shift
	while :; do
		stat_test "$@" && return 0
		[ $SECONDS -lt $end ] || break
		pause 0.2
	done
	fail "timed out after $secs s waiting for $1 $2 $3 $4 (now '$(ep_stat "$1" "$2")')"
}

# --- a cqnotify server on rxe0 (10.77.0.1), clients on rxe1 (10.77.0.2);
# with CQN_PROVIDER=siw, siw0 on veth2 (10.77.1.1) and siw1 on veth3
# (10.77.1.2) instead (siw_pair_up makes them) ---
CQN_PROVIDER=${CQN_PROVIDER:-rxe}
if [ "$CQN_PROVIDER" = siw ]; then
	SERVER_ADDR=10.77.1.1
	SRV_DEV=siw0
	CLI_DEV=siw1
	CLI_NETDEV=veth3
else
	SERVER_ADDR=10.77.0.1
	SRV_DEV=rxe0
	CLI_DEV=rxe1
	CLI_NETDEV=veth1
fi

# siw_pair_up: siw0 on veth2 (10.77.1.1) and siw1 on veth3 (10.77.1.2), with
# policy routing so that traffic between them crosses the veth pair.
siw_pair_up()
{
	local mac2 mac3

	modprobe siw || { fail "siw provider not available"; return 1; }
	if ! ip link add veth2 type veth peer name veth3 ||
	   ! ip addr add 10.77.1.1/24 dev veth2 || ! ip addr add 10.77.1.2/24 dev veth3 ||
	   ! ip link set veth2 up || ! ip link set veth3 up; then
		fail "veth2/veth3 setup"
		siw_pair_down
		return 1
	fi
	mac2=$(cat /sys/class/net/veth2/address)
	mac3=$(cat /sys/class/net/veth3/address)
	if ! ip -batch - <<-EOF; then
		neigh replace 10.77.1.2 lladdr $mac3 dev veth2 nud permanent
		neigh replace 10.77.1.1 lladdr $mac2 dev veth3 nud permanent
		route add 10.77.1.2 dev veth2 src 10.77.1.1 table 102
		route add 10.77.1.1 dev veth3 src 10.77.1.2 table 103
		rule add pref 102 iif lo to 10.77.1.2 lookup 102
		rule add pref 103 iif lo to 10.77.1.1 lookup 103
	EOF
		fail "routing for veth2/veth3"
		siw_pair_down
		return 1
	fi
	if ! rdma link add siw0 type siw netdev veth2 || ! rdma link add siw1 type siw netdev veth3; then
		fail "rdma link add siw0/siw1"
		siw_pair_down
		return 1
	fi
}

# siw_pair_down: undo siw_pair_up (whatever part of it was done).
siw_pair_down()
{
	rdma link delete siw0 2>/dev/null
	rdma link delete siw1 2>/dev/null
	ip rule del pref 102 2>/dev/null
	ip rule del pref 103 2>/dev/null
	ip link delete veth2 2>/dev/null
}
# Iterations stay small: the debug kernel under TCG moves ~1000 messages/s.
N=${CQN_TEST_ITERATIONS:-200}
[ "$CQN_KERNEL" = debug ] && N=${CQN_TEST_ITERATIONS:-100}

# start_server [ATTR=VALUE...]
start_server()
{
	ep_create srv role=server addr=$SERVER_ADDR "$@" || return 1
	ep_enable srv 1 || return 1
	ep_wait_state srv running 10
}

# run_client NAME [ATTR=VALUE...]: enable and wait for done.
run_client()
{
	local name=$1

	shift
	ep_create "$name" role=client addr=$SERVER_ADDR "$@" || return 1
	ep_enable "$name" 1 || return 1
	ep_wait_state "$name" done 240
}

# endless_client NAME [ATTR=VALUE...]: a client running until it is
# disabled (iterations=0 duration_ms=0), enabled and running: a stream of
# queue_depth 8 unless the ATTRs say otherwise (workload=pingpong, whose one
# message outstanding leaves queue_depth without effect; queue_depth=16).
endless_client()
{
	local name=$1

	shift
	ep_create "$name" role=client addr=$SERVER_ADDR workload=stream queue_depth=8 \
		iterations=0 duration_ms=0 "$@" || return 1
	ep_enable "$name" 1 && ep_wait_state "$name" running 60
}

# stall_by_lost_events CLIENT: once CLIENT has verified more than 10
# echoes, lose every completion event of its CQ (fault_drop_events) and
# wait until its traffic stalls, as it must with no watchdog: no progress
# over two seconds (an event already overtaken by a re-arm that reported it
# may let a few more through first; 10 tries). STALLED_AT is its
# msgs_verified then.
stall_by_lost_events()
{
	local c=$1 i v0 v1

	wait_stat 30 "$c" msgs_verified -gt 10 || return 1
	printf 1000000 >"$CQN_DFS/$c/fault_drop_events" || { fail "fault_drop_events knob"; return 1; }
	wait_stat 30 "$c" cq_events_dropped -ge 1 || return 1
	for i in $(seq 1 10); do
		v0=$(ep_stat "$c" msgs_verified)
		sleep 2
		v1=$(ep_stat "$c" msgs_verified)
		[ "$v1" = "$v0" ] && break
	done
	STALLED_AT=$v1
	expect_eq "$v1" "$v0" "traffic with events lost and no watchdog (must stall)"
}

# check_clean_run CLIENT N: every message sent, echoed and verified once.
check_clean_run()
{
	local c=$1 n=$2

	expect_eq "$(ep_stat "$c" msg_errors)" 0 "$c msg_errors" || return 1
	expect_eq "$(ep_stat "$c" wc_errors)" 0 "$c wc_errors" || return 1
	expect_eq "$(ep_stat "$c" msgs_sent)" "$n" "$c msgs_sent" || return 1
	expect_eq "$(ep_stat "$c" msgs_received)" "$n" "$c msgs_received" || return 1
	expect_eq "$(ep_stat "$c" msgs_verified)" "$n" "$c msgs_verified" || return 1
	[ "$(ep_stat "$c" rtt_p50_ns)" -gt 0 ] || fail "$c: no RTT recorded"
}

# The DIM profile (lib/dim, the core's rdma_dim_prof[]; cqn_dim_profile()
# in src/moder.c): "count period" of each level adaptive moderation uses.
DIM_PROFILE=("1 1" "4 1" "4 2" "8 2" "8 4" "8 16" "16 16" "16 32" "32 32")

# moder_want MODE COUNT PERIOD ADAPTIVE LEVEL: set MODER_WANT to what
# moderation_effective must read on a provider without modify_cq (rxe, siw:
# software moderation, src/moder.c) for that cq_mode, cq_count, cq_period
# and adaptive_moderation; LEVEL is the adaptive level it shows (its DIM
# profile replaces cq_count/cq_period). A count of 1, or no count and no
# period, is off; a count past 256 is 256, a count without a period gets
# 100 us; software moderation runs in event, adaptive and irqpoll modes only, and
# asked for in another mode it is "off (ignored in this cq_mode)".
moder_want()
{
	local mode=$1 count=$2 period=$3

	[ "$4" = 1 ] && read -r count period <<<"${DIM_PROFILE[$5]:-x x}"
	MODER_WANT=off
	if [ "$count" != 1 ] && [ "$count$period" != 00 ]; then
		[ "$count" = 0 ] || [ "$count" -gt 256 ] && count=256
		[ "$period" = 0 ] && period=100
		case $mode in
		event|adaptive|irqpoll) MODER_WANT="sw count=$count period=$period" ;;
		*) MODER_WANT="off (ignored in this cq_mode)" ;;
		esac
	fi
	[ "$4" = 1 ] && MODER_WANT+=" adaptive level=$5"
	return 0
}

# check_moder EP MODE COUNT PERIOD ADAPTIVE: EP's running connection applies
# that configuration (moder_want). Under adaptive moderation the level is
# the engine's own and may move between two reads; the count and period
# shown must be that level's. A read is retried twice (the level is
# written just before the moderation it stands for).
check_moder()
{
	local ep=$1 eff lvl=0 try

	for try in 1 2 3; do
		eff=$(ep_attr "$ep" moderation_effective) ||
			{ fail "$ep: cannot read moderation_effective"; return 1; }
		[[ $eff =~ adaptive\ level=([0-9]+)$ ]] && lvl=${BASH_REMATCH[1]}
		moder_want "$2" "$3" "$4" "$5" "$lvl"
		[ "$eff" = "$MODER_WANT" ] && return 0
	done
	fail "$ep moderation_effective with cq_mode=$2 cq_count=$3 cq_period=$4 adaptive_moderation=$5: got '$eff', expected '$MODER_WANT'"
}

# poll_threads EP: print how many cqn-poll/EP.<conn> threads run (read from
# /proc without starting a process: the debug kernel is slow to fork).
poll_threads()
{
	local -a pids

	read -ra pids <<<"$(poll_pids "$1")"
	echo ${#pids[@]}
}

# thread_nice PID: PID's nice value (field 19 of /proc/PID/stat, whose comm
# has no space for the threads asked about), with a builtin.
thread_nice()
{
	local -a f

	read -ra f 2>/dev/null <"/proc/$1/stat" || return 1
	echo "${f[18]}"
}

# pause SECONDS: sleep without a fork: a read that times out on a FIFO
# nobody writes to, opened once per shell (each fork and exec of sleep(1)
# costs a TCG guest whose CPUs are busy a good part of a tenth of a
# second; the looks of the poll tests take hundreds of them). The test
# guests have no /dev/fd, so not a process substitution. A read that
# ends other than by its timeout sleeps instead: a pause never spins.
pause()
{
	local f=/run/cqn-pause.$BASHPID

	if [ -z "${PAUSE_FD+set}" ]; then
		PAUSE_FD=
		mkfifo "$f" 2>/dev/null && exec {PAUSE_FD}<>"$f"
		rm -f "$f"
	fi
	if [ -n "$PAUSE_FD" ]; then
		read -r -t "$1" -u "$PAUSE_FD" _
		[ $? -gt 128 ] && return 0
	fi
	sleep "$1"
}

# thread_cpus PID: the CPUs thread PID may run on (Cpus_allowed_list, as
# "0-1" or "1").
thread_cpus()
{
	awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$1/status"
}

# thread_switches PID: PID's voluntary and involuntary context switches so
# far, as "VOLUNTARY INVOLUNTARY" (0 0 once it is gone), printed and in
# REPLY (called with >/dev/null, no fork). The status file is read whole
# first: read line by line, each read seeks back and the kernel writes
# the file anew, so a line may be cut where another's length changed (a
# thread's count was read as 0 in two runs of five).
thread_switches()
{
	local line vol=0 inv=0
	local -a lines

	mapfile -t lines 2>/dev/null <"/proc/$1/status"
	for line in "${lines[@]}"; do
		case $line in
		voluntary_ctxt_switches:*) vol=${line##*[[:space:]]} ;;
		nonvoluntary_ctxt_switches:*) inv=${line##*[[:space:]]} ;;
		esac
	done
	REPLY="$vol $inv"
	echo "$REPLY"
}

# thread_pids PREFIX: the PIDs of the threads whose comm starts with
# PREFIX, on one line (read from /proc with builtins). A thread already
# exiting is left out: kthread_stop() returns once the thread has left its
# function, and /proc lists it until do_exit() has released it (PF_EXITING,
# 0x4 in field 9 of /proc/PID/stat, is set from the start of do_exit()).
thread_pids()
{
	local f comm pid pids=()
	local -a st

	for f in /proc/[0-9]*/comm; do
		IFS= read -r comm 2>/dev/null <"$f" || continue
		[[ $comm == "$1"* ]] || continue
		pid=${f//[!0-9]/}
		read -ra st 2>/dev/null <"/proc/$pid/stat" || continue
		(( st[8] & 0x4 )) || pids+=("$pid")
	done
	echo "${pids[*]}"
}

# poll_pids EP: the PIDs of EP's poll threads (cqn-poll/EP.*), on one line.
poll_pids()
{
	thread_pids "cqn-poll/$1."
}

# --- the robust suites (faults, inject, fuzz, hostile, permissions):
# reliability and security, on the debug kernel and the stock ones ---

# rxe_reload: bring rxe0 and rxe1 back (vm-init's routing stays).
rxe_reload()
{
	lsmod | grep -q '^rdma_rxe' || modprobe rdma_rxe || return 1
	[ -e /sys/class/infiniband/rxe0 ] || rdma link add rxe0 type rxe netdev veth0 || return 1
	[ -e /sys/class/infiniband/rxe1 ] || rdma link add rxe1 type rxe netdev veth1
}

# robust_setup: what each test of the robust suites starts from: rxe0 and
# rxe1 (a test may have removed them), the modules loaded, none of the
# suites' endpoints left.
robust_setup()
{
	rxe_reload || { fail "rxe0/rxe1 missing and cannot be re-added"; return 1; }
	cqn_load || return 1
	ep_remove srv cli good c0 c1 c2 c3 fsrv
}

# --- reliability figures, measured (scripts/check sums them) ---

# run_lost CLIENT: the figures of a run that finished (every echo was due),
# from one snapshot of CLIENT's stats: RUN_VERIFIED, its msgs_verified;
# RUN_LOST, msgs_sent - msgs_verified (messages sent whose echo was not
# verified). Read them before the checks, so that a run that fails is
# reported as it was.
run_lost()
{
	ep_stats "$1" || { fail "$1: no stats"; return 1; }
	RUN_VERIFIED=${STATS[msgs_verified]}
	RUN_LOST=$((STATS[msgs_sent] - STATS[msgs_verified]))
}

# stop_lost CLIENT WINDOW: the same for a run stopped under traffic (by
# disable, a fault, a lost connection), where up to WINDOW messages (its
# queue_depth, 1 for pingpong: all a client ever has outstanding) may have
# been in flight at the stop: RUN_LOST counts the messages sent once
# (msgs_sent less msgs_resent, the copies a reconnect sent again) and not
# verified, beyond WINDOW.
stop_lost()
{
	local unanswered

	ep_stats "$1" || { fail "$1: no stats"; return 1; }
	RUN_VERIFIED=${STATS[msgs_verified]}
	unanswered=$((STATS[msgs_sent] - STATS[msgs_resent] - STATS[msgs_verified]))
	RUN_LOST=$((unanswered > $2 ? unanswered - $2 : 0))
}
