// SPDX-License-Identifier: GPL-2.0
/*
 * The poll mode: a kernel thread per CQ busy-polls it and arms it only to
 * nap. Once the CQ has been empty for poll_idle_us the thread naps between
 * polls, 10 us first, doubling to 1 ms (cqn_poll_nap_next(),
 * ``cq_poll_naps``). A completion that the first nap's event hands over
 * came just after the thread stopped spinning: it spins twice that gap
 * from then on, up to CQN_POLL_SPIN_MAX_X times poll_idle_us and 1 ms (a
 * gap some other task's run made teaches nothing), and each nap that
 * hands nothing over halves that again (cqn_poll_spin_next(),
 * ``poll_spin_us``), so a reply slower than poll_idle_us (6.12's rxe:
 * about 110 us) is polled, not taken by an event; and after a nap whose
 * event handed completions over the CQ counts as empty only from the last
 * of them, so the thread spins again instead of napping on while the
 * exchange goes on. An idle endpoint's thread stops holding a CPU, and on
 * a shared host a spinning vCPU stops taking the host CPU its peer's vCPU
 * needs to answer. A nap arms the CQ first: a completion that arrives
 * while the thread sleeps raises an event, and event mode's work item
 * hands it over on the CPU that took the event (``cq_nap_wakeups``), so an
 * exchange does not wait for the napping thread's vCPU (on a busy host,
 * for the host to run it). When the nap ends the thread takes the CQ back,
 * waiting out a wakeup of the work item in progress: the two never process
 * the CQ at once. It leaves the CQ to the events for another nap instead
 * (``cq_poll_rides``, cqn_poll_ride()) once they hand completions over a
 * quarter faster per second of napping than the thread did per second of
 * holding the CQ, and while they keep three quarters of its rate: on a
 * host with no CPU to spare, or on a CPU the thread shares, an exchange
 * that needs both peers' polling vCPUs running at once moves slower than
 * one the events carry on whichever vCPU runs; every CQN_POLL_RIDE_MAX_MS
 * it takes the CQ back to measure itself again. A pass of the loop that
 * found the CQ empty, ran nothing else on its CPU and still took a
 * millisecond (cqn_poll_stolen()) lost its vCPU to the host
 * (``cq_poll_steals``): for CQN_POLL_STEAL_HOLD_MS after one the thread
 * naps as soon as the CQ is empty, whatever poll_idle_us, so that on a
 * host with no CPU to spare the vCPU that would answer gets the time this
 * one would spin away; the spin it learned goes back to poll_idle_us. A
 * ride or a steal also holds the thread to one CPU for CQN_POLL_FOLLOW_MS
 * (``cq_poll_follows``, cqn_poll_follow()): the one that takes its CQ's
 * events if lower-numbered, else its own, so that on a busy host both
 * peers of a guest and the provider's work share one vCPU and the other
 * halts. The poll threads also judge their host together, by how much of
 * the guest's busy time the scheduler tick accounted (src/cq_poll_host.c,
 * ``cq_poll_host_windows``, ``cq_poll_host_busy``): a host that does not
 * run a vCPU stops its tick while the guest's clock runs on, so a busy
 * host shows as busy time the tick missed, in a stream too, where passes
 * always find work and neither steals nor rides say it. While the host
 * is busy every poll thread is held to the lowest CPU it may run on
 * (``cq_poll_host_holds``), where they all meet. A thread that may run
 * on one CPU alone (held, or bound by poll_cpu), shares it with another
 * such poll thread (cqn_poll_turn_shared()) and finds its CQ empty while
 * a task waits for that CPU yields it at once (cqn_cq_poll_give_way(),
 * ``cq_poll_yields``): two held peers pass each message on by a switch,
 * not by a spin and a nap's event. poll_idle_us 0 spins always and never
 * yields. The thread runs
 * at nice 19 unless poll_priority is normal: the tasks it would otherwise
 * share its CPU with (the connection manager's work, rxe's, ksoftirqd) run
 * first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interrupt.h>
#include <linux/kernel_stat.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/sched/stat.h>

#include "cq.h"

/* c->nap: the thread naps with the CQ armed; the work item processes it. */
#define CQN_NAP_ARMED	0
#define CQN_NAP_BUSY	1

/* Completions the poll thread handles between two cond_resched() calls. */
#define CQN_POLL_BUDGET		64

