// SPDX-License-Identifier: GPL-2.0
/*
 * The CQ engine: the one place that knows how a connection learns about its
 * completions. It takes them from the CQ in batches and hands each to
 * wr_cqe->done(); how it learns that there is something to take is the
 * cq_mode (src/cq_event.c, src/cq_poll.c, src/cq_core.c), and when it hands
 * them over is the moderation (src/cq_moder.c). This file holds what every
 * mode shares: the lifecycle and live changes; the take/process/arm core is
 * src/cq_process.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/error-injection.h>
#include <linux/slab.h>

#include "cq.h"
#include "cqn_trace.h"

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
 *	``IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS``. It hands a
 *	wakeup's batch over with bottom halves disabled
 *	(cqn_cq_process_bh()), so the softirqs its handlers' posts raise (on
 *	6.1's rxe a tasklet and a receive a packet) run once, at the batch's
 *	end, as in the softirq modes (``cq_softirq_runs``): 1.2x the
 *	messages per CPU-second in a stream (Documentation/benchmarks.rst).
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
 *	arms the CQ only to nap (below), so no interrupt or event is taken
 *	while completions come. Each poll
 *	of up to 64 completions runs with bottom halves disabled, and
 *	enabling them again runs the softirqs raised meanwhile on that CPU
 *	(cqn_cq_busy_poll(), as napi_busy_loop() does); it calls
 *	cond_resched() after each. It costs a whole CPU while completions
 *	come, in exchange for the shortest path from completion to handler;
 *	once the CQ has been empty for ``poll_idle_us`` it naps between polls,
 *	10 us first, doubling up to 1 ms (``cq_poll_naps``), so an idle
 *	endpoint, or one whose peer's vCPU the host took away, gives its CPU
 *	up. A nap arms the CQ: what arrives meanwhile is handed over by the
 *	work item on the CPU that took the event (``cq_nap_wakeups``), and
 *	the thread takes the CQ back when the nap ends, unless the events
 *	have lately handed completions over a quarter faster per second of
 *	napping than it did per second of holding the CQ: then it naps again
 *	(``cq_poll_rides``), while they keep three quarters of its rate, for
 *	at most 20 ms in a row. For 100 ms after a
 *	pass of its loop over an empty CQ took a millisecond with nothing
 *	else run on its CPU, time the host took its vCPU away
 *	(``cq_poll_steals``), it naps as soon as the CQ is empty. A ride or
 *	a steal holds it for a second to one CPU, the one that takes its
 *	CQ's events if lower-numbered (``cq_poll_follows``), so that a busy
 *	host's exchange keeps to one vCPU. So does a host that the guest's
 *	missed ticks show busy (``cq_poll_host_busy``): the thread is held
 *	to the lowest CPU while it lasts (``cq_poll_host_holds``). Held
 *	there or bound by ``poll_cpu`` beside another such poll thread, a
 *	thread whose CQ is empty yields its CPU to a task waiting for it
 *	(``cq_poll_yields``), so two peers on one vCPU pass messages on by a
 *	switch, and naps at once if the scheduler keeps it.
 *	0 spins always, never arms and never yields.
 *	The thread runs at nice 19 (``poll_priority`` ``low``, the
 *	default): every other task of its CPU, the connection manager's and
 *	rxe's work, a user's program, runs first when it is ready, so many
 *	poll threads cannot starve the connections they serve; ``normal``
 *	(nice 0) makes it share its CPU fairly instead.
 *
 * ``adaptive``
 *	Like ``event``, but the wakeups run in a kernel thread of the engine's
 *	own (``cqn-adapt/<endpoint>.<connection>``, not bound: the scheduler
 *	wakes it on an idle CPU; at nice 19 as a poll thread, per
 *	``poll_priority``), and after a wakeup has emptied the CQ the thread
 *	keeps polling for a window before it re-arms, the same busy polls as
 *	``poll`` mode's. A completion found inside the window doubles it and
 *	starts it again; a window that runs out empty halves it; an event that a
 *	window of at most ``poll_window_max_us`` would have caught sets it to
 *	twice the gap. Under steady load the window covers the gap between
 *	completions and the engine behaves like ``poll`` (no events, no
 *	interrupts); when traffic stops the window shrinks to 0 and the engine
 *	sleeps like ``event``. The current window is shown as
 *	``poll_window_us``, completions caught by it as ``cq_window_hits``. When
 *	another task is runnable on its CPU (``cq_window_yields``) the window
 *	lets it run and goes on if that task preempts the thread (rxe's work on
 *	6.12, the connection manager's: at nice 19 every nice-0 task does), and
 *	otherwise closes, arming the CQ, as KVM's halt polling stops. A thread
 *	rather than a work item: on rxe the peer's completion event is raised on
 *	the CPU that sent the packet, so the two ends' work items of a pingpong
 *	in one guest took turns on one vCPU, each window yielding to the other's
 *	wakeup (about one event a message); two threads poll on two vCPUs and
 *	catch each other's messages in their windows, as two poll threads do.
 *	On a busy host (the poll threads' guest-wide judgement by the missed
 *	ticks, src/cq_poll_host.c, module parameter ``poll_host_hold``) the
 *	windows shut (``cq_window_host_closed``). A host that keeps the vCPUs
 *	waiting without the ticks seeing it shows in the exchange itself:
 *	once a second, all at once, the threads try their events alone for
 *	20 ms and ride them while they carry the CQ faster than the windows
 *	(cqn_window_ride(), ``cq_window_trials``, ``cq_window_rides``,
 *	module parameter ``adaptive_trials``). While the windows are shut the
 *	thread sleeps and the engine's work item carries the CQ as in
 *	``event`` (``cq_window_shut_wakeups``), on the CPU that took the
 *	event, where one worker runs both ends of an exchange back to back.
 *
 * ``irqpoll``
 *	Like ``event``, without the workqueue hop: the comp_handler schedules
 *	the engine's own irq_poll instance, which empties the CQ in softirq
 *	context (on the CPU that took the event) with a budget of 256 and arms
 *	it again, as the core's ``softirq`` mode does, but with the engine's
 *	moderation, guards, live switches and counters. A missed-events report
 *	schedules it again after it completed. Completion handlers then run in
 *	softirq context, as they do in ``softirq`` mode.
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
 *	Two guards, the silent-CQ watchdog and the storm guard, switch a CQ
 *	from events to polling on a timer for a while (src/cq_guard.c).
 *
 * Live changes of cq_mode (among event, poll, adaptive and irqpoll), moderation and
 * cq_depth quiesce the engine once (cqn_cq_reconfigure()), however many of
 * them one write makes: the handler stops queueing, the poll
 * thread stops, the work item and the moderation timer are cancelled.
 * Completions keep arriving in the CQ meanwhile; the engine then resumes in
 * the new configuration with a wakeup that empties the CQ before arming, so
 * nothing is lost or handled twice. The core's modes own their CQ, so
 * switching into or out of them needs a disable/enable.
 *
 * In every mode each work completion goes to ``wc->wr_cqe->done()``, the
 * same contract as the RDMA core's CQ API, so ib_drain_qp() works.
 */

