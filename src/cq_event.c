// SPDX-License-Identifier: GPL-2.0
/*
 * The event-driven modes' engine: the comp_handler starts a wakeup (event
 * mode: a work item), which empties the CQ and arms it again. Adaptive
 * mode's thread (src/cq_adaptive.c) and irqpoll's softirq
 * (src/cq_irqpoll.c) run the same wakeup.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/workqueue.h>

#include "cq.h"
#include "cqn_share.h"
#include "cqn_trace.h"

/*
 * Own modes' comp_handler: count the event and queue the work item, nothing
 * else. It neither polls nor arms the CQ (nor takes c->lock): 6.12's rxe
 * calls it with the CQ's lock held, which both would take again.
 * Context: the provider's completion context (6.1 rxe: a tasklet; 6.12
 * rxe: a work item with the CQ's spinlock held, IRQs off; hardware: hard
 * IRQ). Must not sleep.
 */
void cqn_cq_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct cqn_cq *c = ctx;
	u64 t0 = cqn_cq_clock();

	if (!cqn_cq_live(c))
		return;
	if (unlikely(atomic_add_unless(&c->faults.drop_events, -1, 0))) {
		/* Fault injection: a lost interrupt. The CQ stays unarmed. */
		cqn_stat_inc(c->stats, CQN_STAT_cq_events_dropped);
		return;
	}
	cqn_stat_inc(c->stats, CQN_STAT_cq_events);
	trace_cqn_cq_event(c);
	if (c->mode_ops->events)
		cqn_cq_guard_event(c, t0);
	if (!READ_ONCE(c->from_event)) {
		WRITE_ONCE(c->event_ns, t0);
		WRITE_ONCE(c->from_event, true);
	}
	cqn_cq_kick(c);
	cqn_stat_add(c->stats, CQN_STAT_cpu_ns, cqn_cq_clock() - t0);
}

/**
 * cqn_cq_queue_work() - queue the engine's work item
 * @c: the engine
 *
 * On the CPU that queues it (the one that took the event), or any CPU
 * with the module's unbound_wq; but a busy engine with a home
 * (cqn_cq_set_home()) goes to its home CPU while that is online: one
 * completion at a time is cheaper handled where its event was taken than
 * moved, a backlog of many QPs' completions is better spread over the
 * CPUs. The work item queued from itself would stay where it runs (the
 * workqueue runs it on one CPU at a time), so it leaves through @c->hop,
 * which queues it at home once it has returned (cqn_cq_home_hop()).
 *
 * Context: any.
 */
void cqn_cq_queue_work(struct cqn_cq *c)
{
	int cpu = READ_ONCE(c->busy) ? READ_ONCE(c->work_cpu) : WORK_CPU_UNBOUND;

	if (cpu == WORK_CPU_UNBOUND || !cpu_online(cpu)) {
		queue_work(cqn_wq, &c->work);
		return;
	}
	if (current_work() == &c->work && raw_smp_processor_id() != cpu) {
		cqn_stat_inc(c->stats, CQN_STAT_cq_home_hops);
		queue_work_on(cpu, cqn_wq, &c->hop);
		return;
	}
	queue_work_on(cpu, cqn_wq, &c->work);
}

/**
 * cqn_cq_home_hop() - the busy engine's way home
 * @work: the engine's @hop
 *
 * Waits until the work item that queued this has returned (queued while it
 * still ran, it would run again where it was), then queues it on this CPU,
 * its home, unless the engine stopped: quiesce cancels the work item, this,
 * and the work item again. The wait is one wakeup's end, bounded by its
 * budget.
 *
 * Context: process context (cqn_wq), on the engine's home CPU.
 */
void cqn_cq_home_hop(struct work_struct *work)
{
	struct cqn_cq *c = container_of(work, struct cqn_cq, hop);

	flush_work(&c->work);
	if (cqn_cq_live(c))
		queue_work_on(READ_ONCE(c->work_cpu), cqn_wq, &c->work);
}

/**
 * cqn_cq_rearm() - the end of a wakeup that emptied the CQ: arm it, or poll on a timer
 * @c: the engine
 *
 * A missed-events report starts another wakeup at once (cqn_cq_kick()).
 *
 * Context: the one context that processes the CQ, its wakeup over.
 */
void cqn_cq_rearm(struct cqn_cq *c)
{
	u32 delay;

	if (READ_ONCE(c->state) == CQN_CQS_DRAINING) {
		/* Teardown does not trust events: poll until the drain is over. */
		cqn_cq_timer_poll(c);
		return;
	}
	cqn_cq_moder_feed(c);
	if (cqn_cq_guard_poll(c))
		return;
	if (cqn_cq_moder_rearm(c))
		return;
	/* fault_arm_delay_us: the arm/poll race, made certain. */
	delay = READ_ONCE(c->faults.arm_delay_us);
	if (unlikely(delay) && in_task())
		fsleep(delay);
	else if (unlikely(delay))
		udelay(min(delay, CQN_ARM_DELAY_ATOMIC_MAX_US));
	if (cqn_cq_arm(c) > 0)
		cqn_cq_kick(c);
}

