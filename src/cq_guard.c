// SPDX-License-Identifier: GPL-2.0
/*
 * The guards of the event-driven modes: the silent-CQ watchdog and the
 * event-storm guard switch a CQ from events to polling on a timer for a
 * while, and teardown's drain polls on the same timer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/math64.h>

#include "cq.h"
#include "cqn_trace.h"

/**
 * DOC: Fallback polling
 *
 * In the event and adaptive modes, two guards switch one CQ from events to
 * polling on a 200 us timer for at least 100 ms, then back to events
 * (``cq_fallbacks`` counts the switches). The silent-CQ watchdog
 * (``watchdog_ms``): work is outstanding but nothing completed for
 * ``watchdog_ms``, as after a lost interrupt (``cq_watchdog_fires``). The
 * storm guard (``max_events_per_ms``): the comp_handler saw more events
 * than that in one millisecond (``cq_storms``); the fallback lasts while
 * the completion rate stays above the threshold. Poll mode needs neither;
 * the core's modes are the core's business. Teardown's drain polls on the
 * same timer (cqn_cq_drain_begin()).
 */

/* Fallback polling lasts at least this long. */
#define CQN_FALLBACK_NS		(100 * NSEC_PER_MSEC)

/*
 * Flag and kick; the work item falls back. Work outstanding and nothing
 * handed over for watchdog_ms: an event was lost.
 */
static void cqn_cq_watchdog_fn(struct work_struct *work)
{
	struct cqn_cq *c = container_of(to_delayed_work(work), struct cqn_cq, guard.watchdog);
	u32 ms = READ_ONCE(c->params.watchdog_ms);
	u32 state = READ_ONCE(c->state);

	if (state == CQN_CQS_STOPPED || !ms)
		return;
	if ((state == CQN_CQS_RUNNING || state == CQN_CQS_DRAINING) && c->mode_ops->events &&
	    c->owner_ops->busy(c->owner) &&
	    time_after(jiffies, READ_ONCE(c->guard.last_done) + msecs_to_jiffies(ms))) {
		cqn_stat_inc(c->stats, CQN_STAT_cq_watchdog_fires);
		pr_info_ratelimited("%s: no completion for %u ms with work outstanding: polling\n",
				    c->name, ms);
		set_bit(CQN_TRIP_WATCHDOG, &c->guard.trips);
		cqn_cq_kick(c);
	}
	queue_delayed_work(cqn_wq, &c->guard.watchdog, msecs_to_jiffies(ms));
}

/* Context: softirq (HRTIMER_MODE_REL_SOFT). */
static enum hrtimer_restart cqn_cq_poll_timer_fn(struct hrtimer *t)
{
	struct cqn_cq *c = container_of(t, struct cqn_cq, poll_timer);

	if (cqn_cq_live(c))
		cqn_cq_kick(c);
	return HRTIMER_NORESTART;
}

/**
 * cqn_cq_guard_init() - prepare the watchdog and the polling timer
 * @c: the engine
 *
 * Context: process context.
 */
void cqn_cq_guard_init(struct cqn_cq *c)
{
	INIT_DELAYED_WORK(&c->guard.watchdog, cqn_cq_watchdog_fn);
	cqn_hrtimer_setup(&c->poll_timer, cqn_cq_poll_timer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_SOFT);
}

/**
 * cqn_cq_guard_start() - start the silent-CQ watchdog (watchdog_ms)
 * @c: the engine, about to start
 *
 * Context: process context.
 */
void cqn_cq_guard_start(struct cqn_cq *c)
{
	u32 ms = c->params.watchdog_ms;

	WRITE_ONCE(c->guard.last_done, jiffies);
	c->guard.started = true;
	if (ms)
		queue_delayed_work(cqn_wq, &c->guard.watchdog, msecs_to_jiffies(ms));
}

/**
 * cqn_cq_guard_stop() - stop the watchdog
 * @c: the engine, stopped
 *
 * Context: process context.
 */
void cqn_cq_guard_stop(struct cqn_cq *c)
{
	cancel_delayed_work_sync(&c->guard.watchdog);
}

/**
 * cqn_cq_guard_retime() - a live change of watchdog_ms
 * @c: the engine
 * @ms: the new period, 0 for off
 *
 * Context: process context; the caller serialises changes to one engine.
 */
void cqn_cq_guard_retime(struct cqn_cq *c, u32 ms)
{
	if (ms == c->params.watchdog_ms)
		return;
	WRITE_ONCE(c->params.watchdog_ms, ms);
	/* Running engines only; cqn_cq_guard_start() starts it otherwise. */
	if (ms && !c->mode_ops->core && READ_ONCE(c->state) != CQN_CQS_STOPPED &&
	    c->guard.started)
		mod_delayed_work(cqn_wq, &c->guard.watchdog, msecs_to_jiffies(ms));
}