/* Another poll thread passed its loop on this CPU so lately: it shares it. */
#define CQN_POLL_TURN_NS	(50 * NSEC_PER_MSEC)

/*
 * Before a nap: let the work item process the CQ, and arm it. False when
 * the arm reports completions already there (poll at once, no nap).
 */
static bool cqn_cq_nap_arm(struct cqn_cq *c)
{
	set_bit(CQN_NAP_ARMED, &c->nap);
	/* The flag before the arm: an event the arm allows finds it set. */
	smp_mb__after_atomic();
	return cqn_cq_arm(c) <= 0;
}

/*
 * After a nap: take the CQ back. A wakeup of the work item that saw
 * CQN_NAP_ARMED before it was cleared is waited out; one bounded by
 * CQN_EVENT_BUDGET completions.
 */
static void cqn_cq_nap_end(struct cqn_cq *c)
{
	clear_bit(CQN_NAP_ARMED, &c->nap);
	/* Pairs with cqn_cq_nap_work()'s: one of the two sees the other's bit. */
	smp_mb__after_atomic();
	while (test_bit(CQN_NAP_BUSY, &c->nap))
		usleep_range(5, 10);
}

/*
 * The comp_handler's kick (and teardown's): while the thread naps, queue
 * the work item on this CPU; otherwise the thread polls anyway.
 */
static void cqn_cq_nap_kick(struct cqn_cq *c)
{
	if (test_bit(CQN_NAP_ARMED, &c->nap))
		queue_work(cqn_wq, &c->work);
}

/*
 * The work item, in poll mode: hand over what the CQ holds while the thread
 * naps, and arm the CQ again (running, not draining).
 */
static void cqn_cq_nap_work(struct cqn_cq *c)
{
	u64 t0 = cqn_cq_clock();
	bool again = false;
	int n;

	if (test_and_set_bit(CQN_NAP_BUSY, &c->nap))
		return;
	/* Pairs with cqn_cq_nap_end()'s: one of the two sees the other's bit. */
	smp_mb__after_atomic();
	if (test_bit(CQN_NAP_ARMED, &c->nap)) {
		WRITE_ONCE(c->from_event, false);
		cqn_stat_inc(c->stats, CQN_STAT_cq_nap_wakeups);
		n = cqn_cq_process(c, CQN_EVENT_BUDGET, true);
		if (n > 0) {
			if (!c->nap_hit_ns)
				WRITE_ONCE(c->nap_hit_ns, t0);
			WRITE_ONCE(c->nap_last_ns, t0);
			WRITE_ONCE(c->nap_carried, c->nap_carried + n);
			/* cqn_wq is per CPU: this is the CPU that took the event. */
			WRITE_ONCE(c->nap_cpu, raw_smp_processor_id());
		}
		if (n >= CQN_EVENT_BUDGET)
			again = true;
		else if (READ_ONCE(c->state) == CQN_CQS_RUNNING)
			again = cqn_cq_arm(c) > 0;
	}
	clear_bit_unlock(CQN_NAP_BUSY, &c->nap);
	cqn_stat_add(c->stats, CQN_STAT_cpu_ns, cqn_cq_clock() - t0);
	if (again)
		cqn_cq_nap_kick(c);
}

/*
 * A pass of the poll loop, as cqn_poll_stolen() judges it: when it began,
 * and what would show that something else ran on its CPU meanwhile.
 */
struct cqn_poll_pass {
	u64 start;
	unsigned long switches;
	unsigned int softirqs;
	int cpu;
	bool empty;
};

/* The softirqs that do a provider's or the network's work on @cpu so far. */
static unsigned int cqn_poll_work_softirqs(int cpu)
{
	return kstat_softirqs_cpu(NET_TX_SOFTIRQ, cpu) + kstat_softirqs_cpu(NET_RX_SOFTIRQ, cpu) +
	       kstat_softirqs_cpu(TASKLET_SOFTIRQ, cpu) + kstat_softirqs_cpu(IRQ_POLL_SOFTIRQ, cpu);
}

/*
 * Start a pass at @now; true when the one before it, which found the CQ
 * empty, was stolen by the host. (The first pass's predecessor, all zero,
 * found nothing empty.)
 */
