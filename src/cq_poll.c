// SPDX-License-Identifier: GPL-2.0
/*
 * The poll mode: a kernel thread per CQ busy-polls it and never arms it.
 * Once the CQ has been empty for poll_idle_us the thread naps between polls,
 * 10 us first, doubling to 1 ms (cqn_poll_nap_next(), ``cq_poll_naps``): an
 * idle endpoint's thread stops holding a CPU, and on a shared host a
 * spinning vCPU stops taking the host CPU its peer's vCPU needs to answer.
 * The thread runs at nice 19 unless poll_priority is normal: the tasks it
 * would otherwise share its CPU with (the connection manager's work, rxe's,
 * ksoftirqd) run first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/sched.h>

#include "cq.h"

/* Completions the poll thread handles between two cond_resched() calls. */
#define CQN_POLL_BUDGET		64

static int cqn_cq_poll_thread(void *arg)
{
	struct cqn_cq *c = arg;
	u64 t0, now, idle_since = cqn_cq_clock();
	u32 nap = 0;
	int n;

	/* The work item never runs while this thread does: c->wcs is ours. */
	while (!kthread_should_stop()) {
		t0 = cqn_cq_clock();
		n = cqn_cq_busy_poll(c, CQN_POLL_BUDGET, true);
		now = cqn_cq_clock();
		cqn_stat_add(c->stats, CQN_STAT_cpu_ns, now - t0);
		if (n)
			idle_since = now;
		nap = n ? 0 : cqn_poll_nap_next(nap, now - idle_since,
						READ_ONCE(c->params.poll_idle_us));
		if (!nap) {
			cond_resched();
			continue;
		}
		cqn_stat_inc(c->stats, CQN_STAT_cq_poll_naps);
		usleep_range(nap, nap + nap / 4 + 1);
	}
	return 0;
}

static int cqn_cq_poll_run(struct cqn_cq *c)
{
	struct task_struct *p;
	s32 cpu = READ_ONCE(c->params.poll_cpu);

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

const struct cqn_cq_mode_ops cqn_cq_poll_ops = {
	.alloc = cqn_cq_own_alloc,
	.free = cqn_cq_own_free,
	.run = cqn_cq_poll_run,
	.halt = cqn_cq_poll_halt,
};
