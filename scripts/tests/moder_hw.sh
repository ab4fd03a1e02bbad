#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CQ moderation on the hardware path: rxe with modify_cq (the patch in
# scripts/rxe-patches/, built by scripts/build-rxe) replaces the stock rxe
# for this suite; rxe0/rxe1 are made again as vm-init makes them, and
# cqnotify programs moderation with rdma_set_cq_moderation(). Checked: the
# provider advertises cq_caps and cqnotify says "hw"; events come by count
# and by period, a lone completion is delivered within cq_period plus a
# slack, live changes reach the provider, values are clamped to cq_caps with
# a message; the provider delivers every completion exactly once (cqnotify's
# verified streams, a CQ overflow, destroy with an event held back), and
# perftest and librdmacm's rdma_server/rdma_client still work over it. The
# rxe loaded before (the stock one, or the patched one when vm-init loaded
# it from CQN_RXE_KO) is back when the suite ends.
. "$(dirname "$0")/lib.sh"

ALL_TESTS="
	patched_rxe_loaded
	hw_moderation_effective
	hw_count_reached
	hw_period_expiry
	hw_live_changes
	hw_shared_cq
	hw_clamped_to_caps
	hw_adaptive_levels
	hw_exactly_once
	hw_overflow_and_destroy
	perftest_over_patched
	rdma_cm_over_patched
	core_dim_levels
	rxe_restored
	core_dim_not_on_stock
"
# Which build of scripts/build-rxe this kernel takes; CQN_RXE_KO overrides.
RXE_KIND=$CQN_KSERIES
[ "$CQN_KERNEL" = debug ] && RXE_KIND=debug
RXE_DIR=$CQN_TOP/build/rxe-$RXE_KIND
RXE_KO=${CQN_RXE_KO:-$RXE_DIR/rdma_rxe.ko}
# What the patch advertises (rxe_param.h: mlx5's limits).
CAP_COUNT=65535
CAP_PERIOD=4095

# The count test: paced traffic whose completions arrive far faster than
# the longest period gathers them (distro: 2000 msg/s, two completions a
# message, so COUNT_N=4 of them take about 1 ms and a period of 4095 us
# would hold about 16). The debug kernel under TCG moves ~1000 msg/s at
# best and unevenly: there a closed-loop stream, and only the lower bound
# (an event waits for COUNT_N) is asserted.
COUNT_N=4
COUNT_RATE=2000
COUNT_QD=32
COUNT_ITER=2000
# The period test: paced pingpong, whose 2 completions a round trip never
# make cq_count 64; each echo waits for PERIOD_US. Its RTT p50 must stay
# within PERIOD_US + the unmoderated p50 + SLACK_MS (the stated slack: a
# TCG guest on a busy 2-core host gets its timer interrupts late, by 0.1 ms
# at the median and 5 ms at p90 when 5 VMs shared it, measured with
# hrtimer_start/hrtimer_expire_entry; the tail is the host's).
PERIOD_US=4000
PERIOD_RATE=100
PERIOD_ITER=50
SLACK_MS=4
# The core's DIM: how long a stream runs for its level to move, and the
# modes where it may not (on the debug kernel DIM moved 4 times in 90 s in
# softirq mode once, not at all in 60 s another time, and not in 90 s in
# workqueue mode).
DIM_WAIT_S=30
DIM_MAY_STAY=
if [ "$CQN_KERNEL" = debug ]; then
	DIM_WAIT_S=60
	DIM_MAY_STAY="softirq workqueue"
	COUNT_RATE=0
	COUNT_QD=16
	COUNT_ITER=300
	PERIOD_RATE=20
	PERIOD_ITER=20
	SLACK_MS=20
	CQN_SKIP[hw_adaptive_levels]="DIM on the debug kernel may not move in the minute this lane has (as the core's, DIM_MAY_STAY)"
	# make check's debug VM runs what the debug kernel's checkers (KASAN,
	# lockdep, kmemleak) judge best: the provider's timer and queues under
	# live changes, resizes, overflow and destroy; the stock kernels run
	# everything. CQN_MODER_HW_FULL=1: every test here too (10 minutes).
	if [ "${CQN_MODER_HW_FULL:-0}" != 1 ]; then
		for t in hw_count_reached hw_period_expiry hw_clamped_to_caps perftest_over_patched \
			rdma_cm_over_patched core_dim_levels; do
			CQN_SKIP[$t]="timing and interop checks run on the stock kernels (CQN_MODER_HW_FULL=1 runs them here)"
		done
	fi
fi

setup()
{
	rxe_patched || { fail "the patched rxe is not loaded (see patched_rxe_loaded)"; return 1; }
	cqn_load || return 1
	ep_remove srv cli cli1 cli2 cli3
}

# rxe_patched: the rxe loaded now is the patched one: out of tree (taint O)
# and advertising moderation (user space sees cq_caps in query_device_ex;
# the stock rxe advertises none).
rxe_patched()
{
	local taint=

	[ -d /sys/module/rdma_rxe ] || return 1
	read -r taint </sys/module/rdma_rxe/taint || return 1
	[[ $taint == *O* ]]
}

# rxe_links_up: rxe0 on veth0 and rxe1 on veth1 (vm-init made the veth pair
# and its routing), ACTIVE within 30 s.
rxe_links_up()
{
	local i st0= st1=

	rdma link add rxe0 type rxe netdev veth0 || { fail "rdma link add rxe0"; return 1; }
	rdma link add rxe1 type rxe netdev veth1 || { fail "rdma link add rxe1"; return 1; }
	for ((i = 0; i < 100; i++)); do
		read -r st0 </sys/class/infiniband/rxe0/ports/1/state 2>/dev/null
		read -r st1 </sys/class/infiniband/rxe1/ports/1/state 2>/dev/null
		[ "$st0/$st1" != "4: ACTIVE/4: ACTIVE" ] || return 0
		sleep 0.3
	done
	fail "rxe0/rxe1 not ACTIVE after 30 s ($st0/$st1)"
}

# rxe_swap KO|stock: replace the loaded rxe (and its two devices) with the
# module KO, or with the stock one (modprobe). cqnotify is unloaded first.
rxe_swap()
{
	ep_remove srv cli cli1 cli2 cli3
	cqn_unload || return 1
	rdma link delete rxe0 2>/dev/null
	rdma link delete rxe1 2>/dev/null
	if [ -d /sys/module/rdma_rxe ]; then
		rmmod rdma_rxe || { fail "rmmod rdma_rxe"; return 1; }
	fi
	if [ "$1" = stock ]; then
		modprobe rdma_rxe || { fail "modprobe rdma_rxe"; return 1; }
	else
		# Its dependencies are those of the stock module, loaded by vm-init.
		modprobe -a ib_uverbs udp_tunnel ip6_udp_tunnel ||
			{ fail "modprobe rxe's dependencies"; return 1; }
		insmod "$1" || { fail "insmod $1"; return 1; }
	fi
	rxe_links_up
}

