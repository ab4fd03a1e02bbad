// SPDX-License-Identifier: GPL-2.0
/*
 * The CQ engine's processing core, the same for every own mode: take
 * completions in batches (staged ones first), hand each to wr_cqe->done()
 * within a budget, in bottom-half-disabled sections from process context
 * (busy polls, event mode's wakeups), and arm the CQ with the
 * missed-events report.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/interrupt.h>

#include "cq.h"
#include "cqn_trace.h"

/* A busy poller whose softirqs went to ksoftirqd sleeps this long for it. */
#define CQN_SOFTIRQ_YIELD_US	10

/*
 * Take up to @max completions for the consumer: staged ones first, then
 * from the CQ. c->lock makes each take atomic with respect to staging by
 * software moderation, so completions are handed over in CQ order. *@more
 * says whether a full batch may be followed by more.
 */
static int cqn_cq_take(struct cqn_cq *c, struct ib_wc *wcs, int max, bool *more)
{
	struct cqn_cq_moderation *m = &c->moder;
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&c->lock, flags);
	if (m->n) {
		while (n < max && m->n) {
			wcs[n++] = m->stage[m->head];
			m->head = (m->head + 1) % CQN_SW_MODER_MAX_COUNT;
			m->n--;
		}
		*more = true;
	} else {
		n = ib_poll_cq(c->cq, max, wcs);
		*more = n == max;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return max(n, 0);
}

/**
 * cqn_cq_hand_over() - hand polled completions to their handlers
 * @c: the engine (for the log message)
 * @cq: the CQ they were polled from
 * @wcs: the completions
 * @n: how many
 *
 * Each goes to wc->wr_cqe->done(); one without a wr_cqe is logged.
 *
 * Context: the context that polled them.
 */
void cqn_cq_hand_over(struct cqn_cq *c, struct ib_cq *cq, struct ib_wc *wcs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ib_wc *wc = &wcs[i];

		if (wc->wr_cqe)
			wc->wr_cqe->done(cq, wc);
		else
			pr_warn_ratelimited("%s: completion without wr_cqe, status %s\n",
					    c->name, ib_wc_status_msg(wc->status));
	}
}

/**
 * cqn_cq_process() - one wakeup of the consumer
 * @c: the engine
 * @budget: the most completions to hand over
 * @from_event: an event started the wakeup (for the trace event)
 *
 * Hands each completion to wc->wr_cqe->done(), in batches of
 * CQN_POLL_BATCH, until the CQ is empty or the budget is spent.
 *
 * Context: the one context that processes the CQ (work item or poll thread).
 * Return: completions handed over.
 */
int cqn_cq_process(struct cqn_cq *c, int budget, bool from_event)
{
	u64 t0 = cqn_cq_clock();
	int n, done = 0;
	bool more = true;

	while (done < budget && more) {
		n = cqn_cq_take(c, c->wcs, min(CQN_POLL_BATCH, budget - done), &more);
		cqn_stat_inc(c->stats, CQN_STAT_cq_polls);
		if (!n) {
			cqn_stat_inc(c->stats, CQN_STAT_cq_empty_polls);
			break;
		}
		cqn_cq_hand_over(c, c->cq, c->wcs, n);
		done += n;
	}
	if (done) {
		cqn_cq_guard_done(c, done);
		cqn_stat_inc(c->stats, CQN_STAT_cq_wakeups);
		cqn_stat_hist(c->stats, CQN_H_CQ_BATCH, done);
		cqn_stat_hist(c->stats, CQN_H_CQ_PROC, cqn_cq_clock() - t0);
		c->moder.done += done;
		trace_cqn_cq_poll(c, done, budget, from_event);
	}
	return done;
}

/* cqn_cq_process() with bottom halves disabled; *@ran: softirqs were pending at the enable. */
static int cqn_cq_bh_section(struct cqn_cq *c, int budget, bool from_event, bool *ran)
{
	int n;

	local_bh_disable();
	n = cqn_cq_process(c, budget, from_event);
	*ran = local_softirq_pending();
	local_bh_enable();
	if (*ran)
		cqn_stat_inc(c->stats, CQN_STAT_cq_softirq_runs);
	return n;
}

