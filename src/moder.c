// SPDX-License-Identifier: GPL-2.0
/*
 * Pure decisions of the CQ engine: software moderation, the adaptive polling
 * window, adaptive moderation profiles, hardware limits and resize rules.
 * src/cq.c calls these with the time and counts it observed; KUnit suite
 * cqnotify_moder checks them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>

#include "cqn_compat.h"
#include "cqn_moder.h"

/**
 * DOC: Adaptive moderation
 *
 * With ``adaptive_moderation`` 1 the engine lets the kernel's DIM decide,
 * the same library and the same decisions the RDMA core uses for the CQs
 * it polls (``rdma dev set DEV adaptive-moderation on``): lib/dim's
 * rdma_dim() is fed, once per wakeup that ends by re-arming the CQ, the
 * completions it handed over, as the core's poll handlers feed it. Every
 * 64 such events DIM compares completions per millisecond and completions
 * per event with its previous sample and steps one level along the core's
 * profile table, turning when a step made things worse; when its level
 * changes the engine applies that level's count and period, in the device
 * where it can (``hw``) or in software (``sw``):
 *
 * ===== ======= ============
 * level count   period (us)
 * ===== ======= ============
 * 0     1       1 (off in software)
 * 1     4       1
 * 2     4       2
 * 3     8       2
 * 4     8       4
 * 5     8       16
 * 6     16      16
 * 7     16      32
 * 8     32      32
 * ===== ======= ============
 *
 * So cqnotify's adaptive moderation and the core's DIM decide alike and
 * can be compared; what DIM cannot do, moderating in software on a
 * provider without modify_cq, is the engine's own (src/cq_moder.c). The
 * level in effect is ``moderation_effective``'s ``adaptive level=L``.
 */

/*
 * The core's DIM profile, rdma_dim_prof[] in drivers/infiniband/core/cq.c,
 * which is static there; the same in 6.1 and 6.12 (include/cqn_compat.h).
 */
static const struct cqn_moder cqn_dim_profiles[] = {
	{ 1, 1 }, { 4, 1 }, { 4, 2 }, { 8, 2 }, { 8, 4 },
	{ 8, 16 }, { 16, 16 }, { 16, 32 }, { 32, 32 },
};

static_assert(ARRAY_SIZE(cqn_dim_profiles) == CQN_DIM_LEVELS);

/**
 * cqn_sw_moder_params() - software moderation parameters from the attributes
 * @cq_count: the cq_count attribute
 * @cq_period: the cq_period attribute, microseconds
 * @eff: what software moderation will use
 *
 * cq_count 1, or both 0, means off: every completion wakes the consumer.
 * A count of 2 or more without a period gets CQN_SW_MODER_DEFAULT_PERIOD_US,
 * so that a lone completion is never stranded; a period without a count
 * holds completions for the period (up to CQN_SW_MODER_MAX_COUNT of them).
 *
 * Context: any.
 * Return: true if software moderation is on.
 */
bool cqn_sw_moder_params(u32 cq_count, u32 cq_period, struct cqn_moder *eff)
{
	if (cq_count == 1 || (!cq_count && !cq_period)) {
		eff->count = 0;
		eff->period_us = 0;
		return false;
	}
	eff->count = cq_count ? min_t(u32, cq_count, CQN_SW_MODER_MAX_COUNT) :
				CQN_SW_MODER_MAX_COUNT;
	eff->period_us = cq_period ?: CQN_SW_MODER_DEFAULT_PERIOD_US;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_sw_moder_params);

/**
 * cqn_sw_moder_decide() - wake the consumer now, later, or not at all
 * @m: effective parameters from cqn_sw_moder_params()
 * @pending: completions taken from the CQ and not yet handed over
 * @first_ns: when the oldest of them was taken
 * @now_ns: the time now
 * @deadline_ns: for CQN_SWM_WAIT, when to decide again (the oldest
 *	completion's period runs out then)
 *
 * Context: any.
 * Return: the action.
 */