/* What each cq_mode does, chosen by mode as __ib_alloc_cq() chooses by poll context. */
static const struct cqn_cq_mode_ops *const cqn_cq_modes[] = {
	[CQN_CQ_EVENT] = &cqn_cq_event_ops,
	[CQN_CQ_POLL] = &cqn_cq_poll_ops,
	[CQN_CQ_ADAPTIVE] = &cqn_cq_adaptive_ops,
	[CQN_CQ_SOFTIRQ] = &cqn_cq_softirq_ops,
	[CQN_CQ_WORKQUEUE] = &cqn_cq_workqueue_ops,
	[CQN_CQ_IRQPOLL] = &cqn_cq_irqpoll_ops,
};

static_assert(ARRAY_SIZE(cqn_cq_modes) == CQN_CQ_MODE_COUNT);

/**
 * cqn_cq_change_state() - move the engine from @from to @to, if it is in @from
 * @c: the engine
 * @from: enum cqn_cq_state expected
 * @to: enum cqn_cq_state wanted
 *
 * The work item's transitions (RUNNING <-> FALLBACK) go through here, so a
 * pause, drain or stop that process context set meanwhile is never undone.
 *
 * Context: any.
 * Return: true when the engine moved.
 */
bool cqn_cq_change_state(struct cqn_cq *c, u32 from, u32 to)
{
	return cmpxchg(&c->state, from, to) == from;
}