# completions CLIENT: the send and receive completions the client handled.
completions()
{
	echo $(($(ep_stat "$1" msgs_sent) + $(ep_stat "$1" msgs_received)))
}

# per_k A B: A per 1000 B.
per_k()
{
	echo $(($1 * 1000 / ($2 ? $2 : 1)))
}

# stream_run COUNT PERIOD RATE QD ITER: a client stream to its end with
# that moderation; prints "events completions".
stream_run()
{
	ep_remove cli
	run_client cli workload=stream msg_size=64 queue_depth="$4" iterations="$5" rate="$3" \
		cq_count="$1" cq_period="$2" >&2 || return 1
	check_clean_run cli "$5" >&2 || return 1
	echo "$(ep_stat cli cq_events) $(completions cli)"
}

# The module is the one scripts/build-rxe builds from the patches now in
# the tree (a stale copy would test an old patch), unless it was built with
# CQN_RXE_EXTRA_PATCH (a planted bug; said so). It loads in place of the
# stock rxe, and user space sees the moderation limits it advertises.
patched_rxe_loaded()
{
	local want have info

	[ -f "$RXE_KO" ] || { fail "$RXE_KO missing: run scripts/build-rxe $RXE_KIND on the host"; return 1; }
	if [ -z "${CQN_RXE_KO:-}" ]; then
		want=$("$CQN_TOP/scripts/build-rxe" --hash "$RXE_KIND" 2>/dev/null) ||
			{ fail "scripts/build-rxe --hash $RXE_KIND failed"; return 1; }
		have=$(<"$RXE_DIR/hash")
		if [ -s "$RXE_DIR/extra" ]; then
			echo "figure: built with an extra patch: $(<"$RXE_DIR/extra")"
		elif [ "$have" != "$want" ]; then
			fail "$RXE_KO is stale (built $have, the tree's patches make $want): run scripts/build-rxe $RXE_KIND"
			return 1
		fi
	fi
	rxe_swap "$RXE_KO" || return 1
	rxe_patched || { fail "rdma_rxe loaded is not the patched module (taint '$(</sys/module/rdma_rxe/taint)')"; return 1; }
	info=$(ibv_devinfo -v -d rxe0 2>&1) || { fail "ibv_devinfo -d rxe0: $info"; return 1; }
	expect_match "$info" "max_cq_count:[[:space:]]*$CAP_COUNT\$" "rxe0 cq moderation caps" || return 1
	expect_match "$info" "max_cq_period:[[:space:]]*$CAP_PERIOD us" "rxe0 cq moderation caps" || return 1
	echo "figure: $(grep -A2 'cq moderation caps' <<<"$info" | tr -s '\t\n' '  ')"
}

# Every mode with a CQ event takes the hardware path: moderation_effective
# says hw with what was asked, and the engine's own (software) moderation
# never runs.
hw_moderation_effective()
{
	local mode eff n=$((N / 2))

	setup || return 1
	start_server || return 1
	for mode in event adaptive softirq workqueue; do
		ep_create cli role=client addr=$SERVER_ADDR cq_mode=$mode workload=stream \
			queue_depth=16 msg_size=64 iterations=0 duration_ms=0 cq_count=8 \
			cq_period=2000 || return 1
		ep_enable cli 1 && ep_wait_state cli running 60 || return 1
		wait_stat 30 cli msgs_verified -ge $n || return 1
		eff=$(ep_attr cli moderation_effective)
		expect_eq "$eff" "hw count=8 period=2000" "$mode: client moderation_effective" ||
			return 1
		ep_enable cli 0 || return 1
		check_stopped cli || return 1
		expect_eq "$(ep_stat cli sw_moder_timer_fires)" 0 "$mode: software moderation timer fires" ||
			return 1
		echo "figure: $mode: $eff: $(ep_stat cli cq_events) events for $(completions cli) completions"
		ep_remove cli
	done
	expect_eq "$(ep_attr srv moderation_effective)" off "server without moderation" || return 1
	ep_remove srv
}

# The count: paced traffic, cq_count=COUNT_N with the longest period. Each
# event must have waited for COUNT_N completions (a provider ignoring the
# moderation raises one for nearly every completion) and, on the distro
# kernel, come from the count, not the period (a provider ignoring the count
# would gather about 16 a period). Unmoderated figures beside them.
hw_count_reached()
{
	local e0 c0 e1 c1 out n=$COUNT_N

	setup || return 1
	start_server || return 1
	out=$(stream_run 0 0 $COUNT_RATE $COUNT_QD $COUNT_ITER) || return 1
	read -r e0 c0 <<<"$out"
	out=$(stream_run $n $CAP_PERIOD $COUNT_RATE $COUNT_QD $COUNT_ITER) || return 1
	read -r e1 c1 <<<"$out"
	echo "figure: rate $COUNT_RATE, $COUNT_QD in flight, events per 1000 completions:" \
		"unmoderated $(per_k "$e0" "$c0"), cq_count=$n cq_period=$CAP_PERIOD $(per_k "$e1" "$c1")" \
		"(events per message $(per_k $((e0 * 2)) "$c0") and $(per_k $((e1 * 2)) "$c1") per 1000)"
	[ "$e1" -gt 0 ] || { fail "cq_count=$n: no event at all"; return 1; }
	[ $((c1 * 10)) -ge $((e1 * n * 8)) ] ||
		{ fail "cq_count=$n: $c1 completions for $e1 events (fewer than $n each)"; return 1; }
	[ "$CQN_KERNEL" = debug ] && return 0
	[ "$c1" -le $((e1 * n * 2)) ] ||
		{ fail "cq_count=$n: $c1 completions for $e1 events (the period, not the count, raised them)"; return 1; }
	expect_eq "$(ep_stat cli sw_moder_timer_fires)" 0 "software moderation timer fires"
}

# The period: a paced pingpong (PERIOD_RATE round trips a second, far
# apart), so that each round trip's 2 completions reach an armed, idle CQ
# and never make cq_count 64 (nor does cq_count 0 count): the echo is held
# until PERIOD_US after the first completion of its round trip. It must wait
# the period (RTT p50 at least PERIOD_US) and be delivered then (p50 within
# PERIOD_US plus the unmoderated p50 plus SLACK_MS), no lone completion may
# be stranded (the run ends within a bound), and both completions of a
# round trip come with one event. The tail (p99) is a figure only: under
# TCG on a shared host it is the host's scheduling, tens of milliseconds
# with or without moderation; when it exceeds the period, an echo may come
# after the period it was held for, and one more measurement is judged
# (fc23: p50 9.4 ms against a bound of 9.0 with an unmoderated p99 of
# 15 ms). (Unpaced, the consumer finds the next round
# trip's completions itself whenever they arrive before it has armed the CQ
# again: polling is never moderated.)
hw_period_expiry()
{
	local try

	setup || return 1
	start_server || return 1
	# A host that stalls for longer than the period (the unmoderated p99
	# above it) can delay an echo past the period it was held for: then
	# the whole measurement is made once more, and that one is judged.
	for try in 1 2; do
		PERIOD_STALLED=0
		period_measure $try && break
		[ "$PERIOD_STALLED" = 1 ] || return 1
		echo "figure: the host stalled longer than cq_period (unmoderated p99 above it): measuring again"
	done
	ep_remove cli srv
}