enum cqn_sw_moder_action cqn_sw_moder_decide(const struct cqn_moder *m, u32 pending,
					     u64 first_ns, u64 now_ns, u64 *deadline_ns)
{
	u64 deadline;

	if (!pending)
		return CQN_SWM_IDLE;
	if (m->count && pending >= m->count)
		return CQN_SWM_DISPATCH;
	if (pending >= CQN_SW_MODER_MAX_COUNT)
		return CQN_SWM_DISPATCH;
	deadline = first_ns + (u64)m->period_us * NSEC_PER_USEC;
	if (now_ns >= deadline)
		return CQN_SWM_DISPATCH;
	*deadline_ns = deadline;
	return CQN_SWM_WAIT;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_sw_moder_decide);

/**
 * cqn_sw_moder_gap() - the time between completions, as a held CQ shows it
 * @pending: completions staged since the first of them
 * @first_ns: when the first of them was taken
 * @now_ns: the time now
 * @prev_ns: the previous estimate (0: none)
 *
 * @pending completions over the time since the first: a little short of
 * the true gap (the window is counted from one gap before the first), so
 * a look planned from it comes early rather than late. With fewer than
 * two or no time passed there is nothing to go by, and @prev_ns stands.
 *
 * Context: any.
 * Return: the estimate in nanoseconds, 0 if none.
 */
u64 cqn_sw_moder_gap(u32 pending, u64 first_ns, u64 now_ns, u64 prev_ns)
{
	if (pending < 2 || now_ns <= first_ns)
		return prev_ns;
	return div_u64(now_ns - first_ns, pending);
}
EXPORT_SYMBOL_IF_KUNIT(cqn_sw_moder_gap);

/**
 * cqn_sw_moder_next_check() - when to look at a held CQ again
 * @m: effective parameters from cqn_sw_moder_params()
 * @pending: completions held
 * @gap_ns: the expected time between completions, from
 *	cqn_sw_moder_gap() (0: unknown)
 * @now_ns: the time now
 * @deadline_ns: the deadline cqn_sw_moder_decide() gave
 *
 * While software moderation holds completions the CQ is not armed (that is
 * what saves events); the engine polls it to see whether cq_count is
 * reached. It looks when the count is expected, (count - @pending) gaps
 * from now, so the hold ends within about a gap of the count being
 * reached, as a device's would; but at least CQN_SW_MODER_MIN_CHECK_US
 * apart, at most a quarter period apart (the rate may change), and at the
 * deadline at the latest. With no gap known, or no count, it looks every
 * quarter period.
 *
 * Context: any.
 * Return: the time of the next look, never after @deadline_ns.
 */
u64 cqn_sw_moder_next_check(const struct cqn_moder *m, u32 pending, u64 gap_ns, u64 now_ns,
			    u64 deadline_ns)
{
	u64 min_step = CQN_SW_MODER_MIN_CHECK_US * NSEC_PER_USEC;
	u64 step = max_t(u64, (u64)m->period_us * NSEC_PER_USEC / 4, min_step);

	if (gap_ns && m->count > pending)
		step = clamp_t(u64, (u64)(m->count - pending) * gap_ns, min_step, step);
	return min(deadline_ns, now_ns + step);
}
EXPORT_SYMBOL_IF_KUNIT(cqn_sw_moder_next_check);

/**
 * cqn_hw_moder_clamp() - fit moderation into what the device supports
 * @cq_count: requested count
 * @cq_period: requested period, microseconds
 * @max_count: attr.cq_caps.max_cq_moderation_count
 * @max_period: attr.cq_caps.max_cq_moderation_period
 * @eff: what to program
 *
 * Context: any.
 * Return: true if a value was reduced to fit.
 */
bool cqn_hw_moder_clamp(u32 cq_count, u32 cq_period, u32 max_count, u32 max_period,
			struct cqn_moder *eff)
{
	eff->count = min(cq_count, max_count);
	eff->period_us = min(cq_period, max_period);
	return eff->count != cq_count || eff->period_us != cq_period;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_hw_moder_clamp);

/**
 * cqn_adaptive_window_next() - the next adaptive polling window
 * @cur_us: the current window, microseconds
 * @max_us: poll_window_max_us
 * @outcome: what happened
 * @idle_ns: for CQN_WIN_EVENT, the time from the start of the last window to
 *	the event (how long a window would have had to be to catch it)
 *
 * A hit doubles the window (a zero window becomes CQN_ADAPTIVE_STEP_US); an
 * empty window halves it, so it reaches 0 when traffic stops; an event that
 * a window of at most @max_us would have caught sets the window to twice
 * the gap, so a steady stream is caught by polling from then on. The result
 * never exceeds @max_us.
 *
 * Context: any.
 * Return: the new window, microseconds.
 */
