// SPDX-License-Identifier: GPL-2.0
/*
 * The adaptive mode: event mode's engine run by a kernel thread of its own
 * (cqn-adapt/<name>), which keeps polling for a window after the CQ ran
 * empty before it arms the CQ and sleeps. The comp_handler wakes the
 * thread; while completions keep coming inside the window no event is
 * taken and nothing is woken, as in poll mode. The thread runs at
 * poll_priority's nice value (19 by default), so whatever else its CPU
 * has to do (6.12's rxe runs its requester and completer as work items;
 * the connection manager) preempts the window instead of closing it.
 *
 * A thread and not a work item: the scheduler places a woken thread on an
 * idle CPU, where a work item runs on the CPU that queued it. On rxe the
 * peer's completion event is raised on the CPU that sent the packet, so
 * two work items (the two ends of an exchange in one guest) took turns on
 * one vCPU, each window yielding to the other's wakeup; two threads spin
 * on two vCPUs and catch each other's messages without an event.
 *
 * On a busy host those two spinning vCPUs are two the host must run at
 * once, and the exchange falls to a fraction of event mode's rate. The
 * thread takes the guest-wide judgement of the host the poll threads make
 * (src/cq_poll_host.c): while its hold is on, no window opens
 * (``cq_window_host_closed``). A host that takes vCPUs away for less than
 * a tick at a time misses few ticks and still keeps the two vCPUs of a
 * polled exchange waiting for each other, so the thread also measures the
 * exchange itself: once a second it tries the events alone for 20 ms, and
 * rides them while they hand completions over faster than its windows did
 * (cqn_window_ride(), ``cq_window_trials``, ``cq_window_rides``; what the
 * last trial found: ``poll_window_trial_pct``).
 *
 * While no window opens the windows are shut: the thread arms the CQ and
 * sleeps, and event mode's work item takes the wakeups
 * (``cq_window_shut_wakeups``), on the CPU that took the event, where one
 * worker can run both ends of an exchange back to back; woken threads
 * took turns there at about half its rate. The work item looks at the
 * host and the ride after each wakeup, and hands the CQ back to the
 * thread, unarmed, when the windows open again. Only one of the two
 * processes the CQ at a time: a kick goes to the one whose turn it is
 * (@spin_shut), and the thread shuts the windows only once its wakeup has
 * armed the CQ, passing on a kick that came meanwhile.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/stat.h>

#include "cq.h"

/* c->spin_kicked: a wakeup is wanted. */
#define CQN_SPIN_KICKED	0

static bool adaptive_trials = true;
module_param(adaptive_trials, bool, 0644);
MODULE_PARM_DESC(adaptive_trials,
		 "adaptive threads try their events alone once a second and ride them while they carry the CQ faster than the windows (default: 1; 0: the windows always open)");

static void cqn_cq_spin_kick(struct cqn_cq *c);

/*
 * Does this wakeup's window stay shut for a trial or a ride of the events
 * alone (cqn_window_ride())? @n completions were handed over since the
 * last look. With adaptive_trials 0 no trial runs, and one under way ends.
 */
static bool cqn_cq_window_rides(struct cqn_cq *c, u32 n, u64 now)
{
	struct cqn_window_rides *w = &c->spin_rides;
	bool riding = w->riding, won = w->won;

	if (!READ_ONCE(adaptive_trials)) {
		w->last_ns = 0;
		return false;
	}
	if (!cqn_window_ride(w, n, now))
		return false;
	if (!riding)
		cqn_stat_inc(c->stats, CQN_STAT_cq_window_trials);
	else if (won || w->won)
		cqn_stat_inc(c->stats, CQN_STAT_cq_window_rides);
	return true;
}

/*
 * Are the windows shut after this wakeup, @seen completions handed over
 * since the last look? While the hold for the host is on (a window would
 * spin on a vCPU the host must run beside the one whose completion it
 * waits for; src/cq_poll_host.c), and while a trial or a ride of the
 * events alone goes on. The window keeps its length for after.
 */
static bool cqn_cq_windows_shut(struct cqn_cq *c, u32 seen, u64 now)
{
	if (cqn_poll_host_look(c, &c->spin_host, now)) {
		/* Held for the host, the windows measure nothing: trials start over. */
		c->spin_rides.last_ns = 0;
		cqn_stat_inc(c->stats, CQN_STAT_cq_window_host_closed);
		return true;
	}
	return c->window_us && cqn_cq_window_rides(c, seen, now);
}

/*
 * The work item's look after a wakeup while the windows are shut: unless
 * they stay shut, the thread takes the CQ back, unarmed: returns true, and
 * the work item touches the CQ no more.
 */