# period_measure TRY: one measurement of hw_period_expiry: unmoderated,
# then cq_count 64 and 0 with cq_period PERIOD_US. On the first TRY, a p50
# above its bound on a host stalling longer than the period sets
# PERIOD_STALLED (and is printed, not failed).
period_measure()
{
	local u50 u99 ue cfg cnt p50 p99 ev slack=$((SLACK_MS * 1000000))

	ep_remove cli
	run_client cli workload=pingpong msg_size=64 rate=$PERIOD_RATE iterations=$PERIOD_ITER ||
		return 1
	check_clean_run cli $PERIOD_ITER || return 1
	u50=$(ep_stat cli rtt_p50_ns)
	u99=$(ep_stat cli rtt_p99_ns)
	ue=$(ep_stat cli cq_events)
	echo "figure: unmoderated pingpong at $PERIOD_RATE/s: rtt p50 $u50 ns p99 $u99 ns, $ue events for $PERIOD_ITER round trips"
	for cnt in 64 0; do
		cfg="cq_count=$cnt cq_period=$PERIOD_US"
		ep_remove cli
		ep_create cli role=client addr=$SERVER_ADDR workload=pingpong msg_size=64 \
			rate=$PERIOD_RATE iterations=$PERIOD_ITER cq_count=$cnt cq_period=$PERIOD_US ||
			return 1
		ep_enable cli 1 || return 1
		# An echo never delivered stalls the run: bounded, not 240 s.
		ep_wait_state cli done $((30 + PERIOD_ITER / PERIOD_RATE)) 2>/dev/null ||
			{ fail "$cfg: pingpong stalled at $(ep_stat cli msgs_verified) (a held completion never delivered)"; return 1; }
		check_clean_run cli $PERIOD_ITER || return 1
		p50=$(ep_stat cli rtt_p50_ns)
		p99=$(ep_stat cli rtt_p99_ns)
		ev=$(ep_stat cli cq_events)
		echo "figure: $cfg: rtt p50 $p50 ns p99 $p99 ns, $ev events for $PERIOD_ITER round trips"
		[ "$p50" -ge $((PERIOD_US * 1000)) ] ||
			{ fail "$cfg: rtt p50 $p50 ns < cq_period: completions not held back"; return 1; }
		# One event a round trip (two if the echo came later than the
		# period after the send's completion, when the host stalls).
		[ "$ev" -le $((PERIOD_ITER * 5 / 4 + 2)) ] ||
			{ fail "$cfg: $ev events for $PERIOD_ITER round trips (held completions raised their own)"; return 1; }
		expect_eq "$(ep_stat cli sw_moder_timer_fires)" 0 "$cfg: software moderation timer fires" ||
			return 1
		[ "$p50" -le $((PERIOD_US * 1000 + u50 + slack)) ] || {
			cat "$CQN_DFS/cli/latency"
			if [ "$1" = 1 ] && [ "$u99" -gt $((PERIOD_US * 1000)) ]; then
				PERIOD_STALLED=1
				echo "figure: $cfg: rtt p50 $p50 ns > cq_period + unmoderated p50 $u50 ns + slack $slack ns"
				return 1
			fi
			fail "$cfg: rtt p50 $p50 ns > cq_period + unmoderated p50 $u50 ns + slack $slack ns"
			return 1
		}
	done
}

# Live changes reach the provider. A paced pingpong (PERIOD_RATE round
# trips a second, so that each round trip's two completions reach an idle,
# armed CQ and never make cq_count 8 or 64) goes through live settings,
# with a cq_depth resize in each phase and the stats reset after it: in a
# holding phase every echo waits for the period (RTT p50 at least
# cq_period), in an off phase none does (p50 below it), so a setting left
# in place by the provider shows at once (on the debug kernel, whose
# unmoderated round trips are slower than the period, only the holding
# phases are checked). Then a stream through live changes of both values
# and cq_depth: nothing lost, every echo verified in order.
hw_live_changes()
{
	local plan=("64 $PERIOD_US" "0 0" "0 $PERIOD_US" "1 0" "8 $PERIOD_US" "0 0")
	local p cnt per p50 figs= i=0 verified=0 sent recvd qd=32 held=0

	setup || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR workload=pingpong msg_size=64 \
		rate=$PERIOD_RATE iterations=0 duration_ms=0 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	wait_stat 30 cli msgs_verified -ge 5 || return 1
	for p in "${plan[@]}"; do
		read -r cnt per <<<"$p"
		i=$((i + 1))
		expect_write "$CQN_CFS/endpoints/cli/cq_count" "$cnt" || return 1
		expect_write "$CQN_CFS/endpoints/cli/cq_period" "$per" || return 1
		expect_write "$CQN_CFS/endpoints/cli/cq_depth" $((256 + i * 64)) || return 1
		if [ "$cnt" = 0 ] && [ "$per" = 0 ]; then
			expect_eq "$(ep_attr cli moderation_effective)" off "after $cnt/$per" || return 1
		else
			expect_eq "$(ep_attr cli moderation_effective)" "hw count=$cnt period=$per" \
				"after $cnt/$per" || return 1
		fi
		expect_eq "$(ep_stat cli msg_errors)" 0 "msg_errors after $cnt/$per" || return 1
		verified=$((verified + $(ep_stat cli msgs_verified)))
		expect_write "$CQN_DFS/cli/reset" 1 || return 1
		wait_stat 60 cli msgs_verified -ge $PERIOD_RATE || return 1
		p50=$(ep_stat cli rtt_p50_ns)
		figs+=" $cnt/$per: $((p50 / 1000)) us;"
		if [ "$per" != 0 ] && [ "$cnt" != 1 ]; then
			[ "$p50" -ge $((PERIOD_US * 1000)) ] ||
				{ fail "$cnt/$per: rtt p50 $p50 ns < cq_period (the setting did not hold)"; return 1; }
			held=$p50
		elif [ "$CQN_KERNEL" != debug ]; then
			# Below the period, or (a slow host) well below the
			# holding phase before it.
			[ "$p50" -lt $((PERIOD_US * 1000)) ] || [ $((p50 * 3)) -lt $((held * 2)) ] ||
				{ fail "$cnt/$per: rtt p50 $p50 ns, $held ns in the holding phase before (that setting still holds?)"; return 1; }
		fi
	done
	ep_enable cli 0 || return 1
	check_stopped cli || return 1
	verified=$((verified + $(ep_stat cli msgs_verified)))
	echo "figure: paced pingpong, rtt p50 by phase (count/period):$figs"
	ep_remove cli
	ep_create cli role=client addr=$SERVER_ADDR workload=stream msg_size=64 queue_depth=$qd \
		iterations=0 duration_ms=0 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	wait_stat 30 cli msgs_verified -gt 20 || return 1
	i=0
	for p in "${plan[@]}" "16 100" "4 $CAP_PERIOD" "0 0"; do
		read -r cnt per <<<"$p"
		i=$((i + 1))
		expect_write "$CQN_CFS/endpoints/cli/cq_count" "$cnt" || return 1
		expect_write "$CQN_CFS/endpoints/cli/cq_period" "$per" || return 1
		expect_write "$CQN_CFS/endpoints/cli/cq_depth" $((256 + (i % 3) * 128)) || return 1
		expect_eq "$(ep_attr cli state)" running "client state after $cnt/$per" || return 1
		expect_eq "$(ep_stat cli msg_errors)" 0 "stream msg_errors after $cnt/$per" || return 1
		sleep 0.3
	done
	wait_stat 30 cli msgs_verified -gt $(($(ep_stat cli msgs_verified) + 20)) || return 1
	ep_enable cli 0 || return 1
	check_stopped cli || return 1
	sent=$(ep_stat cli msgs_sent)
	recvd=$(ep_stat cli msgs_received)
	# At most queue_depth messages in flight at the stop, either way:
	# 6.12's rxe may flush the last sends' completions at the disconnect
	# after their echoes came (an echo can overtake its send's completion);
	# the accounting says each work request completed once.
	[ $((sent > recvd ? sent - recvd : recvd - sent)) -le $qd ] ||
		{ fail "sent $sent, echoes $recvd: more than queue_depth $qd apart"; return 1; }
	check_accounted cli || return 1
	[ "$(ep_stat cli cq_resizes)" -ge 3 ] ||
		{ fail "stream cq_resizes $(ep_stat cli cq_resizes) < 3"; return 1; }
	echo "figure: stream through $i live changes and resizes: $recvd echoes verified in order, $((sent - recvd)) in flight at the stop"
	reliability verified=$((verified + recvd)) lost=0
	ep_remove cli srv
}