/**
 * cqn_cq_event_handler() - the CQ's asynchronous events
 * @event: the event
 * @ctx: the engine
 *
 * IB_EVENT_CQ_ERR is a CQ overrun: the provider had a completion to post
 * and no room, and dropped it (rxe raises it from rxe_cq_post(), once per
 * dropped completion, in its tasklet). The sizing rule makes that
 * impossible unless the CQ was undersized on purpose (fault_cq_undersize).
 *
 * Context: the provider's event context, possibly atomic. Must not sleep.
 */
void cqn_cq_event_handler(struct ib_event *event, void *ctx)
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
	c->owner_ops->fatal(c->owner, "CQ overflow: completions lost");
}

/**
 * cqn_cq_own_alloc() - create the CQ of an own mode (event, poll, adaptive)
 * @c: the engine
 * @ibdev: the device
 * @cqe: entries
 * @comp_vector: completion vector
 *
 * Context: process context.
 * Return: 0 or -errno.
 */
int cqn_cq_own_alloc(struct cqn_cq *c, struct ib_device *ibdev, u32 cqe, int comp_vector)
{
	struct ib_cq_init_attr attr = {
		.cqe = cqe,
		.comp_vector = comp_vector,
	};
	struct ib_cq *cq;

	c->wcs = kcalloc(CQN_POLL_BATCH, sizeof(*c->wcs), GFP_KERNEL);
	c->moder.stage = kvcalloc(CQN_SW_MODER_MAX_COUNT, sizeof(*c->moder.stage), GFP_KERNEL);
	if (!c->wcs || !c->moder.stage)
		return -ENOMEM;
	cq = ib_create_cq(ibdev, cqn_cq_comp_handler, cqn_cq_event_handler, c, &attr);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	c->cq = cq;
	return 0;
}

/**
 * cqn_cq_own_free() - destroy the CQ of an own mode
 * @c: the engine
 *
 * The poll arrays stay until the work item is cancelled (cqn_cq_destroy()).
 *
 * Context: process context.
 */
void cqn_cq_own_free(struct cqn_cq *c)
{
	ib_destroy_cq(c->cq);
}

/*
 * Wait out the work item and the timers; none runs again until resumed.
 * The work item may have queued its hop home, which queues it again while
 * the engine is live: the work item, the hop, the work item.
 */
static void cqn_cq_cancel_deferred(struct cqn_cq *c)
{
	cancel_work_sync(&c->work);
	cancel_work_sync(&c->hop);
	cancel_work_sync(&c->work);
	cqn_cq_moder_halt(c);
	cqn_cq_timer_poll_halt(c);
}

/* Stop every context that processes the CQ; completions wait in the CQ. */
static void cqn_cq_quiesce(struct cqn_cq *c, u32 state)
{
	WRITE_ONCE(c->state, state);
	if (c->mode_ops->core)
		return;
	if (c->mode_ops->halt)
		c->mode_ops->halt(c);
	cqn_cq_cancel_deferred(c);
}

/* The live state to return to: falling back while a guard's fallback lasts. */
static u32 cqn_cq_live_state(const struct cqn_cq *c)
{
	return c->guard.cause ? CQN_CQS_FALLBACK : CQN_CQS_RUNNING;
}

/* Resume in the current mode: empty the CQ (and staging), then arm or poll. */
static int cqn_cq_resume(struct cqn_cq *c)
{
	int ret;

	if (c->mode_ops->core) {
		WRITE_ONCE(c->state, CQN_CQS_RUNNING);
		return 0;
	}
	WRITE_ONCE(c->state, cqn_cq_live_state(c));
	ret = c->mode_ops->run(c);
	if (!ret)
		return 0;
	/* Never leave completions unattended: fall back to events. */
	pr_warn_ratelimited("%s: starting the poll thread failed (%pe); using event mode\n",
			    c->name, ERR_PTR(ret));
	c->mode_ops = &cqn_cq_event_ops;
	WRITE_ONCE(c->mode, CQN_CQ_EVENT);
	/* A later reconfigure asking for poll mode tries again. */
	c->params.cq_mode = CQN_CQ_EVENT;
	c->mode_ops->run(c);
	return ret;
}