static bool cqn_cq_shut_look(struct cqn_cq *c, int done)
{
	u64 now = cqn_cq_clock();

	c->window_start_ns = now;
	if (cqn_cq_windows_shut(c, done, now))
		return false;
	c->spin_handed = true;
	WRITE_ONCE(c->spin_shut, false);
	cqn_cq_spin_kick(c);
	return true;
}

/*
 * Keep polling for the window after the CQ ran empty. Returns true when the
 * budget ran out, or a trial of the events alone is due (the caller starts
 * another wakeup at once, which looks).
 */
static bool cqn_cq_window_poll(struct cqn_cq *c, int done)
{
	u64 start = cqn_cq_clock(), now, due;
	u32 max_us, seen;
	int n;

	if (current != c->spinner)
		return cqn_cq_shut_look(c, done);
	c->window_start_ns = start;
	seen = c->spin_seen + done;
	c->spin_seen = 0;
	if (!c->window_us) {
		/*
		 * No window to judge for (traffic stopped, or a zero bound):
		 * the trials start over with the traffic.
		 */
		c->spin_rides.last_ns = 0;
		return false;
	}
	/* Shut: the work item takes over once this wakeup armed the CQ. */
	c->spin_to_shut = cqn_cq_windows_shut(c, seen, start);
	if (c->spin_to_shut)
		return false;
	due = c->spin_rides.last_ns ? c->spin_rides.due_ns : U64_MAX;
	while (c->window_us) {
		n = cqn_cq_busy_poll(c, CQN_EVENT_BUDGET - done, false);
		now = cqn_cq_clock();
		/*
		 * Read at each decision: a window that keeps catching
		 * completions would otherwise go on under the bound it
		 * started with after poll_window_max_us was lowered live.
		 */
		max_us = READ_ONCE(c->params.poll_window_max_us);
		if (n) {
			cqn_stat_add(c->stats, CQN_STAT_cq_window_hits, n);
			WRITE_ONCE(c->window_us, cqn_adaptive_window_next(c->window_us, max_us,
									  CQN_WIN_HIT, 0));
			c->spin_seen += n;
			done += n;
			if (done >= CQN_EVENT_BUDGET || now >= due)
				return true;
			start = now;
			c->window_start_ns = now;
		} else if (now - start >= (u64)c->window_us * NSEC_PER_USEC) {
			WRITE_ONCE(c->window_us, cqn_adaptive_window_next(c->window_us, max_us,
									  CQN_WIN_EMPTY, 0));
			break;
		} else if (!single_task_running()) {
			/*
			 * Another task wants this CPU: rxe's work (6.12), the
			 * peer's thread, the connection manager. One that
			 * preempts this thread runs now (cond_resched() below)
			 * and the window goes on; otherwise the window closes
			 * and the thread sleeps, the CQ armed.
			 */
			cqn_stat_inc(c->stats, CQN_STAT_cq_window_yields);
			if (!need_resched())
				break;
		}
		if (!cqn_cq_live(c))
			break;
		cond_resched();
	}
	/* Closed: the next event's gap counts from the arm that follows. */
	if (!c->window_us)
		c->window_start_ns = cqn_cq_clock();
	return false;
}

/* An event that a window of at most poll_window_max_us would have caught. */
static void cqn_cq_window_event(struct cqn_cq *c, u64 ev)
{
	u32 w;

	if (ev <= c->window_start_ns)
		return;
	w = cqn_adaptive_window_next(c->window_us, READ_ONCE(c->params.poll_window_max_us),
				     CQN_WIN_EVENT, ev - c->window_start_ns);
	WRITE_ONCE(c->window_us, w);
}

/*
 * The windows shut, the CQ armed: the work item takes the wakeups from
 * here, and one the thread was kicked for meanwhile.
 */
static void cqn_cq_spin_shut(struct cqn_cq *c)
{
	WRITE_ONCE(c->spin_shut, true);
	/* The store before the test of the kick bit: cqn_cq_spin_kick(). */
	smp_mb();
	if (test_and_clear_bit(CQN_SPIN_KICKED, &c->spin_kicked))
		cqn_cq_queue_work(c);
}

/*
 * The work item while the windows are shut: event mode's wakeup. It is
 * the thread's turn again once the work item handed the CQ back; a kick
 * that queued this just before then finds nothing to do.
 */
static void cqn_cq_shut_work(struct cqn_cq *c)
{
	if (!READ_ONCE(c->spin_shut))
		return;
	cqn_stat_inc(c->stats, CQN_STAT_cq_window_shut_wakeups);
	c->spin_handed = false;
	if (cqn_cq_task_wakeup(c) && !c->spin_handed)
		cqn_cq_queue_work(c);
}

/*
 * The thread: sleeps until kicked (an event, a guard, moderation's timer,
 * a missed-events report), then runs a wakeup. Parked while the engine is
 * quiesced; stopped when the engine is destroyed.
 */
