// SPDX-License-Identifier: GPL-2.0
/*
 * The CQ engine: the one place that knows how a connection learns about its
 * completions. It takes them from the CQ in batches and hands each to
 * wr_cqe->done(); how it learns that there is something to take is the
 * cq_mode, and when it hands them over is the moderation.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/error-injection.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "cqnotify.h"
#include "cqn_trace.h"

/* Completions taken from the CQ per ib_poll_cq() call, as the core does. */
#define CQN_POLL_BATCH		16
/* Completions one event-mode wakeup handles before yielding the worker. */
#define CQN_EVENT_BUDGET	256
/* Completions the poll thread handles between two cond_resched() calls. */
#define CQN_POLL_BUDGET		64
/* Fallback polling: how often, and for how long at least. */
#define CQN_FALLBACK_POLL_NS	(200 * NSEC_PER_USEC)
#define CQN_FALLBACK_NS		(100 * NSEC_PER_MSEC)

/**
 * DOC: CQ modes
 *
 * cqnotify learns about completions in one of these ways, chosen per
 * endpoint with the ``cq_mode`` attribute:
 *
 * ``event``
 *	The CQ is created with ib_create_cq() and the module's own
 *	comp_handler. The handler runs in the provider's completion context (a
 *	tasklet on 6.1's rxe, a work item holding the CQ's lock on 6.12's,
 *	hard IRQ on hardware), so it only counts the event and queues a work
 *	item: it never polls or arms the CQ. The work item polls in batches of 16 with a budget
 *	of 256 completions; when the CQ is empty it re-arms with
 *	``IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS``.
 *
 *	The arm/poll race: a completion that lands after the last poll found
 *	the CQ empty but before the arm takes effect raises no event, because
 *	the CQ was not armed when it arrived. ``IB_CQ_REPORT_MISSED_EVENTS``
 *	closes it: the arm returns a positive value when completions may be
 *	waiting, and the work item polls again instead of sleeping (counted as
 *	``cq_rearm_missed``). A wakeup whose first poll finds nothing counts
 *	as ``cq_spurious_events``.
 *
 * ``poll``
 *	A kernel thread per CQ (``cqn-poll/<endpoint>.<connection>``, pinned
 *	to ``poll_cpu`` unless it is -1) calls ib_poll_cq() in batches and
 *	never arms the CQ, so no interrupt or event is ever taken. It calls
 *	cond_resched() after every 64 completions or an empty poll: it costs a
 *	whole CPU while the endpoint runs, in exchange for the shortest path
 *	from completion to handler.
 *
 * ``adaptive``
 *	Like ``event``, but after the work item has emptied the CQ it keeps
 *	polling for a window before it re-arms. A completion found inside the
 *	window doubles it and starts it again; a window that runs out empty
 *	halves it; an event that a window of at most ``poll_window_max_us``
 *	would have caught sets it to twice the gap. Under steady load the
 *	window covers the gap between completions and the engine behaves like
 *	``poll`` (no events, no interrupts); when traffic stops the window
 *	shrinks to 0 and the engine sleeps like ``event``. The current window
 *	is shown as ``poll_window_us``, completions caught by it as
 *	``cq_window_hits``.
 *
 * ``softirq``, ``workqueue``
 *	The RDMA core's own CQ API, as in-tree ULPs (nvme-rdma, iSER, SRP)
 *	use it: ib_alloc_cq() with ``IB_POLL_SOFTIRQ`` or ``IB_POLL_WORKQUEUE``;
 *	the core polls (irq_poll with a budget, or ib_comp_wq) and calls the
 *	same ``wr_cqe->done()`` handlers. The baseline the other modes are
 *	judged against. The engine counts their events by calling the core's
 *	comp_handler from its own; polls, batches and delays happen inside
 *	the core and are not counted.
 *
 * ``solicited_only``
 *	Own modes arm with ``IB_CQ_SOLICITED`` instead of
 *	``IB_CQ_NEXT_COMP``: only a received message whose sender set
 *	``IB_SEND_SOLICITED`` raises an event. Send completions and unsolicited
 *	receives raise none; they stay in the CQ and are handled by the next
 *	wakeup, which always empties the CQ. Every cqnotify sender solicits
 *	the messages a peer may be waiting for (see src/client.c and
 *	src/server.c), and before arming the engine asks the connection
 *	whether it is itself waiting for a send completion (a client whose
 *	echoes are all in, a server with receives waiting for a send buffer):
 *	then it arms with ``IB_CQ_NEXT_COMP`` for that round, so nothing waits
 *	forever.
 *
 * Fallback polling (event and adaptive modes)
 *	Two guards switch one CQ from events to polling on a 200 us timer
 *	for at least 100 ms, then back to events (``cq_fallbacks`` counts the
 *	switches). The silent-CQ watchdog (``watchdog_ms``): work is
 *	outstanding but nothing completed for ``watchdog_ms``, as after a lost
 *	interrupt (``cq_watchdog_fires``). The storm guard
 *	(``max_events_per_ms``): the comp_handler saw more events than that
 *	in one millisecond (``cq_storms``); the fallback lasts while the
 *	completion rate stays above the threshold. Poll mode needs neither;
 *	the core's modes are the core's business.
 *
 * Live changes of cq_mode (among event, poll and adaptive), moderation and
 * cq_depth quiesce the engine first: the handler stops queueing, the poll
 * thread stops, the work item and the moderation timer are cancelled.
 * Completions keep arriving in the CQ meanwhile; the engine then resumes in
 * the new configuration with a wakeup that empties the CQ before arming, so
 * nothing is lost or handled twice. The core's modes own their CQ, so
 * switching into or out of them needs a disable/enable.
 *
 * In every mode each work completion goes to ``wc->wr_cqe->done()``, the
 * same contract as the RDMA core's CQ API, so ib_drain_qp() works.
 */

