// SPDX-License-Identifier: GPL-2.0
/*
 * The poll threads' judgement of their host, one for the whole guest. A
 * host that does not run a vCPU stops its scheduler tick while the
 * guest's clock runs on, so a busy host shows as busy time the tick
 * missed (cqn_poll_host_busy()). Once the guest's CPUs were busy
 * CQN_POLL_HOST_WINDOW_MS since the last judgement, by the clock, the
 * first poll thread to look judges the window, for every poll thread, and
 * starts or ends the hold for the host (cqn_poll_host_judged()): while it
 * is on, every poll thread is held to the lowest CPU it may run on, so
 * that all of them meet there at once. The whole guest's figures, not a
 * thread's own: how the tick samples one task's run time depends on the
 * tasks beside it (a thread that runs just after each tick and sleeps
 * before the next is never sampled), while every tick the host lets fire
 * accounts some CPU's time; and one judgement reads every online CPU's
 * accounting once a window, however many threads poll. Each thread takes
 * each judgement it sees into its engine's stats
 * (``cq_poll_host_windows``, ``cq_poll_host_busy``, ``cq_poll_host_holds``,
 * ``poll_host_missed_pct``). Adaptive mode's engines take it too, each
 * time a window would open and, while the windows are shut, after each
 * wakeup of the work item that carries the CQ then (src/cq_adaptive.c):
 * while the hold is on, none opens.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel_stat.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/tick.h>
#include <linux/timekeeping.h>

#include "cq.h"
#include "cqn_moder.h"

static bool poll_host_hold = true;
module_param(poll_host_hold, bool, 0644);
MODULE_PARM_DESC(poll_host_hold,
		 "hold every poll thread to the lowest CPU, and shut every adaptive engine's windows, while the missed ticks say the host is busy (default: 1; 0: judge and count, never hold)");

/*
 * The guest-wide judgement: @lock serialises judging, joining and leaving;
 * the poll threads read @seq (acquire) and then @busy, @held and
 * @missed_pct without it. At the start of the window: the time (by
 * ktime_get_ns(), which the idle times follow), the online CPUs, what the
 * tick accounted of their busy time and their idle time; when the window
 * is looked at next (by ktime_get_ns()); the poll threads running.
 */
static struct {
	/* serialises judging, joining and leaving */
	struct mutex lock;
	unsigned int users;
	u64 next;
	u64 at_ns;
	u64 ticked;
	u64 idle;
	unsigned int cpus;
	struct cqn_poll_hold hold;
	unsigned long seq;
	bool busy;
	bool held;
	u32 missed_pct;
} cqn_poll_host = {
	.lock = __MUTEX_INITIALIZER(cqn_poll_host.lock),
};

/*
 * The online CPUs' busy time as the tick accounted it (a tick the host did
 * not let fire accounts nothing; stolen time the host reports is not
 * counted either), and their idle time, measured by the clock where the
 * tick stops when idle, in nanoseconds.
 */
static void cqn_poll_host_read(u64 *ticked, u64 *idle)
{
	struct kernel_cpustat kcs;
	u64 us;
	int cpu;

	*ticked = 0;
	*idle = 0;
	for_each_online_cpu(cpu) {
		kcpustat_cpu_fetch(&kcs, cpu);
		*ticked += kcs.cpustat[CPUTIME_USER] + kcs.cpustat[CPUTIME_NICE] +
			   kcs.cpustat[CPUTIME_SYSTEM] + kcs.cpustat[CPUTIME_IRQ] +
			   kcs.cpustat[CPUTIME_SOFTIRQ];
		us = get_cpu_idle_time_us(cpu, NULL);
		if (us == (u64)-1) {
			*idle += kcs.cpustat[CPUTIME_IDLE] + kcs.cpustat[CPUTIME_IOWAIT];
			continue;
		}
		*idle += us * NSEC_PER_USEC;
		us = get_cpu_iowait_time_us(cpu, NULL);
		if (us != (u64)-1)
			*idle += us * NSEC_PER_USEC;
	}
}

/* Start a window now (ktime_get_ns() @now); under the lock. */
static void cqn_poll_host_start(u64 now)
{
	WRITE_ONCE(cqn_poll_host.next, now + (u64)CQN_POLL_HOST_WINDOW_MS * NSEC_PER_MSEC);
	cqn_poll_host.at_ns = now;
	cqn_poll_host.cpus = num_online_cpus();
	cqn_poll_host_read(&cqn_poll_host.ticked, &cqn_poll_host.idle);
}

/*
 * Judge the window if the guest's CPUs were busy long enough in it, under
 * the lock. A window over which a CPU came or went starts again; one whose
 * CPUs were not busy long enough goes on, looked at again a window's
 * length later.
 */
static void cqn_poll_host_judge(u64 now)
{
	u64 ticked, idle, busy_ns, wall = now - cqn_poll_host.at_ns;
	unsigned int cpus = cqn_poll_host.cpus;
	u32 missed;

	if (num_online_cpus() != cpus) {
		cqn_poll_host_start(now);
		return;
	}
	cqn_poll_host_read(&ticked, &idle);
	ticked -= cqn_poll_host.ticked;
	idle -= cqn_poll_host.idle;
	busy_ns = wall * cpus > idle ? wall * cpus - idle : 0;
	if (busy_ns < (u64)CQN_POLL_HOST_WINDOW_MS * NSEC_PER_MSEC) {
		WRITE_ONCE(cqn_poll_host.next, now + (u64)CQN_POLL_HOST_WINDOW_MS * NSEC_PER_MSEC);
		return;
	}
	missed = ticked < busy_ns ? 100 - div64_u64(ticked * 100, busy_ns) : 0;
	WRITE_ONCE(cqn_poll_host.busy, cqn_poll_host_busy(cqn_poll_host.busy, ticked, busy_ns));
	cqn_poll_host_judged(&cqn_poll_host.hold, cqn_poll_host.busy, now);
	WRITE_ONCE(cqn_poll_host.held, cqn_poll_host.hold.on);
	WRITE_ONCE(cqn_poll_host.missed_pct, missed);
	/* Readers that see the new sequence number see the judgement. */
	smp_store_release(&cqn_poll_host.seq, cqn_poll_host.seq + 1);
	cqn_poll_host_start(now);
}