static bool cqn_poll_pass_start(struct cqn_poll_pass *p, u64 now)
{
	unsigned long switches = current->nvcsw + current->nivcsw;
	int cpu = raw_smp_processor_id();
	unsigned int softirqs = cqn_poll_work_softirqs(cpu);
	bool quiet = p->empty && p->cpu == cpu && p->switches == switches &&
		     p->softirqs == softirqs;
	bool stolen = cqn_poll_stolen(now - p->start, quiet);

	*p = (struct cqn_poll_pass){ .start = now, .switches = switches,
				     .softirqs = softirqs, .cpu = cpu };
	return stolen;
}

/*
 * The thread's nap, the CQ armed (cqn_cq_nap_arm()): sleep @nap
 * microseconds, and again, the CQ left armed, while cqn_poll_ride() says the
 * naps' events hand completions over faster than the thread did while it
 * held the CQ (``cq_poll_rides``). @r gets each sleep's figures.
 * Return: it rode: the events carried the CQ for a nap after the first.
 */
static bool cqn_cq_poll_nap(struct cqn_cq *c, u32 nap, struct cqn_poll_rates *r)
{
	u64 t0, now, ride_start = cqn_cq_clock();
	bool riding = false;
	u32 carried;

	for (;;) {
		carried = READ_ONCE(c->nap_carried);
		t0 = cqn_cq_clock();
		usleep_range(nap, nap + nap / 4 + 1);
		now = cqn_cq_clock();
		carried = READ_ONCE(c->nap_carried) - carried;
		cqn_poll_rates_add(r, true, carried, now - t0);
		if (kthread_should_stop() || !cqn_poll_ride(r, riding, now - ride_start))
			return riding;
		riding = true;
		cqn_stat_inc(c->stats, CQN_STAT_cq_poll_rides);
		nap = min_t(u32, nap * 2, CQN_POLL_NAP_MAX_US);
	}
}

/*
 * Hold the thread to the CPU cqn_poll_follow() says, or let it go: *@held
 * is the CPU it is held to (-1: free), *@since when it was last held or
 * let go. A thread that poll_cpu binds, at its start or live, stays where
 * it is bound: poll_cpus_lock orders this against a live poll_cpu, and a
 * hold found under a poll_cpu set meanwhile just ends, its CPUs poll_cpu's.
 * A hold whose thread a live poll_cpu rebound and then freed (set, then -1
 * again) is taken again: a hold for the host lasts as long as the host is
 * busy, and must not go on believing itself in place.
 */
static void cqn_cq_poll_follow(struct cqn_cq *c, int *held, u64 *since, bool busy,
			       bool for_host, u64 now)
{
	int cpu;

	if (for_host)
		cpu = cqn_poll_host_cpu();
	else
		cpu = cqn_poll_follow(*held, raw_smp_processor_id(), READ_ONCE(c->nap_cpu), busy,
				      now - *since);

	/*
	 * Held where it should be and still allowed that CPU alone: nothing
	 * to do. A live poll_cpu since the hold rebound the thread (then
	 * freed it, if set back to -1): the lock below sees that.
	 */
	if (cqn_poll_held_at(cpu, *held))
		return;
	if (*held < 0 && READ_ONCE(c->params.poll_cpu) >= 0)
		return;
	mutex_lock(&c->poll_cpus_lock);
	if (c->params.poll_cpu >= 0) {
		*held = -1;
		*since = now;
	} else if (cpu < 0) {
		set_cpus_allowed_ptr(current, housekeeping_cpumask(HK_TYPE_KTHREAD));
		*held = -1;
		*since = now;
	} else if (cpu_online(cpu) && !set_cpus_allowed_ptr(current, cpumask_of(cpu))) {
		if (*held < 0)
			*since = now;
		*held = cpu;
		cqn_stat_inc(c->stats, CQN_STAT_cq_poll_follows);
	}
	mutex_unlock(&c->poll_cpus_lock);
}

/*
 * The poll threads that run on each CPU alone: which one last passed its
 * loop there and when, and when another one last did before it.
 */
struct cqn_poll_turn {
	const struct task_struct *who;
	u64 at;
	u64 other_at;
};

static DEFINE_PER_CPU(struct cqn_poll_turn, cqn_poll_turns);

/*
 * A pass of a thread that may run on one CPU alone (held there, or bound
 * by poll_cpu): mark the CPU as polled by it at @now. True when another
 * such thread passed its loop there within CQN_POLL_TURN_NS: the two
 * share the CPU (a held pair on a busy host, or two ends bound to one
 * CPU), and the other one may be waiting for it.
 */