u32 cqn_adaptive_window_next(u32 cur_us, u32 max_us, enum cqn_window_outcome outcome,
			     u64 idle_ns)
{
	u64 next = cur_us;

	switch (outcome) {
	case CQN_WIN_HIT:
		next = cur_us ? (u64)cur_us * 2 : CQN_ADAPTIVE_STEP_US;
		break;
	case CQN_WIN_EMPTY:
		next = cur_us / 2;
		break;
	case CQN_WIN_EVENT:
		if (idle_ns <= (u64)max_us * NSEC_PER_USEC)
			next = max_t(u64, cur_us, 2 * DIV_ROUND_UP_ULL(idle_ns, NSEC_PER_USEC));
		break;
	}
	return min_t(u64, next, max_us);
}
EXPORT_SYMBOL_IF_KUNIT(cqn_adaptive_window_next);

/**
 * cqn_poll_nap_next() - the poll thread's next nap
 * @nap_us: its last nap since the CQ ran empty, microseconds (0: none yet)
 * @idle_ns: how long the CQ has been empty
 * @idle_us: poll_idle_us (0: never nap)
 * @stolen: the host took the thread's CPU less than CQN_POLL_STEAL_HOLD_MS
 *	ago (cqn_poll_stolen())
 *
 * A poll thread spins while completions come at least every @idle_us. Once
 * the CQ has been empty that long it naps between polls: CQN_POLL_NAP_MIN_US
 * first, doubling each time the CQ is still empty, to at most
 * CQN_POLL_NAP_MAX_US, so an endpoint without traffic, or one whose peer's
 * CPU was taken away, stops holding its CPU. Each nap is at most as long as
 * the CQ has already been empty: a completion after a gap waits for the
 * poll that finds it at most about the gap, and at most
 * CQN_POLL_NAP_MAX_US. While @stolen it naps as soon as the CQ is empty:
 * on a host whose CPUs are all taken, a spinning vCPU takes the time the
 * vCPU that would answer it needs, and the nap's armed CQ hands the next
 * completion to whichever CPU takes its event. @idle_us 0 spins always,
 * stolen or not.
 *
 * Context: any.
 * Return: the nap, microseconds; 0 to poll again at once.
 */
u32 cqn_poll_nap_next(u32 nap_us, u64 idle_ns, u32 idle_us, bool stolen)
{
	if (!idle_us || (!stolen && idle_ns < (u64)idle_us * NSEC_PER_USEC))
		return 0;
	return clamp_t(u32, nap_us * 2, CQN_POLL_NAP_MIN_US, CQN_POLL_NAP_MAX_US);
}
EXPORT_SYMBOL_IF_KUNIT(cqn_poll_nap_next);

/**
 * cqn_poll_spin_max() - the longest spin the poll thread may learn
 * @idle_us: poll_idle_us
 *
 * CQN_POLL_SPIN_MAX_X times @idle_us, but no longer than the longest nap
 * (CQN_POLL_NAP_MAX_US), which is what a completion after a long gap may
 * wait anyway: a spin longer than that buys nothing a nap would not. Never
 * below @idle_us: a poll_idle_us above a nap's length is learned from
 * no further.
 *
 * Context: any.
 * Return: microseconds.
 */
u64 cqn_poll_spin_max(u32 idle_us)
{
	return max_t(u64, idle_us, min_t(u64, (u64)idle_us * CQN_POLL_SPIN_MAX_X,
					 CQN_POLL_NAP_MAX_US));
}
EXPORT_SYMBOL_IF_KUNIT(cqn_poll_spin_max);

/**
 * cqn_poll_spin_now() - how long the poll thread spins on an empty CQ
 * @spin_us: what it learned (cqn_poll_spin_next()); 0 before it learned
 * @idle_us: poll_idle_us (0: never nap)
 *
 * @spin_us within poll_idle_us and cqn_poll_spin_max() of it, so that a
 * poll_idle_us changed live bounds what was learned under the old one.
 *
 * Context: any.
 * Return: microseconds; 0 when @idle_us is 0.
 */
