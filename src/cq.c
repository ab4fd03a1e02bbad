// SPDX-License-Identifier: GPL-2.0
/*
 * The CQ engine: the one place that knows how a connection learns about its
 * completions. It polls them in batches and hands each to wr_cqe->done().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "cqnotify.h"

/* Completions taken from the CQ per ib_poll_cq() call, as the core does. */
#define CQN_POLL_BATCH		16
/* Completions one event-mode drain handles before yielding the worker. */
#define CQN_EVENT_BUDGET	256
/* Completions the poll thread handles between two cond_resched() calls. */
#define CQN_POLL_BUDGET		64

/**
 * DOC: CQ modes
 *
 * cqnotify learns about completions in one of these ways, chosen per
 * endpoint with the ``cq_mode`` attribute:
 *
 * ``event``
 *	The CQ is created with ib_create_cq() and the module's own
 *	comp_handler. The handler runs in the provider's interrupt context (a
 *	tasklet on rxe, hard IRQ on hardware), so it only counts the event and
 *	queues a work item. The work item polls in batches of 16 with a budget
 *	of 256 completions; when the CQ is empty it re-arms with
 *	``IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS``. A positive return
 *	means completions arrived between the last poll and the arm, which
 *	would otherwise never raise an event: the work item polls again
 *	(counted as ``cq_rearm_missed``). A drain that finds nothing on its
 *	first poll after an event counts as ``cq_spurious_events``.
 *
 * ``poll``
 *	A kernel thread per CQ calls ib_poll_cq() in batches and never arms
 *	the CQ, so no interrupt or event is ever taken. It calls
 *	cond_resched() every 64 completions or after an empty poll: it costs
 *	a whole CPU while the endpoint runs, in exchange for the shortest
 *	path from completion to handler.
 *
 * In both modes every work completion goes to ``wc->wr_cqe->done()``, the
 * same contract as the RDMA core's own CQ API, so ib_drain_qp() works.
 */

/* Poll up to @budget completions and dispatch them; returns how many. */
static int cqn_cq_process(struct cqn_cq *c, struct ib_wc *wcs, int budget)
{
	int i, n, done = 0;

	while (done < budget) {
		n = ib_poll_cq(c->cq, min(CQN_POLL_BATCH, budget - done), wcs);
		cqn_stat_inc(c->stats, CQN_STAT_cq_polls);
		if (n <= 0) {
			cqn_stat_inc(c->stats, CQN_STAT_cq_empty_polls);
			break;
		}
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &wcs[i];

			if (wc->wr_cqe)
				wc->wr_cqe->done(c->cq, wc);
			else
				pr_warn_ratelimited("completion without wr_cqe, status %s\n",
						    ib_wc_status_msg(wc->status));
		}
		done += n;
		if (n < CQN_POLL_BATCH)
			break;
	}
	return done;
}

static void cqn_cq_event_work(struct work_struct *work)
{
	struct cqn_cq *c = container_of(work, struct cqn_cq, work);
	int done;

	if (READ_ONCE(c->stopping))
		return;
	done = cqn_cq_process(c, c->wcs, CQN_EVENT_BUDGET);
	if (!done && READ_ONCE(c->from_event))
		cqn_stat_inc(c->stats, CQN_STAT_cq_spurious_events);
	WRITE_ONCE(c->from_event, false);
	if (done >= CQN_EVENT_BUDGET) {
		/* Leave the CQ unarmed and let other work run first. */
		queue_work(cqn_wq, &c->work);
		return;
	}
	if (ib_req_notify_cq(c->cq, IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS) > 0) {
		cqn_stat_inc(c->stats, CQN_STAT_cq_rearm_missed);
		queue_work(cqn_wq, &c->work);
	}
}

/*
 * Context: the provider's completion context (tasklet on rxe, hard IRQ on
 * hardware). Must not sleep.
 */