static bool cqn_poll_turn_shared(u64 now)
{
	/*
	 * Raw: the caller may run on this CPU alone, and a live poll_cpu
	 * that moves it meanwhile only blurs one mark of a heuristic.
	 */
	struct cqn_poll_turn *t = raw_cpu_ptr(&cqn_poll_turns);

	if (t->who != current) {
		t->other_at = t->at;
		t->who = current;
	}
	t->at = now;
	return now - t->other_at < CQN_POLL_TURN_NS;
}

/*
 * The CQ is empty, the thread would spin on, and it shares its CPU with
 * another poll thread (cqn_poll_turn_shared()): if a task waits for the
 * CPU, most likely that thread with a message for the peer, let it run
 * now instead of after this thread's spin. yield() and not
 * cond_resched(): the waiting thread is not preempting this one, so
 * nothing has set need_resched, and two threads at one nice value would
 * otherwise take turns a scheduler slice (ms) at a time, each spinning out
 * its poll_idle_us before a nap handed the message to its event. A thread
 * alone beside some other task (a CPU-bound program) does not yield:
 * that task would keep the CPU for its slice while a message waits, where
 * a nap's event can carry the message elsewhere (cq_poll_rides). Not a
 * progress guarantee: the scheduler keeps this thread when the other's
 * virtual runtime is far ahead; the caller then naps at once, the CQ
 * armed, which hands the CPU over for sure.
 * Return: 1 another task ran (``cq_poll_yields``), 0 none waits, -1 one
 * waits and the scheduler kept this thread (nap now).
 */
static int cqn_cq_poll_give_way(struct cqn_cq *c)
{
	unsigned long switches = current->nvcsw + current->nivcsw;

	if (single_task_running())
		return 0;
	yield();
	if (current->nvcsw + current->nivcsw == switches)
		return -1;
	cqn_stat_inc(c->stats, CQN_STAT_cq_poll_yields);
	return 1;
}

static int cqn_cq_poll_thread(void *arg)
{
	struct cqn_cq *c = arg;
	u64 t0, now, idle_since = cqn_cq_clock(), stolen_until = 0;
	u64 held_since = idle_since, follow_since = 0;
	unsigned long idle_preempts = 0;
	struct cqn_poll_pass pass = {};
	struct cqn_poll_rates rates = {};
	struct cqn_poll_host_view host;
	u32 nap = 0, held = 0, spin = 0, idle_us, spin_us;
	int n, way, follow = -1;
	bool rode, first, preempted, for_host, shared;
	u64 hit;

	cqn_poll_host_join(c, &host, idle_since);
	/* The work item never runs while this thread does: c->wcs is ours. */
	while (!kthread_should_stop()) {
		t0 = cqn_cq_clock();
		for_host = cqn_poll_host_look(c, &host, t0);
		if (cqn_poll_pass_start(&pass, t0)) {
			cqn_stat_inc(c->stats, CQN_STAT_cq_poll_steals);
			stolen_until = t0 + CQN_POLL_STEAL_HOLD_MS * NSEC_PER_MSEC;
		}
		n = cqn_cq_busy_poll(c, CQN_POLL_BUDGET, true);
		now = cqn_cq_clock();
		cqn_stat_add(c->stats, CQN_STAT_cpu_ns, now - t0);
		if (n) {
			idle_since = now;
			idle_preempts = current->nivcsw;
			held += n;
		}
		idle_us = READ_ONCE(c->params.poll_idle_us);
		first = !nap;
		spin_us = cqn_poll_spin_now(spin, idle_us);
		nap = n ? 0 : cqn_poll_nap_next(nap, now - idle_since, spin_us,
						now < stolen_until);
		/*
		 * Within its spin, a steal's nap or not: a poll thread that
		 * shares the CPU goes first (an idle pair still naps).
		 */
		shared = current->nr_cpus_allowed == 1 && cqn_poll_turn_shared(now);
		way = !shared || n || !idle_us ||
		      cqn_poll_nap_next(nap, now - idle_since, spin_us, false) ?
		      0 : cqn_cq_poll_give_way(c);
		if (way)
			nap = way > 0 ? 0 : CQN_POLL_NAP_MIN_US;
		if (!nap) {
			pass.empty = !n;
			if (follow >= 0 || for_host)
				cqn_cq_poll_follow(c, &follow, &follow_since, false, for_host, now);
			cond_resched();
			continue;
		}
		cqn_stat_inc(c->stats, CQN_STAT_cq_poll_naps);
		/* Another task took the CPU since the last completion? */
		preempted = current->nivcsw != idle_preempts;
		cqn_poll_rates_add(&rates, false, held, now - held_since);
		WRITE_ONCE(c->nap_hit_ns, 0);
		rode = cqn_cq_nap_arm(c) && cqn_cq_poll_nap(c, nap, &rates);
		cqn_cq_nap_end(c);
		held_since = cqn_cq_clock();
		held = 0;
		/*
		 * What the nap says of the spin before it: nothing on a busy
		 * host, nor when another task took the spin's CPU (its gap was
		 * that task's, not the peer's).
		 */
		hit = READ_ONCE(c->nap_hit_ns);
		if (held_since < stolen_until) {
			spin = idle_us;
		} else {
			u32 was = cqn_poll_spin_now(spin, idle_us);

			spin = cqn_poll_spin_next(spin, idle_us, first && !preempted,
						  hit > idle_since ? hit - idle_since : 0);
			if (spin > was)
				cqn_stat_inc(c->stats, CQN_STAT_cq_poll_spin_raises);
		}
		/* The events handed completions over: the CQ was not idle since. */
		if (hit > idle_since) {
			idle_since = READ_ONCE(c->nap_last_ns);
			idle_preempts = current->nivcsw;
		}
		WRITE_ONCE(c->spin_us, spin);
		cqn_cq_poll_follow(c, &follow, &follow_since, rode || held_since < stolen_until,
				   for_host, held_since);
	}
	cqn_poll_host_leave();
	return 0;
}