/**
 * cqn_cq_guard_event() - the storm guard counts an event
 * @c: the engine
 * @now: when it arrived
 *
 * More than max_events_per_ms in one millisecond trips the guard.
 *
 * Context: the comp_handler's (the provider's completion context).
 */
void cqn_cq_guard_event(struct cqn_cq *c, u64 now)
{
	struct cqn_cq_guard *g = &c->guard;
	u32 max = READ_ONCE(c->params.max_events_per_ms);

	if (!max)
		return;
	if (now - g->storm_start_ns >= NSEC_PER_MSEC) {
		g->storm_start_ns = now;
		g->storm_events = 0;
	}
	if (++g->storm_events > max)
		set_bit(CQN_TRIP_STORM, &g->trips);
}

/**
 * cqn_cq_guard_done() - completions were handed over
 * @c: the engine
 * @done: how many
 *
 * Context: the context that processes the CQ.
 */
void cqn_cq_guard_done(struct cqn_cq *c, int done)
{
	WRITE_ONCE(c->guard.last_done, jiffies);
	c->guard.done += done;
}

static void cqn_cq_fallback_enter(struct cqn_cq *c, u64 now, const char *cause)
{
	struct cqn_cq_guard *g = &c->guard;

	if (!cqn_cq_change_state(c, CQN_CQS_RUNNING, CQN_CQS_FALLBACK))
		return;
	g->cause = cause;
	g->entered_ns = now;
	trace_cqn_cq_fallback(c, cause, true, 0);
	g->start_ns = now;
	g->done = 0;
	g->until_ns = now + CQN_FALLBACK_NS;
	cqn_stat_inc(c->stats, CQN_STAT_cq_fallbacks);
}

/* A storm's fallback ends only once the completion rate is below it. */
static bool cqn_cq_fallback_leave(struct cqn_cq *c, u64 now)
{
	struct cqn_cq_guard *g = &c->guard;
	u32 max = READ_ONCE(c->params.max_events_per_ms);
	u64 span = max_t(u64, now - g->start_ns, 1);
	u64 per_ms = div64_u64(g->done * NSEC_PER_MSEC, span);

	if (max && per_ms > max) {
		g->start_ns = now;
		g->done = 0;
		g->until_ns = now + CQN_FALLBACK_NS;
		return false;
	}
	if (!cqn_cq_change_state(c, CQN_CQS_FALLBACK, CQN_CQS_RUNNING))
		return false;
	trace_cqn_cq_fallback(c, g->cause, false, div_u64(now - g->entered_ns, NSEC_PER_USEC));
	g->cause = NULL;
	return true;
}

/**
 * cqn_cq_guard_poll() - fallback polling, decided at the end of a wakeup
 * @c: the engine
 *
 * Enters a fallback a guard asked for, leaves one that has lasted long
 * enough, and while one lasts starts the polling timer.
 *
 * Context: the work item.
 * Return: true while the CQ is to be polled on the timer rather than armed.
 */
bool cqn_cq_guard_poll(struct cqn_cq *c)
{
	struct cqn_cq_guard *g = &c->guard;
	bool in = READ_ONCE(c->state) == CQN_CQS_FALLBACK;
	u64 now;

	/* The common case, no guard tripped and none falling back: no clock read. */
	if (!in && !READ_ONCE(g->trips))
		return false;
	now = cqn_cq_clock();
	if (test_and_clear_bit(CQN_TRIP_STORM, &g->trips) && !in) {
		cqn_stat_inc(c->stats, CQN_STAT_cq_storms);
		cqn_cq_fallback_enter(c, now, "storm");
	}
	if (test_and_clear_bit(CQN_TRIP_WATCHDOG, &g->trips) && !in)
		cqn_cq_fallback_enter(c, now, "watchdog");
	if (READ_ONCE(c->state) != CQN_CQS_FALLBACK)
		return false;
	if (now >= g->until_ns && cqn_cq_fallback_leave(c, now))
		return false;
	cqn_cq_timer_poll(c);
	return true;
}

/**
 * cqn_cq_timer_poll() - poll the CQ again in CQN_TIMER_POLL_NS
 * @c: the engine
 *
 * Context: any.
 */
void cqn_cq_timer_poll(struct cqn_cq *c)
{
	hrtimer_start(&c->poll_timer, ns_to_ktime(CQN_TIMER_POLL_NS), HRTIMER_MODE_REL_SOFT);
}

/**
 * cqn_cq_timer_poll_halt() - cancel the polling timer
 * @c: the engine, its state no longer live
 *
 * Context: process context.
 */
void cqn_cq_timer_poll_halt(struct cqn_cq *c)
{
	hrtimer_cancel(&c->poll_timer);
}
