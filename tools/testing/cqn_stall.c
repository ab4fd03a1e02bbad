// SPDX-License-Identifier: GPL-2.0
/*
 * cqn_stall: a test module that plays a busy host inside the guest, for
 * the cq suite's poll_judges_host_by_ticks, adaptive_closes_for_busy_host
 * and adaptive_rides_faster_events (Documentation/testing.rst).
 * Never installed: scripts/build-module builds it beside cqnotify.ko with
 * CQN_TEST_MODULES=1, and DKMS does not.
 *
 * A host that does not run a vCPU stops everything on it, the scheduler
 * tick too, while the guest's clock runs on: the CPU seems to have been
 * busy all along, and one tick accounts one tick's worth of the gap. This
 * module does the same from inside: on every online CPU an hrtimer takes
 * stall_us of each period_us in hard interrupt context, interrupts off,
 * so the ticks that fall due meanwhile fire once when it ends. With a
 * stall longer than a tick (4 ms at HZ=250) ticks are lost as a busy
 * host loses them. With a shorter one, staggered across the CPUs
 * (stagger_us), no tick is lost while the CPUs take turns: a host that
 * runs one vCPU at a time in slices shorter than a tick, which the
 * ticks do not see and an exchange polled on both vCPUs does (the cq
 * suite's adaptive_rides_faster_events).
 *
 * Loaded with its parameters, it stalls until it is removed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>

static unsigned int stall_us = 12000;
module_param(stall_us, uint, 0444);
MODULE_PARM_DESC(stall_us, "interrupts-off time taken per period, us (1 to 20000)");

static unsigned int period_us = 16000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "the period, us (more than stall_us, at most 1000000)");

static unsigned int stagger_us;
module_param(stagger_us, uint, 0444);
MODULE_PARM_DESC(stagger_us,
		 "CPU n's stalls start n * stagger_us later (below period_us; default 0: all CPUs stall at once)");

static DEFINE_PER_CPU(struct hrtimer, cqn_stall_timer);

static enum hrtimer_restart cqn_stall_fire(struct hrtimer *t)
{
	u64 end = ktime_get_ns() + (u64)stall_us * NSEC_PER_USEC;

	/*
	 * Hard interrupt context: interrupts are off until it returns. By
	 * the clock, not udelay(): in the test VMs (tsc=unstable) a stall of
	 * 2 ms in 4 made of udelay() left a pingpong on the two vCPUs at full
	 * speed, and hrtimer_interrupt() reported itself hung (3 passes of
	 * about 4 ms); timed by the clock it keeps its length.
	 */
	while (ktime_get_ns() < end)
		cpu_relax();
	hrtimer_forward_now(t, ns_to_ktime((u64)period_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void cqn_stall_start(void *unused)
{
	struct hrtimer *t = this_cpu_ptr(&cqn_stall_timer);

	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	t->function = cqn_stall_fire;
	hrtimer_start(t, ns_to_ktime(((u64)period_us + (u64)stagger_us * smp_processor_id()) *
				     NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static int __init cqn_stall_init(void)
{
	if (!stall_us || stall_us > 20000 || period_us <= stall_us || period_us > 1000000 ||
	    stagger_us >= period_us) {
		pr_err("stall_us %u, period_us %u, stagger_us %u: need 1 <= stall_us <= 20000, stall_us < period_us <= 1000000 and stagger_us < period_us\n",
		       stall_us, period_us, stagger_us);
		return -EINVAL;
	}
	cpus_read_lock();
	on_each_cpu(cqn_stall_start, NULL, 1);
	cpus_read_unlock();
	pr_info("taking %u us of every %u us on each CPU, CPU n's %u us * n later\n", stall_us,
		period_us, stagger_us);
	return 0;
}

static void __exit cqn_stall_exit(void)
{
	int cpu;

	/* Each was started on its CPU; cancelling one from here is fine. */
	for_each_possible_cpu(cpu) {
		struct hrtimer *t = per_cpu_ptr(&cqn_stall_timer, cpu);

		if (t->function)
			hrtimer_cancel(t);
	}
}

module_init(cqn_stall_init);
module_exit(cqn_stall_exit);
MODULE_DESCRIPTION("cqnotify test: a busy host played inside the guest");
MODULE_LICENSE("GPL");