/* Take a judgement not taken yet into @v and @c's stats. */
static void cqn_poll_host_take(struct cqn_cq *c, struct cqn_poll_host_view *v)
{
	/* Pairs with cqn_poll_host_judge()'s release: the judgement comes with it. */
	unsigned long seq = smp_load_acquire(&cqn_poll_host.seq);
	bool held;

	if (seq == v->seq)
		return;
	v->seq = seq;
	WRITE_ONCE(c->host_missed_pct, READ_ONCE(cqn_poll_host.missed_pct));
	cqn_stat_inc(c->stats, CQN_STAT_cq_poll_host_windows);
	if (READ_ONCE(cqn_poll_host.busy))
		cqn_stat_inc(c->stats, CQN_STAT_cq_poll_host_busy);
	held = READ_ONCE(cqn_poll_host.held) && READ_ONCE(poll_host_hold);
	if (held && !v->held)
		cqn_stat_inc(c->stats, CQN_STAT_cq_poll_host_holds);
	v->held = held;
}

/**
 * cqn_poll_host_join() - a poll thread starts: join the judgement
 * @c: its engine
 * @v: its view of the judgement
 * @now: cqn_cq_clock()
 *
 * The first thread of the guest starts a window, and the judgement of the
 * last threads (how long ago they left, nobody knows) is forgotten; a
 * thread that joins others takes their hold at once.
 *
 * Context: the poll thread, may sleep.
 */
void cqn_poll_host_join(struct cqn_cq *c, struct cqn_poll_host_view *v, u64 now)
{
	mutex_lock(&cqn_poll_host.lock);
	if (!cqn_poll_host.users++) {
		WRITE_ONCE(cqn_poll_host.busy, false);
		cqn_poll_host.hold = (struct cqn_poll_hold){};
		WRITE_ONCE(cqn_poll_host.held, false);
		WRITE_ONCE(cqn_poll_host.missed_pct, 0);
		cqn_poll_host_start(ktime_get_ns());
	}
	v->seq = cqn_poll_host.seq;
	v->held = cqn_poll_host.held && READ_ONCE(poll_host_hold);
	if (v->held)
		cqn_stat_inc(c->stats, CQN_STAT_cq_poll_host_holds);
	mutex_unlock(&cqn_poll_host.lock);
	v->look = now;
}

/**
 * cqn_poll_host_leave() - a poll thread ends: leave the judgement
 *
 * Context: the poll thread, may sleep.
 */
void cqn_poll_host_leave(void)
{
	mutex_lock(&cqn_poll_host.lock);
	cqn_poll_host.users--;
	mutex_unlock(&cqn_poll_host.lock);
}

/**
 * cqn_poll_host_cpu() - the CPU where the threads held for the host meet
 *
 * Context: any.
 * Return: the lowest online CPU kernel threads may run on.
 */
int cqn_poll_host_cpu(void)
{
	return cpumask_first_and(housekeeping_cpumask(HK_TYPE_KTHREAD), cpu_online_mask);
}

/**
 * cqn_poll_held_at() - is the calling thread where a hold put it?
 * @cpu: the CPU it was held to, or -1: let go
 * @was: the CPU it was held to before, or -1
 *
 * A thread let go (@cpu and @was both -1) is where it should be; one held
 * is there while it is still allowed @cpu alone (something else, a live
 * poll_cpu, may have rebound it since).
 *
 * Context: the thread.
 * Return: true when nothing is to be done.
 */
bool cqn_poll_held_at(int cpu, int was)
{
	if (cpu != was)
		return false;
	return cpu < 0 || (current->nr_cpus_allowed == 1 &&
			   cpumask_test_cpu(cpu, current->cpus_ptr));
}

/**
 * cqn_poll_host_look() - judge the host if a window is due, take the
 *	judgement
 * @c: the poll thread's engine
 * @v: its view of the judgement
 * @now: cqn_cq_clock()
 *
 * Looks every CQN_POLL_HOST_LOOK_MS of the thread's own time; a window
 * that is due is judged by the one thread that finds the lock free. With
 * the module parameter poll_host_hold 0 the host is judged and counted,
 * and no thread is held for it.
 *
 * Context: process context: the poll thread; adaptive mode's thread, or
 *	its work item while the windows are shut.
 * Return: true while the hold for the host is on: a poll thread is held
 *	to the lowest CPU, an adaptive engine's windows stay shut.
 */
bool cqn_poll_host_look(struct cqn_cq *c, struct cqn_poll_host_view *v, u64 now)
{
	u64 kt;

	if (now < v->look)
		return v->held;
	v->look = now + (u64)CQN_POLL_HOST_LOOK_MS * NSEC_PER_MSEC;
	kt = ktime_get_ns();
	if (kt >= READ_ONCE(cqn_poll_host.next) && mutex_trylock(&cqn_poll_host.lock)) {
		if (kt >= cqn_poll_host.next)
			cqn_poll_host_judge(kt);
		mutex_unlock(&cqn_poll_host.lock);
	}
	cqn_poll_host_take(c, v);
	/* poll_host_hold set to 0: the hold ends as a ride's does. */
	if (v->held && !READ_ONCE(poll_host_hold))
		v->held = false;
	return v->held;
}