/**
 * DOC: Moderation
 *
 * ``cq_count`` and ``cq_period`` (microseconds) ask for fewer wakeups: the
 * consumer is woken when ``cq_count`` completions are pending or
 * ``cq_period`` has passed since the first pending one.
 *
 * Where the provider implements modify_cq, the engine programs the device
 * with rdma_set_cq_moderation() (clamped to attr.cq_caps, with a message
 * when it clamps): ``moderation_effective`` reads ``hw count=.. period=..``.
 *
 * Where it does not (rxe and siw return -EOPNOTSUPP), the engine moderates
 * in software, in event and adaptive modes, the way a device moderates its
 * interrupts: the event queues the work item, whose intake takes the
 * completions from the CQ into a staging ring (under the engine's lock, so
 * their order is kept) and hands them to the consumer at once if
 * ``cq_count`` of them are staged. Otherwise it holds them and leaves the
 * CQ unarmed, so further completions raise no event; an hrtimer looks at
 * the CQ again every quarter period (at least 20 us apart), staging what
 * arrived, and wakes the consumer when the count is reached or
 * ``cq_period`` has passed since the first staged completion. Only then,
 * with nothing held, is the CQ armed again. A lone completion therefore
 * waits at most ``cq_period`` and is never stranded.
 * ``moderation_effective`` reads ``sw count=.. period=..``; wakeups made
 * because the period ran out are ``sw_moder_timer_fires``.
 * cq_count 1 (or both 0) is off; a count without a period gets 100 us.
 * Poll mode never waits for events, and the core's modes own their
 * handler, so software moderation is off in them.
 *
 * What it costs and buys: fewer events (``cq_events``: interrupts on
 * hardware, comp_handler calls on rxe) and fewer consumer wakeups
 * (``cq_wakeups``: the handlers' cache misses each; the intake after an
 * event is a short run of the work item that hands nothing over) when
 * completions trickle in, as with paced traffic (the client's
 * ``rate``), for a few timer looks and up to ``cq_period`` of added
 * latency. A closed-loop workload whose window holds fewer than
 * ``cq_count`` completions waits the full period on every round. On rxe a
 * closed window of messages completes in one burst of the provider's
 * tasklets, so unmoderated wakeups already take whole windows there and
 * moderation gains nothing; paced traffic shows what it does.
 */

static const char *const cqn_moder_kind_names[] = {
	[CQN_MODER_OFF] = "off",
	[CQN_MODER_HW] = "hw",
	[CQN_MODER_SW] = "sw",
};

/*
 * Take up to @max completions for the consumer: staged ones first, then
 * from the CQ. c->lock makes each take atomic with respect to staging by the
 * comp_handler, so completions are handed over in CQ order. *@more says
 * whether a full batch may be followed by more.
 */
static int cqn_cq_take(struct cqn_cq *c, struct ib_wc *wcs, int max, bool *more)
{
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&c->lock, flags);
	if (c->stage_n) {
		while (n < max && c->stage_n) {
			wcs[n++] = c->stage[c->stage_head];
			c->stage_head = (c->stage_head + 1) % CQN_SW_MODER_MAX_COUNT;
			c->stage_n--;
		}
		*more = true;
	} else {
		n = ib_poll_cq(c->cq, max, wcs);
		*more = n == max;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return max(n, 0);
}

/* One wakeup of the consumer: hand over up to @budget completions. */
static int cqn_cq_process(struct cqn_cq *c, int budget, bool from_event)
{
	u64 t0 = ktime_get_ns();
	int i, n, done = 0;
	bool more = true;

	while (done < budget && more) {
		n = cqn_cq_take(c, c->wcs, min(CQN_POLL_BATCH, budget - done), &more);
		cqn_stat_inc(c->stats, CQN_STAT_cq_polls);
		if (!n) {
			cqn_stat_inc(c->stats, CQN_STAT_cq_empty_polls);
			break;
		}
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &c->wcs[i];

			if (wc->wr_cqe)
				wc->wr_cqe->done(c->cq, wc);
			else
				pr_warn_ratelimited("%s: completion without wr_cqe, status %s\n",
						    c->name, ib_wc_status_msg(wc->status));
		}
		done += n;
	}
	if (done) {
		WRITE_ONCE(c->last_done_ns, ktime_get_ns());
		c->fb_done += done;
		cqn_stat_inc(c->stats, CQN_STAT_cq_wakeups);
		cqn_stat_hist(c->stats, CQN_H_CQ_BATCH, done);
		cqn_stat_hist(c->stats, CQN_H_CQ_PROC, ktime_get_ns() - t0);
		c->sample_done += done;
		c->sample_wakeups++;
		trace_cqn_cq_poll(c, done, budget, from_event);
	}
	return done;
}

/* Arm the CQ; returns > 0 when completions may have been missed. */
static int cqn_cq_arm(struct cqn_cq *c)
{
	bool solicited = READ_ONCE(c->solicited_only) && !c->ops->need_any(c->owner);
	int ret;

	ret = ib_req_notify_cq(c->cq, (solicited ? IB_CQ_SOLICITED : IB_CQ_NEXT_COMP) |
				      IB_CQ_REPORT_MISSED_EVENTS);
	cqn_stat_inc(c->stats, CQN_STAT_cq_arms);
	if (ret > 0)
		cqn_stat_inc(c->stats, CQN_STAT_cq_rearm_missed);
	trace_cqn_cq_arm(c, solicited, ret);
	return ret;
}

/* Move completions from the CQ into the staging ring; c->lock held. */
static void cqn_cq_stage(struct cqn_cq *c, u64 now)
{
	lockdep_assert_held(&c->lock);
	while (c->stage_n < CQN_SW_MODER_MAX_COUNT) {
		u32 tail = (c->stage_head + c->stage_n) % CQN_SW_MODER_MAX_COUNT;
		u32 room = min(CQN_SW_MODER_MAX_COUNT - c->stage_n,
			       CQN_SW_MODER_MAX_COUNT - tail);
		int n = ib_poll_cq(c->cq, min_t(u32, room, CQN_POLL_BATCH), &c->stage[tail]);

		if (n <= 0)
			break;
		if (!c->stage_n)
			c->stage_first_ns = now;
		c->stage_n += n;
	}
}

/* What software moderation's intake decided; see cqn_cq_sw_intake(). */
enum cqn_cq_intake {
	CQN_INTAKE_COUNT,	/* cq_count reached: hand over now */
	CQN_INTAKE_PERIOD,	/* cq_period ran out: hand over now */
	CQN_INTAKE_HELD,	/* held, CQ unarmed; the timer looks again */
	CQN_INTAKE_ARMED,	/* nothing held; the CQ is armed */
};

