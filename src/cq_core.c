// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA core's own CQ modes, softirq and workqueue: ib_alloc_cq() polls
 * the CQ; the engine only counts its events and reports the core's DIM.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "cq.h"
#include "cqn_trace.h"

/*
 * Count the event, then let the core's handler schedule its poll. The
 * core's DIM moves its level in the poll handler: it is seen here next.
 * While cqn_cq_core_flush() empties the CQ (core.held) the event is not
 * passed on: the flush calls the core's handler itself when it is done,
 * and waits (RCU) for a handler that saw core.held clear to pass it on.
 * Context: the provider's completion context. Must not sleep.
 */
static void cqn_cq_core_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct cqn_cq *c = ctx;
	struct dim *dim = cqn_core_dim(cq);

	cqn_stat_inc(c->stats, CQN_STAT_cq_events);
	trace_cqn_cq_event(c);
	if (dim) {
		u8 ix = READ_ONCE(dim->profile_ix);

		if (ix != c->core.dim_level) {
			WRITE_ONCE(c->core.dim_level, ix);
			WRITE_ONCE(c->core.dim_moved, true);
			cqn_stat_inc(c->stats, CQN_STAT_core_dim_changes);
		}
	}
	rcu_read_lock();
	if (!READ_ONCE(c->core.held))
		c->core.handler(cq, ctx);
	rcu_read_unlock();
}

/*
 * The core owns this CQ's handlers; the engine puts its own in front of
 * them to count events and see overflows (Documentation/design.rst says
 * why, and what would break without it).
 */
static int cqn_cq_core_alloc(struct cqn_cq *c, struct ib_device *ibdev, u32 cqe,
			     int comp_vector)
{
	enum ib_poll_context ctx = c->mode == CQN_CQ_SOFTIRQ ? IB_POLL_SOFTIRQ :
							       IB_POLL_WORKQUEUE;
	struct ib_cq *cq;

	/* For cqn_cq_core_flush() only: the core polls into its own array. */
	c->wcs = kcalloc(CQN_POLL_BATCH, sizeof(*c->wcs), GFP_KERNEL);
	if (!c->wcs)
		return -ENOMEM;
	cq = ib_alloc_cq(ibdev, c, cqe, comp_vector, ctx);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	c->cq = cq;
	c->core.handler = cq->comp_handler;
	c->core.dim_level = RDMA_DIM_START_PROFILE;
	WRITE_ONCE(c->core.has_dim, cqn_core_dim(cq));
	cq->comp_handler = cqn_cq_core_comp_handler;
	cq->event_handler = cqn_cq_event_handler;
	return 0;
}

static void cqn_cq_core_free(struct cqn_cq *c)
{
	ib_free_cq(c->cq);
}

const struct cqn_cq_mode_ops cqn_cq_softirq_ops = {
	.alloc = cqn_cq_core_alloc,
	.free = cqn_cq_core_free,
	.core = true,
};

const struct cqn_cq_mode_ops cqn_cq_workqueue_ops = {
	.alloc = cqn_cq_core_alloc,
	.free = cqn_cq_core_free,
	.core = true,
};

/**
 * cqn_cq_core_flush() - empty a core-mode CQ from process context
 * @c: the engine (softirq or workqueue mode), serving other QPs
 *
 * cqn_cq_flush() for the core's modes, for a QP that leaves a shared CQ
 * after a drain that ended short: its completions may still sit in the
 * CQ, and must reach its handlers before its buffers are freed. The core's
 * processing stops as ib_free_cq() stops it (irq_poll_disable(), or
 * cancel_work_sync(), which also waits out a work item that queued itself
 * again), with events held back meanwhile (core.held); the CQ is emptied
 * here through the same wr_cqe->done() handlers, with bottom halves
 * disabled as in the core's softirq, at most as many completions as the
 * CQ holds (the QP is destroyed: all of its completions are in the CQ
 * already, and the other QPs' traffic must not keep the flush going); then
 * the core's handler is called once, which polls what came meanwhile and
 * arms the CQ again. Every wait is bounded: an RCU grace period, one run
 * of the core's poll (its budget) or work item.
 *
 * Context: process context; the caller serialises changes to the engine.
 * Return: the completions handed over here.
 */
int cqn_cq_core_flush(struct cqn_cq *c)
{
	struct ib_cq *cq = c->cq;
	int n, done = 0;

	WRITE_ONCE(c->core.held, true);
	synchronize_rcu();
	if (c->mode == CQN_CQ_SOFTIRQ)
		irq_poll_disable(&cq->iop);
	else
		cancel_work_sync(&cq->work);
	do {
		local_bh_disable();
		n = ib_poll_cq(cq, min(CQN_POLL_BATCH, cq->cqe - done), c->wcs);
		cqn_cq_hand_over(c, cq, c->wcs, n);
		local_bh_enable();
		done += max(n, 0);
		cond_resched();
	} while (n > 0 && done < cq->cqe);
	if (c->mode == CQN_CQ_SOFTIRQ)
		irq_poll_enable(&cq->iop);
	WRITE_ONCE(c->core.held, false);
	/* Events came meanwhile unpassed: the core polls and arms again. */
	local_bh_disable();
	c->core.handler(cq, c);
	local_bh_enable();
	return done;
}

/**
 * cqn_cq_core_dim_level() - the level of the core's DIM on this CQ
 * @c: the engine
 * @level: the level, when there is a DIM
 *
 * The level is read under c->lock, which cqn_cq_core_forget_dim() takes
 * before the CQ and its struct dim are freed.
 *
 * Context: any.
 * Return: true when the core runs its DIM on this CQ.
 */
bool cqn_cq_core_dim_level(struct cqn_cq *c, u8 *level)
{
	unsigned long flags;
	bool dim;

	if (!READ_ONCE(c->core.has_dim))
		return false;
	spin_lock_irqsave(&c->lock, flags);
	dim = c->core.has_dim;
	if (dim)
		*level = READ_ONCE(cqn_core_dim(c->cq)->profile_ix);
	spin_unlock_irqrestore(&c->lock, flags);
	return dim;
}

/**
 * cqn_cq_core_forget_dim() - stop reading the core's DIM before the CQ goes
 * @c: the engine
 *
 * Context: process context.
 */
void cqn_cq_core_forget_dim(struct cqn_cq *c)
{
	if (!c->core.has_dim)
		return;
	spin_lock_irq(&c->lock);
	WRITE_ONCE(c->core.has_dim, false);
	spin_unlock_irq(&c->lock);
}
