// SPDX-License-Identifier: GPL-2.0
/*
 * The poll mode: a kernel thread per CQ busy-polls it and never arms it.
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
	u64 t0;

	/* The work item never runs while this thread does: c->wcs is ours. */
	while (!kthread_should_stop()) {
		t0 = cqn_cq_clock();
		cqn_cq_busy_poll(c, CQN_POLL_BUDGET, true);
		cqn_stat_add(c->stats, CQN_STAT_cpu_ns, cqn_cq_clock() - t0);
		cond_resched();
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