/**
 * cqn_cq_process_bh() - cqn_cq_process() with bottom halves disabled
 * @c: the engine
 * @budget: the most completions to hand over
 * @from_event: an event started the wakeup (for the trace event)
 *
 * The handlers post the next sends and receives, and the provider's work
 * for them is softirq work on 6.1's rxe (tasklets, and the network's
 * receive behind them). With bottom halves enabled, every
 * spin_unlock_bh() in a handler runs what its post raised at once: a
 * tasklet and a receive a packet. Disabled, enabling them again runs the
 * softirqs raised meanwhile on this CPU once, for the whole batch, as
 * napi_busy_loop() and the softirq modes do (``cq_softirq_runs``). The
 * section is as long as @budget completions' handling.
 *
 * Context: process context, the one context that processes the CQ.
 * Return: completions handed over.
 */
int cqn_cq_process_bh(struct cqn_cq *c, int budget, bool from_event)
{
	bool ran;

	return cqn_cq_bh_section(c, budget, from_event, &ran);
}

/**
 * cqn_cq_busy_poll() - one poll of a busy-polling loop that lets softirqs run
 * @c: the engine
 * @budget: the most completions to hand over
 * @may_sleep: the poll thread's loop: yield to ksoftirqd (see below)
 *
 * As napi_busy_loop() does, the poll runs with bottom halves disabled and
 * enabling them again runs the softirqs raised meanwhile on this CPU
 * (cqn_cq_process_bh()): a poller that spins in process context would
 * otherwise hold back the very completions it waits for (6.1's rxe posts
 * them from tasklets) until the next interrupt. Softirqs still pending
 * after that were handed to ksoftirqd (a busy CPU): the poll thread, which
 * never sleeps otherwise, then sleeps for a few microseconds so that it
 * runs, and a loaded host slows polling down instead of starving the
 * provider (``cq_softirq_yields``). Adaptive mode's window does not: a
 * sleep would outlast its few microseconds, and the work item sleeps when
 * the window closes anyway.
 *
 * Context: process context, the one context that processes the CQ.
 * Return: completions handed over.
 */
int cqn_cq_busy_poll(struct cqn_cq *c, int budget, bool may_sleep)
{
	bool ran;
	int n = cqn_cq_bh_section(c, budget, false, &ran);

	if (ran && may_sleep && local_softirq_pending()) {
		cqn_stat_inc(c->stats, CQN_STAT_cq_softirq_yields);
		usleep_range(CQN_SOFTIRQ_YIELD_US, 2 * CQN_SOFTIRQ_YIELD_US);
	}
	return n;
}

/**
 * cqn_cq_arm() - arm the CQ for the next completion
 * @c: the engine
 *
 * For solicited completions only when solicited_only is set and the owner
 * waits for none that raises no solicited event.
 *
 * Context: the work item or software moderation's timer.
 * Return: > 0 when completions may have been missed (poll again).
 */
int cqn_cq_arm(struct cqn_cq *c)
{
	bool solicited = READ_ONCE(c->params.solicited_only) && !c->owner_ops->need_any(c->owner);
	u64 t0 = cqn_cq_clock();
	int ret;

	ret = ib_req_notify_cq(c->cq, (solicited ? IB_CQ_SOLICITED : IB_CQ_NEXT_COMP) |
				      IB_CQ_REPORT_MISSED_EVENTS);
	cqn_stat_hist(c->stats, CQN_H_CQ_ARM, cqn_cq_clock() - t0);
	cqn_stat_inc(c->stats, CQN_STAT_cq_arms);
	if (ret > 0)
		cqn_stat_inc(c->stats, CQN_STAT_cq_rearm_missed);
	trace_cqn_cq_arm(c, solicited, ret);
	return ret;
}