# shared_window N: once cli1..cli3 have each verified N more echoes, the
# server's events and completions (its sends and receives) meanwhile, in
# WIN_EV and WIN_C.
shared_window()
{
	local i e0 c0
	local -A v0

	ep_stats srv || return 1
	e0=${STATS[cq_events]} c0=$((STATS[msgs_sent] + STATS[msgs_received]))
	for i in 1 2 3; do
		v0[$i]=$(ep_stat "cli$i" msgs_verified) || return 1
	done
	for i in 1 2 3; do
		wait_stat 60 "cli$i" msgs_verified -gt $((v0[$i] + $1)) || return 1
	done
	ep_stats srv || return 1
	WIN_EV=$((STATS[cq_events] - e0)) WIN_C=$((STATS[msgs_sent] + STATS[msgs_received] - c0))
}

# A shared CQ (cq_share=endpoint, 3 QPs) moderated in the device, in an
# own mode (event) and in one of the core's (softirq): the core's CQ pool
# refuses rdma_set_cq_moderation() on its shared CQs (-EOPNOTSUPP for
# cq->shared); cqnotify's shared CQ is its own and takes it. Three paced
# clients (COUNT_RATE a second between them), first unmoderated, then
# cq_count=COUNT_N cq_period=CAP_PERIOD set live on the server: one
# engine applies it once a write (moder_changes), moderation_effective and
# cqs say hw, the software timer never fires; on the distro kernel each
# of the shared CQ's events waited for COUNT_N completions and events per
# completion fall by a quarter at least from the unmoderated figure (the
# engine's wakeups empty the CQ, so unmoderated events already carry
# several completions each: in event mode 161 unmoderated and 91
# moderated per 1000 measured, 169 and 161 with count and period swapped,
# the mutation hw-moder-count-period-swapped); every echo verified. On the
# debug kernel those two figures are reported, not asserted: an event the
# period raised holds fewer than COUNT_N, and there the unpaced clients
# (about 2 completions a millisecond, unevenly) had it raise enough in
# softirq mode for 2.97 completions an event (make check, 2026-12-03).
hw_shared_cq()
{
	local mode i e0 c0 mc rate=$((COUNT_RATE / 3)) want="hw count=$COUNT_N period=$CAP_PERIOD"
	local n=$COUNT_N pace="$((COUNT_RATE / 3)) msg/s each"

	[ "$COUNT_RATE" = 0 ] && pace=unpaced
	setup || return 1
	for mode in event softirq; do
		start_server cq_share=endpoint max_conns=3 cq_mode=$mode || return 1
		for i in 1 2 3; do
			endless_client "cli$i" msg_size=64 rate=$rate || return 1
		done
		for i in 1 2 3; do
			wait_stat 60 "cli$i" msgs_verified -gt 20 || return 1
		done
		expect_eq "$(ep_attr srv moderation_effective)" off "$mode: srv unmoderated" || return 1
		shared_window 300 || return 1
		e0=$WIN_EV c0=$WIN_C
		mc=$(ep_stat srv moder_changes)
		expect_write "$CQN_CFS/endpoints/srv/cq_count" $n || return 1
		expect_write "$CQN_CFS/endpoints/srv/cq_period" $CAP_PERIOD || return 1
		expect_eq "$(ep_stat srv moder_changes)" $((mc + 2)) \
			"$mode: srv moder_changes after 2 writes (one shared engine)" || return 1
		expect_eq "$(ep_attr srv moderation_effective)" "$want" "$mode: srv moderation_effective" ||
			return 1
		mapfile -t CQS <"$CQN_DFS/srv/cqs"
		expect_eq "${#CQS[@]}" 1 "$mode: srv engines (cqs: ${CQS[*]})" || return 1
		expect_match "${CQS[0]}" " qps 3 .* mode $mode moderation $want\$" "$mode: the shared CQ (cqs)" ||
			return 1
		shared_window 100 || return 1
		shared_window 300 || return 1
		echo "figure: $mode, one shared CQ, 3 QPs, 3 clients $pace, events per 1000 server completions: unmoderated $(per_k "$e0" "$c0") ($e0 events, $c0 completions), $want $(per_k "$WIN_EV" "$WIN_C") ($WIN_EV events, $WIN_C completions)"
		[ "$WIN_EV" -gt 0 ] || { fail "$mode: no event on the moderated shared CQ"; return 1; }
		if [ "$CQN_KERNEL" != debug ]; then
			[ $((WIN_C * 10)) -ge $((WIN_EV * n * 8)) ] ||
				{ fail "$mode: $WIN_C completions for $WIN_EV events on the shared CQ (fewer than $n each)"; return 1; }
			[ $((WIN_EV * c0 * 4)) -le $((e0 * WIN_C * 3)) ] ||
				{ fail "$mode: events per completion did not fall by a quarter ($e0/$c0 unmoderated, $WIN_EV/$WIN_C)"; return 1; }
		fi
		expect_eq "$(ep_stat srv sw_moder_timer_fires)" 0 "$mode: software moderation timer fires" ||
			return 1
		for i in 1 2 3; do
			ep_enable "cli$i" 0 || return 1
			check_stopped "cli$i" || return 1
			expect_eq "$(ep_stat "cli$i" err_lost)" 0 "cli$i err_lost" || return 1
			expect_eq "$(ep_stat "cli$i" wc_lost)" 0 "cli$i wc_lost" || return 1
		done
		wait_conns_gone 60 srv || return 1
		check_accounted srv || return 1
		expect_eq "$(ep_stat srv wc_lost)" 0 "srv wc_lost" || return 1
		ep_remove cli1 cli2 cli3 srv
	done
}