u32 cqn_poll_spin_now(u32 spin_us, u32 idle_us)
{
	if (!idle_us)
		return 0;
	return clamp_t(u64, spin_us, idle_us, cqn_poll_spin_max(idle_us));
}
EXPORT_SYMBOL_IF_KUNIT(cqn_poll_spin_now);

/**
 * cqn_poll_spin_next() - what the poll thread learns from a nap
 * @spin_us: how long it spun on the empty CQ before the nap
 *	(cqn_poll_spin_now())
 * @idle_us: poll_idle_us
 * @first: the nap was the first since the thread last found a completion
 *	itself (it followed the spin; later ones follow naps), and no other
 *	task preempted that spin (its gap was the peer's, not the CPU's)
 * @gap_ns: how long the CQ had been empty, counted from the completion the
 *	thread last found, when the nap's event handed the next one over; 0
 *	if the nap's events handed nothing over
 *
 * A completion that came in the first nap came just after the thread
 *	stopped spinning: spinning longer would have caught it without an
 *	event, as a reply that takes longer than poll_idle_us always comes
 *	(6.12's rxe answers a pingpong in about 110 us, poll_idle_us is 100).
 *	The spin becomes twice that gap, at most cqn_poll_spin_max(), as
 *	adaptive mode's window becomes twice the gap of an event
 *	it would have caught. A nap that handed nothing over halves it, to
 *	@idle_us at the least: an endpoint whose traffic stopped is back at
 *	poll_idle_us after a few naps. A later nap's completion leaves it.
 *
 * Context: any.
 * Return: the next spin, microseconds; 0 when @idle_us is 0.
 */
u32 cqn_poll_spin_next(u32 spin_us, u32 idle_us, bool first, u64 gap_ns)
{
	u64 max_us = cqn_poll_spin_max(idle_us);
	u32 spin = cqn_poll_spin_now(spin_us, idle_us);

	if (!spin)
		return 0;
	if (!gap_ns)
		return max(spin / 2, idle_us);
	if (first && gap_ns <= max_us * NSEC_PER_USEC)
		return min_t(u64, max_t(u64, spin, 2 * DIV_ROUND_UP_ULL(gap_ns, NSEC_PER_USEC)),
			     max_us);
	return spin;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_poll_spin_next);

/**
 * cqn_poll_stolen() - did the host take the poll thread's CPU in a pass?
 * @pass_ns: the pass of the poll loop, from the start of one poll to the
 *	start of the next, by the guest's clock
 * @quiet: the pass found the CQ empty, and nothing else ran on its CPU in
 *	it: no context switch or migration of the thread, no network,
 *	tasklet or irq_poll softirq
 *
 * Such a pass takes microseconds. One that took CQN_POLL_STEAL_US or more
 * spent it outside the guest: its vCPU waited for a host CPU. (The guest
 * cannot tell this any other way under TCG; a KVM guest's steal time says
 * it too, later and per tick.)
 *
 * Context: any.
 * Return: true for a stolen pass.
 */
bool cqn_poll_stolen(u64 pass_ns, bool quiet)
{
	return quiet && pass_ns >= (u64)CQN_POLL_STEAL_US * NSEC_PER_USEC;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_poll_stolen);

/**
 * cqn_poll_host_busy() - does the host keep the guest's vCPUs waiting?
 * @busy: what the window before said (false for the first)
 * @ticked_ns: how much of the guest's CPUs' busy time in the window the
 *	scheduler tick accounted (user, nice, system, irq and softirq time)
 * @ran_ns: their busy time by the clock: the window's length times the
 *	online CPUs, less their idle time
 *
 * A guest's clock runs on while its host does not run a vCPU, but the tick
 * is one interrupt however long the gap: at HZ=250 a guest the host ran
 * all along accounted close to all of its busy time, one whose vCPUs the
 * host ran half the time about half. (Idle time is measured by the clock,
 * and a halted vCPU needs no host CPU. A host that reports steal time
 * has it accounted as such, not as busy time, so it counts as missed;
 * on nohz_full CPUs the accounting is by the clock, and the host always
 * looks quiet.) Under CQN_POLL_HOST_BUSY_PCT the host is busy; it stays
 * so until a window accounted CQN_POLL_HOST_QUIET_PCT or more, so one
 * window's noise does not flip it.
 *
 * Context: any.
 * Return: true when the host is busy.
 */