static void cqn_cq_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct cqn_cq *c = ctx;

	if (READ_ONCE(c->stopping))
		return;
	cqn_stat_inc(c->stats, CQN_STAT_cq_events);
	WRITE_ONCE(c->from_event, true);
	queue_work(cqn_wq, &c->work);
}

/* Context: the provider's event context, possibly atomic. Must not sleep. */
static void cqn_cq_event_handler(struct ib_event *event, void *ctx)
{
	struct cqn_cq *c = ctx;

	cqn_stat_inc(c->stats, CQN_STAT_cq_async_events);
	pr_warn_ratelimited("CQ async event: %s\n", ib_event_msg(event->event));
	if (event->event == IB_EVENT_CQ_ERR)
		c->fatal(c->owner, "CQ error (overrun)");
}

static int cqn_cq_poll_thread(void *arg)
{
	struct cqn_cq *c = arg;

	/* The event work item never runs in poll mode: its array is ours. */
	while (!kthread_should_stop()) {
		cqn_cq_process(c, c->wcs, CQN_POLL_BUDGET);
		cond_resched();
	}
	return 0;
}

/**
 * cqn_cq_create() - create a CQ and prepare its engine
 * @c: the engine, zeroed by the caller
 * @ibdev: the device
 * @cfg: provides cq_depth and cq_mode
 * @comp_vector: completion vector to use
 * @stats: where the engine counts
 * @fatal: called when the CQ reports an asynchronous error
 * @owner: argument for @fatal
 *
 * Context: process context.
 * Return: 0 or -errno.
 */
int cqn_cq_create(struct cqn_cq *c, struct ib_device *ibdev, const struct cqn_config *cfg,
		  int comp_vector, struct cqn_stats *stats,
		  void (*fatal)(void *owner, const char *why), void *owner)
{
	struct ib_cq_init_attr attr = {
		.cqe = cfg->cq_depth,
		.comp_vector = comp_vector,
	};

	c->mode = cfg->cq_mode;
	c->stats = stats;
	c->fatal = fatal;
	c->owner = owner;
	INIT_WORK(&c->work, cqn_cq_event_work);
	c->wcs = kcalloc(CQN_POLL_BATCH, sizeof(*c->wcs), GFP_KERNEL);
	if (!c->wcs)
		return -ENOMEM;
	c->cq = ib_create_cq(ibdev, cqn_cq_comp_handler, cqn_cq_event_handler, c, &attr);
	if (IS_ERR(c->cq)) {
		int ret = PTR_ERR(c->cq);

		c->cq = NULL;
		kfree(c->wcs);
		c->wcs = NULL;
		return ret;
	}
	return 0;
}

/**
 * cqn_cq_start() - start learning about completions
 * @c: the engine
 * @name: thread name suffix (poll mode)
 *
 * Event mode arms the CQ (and drains anything already there); poll mode
 * starts the polling thread.
 *
 * Context: process context.
 * Return: 0 or -errno.
 */
int cqn_cq_start(struct cqn_cq *c, const char *name)
{
	if (c->mode == CQN_CQ_POLL) {
		c->poller = kthread_run(cqn_cq_poll_thread, c, "cqn-poll/%s", name);
		if (IS_ERR(c->poller)) {
			int ret = PTR_ERR(c->poller);

			c->poller = NULL;
			return ret;
		}
		return 0;
	}
	if (ib_req_notify_cq(c->cq, IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS) > 0)
		queue_work(cqn_wq, &c->work);
	return 0;
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
	if (c->poller) {
		kthread_stop(c->poller);
		c->poller = NULL;
	}
	cancel_work_sync(&c->work);
}

/**
 * cqn_cq_destroy() - destroy the CQ
 * @c: the engine, stopped
 *
 * Context: process context.
 */
void cqn_cq_destroy(struct cqn_cq *c)
{
	WRITE_ONCE(c->stopping, true);
	if (c->cq)
		ib_destroy_cq(c->cq);
	/* A handler that ran before the CQ was gone may have queued work. */
	cancel_work_sync(&c->work);
	c->cq = NULL;
	kfree(c->wcs);
	c->wcs = NULL;
}