# Beyond cq_caps: cqnotify clamps to what the device advertises, says so in
# the kernel log, and the device runs the clamped values.
hw_clamped_to_caps()
{
	local mark re

	setup || return 1
	start_server || return 1
	cqn_klog_read || { fail "dmesg"; return 1; }
	mark=${#CQN_KLOG[@]}
	ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=16 msg_size=64 \
		iterations=0 duration_ms=0 cq_count=16 cq_period=5000 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	wait_stat 30 cli msgs_verified -gt 20 || return 1
	expect_eq "$(ep_attr cli moderation_effective)" "hw count=16 period=$CAP_PERIOD" \
		"cq_period 5000 clamped" || return 1
	# Live, the largest value each attribute takes.
	expect_write "$CQN_CFS/endpoints/cli/cq_period" 65535 || return 1
	expect_write "$CQN_CFS/endpoints/cli/cq_count" 65535 || return 1
	expect_eq "$(ep_attr cli moderation_effective)" "hw count=$CAP_COUNT period=$CAP_PERIOD" \
		"cq_count 65535 cq_period 65535" || return 1
	re="cli\.[0-9]+: moderation clamped to count 16 period $CAP_PERIOD us \(device limits\)"
	cqn_klog_read || { fail "dmesg"; return 1; }
	cqn_klog_match "$mark" "$re"
	[ "$KLOG_NMATCH" -ge 1 ] || { fail "no kernel message matching '$re'"; return 1; }
	echo "figure: $(head -n 1 <<<"$KLOG_MATCHES")"
	# With cq_count 65535 only the period raises events: traffic goes on.
	expect_write "$CQN_CFS/endpoints/cli/cq_count" 16 || return 1
	wait_stat 30 cli msgs_verified -gt $(($(ep_stat cli msgs_verified) + 20)) || return 1
	ep_enable cli 0 || return 1
	check_stopped cli || return 1
	ep_remove cli srv
}

# cqnotify's adaptive moderation through the device: lib/dim's rdma_dim()
# moves the level under a stream, as it moves the core's (core_dim_levels),
# and the level it picks is programmed as hw: level 1 and up have a count of
# 4 or more and a period (the DIM profile). A DIM that is never fed, or
# whose level is not applied, stays at level 0 ("hw count=1 period=1").
hw_adaptive_levels()
{
	local eff i seen=

	setup || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=16 msg_size=64 \
		iterations=0 duration_ms=0 adaptive_moderation=1 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	for ((i = 0; i < DIM_WAIT_S * 5; i++)); do
		eff=$(ep_attr cli moderation_effective)
		if [[ $eff =~ ^hw\ count=([4-9]|[1-9][0-9]+)\ period=[1-9][0-9]*\ adaptive\ level=[1-8]$ ]]; then
			seen=$eff
			break
		fi
		sleep 0.2
	done
	echo "figure: adaptive moderation under a stream: $eff; moder_changes $(ep_stat cli moder_changes), $(ep_stat cli msgs_per_sec) msg/s"
	[ -n "$seen" ] || { fail "no level above 0 programmed in $DIM_WAIT_S s (last: '$eff')"; return 1; }
	ep_enable cli 0 || return 1
	check_stopped cli || return 1
	ep_remove cli srv
}

# The provider's own correctness under moderation, on both ends at once
# (server and client CQs moderated), with next-completion and solicited-only
# arming: every message echoed and verified in order, and, once the
# connections are gone, every work request completed exactly once.
hw_exactly_once()
{
	local cfg n=$((N * 4)) verified=0 streamed
	local cfgs=("" "solicited_only=1")

	setup || return 1
	for cfg in "${cfgs[@]}"; do
		# shellcheck disable=SC2086 # attribute list
		start_server cq_count=16 cq_period=200 $cfg || return 1
		# shellcheck disable=SC2086
		ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=16 \
			msg_size=256 iterations=0 duration_ms=0 cq_count=16 cq_period=500 $cfg ||
			return 1
		ep_enable cli 1 && ep_wait_state cli running 60 || return 1
		expect_match "$(ep_attr srv moderation_effective)" "^hw count=16 period=200" \
			"[${cfg:-next_comp}] server moderation_effective" || return 1
		wait_stat 120 cli msgs_verified -ge $n ||
			{ fail "[${cfg:-next_comp}] stream stalled; wc_duplicates: client $(ep_stat cli wc_duplicates), server $(ep_stat srv wc_duplicates)"; return 1; }
		ep_enable cli 0 || return 1
		check_stopped cli || return 1
		expect_eq "$(ep_stat cli wc_errors)" 0 "[${cfg:-next_comp}] client wc_errors" || return 1
		wait_conns_gone 30 srv || return 1
		# A send whose acknowledgement the disconnect overtook completes
		# flushed on the client and received on the server: at least
		# every message the client saw sent, at most every one it posted.
		streamed=$(ep_stat srv msgs_received)
		[ "$streamed" -ge "$(ep_stat cli msgs_sent)" ] &&
			[ "$streamed" -le $(($(ep_stat cli msgs_sent) + $(ep_stat cli wc_flushed))) ] ||
			{ fail "[${cfg:-next_comp}] server received $streamed; client: $(accounting cli)"; return 1; }
		check_accounted cli || return 1
		ep_remove cli
		# shellcheck disable=SC2086
		run_client cli workload=pingpong msg_size=64 iterations=$((N / 2)) cq_count=16 \
			cq_period=300 $cfg || return 1
		check_clean_run cli $((N / 2)) || return 1
		wait_stat 30 srv conns_closed -ge 1 || return 1
		ep_remove cli
		wait_conns_gone 30 srv || return 1
		check_accounted srv || return 1
		expect_eq "$(ep_stat srv msgs_received)" $((streamed + N / 2)) \
			"[${cfg:-next_comp}] server received" || return 1
		expect_eq "$(ep_stat srv msg_errors)" 0 "[${cfg:-next_comp}] server msg_errors" ||
			return 1
		echo "figure: [${cfg:-next_comp}] both ends moderated: $(accounting srv)"
		verified=$((verified + $(ep_stat srv msgs_received)))
		ep_remove srv
	done
	reliability verified=$verified lost=0
}

# A CQ error under moderation: an undersized client CQ (fault_cq_undersize)
# overflows while events are held back (cq_count 64, the longest period);
# the connection is torn down and its CQ destroyed with the timer possibly
# armed, every work request accounted for. Then destroy with an event held
# back, over and over: pingpong clients disabled mid-run.
hw_overflow_and_destroy()
{
	local i

	setup || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR workload=stream queue_depth=16 \
		iterations=0 duration_ms=0 cq_count=64 cq_period=$CAP_PERIOD || return 1
	expect_write "$CQN_DFS/cli/fault_cq_undersize" 8 || return 1
	ep_enable cli 1 || return 1
	ep_wait_state cli error 60 || return 1
	expect_match "$(ep_attr cli last_error)" "^CQ overflow" "client last_error" || return 1
	wait_stat 60 cli conns_closed = 1 || return 1
	check_accounted cli || return 1
	echo "figure: overflow under moderation: '$(ep_attr cli last_error)', $(accounting cli)"
	ep_remove cli
	for ((i = 0; i < 8; i++)); do
		ep_create cli role=client addr=$SERVER_ADDR workload=pingpong iterations=0 \
			duration_ms=0 cq_count=64 cq_period=$CAP_PERIOD || return 1
		ep_enable cli 1 && ep_wait_state cli running 60 || return 1
		wait_stat 30 cli msgs_verified -ge 2 || return 1
		ep_enable cli 0 || return 1
		check_stopped cli || return 1
		ep_remove cli
	done
	wait_conns_gone 30 srv || return 1
	check_accounted srv || return 1
	reliability faults=1
	ep_remove srv
}

# listening PID: process PID has an rdma_cm id listening (a server started
# in the background is ready for its client; a client that comes too early
# is rejected).
listening()
{
	[[ "$(rdma resource show cm_id 2>/dev/null)" == *"LISTEN ps TCP pid $1 "* ]]
}

# gone PID: the process has exited.
gone()
{
	! kill -0 "$1" 2>/dev/null
}

# perftest over the patched provider, polled and with events (-e): user
# space arms its CQs through rxe_req_notify_cq(), unmoderated. As in
# scripts/bench/guest: -F (TCG's TSC calibration may fail on a busy host),
# the server's own listening id awaited, the client under a timeout, the
# report taken from either side. A client whose connection setup failed
# in rdma_cm ("Failed to handle RDMA CM event", before any data moved:
# stop 28's make check, beside three other VMs, once, and ib_send_bw then
# died in librdmacm) is started once more, and says so.
perftest_over_patched()
{
	local opt out n=2000 spid rc try

	command -v ib_send_bw >/dev/null || { fail "perftest not installed"; return 1; }
	rxe_patched || { fail "the patched rxe is not loaded"; return 1; }
	[ "$CQN_KERNEL" = debug ] && n=300
	for opt in "" "-e"; do
		for try in 1 2; do
			perftest_pair "$opt" $n
			rc=$?
			[ "$rc" != 0 ] && [ $try = 1 ] &&
			   grep -q "Failed to handle RDMA CM event" /tmp/perf-cli.txt || break
			echo "figure: ib_send_bw $opt: connection setup failed (client exit $rc: $(grep -m1 "RDMA CM" /tmp/perf-cli.txt)); started once more"
		done
		out=$(cat /tmp/perf-cli.txt /tmp/perf-srv.txt)
		[ "$rc" = 0 ] || { fail "ib_send_bw $opt: client exit $rc: $(tail -n 4 /tmp/perf-cli.txt | tr '\n' ' ') server: $(tail -n 4 /tmp/perf-srv.txt | tr '\n' ' ')"; return 1; }
		expect_match "$out" "^ *4096 +$n " "ib_send_bw $opt result line" || return 1
		echo "figure: ib_send_bw -R $opt 4096 B: $(grep -m1 -E "^ *4096 +$n " <<<"$out" | tr -s ' \t' '  ')"
	done
}

# perftest_pair OPT N: one ib_send_bw server and client of N 4 KiB
# messages, OPT -e or nothing; their outputs in /tmp/perf-srv.txt and
# /tmp/perf-cli.txt. Returns the client's exit status (1 if the server
# never listened).
perftest_pair()
{
	local spid rc

	: >/tmp/perf-cli.txt
	# shellcheck disable=SC2086 # -e or nothing
	ib_send_bw -R -F -d rxe0 -s 4096 -n $2 $1 >/tmp/perf-srv.txt 2>&1 &
	spid=$!
	wait_for 30 listening "$spid" || { kill "$spid" 2>/dev/null; wait "$spid"; return 1; }
	# shellcheck disable=SC2086
	timeout 120 ib_send_bw -R -F -d rxe1 -s 4096 -n $2 $1 10.77.0.1 >/tmp/perf-cli.txt 2>&1
	rc=$?
	wait_for 30 gone "$spid" 2>/dev/null
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	return $rc
}

# librdmacm's own example pair over the patched provider, and rdma_client
# against a cqnotify server whose CQ holds completions back (a lone receive
# delivered by the period). A client that fails says how (cm_client); each
# pair is started once more after a failure, which the figures show (CI's
# 6.12 lane, beside the other lanes, once: rdma_client gone with no word,
# its buffered "start" line lost with it; 200 runs here beside two CPU
# hogs in the guest did not fail).
rdma_cm_over_patched()
{
	local try spid why=

	command -v rdma_server >/dev/null || { fail "rdmacm-utils not installed"; return 1; }
	setup || return 1
	for try in 1 2; do
		rdma_server -s 10.77.0.1 >/tmp/rdma-srv.txt 2>&1 &
		spid=$!
		wait_for 30 listening "$spid" || { kill "$spid" 2>/dev/null; return 1; }
		if cm_client 10.77.0.1; then
			wait_for 30 gone "$spid" 2>/dev/null || kill "$spid" 2>/dev/null
			wait "$spid" || { fail "rdma_server: $(</tmp/rdma-srv.txt)"; return 1; }
			break
		fi
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		[ $try = 1 ] || { fail "rdma_client to rdma_server, twice: $why; then $CM_WHY"; return 1; }
		why=$CM_WHY
		echo "figure: rdma_client to rdma_server failed: $why; started once more"
	done
	echo "figure: rdma_server/rdma_client: $CM_OUT"
	for try in 1 2; do
		start_server cq_count=64 cq_period=1000 || return 1
		cm_client $SERVER_ADDR && break
		ep_remove srv
		[ $try = 1 ] || { fail "rdma_client to cqnotify, twice: $why; then $CM_WHY"; return 1; }
		why=$CM_WHY
		echo "figure: rdma_client to cqnotify failed: $why; started once more"
	done
	wait_stat 20 srv conns_closed = 1 || return 1
	expect_eq "$(ep_stat srv msgs_received)" 1 "server msgs_received" || return 1
	expect_eq "$(ep_stat srv msgs_malformed)" 0 "server msgs_malformed" || return 1
	check_accounted srv || return 1
	echo "figure: rdma_client got its echo from a moderated cqnotify server; $(accounting srv)"
	ep_remove srv
}

# cm_client ADDR: librdmacm's rdma_client to ADDR, line-buffered (a client
# killed keeps what it said), given 60 s; what it printed in CM_OUT. When
# it fails, CM_WHY says how: its exit status (255: it returned -1, its
# perror() said why); the signal that killed it (128 + 1..31) with the
# kernel's line about it; or, still running at 60 s, where it waits (wchan,
# kernel stack) and its QP's state, before it is killed.
cm_client()
{
	local pid rc

	CM_WHY=
	stdbuf -oL rdma_client -s "$1" >/tmp/rdma-cli.txt 2>&1 &
	pid=$!
	if ! wait_for 60 gone "$pid" 2>/dev/null; then
		CM_WHY="still running after 60 s, waiting in $(</proc/"$pid"/wchan)"
		CM_WHY+=" ($(awk '{ printf "%s ", $2 }' /proc/"$pid"/stack 2>/dev/null)); its QPs:"
		CM_WHY+=" $(rdma resource show qp 2>/dev/null | grep -F "pid $pid " | tr -s '\n ' '  ')"
		kill -KILL "$pid"
	fi
	wait "$pid"
	rc=$?
	CM_OUT=$(tr '\n' ' ' </tmp/rdma-cli.txt)
	if [ -z "$CM_WHY" ] && [ $rc -gt 128 ] && [ $rc -lt 160 ]; then
		CM_WHY="killed by SIG$(kill -l $((rc - 128))) ($(dmesg | grep -F "rdma_client[$pid]" | tail -n 2 | tr '\n' ' '))"
	elif [ -z "$CM_WHY" ] && [ $rc != 0 ]; then
		CM_WHY="exit $rc"
	fi
	[ -z "$CM_WHY" ] || CM_WHY+="; it said: '$CM_OUT'"
	[ -z "$CM_WHY" ]
}

# dim_set on|off: the core's DIM ("adaptive-moderation") on both rxe
# devices, for the CQs created after it; the devices must say so.
dim_set()
{
	local d

	for d in rxe0 rxe1; do
		rdma dev set $d adaptive-moderation "$1" ||
			{ fail "rdma dev set $d adaptive-moderation $1"; return 1; }
		expect_match "$(rdma -d dev show $d)" "adaptive-moderation $1" "$d after set" || return 1
	done
}

# dim_cqs: the kernel's CQs of cqnotify ("rdma resource show cq"), one a
# line, with whether the core runs its DIM on each.
dim_cqs()
{
	rdma -d resource show cq 2>&1 | grep -F '[cqnotify]'
}

# trace_cq_modify on|off: the RDMA core's rdma_core:cq_modify tracepoint
# (the core's DIM programming a CQ: cq.id comps usec), cleared on "on".
trace_cq_modify()
{
	local ev=/sys/kernel/tracing/events/rdma_core/cq_modify

	[ -d $ev ] || { fail "no $ev"; return 1; }
	if [ "$1" = on ]; then
		echo 0 >$ev/enable && echo >/sys/kernel/tracing/trace && echo 1 >$ev/enable
	else
		echo 0 >$ev/enable
	fi
}

# The core's DIM on core-mode CQs ("rdma dev set DEV adaptive-moderation
# on", which the patched rxe's modify_cq makes real): a softirq and a
# workqueue client's CQ carries it (the core says so in "rdma resource show
# cq"), its level moves under a stream (core_dim_changes, seen by the
# comp_handler, never more than the core's own modify_cq calls traced by
# rdma_core:cq_modify for that CQ, plus the one its destroy may cancel), moderation_effective reads "core dim
# level=L count=C period=P" with the values the core last programmed (the
# trace's), and the engine's software moderation never runs. With it off
# again, a new CQ carries no DIM, reports none, and nothing is programmed.
# The server stays in event mode: its CQ is cqnotify's own, never the core's.
core_dim_levels()
{
	local mode eff cqs id n=0 mods i chg lvl cnt per good readings trace programmed above=

	setup || return 1
	trace_cq_modify on || return 1
	dim_set on || return 1
	start_server || return 1
	for mode in softirq workqueue; do
		trace_cq_modify on || return 1
		ep_create cli role=client addr=$SERVER_ADDR cq_mode=$mode workload=stream \
			queue_depth=16 msg_size=64 iterations=0 duration_ms=0 || return 1
		ep_enable cli 1 && ep_wait_state cli running 60 || return 1
		cqs=$(dim_cqs)
		n=$(grep -c 'adaptive-moderation on' <<<"$cqs")
		[ "$n" = 1 ] || { fail "$mode: $n of cqnotify's CQs under the core's DIM, not 1: $cqs"; return 1; }
		id=$(grep 'adaptive-moderation on' <<<"$cqs" | sed -nE 's/.* cqn ([0-9]+) .*/\1/p')
		[ -n "$id" ] || { fail "$mode: no cqn in '$cqs'"; return 1; }
		if ! wait_stat $DIM_WAIT_S cli core_dim_changes -ge 2 2>/dev/null; then
			eff=$(ep_attr cli moderation_effective)
			[[ " $DIM_MAY_STAY " == *" $mode "* ]] ||
				{ fail "$mode: the core's DIM did not move twice in $DIM_WAIT_S s: '$eff'"; return 1; }
			# It runs, and has not moved (yet): said so.
			[[ $eff =~ \;\ core\ dim\ level=0,\ not\ applied\ yet$ ]] ||
				[[ $eff =~ ^core\ dim\ level=[0-8]\  ]] ||
				{ fail "$mode: moderation_effective '$eff' under the core's DIM"; return 1; }
			echo "figure: $mode: the core's DIM moved $(ep_stat cli core_dim_changes) times in $DIM_WAIT_S s ($(ep_stat cli cq_events) events for $(completions cli) completions): '$eff'"
			ep_enable cli 0 || return 1
			check_stopped cli || return 1
			ep_remove cli
			continue
		fi
		# The values reported are ones the core programmed on this CQ:
		# for 10 s, each reading's count and period must be in the
		# rdma_core:cq_modify trace, read once after them (a level DIM
		# has just picked is programmed by its work item a moment
		# later: the trace is read 2 s after the last reading; reading
		# it, which formats every entry, after each of the 40 readings
		# took most of a minute under TCG), and some reading in one of
		# the two modes must be above level 0, whose values are not the
		# table's first row (on the debug kernel DIM in softirq mode
		# keeps falling back to 0 at once). (Whether the level shown is
		# the one last programmed cannot be judged from user space: in
		# softirq mode DIM changes level every few milliseconds.)
		good=()
		readings=()
		for ((i = 0; i < 40; i++)); do
			eff=$(ep_attr cli moderation_effective)
			[[ $eff =~ ^core\ dim\ level=([0-8])\ count=([0-9]+)\ period=([0-9]+)$ ]] ||
				{ fail "$mode: moderation_effective '$eff' under the core's DIM"; return 1; }
			readings+=("${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}")
			sleep 0.25
		done
		sleep 2
		ep_enable cli 0 || return 1
		check_stopped cli || return 1
		trace=$(cat /sys/kernel/tracing/trace)
		programmed=$(grep -oE "cq_modify: cq.id=$id comps=[0-9]+ usec=[0-9]+$" <<<"$trace" |
			     sed -E 's/.*comps=([0-9]+) usec=([0-9]+)/\1\/\2/')
		for ((i = 0; i < ${#readings[@]}; i++)); do
			read -r lvl cnt per <<<"${readings[i]}"
			grep -qx "$cnt/$per" <<<"$programmed" ||
				{ fail "$mode: reading $i 'core dim level=$lvl count=$cnt period=$per', which the core never programmed on cq $id: $(sort -u <<<"$programmed" | paste -sd ' ')"; return 1; }
			good[lvl]=1
		done
		for lvl in "${!good[@]}"; do
			[ "$lvl" -gt 0 ] && above+="$mode:$lvl "
		done
		# A level DIM picked just before the CQ went is counted by the
		# next event but never programmed: the core's destroy cancels
		# its work item (rdma_dim_destroy: cancel_work_sync), and DIM
		# picks no other level until that work has run. So one change
		# more than the trace holds, never two (seen once on 6.12:
		# 740 counted, 739 programmed).
		chg=$(ep_stat cli core_dim_changes)
		mods=$(grep -c . <<<"$programmed")
		[ "$chg" -le $((mods + 1)) ] ||
			{ fail "$mode: $chg level changes counted, the core programmed $mods (one may be cancelled at destroy, no more)"; return 1; }
		expect_eq "$(ep_stat cli sw_moder_timer_fires)" 0 "$mode: software moderation timer fires" ||
			return 1
		echo "figure: $mode under the core's DIM: '$eff'; levels read: ${!good[*]}; $chg level changes seen, $mods programmed; $(ep_stat cli cq_events) events for $(completions cli) completions; levels: $(tail -n 12 <<<"$programmed" | paste -sd ' ')"
		ep_remove cli
	done
	[ -n "$above" ] || [ -n "$DIM_MAY_STAY" ] ||
		{ fail "the core's DIM read at level 0 only, in both modes"; return 1; }
	echo "figure: levels above 0 read: $above"
	# Off: a new CQ has no DIM; moderation as without it.
	dim_set off || return 1
	trace_cq_modify on || return 1
	ep_create cli role=client addr=$SERVER_ADDR cq_mode=softirq workload=stream \
		queue_depth=16 msg_size=64 iterations=0 duration_ms=0 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	cqs=$(dim_cqs)
	! grep -q 'adaptive-moderation on' <<<"$cqs" ||
		{ fail "adaptive-moderation off: a CQ still under the core's DIM: $cqs"; return 1; }
	wait_stat 30 cli cq_events -ge 500 || return 1
	expect_eq "$(ep_attr cli moderation_effective)" off "softirq without the core's DIM" || return 1
	expect_eq "$(ep_stat cli core_dim_changes)" 0 "core_dim_changes without the core's DIM" ||
		return 1
	n=$(grep -c 'cq_modify:' /sys/kernel/tracing/trace)
	expect_eq "$n" 0 "cq_modify calls by the core without its DIM" || return 1
	ep_enable cli 0 || return 1
	check_stopped cli || return 1
	trace_cq_modify off
	ep_remove cli srv
}

# The stock rxe has no modify_cq: with adaptive-moderation on, the core
# runs no DIM on a softirq CQ, and cqnotify claims none.
core_dim_not_on_stock()
{
	local cqs

	! rxe_patched || { fail "the patched rxe is loaded"; return 1; }
	cqn_load || return 1
	ep_remove srv cli
	dim_set on || return 1
	start_server || return 1
	ep_create cli role=client addr=$SERVER_ADDR cq_mode=softirq workload=stream \
		queue_depth=16 msg_size=64 iterations=0 duration_ms=0 cq_count=8 || return 1
	ep_enable cli 1 && ep_wait_state cli running 60 || return 1
	wait_stat 30 cli cq_events -ge 500 || return 1
	cqs=$(dim_cqs)
	! grep -q 'adaptive-moderation on' <<<"$cqs" ||
		{ fail "the stock rxe: a CQ under the core's DIM: $cqs"; return 1; }
	expect_eq "$(ep_attr cli moderation_effective)" "off (ignored in this cq_mode)" \
		"softirq on the stock rxe with adaptive-moderation on" || return 1
	expect_eq "$(ep_stat cli core_dim_changes)" 0 "core_dim_changes on the stock rxe" || return 1
	ep_enable cli 0 || return 1
	check_stopped cli || return 1
	dim_set off || return 1
	ep_remove cli srv
}

# The rxe loaded before the suite is back for what runs after it: the stock
# one, which advertises no moderation, or the patched one if vm-init
# loaded it (CQN_RXE_KO).
rxe_restored()
{
	local info

	if [ "$RXE_BEFORE" = patched ]; then
		rxe_swap "$RXE_KO" || return 1
		rxe_patched || { fail "the patched rxe did not load again"; return 1; }
		return 0
	fi
	rxe_swap stock || return 1
	! rxe_patched || { fail "rdma_rxe is still the patched module"; return 1; }
	info=$(ibv_devinfo -v -d rxe0 2>&1) || { fail "ibv_devinfo -d rxe0: $info"; return 1; }
	! grep -qE 'max_cq_count:[[:space:]]*[1-9]' <<<"$info" ||
		{ fail "the stock rxe advertises cq moderation: $(grep max_cq <<<"$info")"; return 1; }
}

RXE_BEFORE=stock
rxe_patched && RXE_BEFORE=patched
[ "$RXE_BEFORE" = patched ] &&
	CQN_SKIP[core_dim_not_on_stock]="the rxe of before is the patched one (CQN_RXE_KO)"
cqn_run_tests
rc=$?
ep_remove cli cli1 cli2 cli3 srv 2>/dev/null
# The core's DIM off again, whatever failed (it outlives the devices only
# as long as they live; the tracepoint is shared).
for d in rxe0 rxe1; do
	rdma dev set $d adaptive-moderation off 2>/dev/null
done
echo 0 >/sys/kernel/tracing/events/rdma_core/cq_modify/enable 2>/dev/null
# Whatever failed, leave the rxe of before behind (a no-op when restored).
if [ "$RXE_BEFORE" = stock ] && rxe_patched; then
	rxe_swap stock >/dev/null 2>&1 || echo "# moder_hw: could not restore the stock rxe"
elif [ "$RXE_BEFORE" = patched ] && ! rxe_patched; then
	rxe_swap "$RXE_KO" >/dev/null 2>&1 || echo "# moder_hw: could not load the patched rxe again"
fi
cqn_unload 2>/dev/null
exit $rc