/*
 * Software moderation: stage what the CQ holds and say it is to be handed
 * over now; or hold it, with the CQ unarmed, and look again with the timer
 * (at most a quarter period later); or, when nothing is held, arm the CQ.
 * It polls and arms, so it never runs in the provider's completion context:
 * 6.12's rxe calls the comp_handler with the CQ's lock held, which
 * ib_poll_cq() and ib_req_notify_cq() take again.
 * Context: the timer's (softirq) or the work item's.
 */
static enum cqn_cq_intake cqn_cq_sw_intake(struct cqn_cq *c)
{
	enum cqn_sw_moder_action act;
	unsigned long flags;
	u64 now, deadline = 0, next = 0;
	bool by_period;

	for (;;) {
		spin_lock_irqsave(&c->lock, flags);
		now = ktime_get_ns();
		cqn_cq_stage(c, now);
		act = cqn_sw_moder_decide(&c->moder, c->stage_n, c->stage_first_ns, now, &deadline);
		by_period = act == CQN_SWM_DISPATCH && c->stage_n < c->moder.count &&
			    c->stage_n < CQN_SW_MODER_MAX_COUNT;
		if (act == CQN_SWM_WAIT) {
			next = cqn_sw_moder_next_check(&c->moder, now, deadline);
			c->timer_armed = true;
		}
		spin_unlock_irqrestore(&c->lock, flags);

		if (act == CQN_SWM_DISPATCH)
			return by_period ? CQN_INTAKE_PERIOD : CQN_INTAKE_COUNT;
		if (act == CQN_SWM_WAIT) {
			hrtimer_start(&c->timer, ns_to_ktime(next - now), HRTIMER_MODE_REL_SOFT);
			return CQN_INTAKE_HELD;
		}
		if (cqn_cq_arm(c) <= 0)
			return CQN_INTAKE_ARMED;
	}
}

/* Context: softirq (HRTIMER_MODE_REL_SOFT). */
static enum hrtimer_restart cqn_cq_timer_fn(struct hrtimer *t)
{
	struct cqn_cq *c = container_of(t, struct cqn_cq, timer);
	enum cqn_cq_intake in;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->timer_armed = false;
	spin_unlock_irqrestore(&c->lock, flags);
	if (READ_ONCE(c->stopping) || READ_ONCE(c->paused))
		return HRTIMER_NORESTART;
	in = cqn_cq_sw_intake(c);
	if (in == CQN_INTAKE_PERIOD)
		cqn_stat_inc(c->stats, CQN_STAT_sw_moder_timer_fires);
	if (in == CQN_INTAKE_COUNT || in == CQN_INTAKE_PERIOD)
		queue_work(cqn_wq, &c->work);
	return HRTIMER_NORESTART;
}

/* Apply count/period: in hardware if the device can, else in software. */
static int cqn_cq_apply_moderation(struct cqn_cq *c, u32 count, u32 period)
{
	struct cqn_moder eff = {};
	u32 kind = CQN_MODER_OFF;
	bool ignored = false;
	unsigned long flags;
	int ret;

	if (c->has_modify) {
		if (cqn_hw_moder_clamp(count, period, c->max_moder_count, c->max_moder_period,
				       &eff))
			pr_info_ratelimited("%s: moderation clamped to count %u period %u us (device limits)\n",
					    c->name, eff.count, eff.period_us);
		ret = rdma_set_cq_moderation(c->cq, eff.count, eff.period_us);
		if (!ret) {
			kind = (eff.count || eff.period_us) ? CQN_MODER_HW : CQN_MODER_OFF;
			goto done;
		}
		if (ret != -EOPNOTSUPP)
			return ret;
	}
	memset(&eff, 0, sizeof(eff));
	ignored = cqn_sw_moder_params(count, period, &eff);
	if (ignored && (c->mode == CQN_CQ_EVENT || c->mode == CQN_CQ_ADAPTIVE)) {
		kind = CQN_MODER_SW;
		ignored = false;
		if (count > CQN_SW_MODER_MAX_COUNT)
			pr_info_ratelimited("%s: software moderation: cq_count %u capped at %u\n",
					    c->name, count, CQN_SW_MODER_MAX_COUNT);
	} else if (ignored) {
		memset(&eff, 0, sizeof(eff));
		pr_info_ratelimited("%s: cq_count/cq_period ignored: software moderation runs in event and adaptive modes only\n",
				    c->name);
	}
done:
	spin_lock_irqsave(&c->lock, flags);
	c->moder = eff;
	WRITE_ONCE(c->moder_ignored, ignored);
	WRITE_ONCE(c->moder_kind, kind);
	spin_unlock_irqrestore(&c->lock, flags);
	cqn_stat_inc(c->stats, CQN_STAT_moder_changes);
	trace_cqn_cq_moderation(c, cqn_moder_kind_names[kind], eff.count, eff.period_us);
	return 0;
}

/* Apply what is asked for: the adaptive level's profile, or cq_count/cq_period. */
static int cqn_cq_apply_wanted_moderation(struct cqn_cq *c)
{
	struct cqn_moder m = c->moder_adaptive ? cqn_moder_profile(c->moder_level) : c->moder_req;

	return cqn_cq_apply_moderation(c, m.count, m.period_us);
}

/* Adaptive moderation: every CQN_MODER_SAMPLE_NS, maybe move one level. */
static void cqn_cq_moder_sample(struct cqn_cq *c, u64 now)
{
	unsigned int level;
	struct cqn_moder m;

	if (!c->moder_adaptive)
		return;
	if (!c->sample_ns || now - c->sample_ns < CQN_MODER_SAMPLE_NS) {
		if (!c->sample_ns)
			c->sample_ns = now;
		return;
	}
	level = cqn_moder_adapt(c->moder_level, c->sample_done, c->sample_wakeups,
				now - c->sample_ns);
	c->sample_ns = now;
	c->sample_done = 0;
	c->sample_wakeups = 0;
	if (level == c->moder_level)
		return;
	c->moder_level = level;
	m = cqn_moder_profile(level);
	if (cqn_cq_apply_moderation(c, m.count, m.period_us))
		pr_warn_ratelimited("%s: adaptive moderation level %u failed\n", c->name, level);
}

/*
 * Adaptive mode: keep polling for the window after the CQ ran empty.
 * Returns true when the budget ran out (the caller requeues the work).
 */