static int cqn_cq_poll_run(struct cqn_cq *c)
{
	struct task_struct *p;
	s32 cpu = READ_ONCE(c->params.poll_cpu);

	WRITE_ONCE(c->nap_cpu, -1);
	WRITE_ONCE(c->spin_us, 0);
	WRITE_ONCE(c->host_missed_pct, 0);
	p = kthread_create(cqn_cq_poll_thread, c, "cqn-poll/%s", c->name);
	if (IS_ERR(p))
		return PTR_ERR(p);
	set_user_nice(p, cqn_cq_poll_nice(READ_ONCE(c->params.poll_priority)));
	if (cpu >= 0 && cpu_online(cpu))
		kthread_bind(p, cpu);
	else if (cpu >= 0)
		pr_info_ratelimited("%s: poll_cpu %d is offline; polling on any CPU\n",
				    c->name, cpu);
	c->poller = p;
	wake_up_process(p);
	return 0;
}

static void cqn_cq_poll_halt(struct cqn_cq *c)
{
	if (!c->poller)
		return;
	kthread_stop(c->poller);
	c->poller = NULL;
}

/**
 * cqn_cq_spin_us() - how long poll mode's thread now spins on an empty CQ
 * @c: the engine
 *
 * poll_idle_us, or more as the thread learned from its naps
 * (cqn_poll_spin_next()).
 *
 * Context: any.
 * Return: microseconds; 0 outside poll mode.
 */
u32 cqn_cq_spin_us(struct cqn_cq *c)
{
	if (READ_ONCE(c->mode) != CQN_CQ_POLL)
		return 0;
	return cqn_poll_spin_now(READ_ONCE(c->spin_us), READ_ONCE(c->params.poll_idle_us));
}

/**
 * cqn_cq_host_missed_pct() - how much of the guest's busy time the tick
 *	missed, as poll mode's thread last took it
 * @c: the engine
 *
 * In the last window the thread took (src/cq_poll_host.c,
 * cqn_poll_host_busy()): what the host kept from the guest's vCPUs.
 *
 * Context: any.
 * Return: percent; 0 outside poll mode and before the first window.
 */
u32 cqn_cq_host_missed_pct(struct cqn_cq *c)
{
	if (READ_ONCE(c->mode) != CQN_CQ_POLL)
		return 0;
	return READ_ONCE(c->host_missed_pct);
}

const struct cqn_cq_mode_ops cqn_cq_poll_ops = {
	.alloc = cqn_cq_own_alloc,
	.free = cqn_cq_own_free,
	.run = cqn_cq_poll_run,
	.halt = cqn_cq_poll_halt,
	.kick = cqn_cq_nap_kick,
	.work = cqn_cq_nap_work,
};