/**
 * cqn_cq_create() - create a CQ and prepare its engine
 * @ibdev: the device
 * @p: cq_mode, moderation and tuning; p->cq_depth is the size asked for
 * @cqe: entries to create it with (p->cq_depth; smaller only by fault
 *	injection, and a later cqn_cq_reconfigure() with the same cq_depth
 *	leaves it so)
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
 * Return: the engine, or an ERR_PTR(); on error nothing is left to destroy.
 */
struct cqn_cq *cqn_cq_create(struct ib_device *ibdev, const struct cqn_cq_params *p,
			     u32 cqe, int comp_vector, struct cqn_stats *stats,
			     const char *name, const struct cqn_cq_owner *ops, void *owner)
{
	struct cqn_cq *c;
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	strscpy(c->name, name, sizeof(c->name));
	c->stats = stats;
	c->owner_ops = ops;
	c->owner = owner;
	c->caps.resize = ibdev->ops.resize_cq;
	c->caps.modify = ibdev->ops.modify_cq;
	c->caps.max_count = ibdev->attrs.cq_caps.max_cq_moderation_count;
	c->caps.max_period = ibdev->attrs.cq_caps.max_cq_moderation_period;
	c->caps.max_cqe = ibdev->attrs.max_cqe;
	c->comp_vector = comp_vector;
	c->params = *p;
	c->mode = p->cq_mode;
	c->mode_ops = cqn_cq_modes[c->mode];
	c->state = CQN_CQS_PAUSED;
	spin_lock_init(&c->lock);
	mutex_init(&c->poll_cpus_lock);
	INIT_LIST_HEAD(&c->gone);
	INIT_WORK(&c->work, cqn_cq_work);
	INIT_WORK(&c->hop, cqn_cq_home_hop);
	c->work_cpu = WORK_CPU_UNBOUND;
	cqn_cq_irqpoll_init(c);
	cqn_cq_moder_init(c);
	cqn_cq_guard_init(c);
	atomic_set(&c->faults.drop_events, 0);

	ret = c->mode_ops->alloc(c, ibdev, cqe, comp_vector);
	if (ret)
		goto err_alloc;
	ret = cqn_cq_moder_apply(c);
	if (ret) {
		pr_warn_ratelimited("%s: setting moderation failed: %pe\n", c->name, ERR_PTR(ret));
		goto err_moder;
	}
	return c;

err_moder:
	cqn_cq_core_forget_dim(c);
	c->mode_ops->free(c);
err_alloc:
	kvfree(c->moder.stage);
	kfree(c->wcs);
	mutex_destroy(&c->poll_cpus_lock);
	kfree(c);
	return ERR_PTR(ret);
}

ALLOW_ERROR_INJECTION(cqn_cq_create, ERRNO);

/**
 * cqn_cq_set_home() - the CPU a busy engine's work goes to
 * @c: the engine, not yet started
 * @cpu: a CPU, or WORK_CPU_UNBOUND: none
 *
 * A shared engine of cq_share=cpu starts on its group's CPU and goes back
 * there whenever a wakeup finds a backlog (cqn_cq_queue_work()), so under
 * a load of many QPs the groups' engines share the CPUs whichever CPU the
 * provider raises their events on (rxe has one completion vector); an
 * engine that finds a completion or two at a time stays on its events'
 * CPU.
 *
 * Context: process context, before cqn_cq_start().
 */
void cqn_cq_set_home(struct cqn_cq *c, int cpu)
{
	WRITE_ONCE(c->work_cpu, cpu);
}

/**
 * cqn_cq_start() - start learning about completions
 * @c: the engine
 *
 * Own modes: the first wakeup empties the CQ and arms it (event, adaptive),
 * or the poll thread starts. Core modes: nothing to do.
 *
 * Context: process context.
 * Return: 0 or -errno (the engine stays paused).
 */