static bool cqn_cq_poll_window(struct cqn_cq *c, int done)
{
	u64 start = ktime_get_ns(), now;
	u32 max_us = READ_ONCE(c->window_max_us);
	int n;

	c->window_start_ns = start;
	while (c->window_us) {
		n = cqn_cq_process(c, CQN_EVENT_BUDGET - done, false);
		now = ktime_get_ns();
		if (n) {
			cqn_stat_add(c->stats, CQN_STAT_cq_window_hits, n);
			WRITE_ONCE(c->window_us, cqn_adaptive_window_next(c->window_us, max_us,
									  CQN_WIN_HIT, 0));
			done += n;
			if (done >= CQN_EVENT_BUDGET)
				return true;
			start = now;
			c->window_start_ns = now;
		} else if (now - start >= (u64)c->window_us * NSEC_PER_USEC) {
			WRITE_ONCE(c->window_us, cqn_adaptive_window_next(c->window_us, max_us,
									  CQN_WIN_EMPTY, 0));
			break;
		}
		if (READ_ONCE(c->paused) || READ_ONCE(c->stopping))
			break;
		cond_resched();
	}
	return false;
}

/* Context: softirq (HRTIMER_MODE_REL_SOFT). */
static enum hrtimer_restart cqn_cq_fb_timer_fn(struct hrtimer *t)
{
	struct cqn_cq *c = container_of(t, struct cqn_cq, fb_timer);

	if (!READ_ONCE(c->stopping) && !READ_ONCE(c->paused))
		queue_work(cqn_wq, &c->work);
	return HRTIMER_NORESTART;
}

static void cqn_cq_fallback_enter(struct cqn_cq *c, u64 now, const char *cause)
{
	c->fallback = true;
	c->fb_cause = cause;
	c->fb_entered_ns = now;
	trace_cqn_cq_fallback(c, cause, true, 0);
	c->fb_start_ns = now;
	c->fb_done = 0;
	c->fb_until_ns = now + CQN_FALLBACK_NS;
	cqn_stat_inc(c->stats, CQN_STAT_cq_fallbacks);
}

/*
 * Fallback polling, decided at the end of a wakeup. Returns true while the
 * CQ is to be polled on the timer rather than armed. A storm's fallback
 * lasts while completions keep coming faster than max_events_per_ms.
 */
static bool cqn_cq_fallback(struct cqn_cq *c, u64 now)
{
	u32 max = READ_ONCE(c->max_events_per_ms);

	if (READ_ONCE(c->storm)) {
		WRITE_ONCE(c->storm, false);
		if (!c->fallback) {
			cqn_stat_inc(c->stats, CQN_STAT_cq_storms);
			cqn_cq_fallback_enter(c, now, "storm");
		}
	}
	if (READ_ONCE(c->wd_fired)) {
		WRITE_ONCE(c->wd_fired, false);
		if (!c->fallback)
			cqn_cq_fallback_enter(c, now, "watchdog");
	}
	if (!c->fallback)
		return false;
	if (now >= c->fb_until_ns) {
		u64 span = max_t(u64, now - c->fb_start_ns, 1);
		u64 per_ms = div64_u64(c->fb_done * NSEC_PER_MSEC, span);

		if (!max || per_ms <= max) {
			WRITE_ONCE(c->fallback, false);
			trace_cqn_cq_fallback(c, c->fb_cause, false,
					      div_u64(now - c->fb_entered_ns, NSEC_PER_USEC));
			return false;
		}
		c->fb_start_ns = now;
		c->fb_done = 0;
		c->fb_until_ns = now + CQN_FALLBACK_NS;
	}
	hrtimer_start(&c->fb_timer, ns_to_ktime(CQN_FALLBACK_POLL_NS), HRTIMER_MODE_REL_SOFT);
	return true;
}

/*
 * The silent-CQ watchdog: work outstanding and nothing handed over for
 * watchdog_ms. It only flags and kicks; the work item falls back.
 */
static void cqn_cq_watchdog_fn(struct work_struct *work)
{
	struct cqn_cq *c = container_of(to_delayed_work(work), struct cqn_cq, watchdog);
	u32 ms = READ_ONCE(c->watchdog_ms);
	u64 now = ktime_get_ns();

	if (READ_ONCE(c->stopping) || !ms)
		return;
	if (!READ_ONCE(c->paused) && !READ_ONCE(c->fallback) && c->mode != CQN_CQ_POLL &&
	    c->ops->busy(c->owner) && now - READ_ONCE(c->last_done_ns) > (u64)ms * NSEC_PER_MSEC) {
		cqn_stat_inc(c->stats, CQN_STAT_cq_watchdog_fires);
		pr_info_ratelimited("%s: no completion for %u ms with work outstanding: polling\n",
				    c->name, ms);
		WRITE_ONCE(c->wd_fired, true);
		queue_work(cqn_wq, &c->work);
	}
	queue_delayed_work(cqn_wq, &c->watchdog, msecs_to_jiffies(ms));
}