bool cqn_poll_host_busy(bool busy, u64 ticked_ns, u64 ran_ns)
{
	u32 pct = busy ? CQN_POLL_HOST_QUIET_PCT : CQN_POLL_HOST_BUSY_PCT;

	if (!ran_ns)
		return busy;
	return div64_u64(ticked_ns * 100, ran_ns) < pct;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_poll_host_busy);

/**
 * cqn_poll_host_judged() - hold the poll thread to the lowest CPU for its
 *	host, or let it go, after a window's judgement
 * @h: the thread's hold: on or off, since when, for how long at least
 * @busy: the window's judgement (cqn_poll_host_busy())
 * @now_ns: the time
 *
 * On a busy host an exchange that keeps both of a guest's vCPUs busy waits
 * for the host to run both; held to one vCPU (the lowest-numbered one the
 * thread may run on, where every poll thread of the guest meets, with the
 * provider's work its posts and polls do) it needs only one, and the other
 * halts. A hold starts when a window says the host is busy, and lasts
 * @h->hold_ms at least, then as long as the windows say so. Held, the
 * guest leaves the host more room, so a window may say quiet only because
 * of the hold: a hold let go and started again within
 * CQN_POLL_HOST_AGAIN_MS doubles its length, up to CQN_POLL_HOST_HOLD_MAX_MS,
 * and one that starts later is CQN_POLL_HOST_HOLD_MIN_MS again.
 *
 * Context: any.
 * Return: true when the hold starts or ends.
 */