int cqn_cq_start(struct cqn_cq *c)
{
	int ret;

	WRITE_ONCE(c->state, CQN_CQS_RUNNING);
	if (c->mode_ops->core)
		return 0;
	cqn_cq_guard_start(c);
	ret = c->mode_ops->run(c);
	if (ret)
		WRITE_ONCE(c->state, CQN_CQS_PAUSED);
	return ret;
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
	u32 old;

	if (c->mode_ops->core)
		return;
	old = xchg(&c->state, CQN_CQS_DRAINING);
	if (old == CQN_CQS_RUNNING || old == CQN_CQS_FALLBACK)
		cqn_cq_kick(c);
}

/**
 * cqn_cq_drain_end() - back from a drain to the mode's way of learning
 * @c: the engine, its other QPs still running
 *
 * A shared engine drains one QP at a time while it serves the others: the
 * drain over, the event and adaptive modes process the CQ once and arm it
 * again; poll mode keeps polling.
 *
 * Context: process context.
 */
void cqn_cq_drain_end(struct cqn_cq *c)
{
	if (c->mode_ops->core)
		return;
	if (cqn_cq_change_state(c, CQN_CQS_DRAINING, cqn_cq_live_state(c)) &&
	    c->mode_ops->events)
		cqn_cq_kick(c);
}

/**
 * cqn_cq_qp_going() - a QP may leave completions behind when destroyed
 * @c: the engine, serving other QPs too
 * @g: the QP's entry, not on a list
 * @qp: the QP, not destroyed yet
 * @ctx: its qp_context
 *
 * After a short drain a QP's completions may come after it is destroyed,
 * handed over by the engine's wakeups or by cqn_cq_flush(): their
 * handlers then find the QP's context with cqn_wc_qp_context(), not
 * through wc->qp, which points to freed memory. Entries are matched by
 * address alone: a QP created at @qp's address before cqn_cq_qp_gone()
 * would be taken for it, which needs it connected and receiving within
 * the few milliseconds between the destroy and the flush; not guarded.
 *
 * Context: process context; the caller serialises changes to the engine.
 */
void cqn_cq_qp_going(struct cqn_cq *c, struct cqn_cq_gone *g, const struct ib_qp *qp, void *ctx)
{
	g->qp = qp;
	g->ctx = ctx;
	list_add_rcu(&g->node, &c->gone);
}

/**
 * cqn_cq_qp_gone() - the CQ holds nothing of a destroyed QP's any more
 * @c: the engine
 * @g: the QP's entry (cqn_cq_qp_going()), or one on no list
 *
 * Waits until no handler can still be reading @g.
 *
 * Context: process context; the caller serialises changes to the engine.
 */
void cqn_cq_qp_gone(struct cqn_cq *c, struct cqn_cq_gone *g)
{
	if (list_empty(&g->node))
		return;
	list_del_rcu(&g->node);
	synchronize_rcu();
	INIT_LIST_HEAD(&g->node);
}

/**
 * cqn_wc_qp_context() - the qp_context of the QP a completion belongs to
 * @cq: the CQ it was polled from, one of an engine's
 * @wc: the completion
 *
 * wc->qp->qp_context, or for a QP that may be destroyed already
 * (cqn_cq_qp_going()) what its context was, without reading it.
 *
 * Context: a completion handler of an engine's CQ.
 * Return: the QP's context.
 */
void *cqn_wc_qp_context(struct ib_cq *cq, const struct ib_wc *wc)
{
	struct cqn_cq *c = cq->cq_context;
	struct cqn_cq_gone *g;
	void *ctx = NULL;

	if (likely(list_empty(&c->gone)))
		return wc->qp->qp_context;
	rcu_read_lock();
	list_for_each_entry_rcu(g, &c->gone, node) {
		if (g->qp == wc->qp) {
			ctx = g->ctx;
			break;
		}
	}
	rcu_read_unlock();
	return ctx ?: wc->qp->qp_context;
}