/* Event and adaptive modes: one wakeup of the consumer. */
static void cqn_cq_work(struct work_struct *work)
{
	struct cqn_cq *c = container_of(work, struct cqn_cq, work);
	u64 t0 = ktime_get_ns(), ev;
	bool from_event;
	int done;

	/*
	 * A comp_handler that passed its paused check just before a switch to
	 * poll mode may queue this after the switch: the poll thread owns the
	 * CQ (and c->wcs) then. The mode only changes while this is cancelled.
	 */
	if (READ_ONCE(c->stopping) || READ_ONCE(c->paused) || c->mode == CQN_CQ_POLL)
		return;
	from_event = READ_ONCE(c->from_event);
	ev = READ_ONCE(c->event_ns);
	WRITE_ONCE(c->from_event, false);
	if (from_event && ev && t0 > ev) {
		cqn_stat_hist(c->stats, CQN_H_CQ_DELAY, t0 - ev);
		if (c->mode == CQN_CQ_ADAPTIVE && ev > c->window_start_ns) {
			u32 w = cqn_adaptive_window_next(c->window_us, READ_ONCE(c->window_max_us),
							 CQN_WIN_EVENT, ev - c->window_start_ns);

			WRITE_ONCE(c->window_us, w);
		}
	}

	/*
	 * Under software moderation an event only says the CQ has something:
	 * the intake decides whether to hand it over now or hold it (it used
	 * to run in the comp_handler, which must neither poll nor arm).
	 */
	if (from_event && READ_ONCE(c->moder_kind) == CQN_MODER_SW && !READ_ONCE(c->draining)) {
		enum cqn_cq_intake in = cqn_cq_sw_intake(c);

		if (in == CQN_INTAKE_HELD || in == CQN_INTAKE_ARMED)
			goto out;
	}
	done = cqn_cq_process(c, CQN_EVENT_BUDGET, from_event);
	if (!done && from_event)
		cqn_stat_inc(c->stats, CQN_STAT_cq_spurious_events);
	if (done >= CQN_EVENT_BUDGET ||
	    (c->mode == CQN_CQ_ADAPTIVE && cqn_cq_poll_window(c, done))) {
		/* Leave the CQ unarmed and let other work run first. */
		queue_work(cqn_wq, &c->work);
		goto out;
	}
	if (READ_ONCE(c->draining)) {
		/* Teardown does not trust events: poll until the drain is over. */
		hrtimer_start(&c->fb_timer, ns_to_ktime(CQN_FALLBACK_POLL_NS),
			      HRTIMER_MODE_REL_SOFT);
		goto out;
	}
	cqn_cq_moder_sample(c, t0);
	if (cqn_cq_fallback(c, ktime_get_ns()))
		goto out;
	if (c->mode == CQN_CQ_ADAPTIVE && !c->window_us)
		c->window_start_ns = ktime_get_ns();
	if (READ_ONCE(c->moder_kind) == CQN_MODER_SW) {
		enum cqn_cq_intake in = cqn_cq_sw_intake(c);

		if (in == CQN_INTAKE_COUNT || in == CQN_INTAKE_PERIOD)
			queue_work(cqn_wq, &c->work);
	} else {
		u32 delay = READ_ONCE(c->arm_delay_us);

		/* fault_arm_delay_us: the arm/poll race, made certain. */
		if (unlikely(delay))
			fsleep(delay);
		if (cqn_cq_arm(c) > 0)
			queue_work(cqn_wq, &c->work);
	}
out:
	cqn_stat_add(c->stats, CQN_STAT_cpu_ns, ktime_get_ns() - t0);
}

/*
 * Own modes' comp_handler: count the event and queue the work item, nothing
 * else. It neither polls nor arms the CQ (nor takes c->lock): 6.12's rxe
 * calls it with the CQ's lock held, which both would take again.
 * Context: the provider's completion context (6.1 rxe: a tasklet; 6.12
 * rxe: a work item with the CQ's spinlock held, IRQs off; hardware: hard
 * IRQ). Must not sleep.
 */
static void cqn_cq_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct cqn_cq *c = ctx;
	u64 t0 = ktime_get_ns();
	u32 max;

	if (READ_ONCE(c->stopping) || READ_ONCE(c->paused))
		return;
	if (unlikely(atomic_add_unless(&c->drop_events, -1, 0))) {
		/* Fault injection: a lost interrupt. The CQ stays unarmed. */
		cqn_stat_inc(c->stats, CQN_STAT_cq_events_dropped);
		return;
	}
	cqn_stat_inc(c->stats, CQN_STAT_cq_events);
	trace_cqn_cq_event(c);
	max = READ_ONCE(c->max_events_per_ms);
	if (max) {
		if (t0 - c->storm_start_ns >= NSEC_PER_MSEC) {
			c->storm_start_ns = t0;
			c->storm_events = 0;
		}
		if (++c->storm_events > max)
			WRITE_ONCE(c->storm, true);
	}
	if (!READ_ONCE(c->from_event)) {
		WRITE_ONCE(c->event_ns, t0);
		WRITE_ONCE(c->from_event, true);
	}
	queue_work(cqn_wq, &c->work);
	cqn_stat_add(c->stats, CQN_STAT_cpu_ns, ktime_get_ns() - t0);
}

/* Core modes: count the event, then let the core's handler schedule its poll. */
static void cqn_cq_core_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct cqn_cq *c = ctx;
	struct dim *dim = cqn_core_dim(cq);

	cqn_stat_inc(c->stats, CQN_STAT_cq_events);
	trace_cqn_cq_event(c);
	/* The core's DIM moves its level in the poll handler: seen here next. */
	if (dim) {
		u8 ix = READ_ONCE(dim->profile_ix);

		if (ix != c->dim_level) {
			WRITE_ONCE(c->dim_level, ix);
			WRITE_ONCE(c->dim_moved, true);
			cqn_stat_inc(c->stats, CQN_STAT_core_dim_changes);
		}
	}
	c->core_handler(cq, ctx);
}

/*
 * IB_EVENT_CQ_ERR is a CQ overrun: the provider had a completion to post
 * and no room, and dropped it (rxe raises it from rxe_cq_post(), once per
 * dropped completion, in its tasklet). The sizing rule makes that
 * impossible unless the CQ was undersized on purpose (fault_cq_undersize).
 * Context: the provider's event context, possibly atomic. Must not sleep.
 */
static void cqn_cq_event_handler(struct ib_event *event, void *ctx)
{
	struct cqn_cq *c = ctx;

	cqn_stat_inc(c->stats, CQN_STAT_cq_async_events);
	if (event->event != IB_EVENT_CQ_ERR) {
		pr_warn_ratelimited("%s: CQ async event: %s\n", c->name,
				    ib_event_msg(event->event));
		return;
	}
	cqn_stat_inc(c->stats, CQN_STAT_cq_overflows);
	WRITE_ONCE(c->overflowed, true);
	pr_warn_ratelimited("%s: CQ overflow (size %d): completions lost\n", c->name,
			    event->element.cq->cqe);
	c->ops->fatal(c->owner, "CQ overflow: completions lost");
}

static int cqn_cq_poll_thread(void *arg)
{
	struct cqn_cq *c = arg;
	u64 t0;

	/* The work item never runs while this thread does: c->wcs is ours. */
	while (!kthread_should_stop()) {
		t0 = ktime_get_ns();
		cqn_cq_process(c, CQN_POLL_BUDGET, false);
		cqn_stat_add(c->stats, CQN_STAT_cpu_ns, ktime_get_ns() - t0);
		cond_resched();
	}
	return 0;
}

