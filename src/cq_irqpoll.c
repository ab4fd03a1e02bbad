// SPDX-License-Identifier: GPL-2.0
/*
 * The irqpoll mode: the event mode's engine without the workqueue hop. The
 * comp_handler schedules an irq_poll instance, which empties the CQ in
 * softirq context with a budget and arms it again, as the RDMA core's
 * IB_POLL_SOFTIRQ does (drivers/infiniband/core/cq.c), but with the
 * engine's moderation, guards, live switches and counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "cq.h"

/*
 * Context: softirq (irq_poll), on one CPU at a time. Returning the whole
 * budget makes irq_poll call it again; otherwise it completes the poll
 * before arming, as ib_poll_handler() does, so that a missed-events
 * report can schedule the next one (cqn_cq_kick()).
 */
static int cqn_cq_irqpoll_fn(struct irq_poll *iop, int budget)
{
	struct cqn_cq *c = container_of(iop, struct cqn_cq, iop);
	enum cqn_cq_next next = CQN_NEXT_SLEEP;
	u64 t0 = cqn_cq_clock();

	if (cqn_cq_live(c))
		next = cqn_cq_wakeup(c, budget);
	if (next != CQN_NEXT_AGAIN)
		irq_poll_complete(iop);
	if (next == CQN_NEXT_ARM)
		cqn_cq_rearm(c);
	cqn_stat_add(c->stats, CQN_STAT_cpu_ns, cqn_cq_clock() - t0);
	return next == CQN_NEXT_AGAIN ? budget : 0;
}

/**
 * cqn_cq_irqpoll_init() - prepare the engine's irq_poll instance, disabled
 * @c: the engine, being created
 *
 * Every engine has one, so that a live switch into irqpoll mode only has
 * to enable it.
 *
 * Context: process context.
 */
void cqn_cq_irqpoll_init(struct cqn_cq *c)
{
	irq_poll_init(&c->iop, CQN_EVENT_BUDGET, cqn_cq_irqpoll_fn);
	/* Not scheduled yet: this takes it at once and keeps it off. */
	irq_poll_disable(&c->iop);
}

/* A wakeup: the softirq runs the poll on this CPU. Context: any. */
static void cqn_cq_irqpoll_kick(struct cqn_cq *c)
{
	if (READ_ONCE(c->iop_on))
		irq_poll_sched(&c->iop);
}

/* Start with a wakeup that empties the CQ before arming it. */
static int cqn_cq_irqpoll_run(struct cqn_cq *c)
{
	irq_poll_enable(&c->iop);
	WRITE_ONCE(c->iop_on, true);
	cqn_cq_irqpoll_kick(c);
	return 0;
}

/* Wait out a poll in progress; none runs again until run. Process context. */
static void cqn_cq_irqpoll_halt(struct cqn_cq *c)
{
	if (!c->iop_on)
		return;
	WRITE_ONCE(c->iop_on, false);
	irq_poll_disable(&c->iop);
}

const struct cqn_cq_mode_ops cqn_cq_irqpoll_ops = {
	.alloc = cqn_cq_own_alloc,
	.free = cqn_cq_own_free,
	.run = cqn_cq_irqpoll_run,
	.halt = cqn_cq_irqpoll_halt,
	.kick = cqn_cq_irqpoll_kick,
	.events = true,
};