/**
 * cqn_cq_flush() - hand over, from process context, everything the CQ holds
 * @c: the engine, serving other QPs
 *
 * A QP whose drain ended short (a marker that never came, work requests
 * never seen completing) is destroyed while its engine serves other QPs:
 * completions of its work requests may already sit in the CQ, and must
 * reach its handlers before its buffers are freed (destroyed, it adds no
 * more; its handlers find it with cqn_wc_qp_context()). Own modes: the engine
 * pauses, the CQ (and software moderation's staging) is emptied here, and
 * the engine resumes in its mode. The core's modes: the core's processing
 * is stopped, the CQ emptied here and the core started again
 * (cqn_cq_core_flush()).
 *
 * Bounded: completions are handed over in CQ order, staged ones first, so
 * once as many as the CQ and the staging can hold were handed over, all
 * those there at the start are; the other QPs' traffic, which keeps
 * coming, is left to the engine.
 *
 * Context: process context; the caller serialises changes to the engine.
 * Return: the completions handed over here.
 */
int cqn_cq_flush(struct cqn_cq *c)
{
	int n, done = 0, limit;

	if (c->mode_ops->core)
		return cqn_cq_core_flush(c);
	cqn_cq_quiesce(c, CQN_CQS_PAUSED);
	limit = c->cq->cqe + CQN_SW_MODER_MAX_COUNT;
	do {
		n = cqn_cq_process(c, min(CQN_EVENT_BUDGET, limit - done), false);
		done += n;
		cond_resched();
	} while (n && done < limit);
	cqn_cq_resume(c);
	return done;
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
	WRITE_ONCE(c->state, CQN_CQS_STOPPED);
	if (c->mode_ops->core)
		return;
	cqn_cq_guard_stop(c);
	cqn_cq_quiesce(c, CQN_CQS_STOPPED);
}

/**
 * cqn_cq_destroy() - destroy the CQ and free the engine
 * @c: the engine, stopped (or never started)
 *
 * Context: process context.
 */
void cqn_cq_destroy(struct cqn_cq *c)
{
	WRITE_ONCE(c->state, CQN_CQS_STOPPED);
	cqn_cq_core_forget_dim(c);
	c->mode_ops->free(c);
	/* A handler that ran before the CQ was gone may have queued work. */
	cqn_cq_guard_stop(c);
	cqn_cq_cancel_deferred(c);
	cqn_cq_spin_stop(c);
	kvfree(c->moder.stage);
	kfree(c->wcs);
	mutex_destroy(&c->poll_cpus_lock);
	kfree(c);
}

/*
 * The tuning that needs no quiesce: the handlers read each value once per
 * use. A running poll thread takes its new priority and moves to the new
 * CPU at once (under poll_cpus_lock: a hold of the thread's own, begun
 * before it saw the new poll_cpu, must not move it back); adaptive mode's
 * thread takes the new priority.
 */
static void cqn_cq_take_tuning(struct cqn_cq *c, const struct cqn_cq_params *p)
{
	s32 cpu = p->poll_cpu;

	WRITE_ONCE(c->params.solicited_only, p->solicited_only);
	WRITE_ONCE(c->params.poll_window_max_us, p->poll_window_max_us);
	WRITE_ONCE(c->params.poll_idle_us, p->poll_idle_us);
	if (p->poll_priority != c->params.poll_priority) {
		WRITE_ONCE(c->params.poll_priority, p->poll_priority);
		if (c->poller)
			set_user_nice(c->poller, cqn_cq_poll_nice(p->poll_priority));
		if (c->spinner)
			set_user_nice(c->spinner, cqn_cq_poll_nice(p->poll_priority));
	}
	WRITE_ONCE(c->params.max_events_per_ms, p->max_events_per_ms);
	cqn_cq_guard_retime(c, p->watchdog_ms);
	if (c->window_us > p->poll_window_max_us)
		WRITE_ONCE(c->window_us, p->poll_window_max_us);
	if (cpu == c->params.poll_cpu)
		return;
	mutex_lock(&c->poll_cpus_lock);
	WRITE_ONCE(c->params.poll_cpu, cpu);
	if (c->poller)
		set_cpus_allowed_ptr(c->poller, cpu >= 0 && cpu_online(cpu) ?
				     cpumask_of(cpu) : cpu_possible_mask);
	mutex_unlock(&c->poll_cpus_lock);
}