static int cqn_cq_start_poller(struct cqn_cq *c)
{
	struct task_struct *p;
	s32 cpu = READ_ONCE(c->poll_cpu);

	p = kthread_create(cqn_cq_poll_thread, c, "cqn-poll/%s", c->name);
	if (IS_ERR(p))
		return PTR_ERR(p);
	if (cpu >= 0 && cpu_online(cpu))
		kthread_bind(p, cpu);
	else if (cpu >= 0)
		pr_info_ratelimited("%s: poll_cpu %d is offline; polling on any CPU\n",
				    c->name, cpu);
	c->poller = p;
	wake_up_process(p);
	return 0;
}

/* Stop every context that processes the CQ; completions wait in the CQ. */
static void cqn_cq_quiesce(struct cqn_cq *c)
{
	WRITE_ONCE(c->paused, true);
	if (c->poller) {
		kthread_stop(c->poller);
		c->poller = NULL;
	}
	cancel_work_sync(&c->work);
	hrtimer_cancel(&c->timer);
	hrtimer_cancel(&c->fb_timer);
	spin_lock_irq(&c->lock);
	c->timer_armed = false;
	spin_unlock_irq(&c->lock);
}

/* Resume in the current mode: empty the CQ (and staging), then arm or poll. */
static int cqn_cq_resume(struct cqn_cq *c)
{
	int ret = 0;

	WRITE_ONCE(c->paused, false);
	if (c->mode == CQN_CQ_POLL) {
		ret = cqn_cq_start_poller(c);
		if (!ret)
			return 0;
		/* Never leave completions unattended: fall back to events. */
		pr_warn_ratelimited("%s: starting the poll thread failed (%pe); using event mode\n",
				    c->name, ERR_PTR(ret));
		c->mode = CQN_CQ_EVENT;
	}
	queue_work(cqn_wq, &c->work);
	return ret;
}

/**
 * cqn_cq_create() - create a CQ and prepare its engine
 * @c: the engine, zeroed by the caller
 * @ibdev: the device
 * @cfg: cq_mode, moderation and tuning
 * @cqe: entries to ask for (cq_depth; smaller only by fault injection)
 * @comp_vector: completion vector to use
 * @stats: where the engine counts
 * @name: "<endpoint>.<connection>"
 * @ops: the owner's callbacks
 * @owner: their argument
 *
 * The engine does not process completions until cqn_cq_start() (core modes:
 * the core arms the CQ at once; nothing can complete before a QP exists).
 *
 * Context: process context.
 * Return: 0 or -errno; on error nothing is left to destroy.
 */