bool cqn_poll_host_judged(struct cqn_poll_hold *h, bool busy, u64 now_ns)
{
	u64 again_ns = (u64)CQN_POLL_HOST_AGAIN_MS * NSEC_PER_MSEC;

	if (!h->on && busy) {
		if (h->since_ns && now_ns - h->since_ns < again_ns)
			h->hold_ms = min_t(u32, h->hold_ms * 2, CQN_POLL_HOST_HOLD_MAX_MS);
		else
			h->hold_ms = CQN_POLL_HOST_HOLD_MIN_MS;
		h->on = true;
		h->since_ns = now_ns;
		return true;
	}
	if (h->on && !busy && now_ns - h->since_ns >= (u64)h->hold_ms * NSEC_PER_MSEC) {
		h->on = false;
		h->since_ns = now_ns;
		return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_poll_host_judged);

/**
 * cqn_poll_follow() - the CPU the poll thread polls on next
 * @held: the CPU it is held to, or -1: free, wherever the scheduler puts it
 * @cpu: the CPU it runs on
 * @event_cpu: the CPU that took its CQ's last event while it napped (the
 *	naps' work item ran there), or -1: none yet
 * @busy: the nap just ended rode the events, or a pass was stolen lately
 *	(cqn_poll_ride(), cqn_poll_stolen()): the host is busy
 * @since_ns: how long it has been held, or free
 *
 * On a quiet host two polling vCPUs answer each other at once, and the
 * scheduler spreads the threads. On a busy host every vCPU the exchange
 * keeps busy is one more thread the host runs in turns with its other
 * work: a completion the provider made on one vCPU waits for the host to
 * run the other, whose thread polls for it, and an exchange whose
 * provider, work items and threads stay on one vCPU leaves the other one
 * halted (the events' work item does, in event mode). So once the host is
 * busy the thread is held to a CPU, where the events are taken if that is
 * a lower-numbered CPU than its own, else its own: two threads whose events
 * each take on the other's CPU (the peers of one guest) meet on the lower
 * one instead of swapping places, and the scheduler does not pull a held
 * thread to a vCPU it would wake. After CQN_POLL_FOLLOW_MS it is let go,
 * whatever happens meanwhile, and stays free for CQN_POLL_FREE_MS at
 * least: threads held to one CPU ride on because they share it, so it
 * takes a ride or a steal of a thread the scheduler has had time to place
 * to say the host is still busy. (The ticks' judgement of the host,
 * cqn_poll_host_judged(), holds it to the lowest CPU instead, while it
 * lasts.)
 *
 * Context: any.
 * Return: the CPU to hold the thread to, or -1 to let it go.
 */
int cqn_poll_follow(int held, int cpu, int event_cpu, bool busy, u64 since_ns)
{
	if (held >= 0 && since_ns >= (u64)CQN_POLL_FOLLOW_MS * NSEC_PER_MSEC)
		return -1;
	if (held < 0 && (!busy || since_ns < (u64)CQN_POLL_FREE_MS * NSEC_PER_MSEC))
		return -1;
	if (held >= 0)
		cpu = held;
	return event_cpu >= 0 && event_cpu < cpu ? event_cpu : cpu;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_poll_follow);

/**
 * cqn_poll_rates_add() - account for a stretch of the poll thread's time
 * @r: the rates
 * @carried: the stretch was a nap (the events carried it); false, the
 *	thread held the CQ
 * @n: completions handed over in it
 * @ns: its length
 *
 * Once @r covers CQN_POLL_RATES_WINDOW_MS, every figure halves: each
 * rate keeps its value and the stretches before weigh half as much. A
 * stretch longer than that counts as one that long, at its own rate.
 *
 * Context: any.
 */
void cqn_poll_rates_add(struct cqn_poll_rates *r, bool carried, u32 n, u64 ns)
{
	u64 window_ns = (u64)CQN_POLL_RATES_WINDOW_MS * NSEC_PER_MSEC;

	/* A stretch longer than the window counts as the window, at its rate. */
	if (ns > window_ns) {
		n = div64_u64((u64)n * window_ns, ns);
		ns = window_ns;
	}
	if (carried) {
		r->carried += n;
		r->carried_ns += ns;
	} else {
		r->polled += n;
		r->polled_ns += ns;
	}
	if (r->polled_ns + r->carried_ns < window_ns)
		return;
	r->polled /= 2;
	r->polled_ns /= 2;
	r->carried /= 2;
	r->carried_ns /= 2;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_poll_rates_add);

/**
 * cqn_poll_rates_faster() - do the events hand completions over faster
 *	than polling does?
 * @r: what polling and the events alone handed over lately
 *	(cqn_poll_rates_add())
 * @riding: the events carry the CQ already
 *
 * Faster to start riding them: a quarter more completions per second
 * than polling; to go on: at least three quarters of polling's rate (its
 * figure is from before the ride, and a ride does not end on one
 * stretch's noise). Both sides need CQN_POLL_RATES_MIN_US of time behind
 * them.
 *
 * Context: any.
 * Return: true when the events are faster.
 */
bool cqn_poll_rates_faster(const struct cqn_poll_rates *r, bool riding)
{
	u64 min_ns = (u64)CQN_POLL_RATES_MIN_US * NSEC_PER_USEC;
	u64 carried = r->carried * r->polled_ns, polled = r->polled * r->carried_ns;

	if (r->polled_ns < min_ns || r->carried_ns < min_ns)
		return false;
	/* carried / carried_ns against polled / polled_ns, without dividing */
	if (riding)
		return 4 * carried >= 3 * polled;
	return 4 * carried > 5 * polled;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_poll_rates_faster);

/**
 * cqn_poll_ride() - does the poll thread leave its CQ to the events for
 *	another nap?
 * @r: what the thread and the naps' events handed over lately
 *	(cqn_poll_rates_add())
 * @riding: the nap just ended was a ride already
 * @riding_ns: how long the thread has left the CQ to the events so far
 *
 * The thread takes its CQ back after a nap, to poll it, unless the events
 * are doing better without it (cqn_poll_rates_faster()): on a host whose
 * CPUs are all busy, an exchange that needs both peers' vCPUs running at
 * once moves slower than one the events carry on whichever vCPU runs.
 * After CQN_POLL_RIDE_MAX_MS the thread takes the CQ back anyway, to
 * measure its own rate again.
 *
 * Context: any.
 * Return: true to nap again with the CQ left armed.
 */
bool cqn_poll_ride(const struct cqn_poll_rates *r, bool riding, u64 riding_ns)
{
	if (riding_ns >= (u64)CQN_POLL_RIDE_MAX_MS * NSEC_PER_MSEC)
		return false;
	return cqn_poll_rates_faster(r, riding);
}
EXPORT_SYMBOL_IF_KUNIT(cqn_poll_ride);

/*
 * Count a stretch for the windows (@riding false) or for the events alone:
 * each side halves over its own CQN_POLL_RATES_WINDOW_MS, so a ride does
 * not wear away the windows' figure it is judged against.
 */
static void cqn_window_rates_add(struct cqn_poll_rates *r, bool riding, u32 n, u64 ns)
{
	struct cqn_poll_rates side = {};

	if (riding) {
		side.carried = r->carried;
		side.carried_ns = r->carried_ns;
	} else {
		side.polled = r->polled;
		side.polled_ns = r->polled_ns;
	}
	cqn_poll_rates_add(&side, riding, n, ns);
	if (riding) {
		r->carried = side.carried;
		r->carried_ns = side.carried_ns;
	} else {
		r->polled = side.polled;
		r->polled_ns = side.polled_ns;
	}
}

/**
 * cqn_window_trial_pct() - the events' rate against the windows' in a trial
 * @r: what the windows and the events alone handed over (struct
 *	cqn_window_rides' @rates)
 *
 * What cqn_window_events_faster() weighs, and what ``poll_window_trial_pct``
 * shows of the last trial.
 *
 * Context: any.
 * Return: the events' completions a second in % of the windows', rounded
 * down, at most CQN_WINDOW_TRIAL_PCT_MAX (also when the windows handed
 * nothing over); 0 when the events handed nothing over, or either side has
 * less than CQN_POLL_RATES_MIN_US behind it.
 */
u32 cqn_window_trial_pct(const struct cqn_poll_rates *r)
{
	u64 min_ns = (u64)CQN_POLL_RATES_MIN_US * NSEC_PER_USEC;
	u64 carried = r->carried * r->polled_ns, polled = r->polled * r->carried_ns;

	if (r->polled_ns < min_ns || r->carried_ns < min_ns || !carried)
		return 0;
	/* carried / carried_ns against polled / polled_ns, without overflow */
	if (!polled || carried >= div64_u64(U64_MAX, 100) ||
	    div64_u64(carried * 100, polled) >= CQN_WINDOW_TRIAL_PCT_MAX)
		return CQN_WINDOW_TRIAL_PCT_MAX;
	return div64_u64(carried * 100, polled);
}
EXPORT_SYMBOL_IF_KUNIT(cqn_window_trial_pct);

/*
 * Did the events alone hand completions over faster than the windows, by
 * @pct (cqn_window_trial_pct())? To win a trial, above CQN_WINDOW_WIN_PCT: a
 * quarter more, the poll thread's bar (cqn_poll_rates_faster()), was
 * passed by chance on a quiet host in 2 runs of 3 of a full make bench,
 * each costing a ride of up to CQN_WINDOW_RIDE_MAX_MS at the events'
 * latency, where a busy host had the events two to three times the
 * windows' rate; and on a quiet host the trials find the events at a
 * third to two thirds of the windows' rate, so a lower bar would ride by
 * chance (Documentation/benchmarks.rst, "What adaptive's trials see"). To
 * ride on: CQN_WINDOW_KEEP_PCT, as poll's rides.
 */
static bool cqn_window_events_faster(u32 pct, bool won)
{
	if (won)
		return pct >= CQN_WINDOW_KEEP_PCT;
	return pct > CQN_WINDOW_WIN_PCT;
}

/* The first time after @now that is @off past a whole @period of the clock. */
static u64 cqn_window_grid_next(u64 now, u64 period, u64 off)
{
	if (now < off)
		return off;
	return (div64_u64(now - off, period) + 1) * period + off;
}

/**
 * cqn_window_ride() - does adaptive mode's thread open a window, or leave
 *	its CQ to the events?
 * @w: the thread's trials and rates
 * @n: completions the CQ handed over since the last look
 * @now_ns: cqn_cq_clock()
 *
 * Called where a window would open. The stretch since the last look
 * counts for the windows or for the events, as the last look decided.
 * Every thread of the guest keeps to one grid of the clock, as the two
 * ends of an exchange in one guest must: one end that rides while the
 * other polls measures neither. CQN_WINDOW_RECHECK_MS after each whole
 * CQN_WINDOW_TRIAL_EVERY_MS the thread tries the events alone for
 * CQN_WINDOW_TRIAL_MS. If they handed completions over half again as
 * fast (cqn_window_events_faster()) it rides them, judged again at each look,
 * while they keep up, until the next whole CQN_WINDOW_RIDE_MAX_MS; the
 * windows then open for CQN_WINDOW_RECHECK_MS, to measure them again, and
 * the next trial follows, every CQN_WINDOW_RIDE_MAX_MS while the events
 * keep winning. A trial the windows win costs a quiet host a few
 * milliseconds a second at the events' rate; a host that keeps one of the
 * two vCPUs of an exchange polled on both waiting has it ride.
 *
 * Context: any.
 * Return: true: no window opens (a trial or a ride).
 */
bool cqn_window_ride(struct cqn_window_rides *w, u32 n, u64 now_ns)
{
	u64 recheck = (u64)CQN_WINDOW_RECHECK_MS * NSEC_PER_MSEC;
	u64 every = (u64)CQN_WINDOW_TRIAL_EVERY_MS * NSEC_PER_MSEC;
	u64 max = (u64)CQN_WINDOW_RIDE_MAX_MS * NSEC_PER_MSEC;
	/* The grid's next trial, CQN_WINDOW_RECHECK_MS past a whole period. */
	u64 next = cqn_window_grid_next(now_ns, every, recheck);
	u64 end;
	u32 pct;

	if (!w->last_ns) {
		*w = (struct cqn_window_rides){ .last_ns = now_ns, .since_ns = now_ns,
						.due_ns = next, .trial_pct = w->trial_pct };
		return false;
	}
	if (now_ns > w->last_ns)
		cqn_window_rates_add(&w->rates, w->riding, n, now_ns - w->last_ns);
	w->last_ns = now_ns;
	if (now_ns < w->due_ns)
		return w->riding;
	if (!w->riding) {
		/* Each trial measures the events afresh. */
		w->rates.carried = 0;
		w->rates.carried_ns = 0;
		w->riding = true;
		w->won = false;
		w->since_ns = now_ns;
		w->due_ns = now_ns + (u64)CQN_WINDOW_TRIAL_MS * NSEC_PER_MSEC;
		return true;
	}
	pct = cqn_window_trial_pct(&w->rates);
	if (!w->won)
		WRITE_ONCE(w->trial_pct, pct);
	/* The ride ends at the next whole CQN_WINDOW_RIDE_MAX_MS after its trial. */
	end = (div64_u64(w->since_ns, max) + 1) * max;
	if (now_ns < end && cqn_window_events_faster(pct, w->won)) {
		w->won = true;
		return true;
	}
	w->riding = false;
	w->since_ns = now_ns;
	/* While the events win: the next trial of the finer grid. */
	if (w->won)
		next = cqn_window_grid_next(now_ns, max, recheck);
	w->due_ns = next;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_window_ride);

/**
 * cqn_dim_profile() - count and period of one level of the DIM profile
 * @level: the level (struct dim's profile_ix)
 * @m: set to the level's count and period
 *
 * Context: any.
 * Return: false, leaving @m alone, for a level past the table.
 */
bool cqn_dim_profile(unsigned int level, struct cqn_moder *m)
{
	if (level >= ARRAY_SIZE(cqn_dim_profiles))
		return false;
	*m = cqn_dim_profiles[level];
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_dim_profile);

/**
 * cqn_cq_resize_check() - may a live CQ get @new_cqe entries?
 * @new_cqe: the requested size
 * @max_posted: work requests that can be outstanding on the CQ at once
 *	(send_depth + recv_depth + 1 for the drain)
 * @max_cqe: the device's limit (attr.max_cqe)
 * @can_resize: the provider implements resize_cq
 *
 * Context: any.
 * Return: 0, -EOPNOTSUPP without provider support, -EINVAL when the CQ
 * could overflow, -ERANGE beyond the device's limit.
 */
int cqn_cq_resize_check(u32 new_cqe, u32 max_posted, u32 max_cqe, bool can_resize)
{
	if (!can_resize)
		return -EOPNOTSUPP;
	if (new_cqe < max_posted)
		return -EINVAL;
	if (new_cqe > max_cqe)
		return -ERANGE;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_cq_resize_check);