/* Quiesced: switch to @mode, which cqn_cq_mode_switch_check() allowed. */
static void cqn_cq_switch_mode(struct cqn_cq *c, u32 mode)
{
	u32 from = c->mode;

	c->mode_ops = cqn_cq_modes[mode];
	WRITE_ONCE(c->mode, mode);
	c->params.cq_mode = mode;
	c->window_us = 0;
	WRITE_ONCE(c->spin_rides.trial_pct, 0);
	cqn_stat_inc(c->stats, CQN_STAT_cq_mode_switches);
	trace_cqn_cq_mode_switch(c, cqn_cq_mode_names[from], cqn_cq_mode_names[mode]);
}

/* Quiesced (own modes): resize the CQ, keeping its size on error. */
static int cqn_cq_resize(struct cqn_cq *c, u32 cqe, u32 max_posted)
{
	int ret;

	ret = cqn_cq_resize_check(cqe, max_posted, c->caps.max_cqe, c->caps.resize);
	if (!ret)
		ret = ib_resize_cq(c->cq, cqe);
	if (ret)
		return ret;
	c->params.cq_depth = cqe;
	cqn_stat_inc(c->stats, CQN_STAT_cq_resizes);
	return 0;
}

/**
 * cqn_cq_reconfigure() - make a running engine match @p
 * @c: the engine
 * @p: the live-tunable attributes (struct cqn_cq_params)
 * @max_posted: work requests that can be outstanding on the CQ at once
 *	(for the resize rule)
 *
 * Takes what differs from what the engine runs with: tuning at once; a
 * new cq_mode (among event, poll, adaptive and irqpoll), moderation and cq_depth
 * under one quiesce of the engine, then one resume that empties the CQ
 * before arming, so nothing is lost or handled twice. Idempotent.
 *
 * Context: process context; the caller serialises changes to one engine.
 * Return: 0 or the first -errno: -EBUSY for a switch into, out of or
 * between core modes (see cqn_cq_mode_switch_check()), or the device's or
 * cqn_cq_resize_check()'s error; what failed keeps its previous setting.
 * A poll thread that cannot start leaves the engine in event mode.
 */
int cqn_cq_reconfigure(struct cqn_cq *c, const struct cqn_cq_params *p, u32 max_posted)
{
	bool mode = p->cq_mode != c->params.cq_mode;
	bool moder = p->cq_count != c->params.cq_count || p->cq_period != c->params.cq_period ||
		     p->adaptive_moderation != c->params.adaptive_moderation;
	bool depth = p->cq_depth != c->params.cq_depth;
	int ret = 0, err;

	cqn_cq_take_tuning(c, p);
	if (mode) {
		ret = cqn_cq_mode_switch_check(c->params.cq_mode, p->cq_mode);
		if (ret)
			return ret;
	}
	if (!mode && !moder && !depth)
		return 0;
	cqn_cq_quiesce(c, CQN_CQS_PAUSED);
	if (mode)
		cqn_cq_switch_mode(c, p->cq_mode);
	if (moder) {
		c->params.cq_count = p->cq_count;
		c->params.cq_period = p->cq_period;
		c->params.adaptive_moderation = p->adaptive_moderation;
		cqn_cq_moder_restart(c);
	}
	/* Software moderation exists only in event and adaptive modes. */
	if (mode || moder)
		ret = cqn_cq_moder_apply(c);
	if (depth) {
		err = cqn_cq_resize(c, p->cq_depth, max_posted);
		ret = ret ?: err;
	}
	err = cqn_cq_resume(c);
	return ret ?: err;
}

/**
 * cqn_cq_ib() - the verbs CQ, for the QPs the engine serves
 * @c: the engine
 *
 * Context: any.
 * Return: the CQ; its cqe is its size as the provider made it.
 */
struct ib_cq *cqn_cq_ib(struct cqn_cq *c)
{
	return c->cq;
}

/**
 * cqn_cq_mode() - the cq_mode the engine runs in
 * @c: the engine
 *
 * Context: any.
 * Return: enum cqn_cq_mode; event when a switch to poll mode could not start
 * its thread.
 */
u32 cqn_cq_mode(struct cqn_cq *c)
{
	return READ_ONCE(c->mode);
}

/**
 * cqn_cq_comp_vector() - the completion vector the CQ was created on
 * @c: the engine
 *
 * Context: any.
 * Return: the vector.
 */
int cqn_cq_comp_vector(struct cqn_cq *c)
{
	return c->comp_vector;
}