int cqn_cq_create(struct cqn_cq *c, struct ib_device *ibdev, const struct cqn_config *cfg,
		  u32 cqe, int comp_vector, struct cqn_stats *stats, const char *name,
		  const struct cqn_cq_owner *ops, void *owner)
{
	struct ib_cq_init_attr attr = {
		.cqe = cqe,
		.comp_vector = comp_vector,
	};
	int ret;

	strscpy(c->name, name, sizeof(c->name));
	c->stats = stats;
	c->ops = ops;
	c->owner = owner;
	c->has_resize = ibdev->ops.resize_cq;
	c->has_modify = ibdev->ops.modify_cq;
	c->max_moder_count = ibdev->attrs.cq_caps.max_cq_moderation_count;
	c->max_moder_period = ibdev->attrs.cq_caps.max_cq_moderation_period;
	c->max_cqe = ibdev->attrs.max_cqe;
	c->comp_vector = comp_vector;
	c->mode = READ_ONCE(cfg->cq_mode);
	c->core = cqn_cq_mode_is_core(c->mode);
	c->paused = true;
	cqn_cq_set_tuning(c, cfg);
	spin_lock_init(&c->lock);
	INIT_WORK(&c->work, cqn_cq_work);
	cqn_hrtimer_setup(&c->timer, cqn_cq_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	cqn_hrtimer_setup(&c->fb_timer, cqn_cq_fb_timer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_SOFT);
	INIT_DELAYED_WORK(&c->watchdog, cqn_cq_watchdog_fn);
	atomic_set(&c->drop_events, 0);

	if (c->core) {
		enum ib_poll_context ctx = c->mode == CQN_CQ_SOFTIRQ ? IB_POLL_SOFTIRQ :
								       IB_POLL_WORKQUEUE;

		c->cq = ib_alloc_cq(ibdev, c, cqe, comp_vector, ctx);
		if (IS_ERR(c->cq))
			goto err_cq;
		c->core_handler = c->cq->comp_handler;
		c->dim_level = RDMA_DIM_START_PROFILE;
		WRITE_ONCE(c->has_dim, cqn_core_dim(c->cq));
		c->cq->comp_handler = cqn_cq_core_comp_handler;
		c->cq->event_handler = cqn_cq_event_handler;
	} else {
		c->wcs = kcalloc(CQN_POLL_BATCH, sizeof(*c->wcs), GFP_KERNEL);
		c->stage = kvcalloc(CQN_SW_MODER_MAX_COUNT, sizeof(*c->stage), GFP_KERNEL);
		if (!c->wcs || !c->stage) {
			ret = -ENOMEM;
			goto err_arrays;
		}
		c->cq = ib_create_cq(ibdev, cqn_cq_comp_handler, cqn_cq_event_handler, c, &attr);
		if (IS_ERR(c->cq))
			goto err_cq;
	}

	c->moder_req.count = READ_ONCE(cfg->cq_count);
	c->moder_req.period_us = READ_ONCE(cfg->cq_period);
	c->moder_adaptive = READ_ONCE(cfg->adaptive_moderation);
	ret = cqn_cq_apply_wanted_moderation(c);
	if (ret) {
		pr_warn_ratelimited("%s: setting moderation failed: %pe\n", c->name, ERR_PTR(ret));
		cqn_cq_destroy(c);
		return ret;
	}
	return 0;

err_cq:
	ret = PTR_ERR(c->cq);
	c->cq = NULL;
err_arrays:
	kvfree(c->stage);
	c->stage = NULL;
	kfree(c->wcs);
	c->wcs = NULL;
	return ret;
}

ALLOW_ERROR_INJECTION(cqn_cq_create, ERRNO);

/**
 * cqn_cq_start() - start learning about completions
 * @c: the engine
 *
 * Own modes: the first wakeup empties the CQ and arms it (event, adaptive),
 * or the poll thread starts. Core modes: nothing to do.
 *
 * Context: process context.
 * Return: 0 or -errno.
 */
int cqn_cq_start(struct cqn_cq *c)
{
	if (c->core)
		return 0;
	WRITE_ONCE(c->last_done_ns, ktime_get_ns());
	if (c->watchdog_ms)
		queue_delayed_work(cqn_wq, &c->watchdog, msecs_to_jiffies(c->watchdog_ms));
	if (c->mode == CQN_CQ_POLL) {
		int ret = cqn_cq_start_poller(c);

		if (ret)
			return ret;
		WRITE_ONCE(c->paused, false);
		return 0;
	}
	return cqn_cq_resume(c);
}

/**
 * cqn_cq_drain_begin() - poll the CQ until it is stopped, events or not
 * @c: the engine
 *
 * Teardown's drain waits for the completions of its marker work requests;
 * an engine that waits for an event to learn of them waits forever after a
 * lost interrupt (or fault_drop_events). From here on the event and
 * adaptive modes poll the CQ every 200 us without arming it, as fallback
 * polling does, until cqn_cq_stop(). Poll mode polls anyway; the core's
 * modes are the core's (their drain is bounded by its timeout only).
 *
 * Context: process context.
 */
void cqn_cq_drain_begin(struct cqn_cq *c)
{
	if (c->core)
		return;
	WRITE_ONCE(c->draining, true);
	if (!READ_ONCE(c->paused) && !READ_ONCE(c->stopping))
		queue_work(cqn_wq, &c->work);
}

/**
 * cqn_cq_stop() - stop learning about completions
 * @c: the engine
 *
 * Called after the QP is drained: nothing is left to deliver.
 *
 * Context: process context.
 */
void cqn_cq_stop(struct cqn_cq *c)
{
	WRITE_ONCE(c->stopping, true);
	if (c->core)
		return;
	cancel_delayed_work_sync(&c->watchdog);
	cqn_cq_quiesce(c);
}

/**
 * cqn_cq_destroy() - destroy the CQ
 * @c: the engine, stopped (or never started)
 *
 * Context: process context.
 */
void cqn_cq_destroy(struct cqn_cq *c)
{
	WRITE_ONCE(c->stopping, true);
	if (c->has_dim) {
		/* cqn_cq_moderation_show() reads the CQ's struct dim under it. */
		spin_lock_irq(&c->lock);
		WRITE_ONCE(c->has_dim, false);
		spin_unlock_irq(&c->lock);
	}
	if (c->cq) {
		if (c->core)
			ib_free_cq(c->cq);
		else
			ib_destroy_cq(c->cq);
	}
	/* A handler that ran before the CQ was gone may have queued work. */
	cancel_delayed_work_sync(&c->watchdog);
	cancel_work_sync(&c->work);
	hrtimer_cancel(&c->timer);
	hrtimer_cancel(&c->fb_timer);
	c->cq = NULL;
	kvfree(c->stage);
	c->stage = NULL;
	kfree(c->wcs);
	c->wcs = NULL;
}

/**
 * cqn_cq_set_mode() - switch a running engine to another mode
 * @c: the engine
 * @mode: enum cqn_cq_mode
 *
 * Context: process context; the caller serialises changes to one engine.
 * Return: 0, -EBUSY for a switch into, out of or between core modes (see
 * cqn_cq_mode_switch_check()), or -errno from starting a poll thread (the
 * engine then runs in event mode).
 */
int cqn_cq_set_mode(struct cqn_cq *c, u32 mode)
{
	u32 from = c->mode;
	int ret;

	ret = cqn_cq_mode_switch_check(from, mode);
	if (ret || from == mode)
		return ret;
	cqn_cq_quiesce(c);
	c->mode = mode;
	c->window_us = 0;
	/* Software moderation exists only in event and adaptive modes. */
	ret = cqn_cq_apply_wanted_moderation(c);
	ret = cqn_cq_resume(c) ?: ret;
	cqn_stat_inc(c->stats, CQN_STAT_cq_mode_switches);
	trace_cqn_cq_mode_switch(c, cqn_cq_mode_names[from], cqn_cq_mode_names[c->mode]);
	return ret;
}

/**
 * cqn_cq_set_moderation() - change moderation of a running engine
 * @c: the engine
 * @cq_count: completions per wakeup (see "Moderation")
 * @cq_period: microseconds
 * @adaptive: let the engine choose from its profile table instead
 *
 * Context: process context; the caller serialises changes to one engine.
 * Return: 0 or -errno from the device (the previous moderation stays).
 */
int cqn_cq_set_moderation(struct cqn_cq *c, u32 cq_count, u32 cq_period, bool adaptive)
{
	struct cqn_moder m = { cq_count, cq_period };
	int ret;

	if (!c->core)
		cqn_cq_quiesce(c);
	c->moder_req = m;
	c->moder_adaptive = adaptive;
	c->moder_level = 0;
	c->sample_ns = 0;
	ret = cqn_cq_apply_wanted_moderation(c);
	if (!c->core)
		cqn_cq_resume(c);
	return ret;
}

/**
 * cqn_cq_resize() - resize a running CQ
 * @c: the engine
 * @cqe: the new number of entries
 * @max_posted: work requests that can be outstanding on it at once
 *
 * Context: process context; the caller serialises changes to one engine.
 * Return: 0, or the error of cqn_cq_resize_check() or ib_resize_cq(); the
 * CQ keeps its size on error.
 */
int cqn_cq_resize(struct cqn_cq *c, u32 cqe, u32 max_posted)
{
	int ret;

	ret = cqn_cq_resize_check(cqe, max_posted, c->max_cqe, c->has_resize);
	if (ret)
		return ret;
	if (!c->core)
		cqn_cq_quiesce(c);
	ret = ib_resize_cq(c->cq, cqe);
	if (!c->core)
		cqn_cq_resume(c);
	if (!ret)
		cqn_stat_inc(c->stats, CQN_STAT_cq_resizes);
	return ret;
}

/**
 * cqn_cq_set_tuning() - take poll_cpu, solicited_only, poll_window_max_us,
 * watchdog_ms and max_events_per_ms
 * @c: the engine
 * @cfg: the configuration
 *
 * A running poll thread moves to the new CPU at once.
 *
 * Context: process context; the caller serialises changes to one engine.
 */
void cqn_cq_set_tuning(struct cqn_cq *c, const struct cqn_config *cfg)
{
	s32 cpu = READ_ONCE(cfg->poll_cpu);

	u32 wd = READ_ONCE(cfg->watchdog_ms);

	WRITE_ONCE(c->solicited_only, READ_ONCE(cfg->solicited_only));
	WRITE_ONCE(c->window_max_us, READ_ONCE(cfg->poll_window_max_us));
	WRITE_ONCE(c->max_events_per_ms, READ_ONCE(cfg->max_events_per_ms));
	if (wd != c->watchdog_ms) {
		WRITE_ONCE(c->watchdog_ms, wd);
		/* Running engines only; cqn_cq_start() starts it otherwise. */
		if (wd && !c->core && c->cq && !READ_ONCE(c->stopping) && c->last_done_ns)
			mod_delayed_work(cqn_wq, &c->watchdog, msecs_to_jiffies(wd));
	}
	if (c->window_us > c->window_max_us)
		WRITE_ONCE(c->window_us, c->window_max_us);
	if (cpu == c->poll_cpu)
		return;
	WRITE_ONCE(c->poll_cpu, cpu);
	if (c->poller)
		set_cpus_allowed_ptr(c->poller, cpu >= 0 && cpu_online(cpu) ?
				     cpumask_of(cpu) : cpu_possible_mask);
}

/**
 * cqn_cq_moderation_show() - the moderation in effect, for people
 * @c: the engine
 * @buf: output
 * @len: size of @buf
 *
 * "off", "hw count=C period=P" or "sw count=C period=P", followed by
 * " adaptive level=L" under adaptive moderation. Moderation asked for in a
 * mode where software moderation does not run (poll, softirq, workqueue on
 * a provider without modify_cq) reads "off (ignored in this cq_mode)".
 * A core-mode CQ under the core's DIM (cqn_core_dim()) reads "core dim
 * level=L count=C period=P" once DIM has moved from its first level (it
 * then programs the device itself), and before that what the engine set
 * followed by "; core dim level=0, not applied yet".
 *
 * Context: any.
 * Return: the length written.
 */
int cqn_cq_moderation_show(struct cqn_cq *c, char *buf, size_t len)
{
	u32 kind = READ_ONCE(c->moder_kind);
	bool dim = READ_ONCE(c->has_dim);
	u32 count, period;
	unsigned long flags;
	u8 ix = 0;
	int n;

	/*
	 * Once the core's DIM has left its first level it has programmed the
	 * device itself, over what the engine set (its work calls modify_cq).
	 * The level is read under c->lock, which destroy takes to clear
	 * has_dim before the CQ and its struct dim are freed.
	 */
	if (dim) {
		spin_lock_irqsave(&c->lock, flags);
		dim = c->has_dim;
		if (dim)
			ix = READ_ONCE(cqn_core_dim(c->cq)->profile_ix);
		spin_unlock_irqrestore(&c->lock, flags);
	}
	if (dim && (ix != RDMA_DIM_START_PROFILE || READ_ONCE(c->dim_moved)) &&
	    cqn_core_dim_prof(ix, &count, &period))
		return scnprintf(buf, len, "core dim level=%u count=%u period=%u", ix, count,
				 period);
	if (kind == CQN_MODER_OFF && READ_ONCE(c->moder_ignored))
		n = scnprintf(buf, len, "off (ignored in this cq_mode)");
	else if (kind == CQN_MODER_OFF)
		n = scnprintf(buf, len, "off");
	else
		n = scnprintf(buf, len, "%s count=%u period=%u", cqn_moder_kind_names[kind],
			      READ_ONCE(c->moder.count), READ_ONCE(c->moder.period_us));
	if (c->moder_adaptive)
		n += scnprintf(buf + n, len - n, " adaptive level=%u", READ_ONCE(c->moder_level));
	if (dim)
		n += scnprintf(buf + n, len - n, "; core dim level=%u, not applied yet",
			       RDMA_DIM_START_PROFILE);
	return n;
}

/**
 * cqn_cq_window_us() - adaptive mode's current polling window
 * @c: the engine
 *
 * Context: any.
 * Return: microseconds.
 */
u32 cqn_cq_window_us(struct cqn_cq *c)
{
	return READ_ONCE(c->window_us);
}

/**
 * cqn_cq_fault_drop_events() - fault injection: lose the next @n events
 * @c: the engine
 * @n: how many comp_handler calls to swallow (counted as cq_events_dropped)
 *
 * Simulates lost interrupts: the CQ is left unarmed with completions in it,
 * which only the silent-CQ watchdog recovers from.
 *
 * Context: any.
 */
void cqn_cq_fault_drop_events(struct cqn_cq *c, u32 n)
{
	atomic_set(&c->drop_events, n);
}

/**
 * cqn_cq_fault_arm_delay() - fault injection: wait before each arm
 * @c: the engine
 * @us: microseconds between a wakeup's last empty poll and its arm; 0 stops
 *
 * A completion that arrives in that window raises no event (the CQ is not
 * armed): only the arm's IB_CQ_REPORT_MISSED_EVENTS answer says it is there
 * (``cq_rearm_missed``), and the engine must poll again. Applies to the
 * event and adaptive modes' wakeups without software moderation.
 *
 * Context: any.
 */
void cqn_cq_fault_arm_delay(struct cqn_cq *c, u32 us)
{
	WRITE_ONCE(c->arm_delay_us, us);
}

/**
 * cqn_cq_fault_spurious_events() - fault injection: a burst of events with
 * nothing behind them
 * @c: the engine
 * @n: how many times to call the comp_handler, back to back
 *
 * Simulates a device that raises completion interrupts it should not (an
 * interrupt storm): the engine's own comp_handler runs @n times in a row,
 * each counted as an event (and as ``cq_events_injected``), so the storm
 * guard (max_events_per_ms) sees them as it would see a device's. Each
 * wakeup they cause finds the CQ empty or takes what is there, as for any
 * event; nothing is lost or handled twice.
 *
 * Context: any, IRQs disabled or not (the comp_handler's own context is
 * hard IRQ on hardware).
 * Return: 0, or -EOPNOTSUPP for the core's modes (the core owns that CQ's
 * handler).
 */
int cqn_cq_fault_spurious_events(struct cqn_cq *c, u32 n)
{
	if (c->core)
		return -EOPNOTSUPP;
	while (n--) {
		cqn_stat_inc(c->stats, CQN_STAT_cq_events_injected);
		cqn_cq_comp_handler(c->cq, c);
	}
	return 0;
}