static int cqn_cq_spin_thread(void *arg)
{
	struct cqn_cq *c = arg;

	cqn_poll_host_join(c, &c->spin_host, cqn_cq_clock());
	while (!kthread_should_stop()) {
		if (kthread_should_park()) {
			kthread_parkme();
			continue;
		}
		set_current_state(TASK_INTERRUPTIBLE);
		if (!test_and_clear_bit(CQN_SPIN_KICKED, &c->spin_kicked)) {
			if (!kthread_should_stop() && !kthread_should_park())
				schedule();
			__set_current_state(TASK_RUNNING);
			continue;
		}
		__set_current_state(TASK_RUNNING);
		if (READ_ONCE(c->spin_shut)) {
			/* A kick that found the windows open: the work item's. */
			cqn_cq_queue_work(c);
			continue;
		}
		/* Another wakeup at once: the CQ stays unarmed; others run first. */
		if (cqn_cq_live(c) && cqn_cq_task_wakeup(c))
			set_bit(CQN_SPIN_KICKED, &c->spin_kicked);
		else if (c->spin_to_shut)
			cqn_cq_spin_shut(c);
		c->spin_to_shut = false;
		cond_resched();
	}
	cqn_poll_host_leave();
	return 0;
}

/*
 * A wakeup: the work item's while the windows are shut; otherwise flag it
 * and wake the thread (a parked one takes it when it runs again).
 * Context: any; the comp_handler's, which must not sleep.
 */
static void cqn_cq_spin_kick(struct cqn_cq *c)
{
	struct task_struct *p = READ_ONCE(c->spinner);

	if (READ_ONCE(c->spin_shut)) {
		cqn_cq_queue_work(c);
		return;
	}
	/*
	 * The work item's hand-back stored what the thread reads (spin_shut
	 * false, the window's start) before this: a thread that finds the
	 * bit without sleeping must see them too.
	 */
	smp_mb__before_atomic();
	set_bit(CQN_SPIN_KICKED, &c->spin_kicked);
	if (p)
		wake_up_process(p);
}

/*
 * Start (the first time: create) the thread with a wakeup that empties the
 * CQ before arming it.
 */
static int cqn_cq_spin_run(struct cqn_cq *c)
{
	struct task_struct *p = c->spinner;

	/*
	 * Parked or not yet started, the work item cancelled: the thread
	 * takes the CQ, and the trials start over with this run.
	 */
	c->spin_rides.last_ns = 0;
	c->spin_seen = 0;
	c->spin_shut = false;
	c->spin_to_shut = false;
	if (!p) {
		p = kthread_create(cqn_cq_spin_thread, c, "cqn-adapt/%s", c->name);
		if (IS_ERR(p))
			return PTR_ERR(p);
		set_user_nice(p, cqn_cq_poll_nice(READ_ONCE(c->params.poll_priority)));
		WRITE_ONCE(c->spinner, p);
	} else {
		kthread_unpark(p);
	}
	cqn_cq_spin_kick(c);
	return 0;
}

/*
 * Wait out a wakeup in progress and park the thread; none runs until
 * cqn_cq_spin_run(). The thread stays (a handler may still wake it) until
 * cqn_cq_spin_stop(). Process context.
 */
static void cqn_cq_spin_halt(struct cqn_cq *c)
{
	if (c->spinner)
		kthread_park(c->spinner);
}

/**
 * cqn_cq_spin_stop() - end adaptive mode's thread, if the engine has one
 * @c: the engine, its CQ destroyed and its timers cancelled, so nothing
 *	can wake the thread any more
 *
 * Context: process context.
 */
void cqn_cq_spin_stop(struct cqn_cq *c)
{
	if (!c->spinner)
		return;
	kthread_stop(c->spinner);
	c->spinner = NULL;
}

const struct cqn_cq_mode_ops cqn_cq_adaptive_ops = {
	.alloc = cqn_cq_own_alloc,
	.free = cqn_cq_own_free,
	.run = cqn_cq_spin_run,
	.halt = cqn_cq_spin_halt,
	.kick = cqn_cq_spin_kick,
	.work = cqn_cq_shut_work,
	.after_empty = cqn_cq_window_poll,
	.event_seen = cqn_cq_window_event,
	.events = true,
};

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
 * cqn_cq_window_trial_pct() - what adaptive mode's last trial of the events
 *	alone found
 * @c: the engine
 *
 * Context: any.
 * Return: the events' completions a second in that trial, in % of the
 * windows' before it (cqn_window_trial_pct()); 0 outside adaptive mode and
 * before its first trial.
 */
u32 cqn_cq_window_trial_pct(struct cqn_cq *c)
{
	return READ_ONCE(c->spin_rides.trial_pct);
}