/**
 * cqn_cq_wakeup() - one wakeup of the consumer in the event-driven modes
 * @c: the engine
 * @budget: the most completions to hand over
 *
 * Hands over what the CQ holds, unless software moderation holds it back
 * (its timer starts the next wakeup).
 *
 * Context: the one context that processes the CQ: the work item (event,
 * adaptive) or irq_poll's softirq (irqpoll).
 * Return: what the caller does next: CQN_NEXT_ARM (cqn_cq_rearm()),
 * CQN_NEXT_AGAIN (another wakeup at once, the CQ left unarmed: the budget
 * ran out, or adaptive mode's window asks for more polling) or
 * CQN_NEXT_SLEEP.
 */
enum cqn_cq_next cqn_cq_wakeup(struct cqn_cq *c, int budget)
{
	u64 t0 = cqn_cq_clock(), ev;
	bool from_event;
	int done;

	from_event = READ_ONCE(c->from_event);
	ev = READ_ONCE(c->event_ns);
	WRITE_ONCE(c->from_event, false);
	if (from_event && ev && t0 > ev) {
		cqn_stat_hist(c->stats, CQN_H_CQ_DELAY, t0 - ev);
		if (c->mode_ops->event_seen)
			c->mode_ops->event_seen(c, ev);
	}
	if (from_event && cqn_cq_moder_hold(c))
		return CQN_NEXT_SLEEP;
	if (c->mode_ops->batch_bh && in_task())
		done = cqn_cq_process_bh(c, budget, from_event);
	else
		done = cqn_cq_process(c, budget, from_event);
	WRITE_ONCE(c->busy, cqn_share_busy(c->busy, done, from_event));
	if (!done && from_event)
		cqn_stat_inc(c->stats, CQN_STAT_cq_spurious_events);
	if (done >= budget ||
	    (c->mode_ops->after_empty && c->mode_ops->after_empty(c, done)))
		return CQN_NEXT_AGAIN;
	return CQN_NEXT_ARM;
}

/**
 * cqn_cq_task_wakeup() - a wakeup in process context, and the arm that ends it
 * @c: the engine
 *
 * cqn_cq_wakeup() with CQN_EVENT_BUDGET, then cqn_cq_rearm() when it
 * emptied the CQ; the time counts in ``cpu_ns``.
 *
 * Context: the process context that processes the CQ: event mode's work
 * item, adaptive mode's thread.
 * Return: true when another wakeup is to follow at once, the CQ left
 * unarmed (the budget ran out, or adaptive mode's window asks for more).
 */
bool cqn_cq_task_wakeup(struct cqn_cq *c)
{
	u64 t0 = cqn_cq_clock();
	enum cqn_cq_next next = cqn_cq_wakeup(c, CQN_EVENT_BUDGET);

	if (next == CQN_NEXT_ARM)
		cqn_cq_rearm(c);
	cqn_stat_add(c->stats, CQN_STAT_cpu_ns, cqn_cq_clock() - t0);
	return next == CQN_NEXT_AGAIN;
}

/**
 * cqn_cq_work() - the work item of the event mode
 * @work: the engine's work item
 *
 * Context: process context (cqn_wq).
 */
void cqn_cq_work(struct work_struct *work)
{
	struct cqn_cq *c = container_of(work, struct cqn_cq, work);

	/*
	 * A comp_handler that passed its state check just before a switch to
	 * poll mode may queue this after the switch: the poll thread owns the
	 * CQ (and c->wcs) then, except while it naps (poll mode's @work). The
	 * mode only changes while this is cancelled.
	 */
	if (!cqn_cq_live(c))
		return;
	if (c->mode_ops->work) {
		c->mode_ops->work(c);
		return;
	}
	if (!c->mode_ops->events || c->mode_ops->kick)
		return;
	/* Leave the CQ unarmed and let other work run first. */
	if (cqn_cq_task_wakeup(c))
		cqn_cq_queue_work(c);
}

/* Event mode starts with a wakeup that empties the CQ: at home, if any. */
static int cqn_cq_event_run(struct cqn_cq *c)
{
	WRITE_ONCE(c->busy, true);
	cqn_cq_queue_work(c);
	return 0;
}

const struct cqn_cq_mode_ops cqn_cq_event_ops = {
	.alloc = cqn_cq_own_alloc,
	.free = cqn_cq_own_free,
	.run = cqn_cq_event_run,
	.events = true,
	.batch_bh = true,
};

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
	atomic_set(&c->faults.drop_events, n);
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
	WRITE_ONCE(c->faults.arm_delay_us, us);
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
	if (c->mode_ops->core)
		return -EOPNOTSUPP;
	while (n--) {
		cqn_stat_inc(c->stats, CQN_STAT_cq_events_injected);
		cqn_cq_comp_handler(c->cq, c);
	}
	return 0;
}
