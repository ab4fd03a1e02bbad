// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cpu statistics blocks: create, sum, reset and print.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/math64.h>
#include <linux/time64.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "cqn_stats.h"

const char *const cqn_stat_names[] = {
	[CQN_STAT_msgs_sent] = "msgs_sent",
	[CQN_STAT_msgs_received] = "msgs_received",
	[CQN_STAT_msgs_verified] = "msgs_verified",
	[CQN_STAT_msg_errors] = "msg_errors",
	[CQN_STAT_err_bad_len] = "err_bad_len",
	[CQN_STAT_err_bad_magic] = "err_bad_magic",
	[CQN_STAT_err_corrupt] = "err_corrupt",
	[CQN_STAT_err_lost] = "err_lost",
	[CQN_STAT_err_stale] = "err_stale",
	[CQN_STAT_msgs_malformed] = "msgs_malformed",
	[CQN_STAT_bytes_sent] = "bytes_sent",
	[CQN_STAT_bytes_received] = "bytes_received",
	[CQN_STAT_wc_errors] = "wc_errors",
	[CQN_STAT_wc_flushed] = "wc_flushed",
	[CQN_STAT_wc_duplicates] = "wc_duplicates",
	[CQN_STAT_wc_lost] = "wc_lost",
	[CQN_STAT_peer_errors] = "peer_errors",
	[CQN_STAT_recv_ring_empty] = "recv_ring_empty",
	[CQN_STAT_recvs_withheld] = "recvs_withheld",
	[CQN_STAT_send_ring_full] = "send_ring_full",
	[CQN_STAT_srq_recvs_posted] = "srq_recvs_posted",
	[CQN_STAT_srq_empty] = "srq_empty",
	[CQN_STAT_srq_limit_events] = "srq_limit_events",
	[CQN_STAT_srq_limit_rearms] = "srq_limit_rearms",
	[CQN_STAT_srq_recvs_discarded] = "srq_recvs_discarded",
	[CQN_STAT_cq_events] = "cq_events",
	[CQN_STAT_cq_polls] = "cq_polls",
	[CQN_STAT_cq_empty_polls] = "cq_empty_polls",
	[CQN_STAT_cq_spurious_events] = "cq_spurious_events",
	[CQN_STAT_cq_rearm_missed] = "cq_rearm_missed",
	[CQN_STAT_cq_wakeups] = "cq_wakeups",
	[CQN_STAT_cq_arms] = "cq_arms",
	[CQN_STAT_cq_window_hits] = "cq_window_hits",
	[CQN_STAT_cq_window_yields] = "cq_window_yields",
	[CQN_STAT_cq_window_host_closed] = "cq_window_host_closed",
	[CQN_STAT_cq_window_trials] = "cq_window_trials",
	[CQN_STAT_cq_window_rides] = "cq_window_rides",
	[CQN_STAT_cq_window_shut_wakeups] = "cq_window_shut_wakeups",
	[CQN_STAT_cq_softirq_runs] = "cq_softirq_runs",
	[CQN_STAT_cq_softirq_yields] = "cq_softirq_yields",
	[CQN_STAT_cq_poll_naps] = "cq_poll_naps",
	[CQN_STAT_cq_nap_wakeups] = "cq_nap_wakeups",
	[CQN_STAT_cq_poll_steals] = "cq_poll_steals",
	[CQN_STAT_cq_poll_rides] = "cq_poll_rides",
	[CQN_STAT_cq_poll_follows] = "cq_poll_follows",
	[CQN_STAT_cq_poll_yields] = "cq_poll_yields",
	[CQN_STAT_cq_poll_spin_raises] = "cq_poll_spin_raises",
	[CQN_STAT_cq_poll_host_windows] = "cq_poll_host_windows",
	[CQN_STAT_cq_poll_host_busy] = "cq_poll_host_busy",
	[CQN_STAT_cq_poll_host_holds] = "cq_poll_host_holds",
	[CQN_STAT_cq_home_hops] = "cq_home_hops",
	[CQN_STAT_cq_mode_switches] = "cq_mode_switches",
	[CQN_STAT_cq_resizes] = "cq_resizes",
	[CQN_STAT_moder_changes] = "moder_changes",
	[CQN_STAT_core_dim_changes] = "core_dim_changes",
	[CQN_STAT_sw_moder_timer_fires] = "sw_moder_timer_fires",
	[CQN_STAT_sw_moder_looks] = "sw_moder_looks",
	[CQN_STAT_cpu_ns] = "cpu_ns",
	[CQN_STAT_cq_watchdog_fires] = "cq_watchdog_fires",
	[CQN_STAT_cq_fallbacks] = "cq_fallbacks",
	[CQN_STAT_cq_storms] = "cq_storms",
	[CQN_STAT_cq_events_dropped] = "cq_events_dropped",
	[CQN_STAT_cq_events_injected] = "cq_events_injected",
	[CQN_STAT_cq_async_events] = "cq_async_events",
	[CQN_STAT_cq_overflows] = "cq_overflows",
	[CQN_STAT_cqs_created] = "cqs_created",
	[CQN_STAT_qp_async_events] = "qp_async_events",
	[CQN_STAT_conns_accepted] = "conns_accepted",
	[CQN_STAT_conns_rejected] = "conns_rejected",
	[CQN_STAT_conns_closed] = "conns_closed",
	[CQN_STAT_wr_posted] = "wr_posted",
	[CQN_STAT_wr_completed] = "wr_completed",
	[CQN_STAT_reconnects] = "reconnects",
	[CQN_STAT_msgs_resent] = "msgs_resent",
};

static_assert(ARRAY_SIZE(cqn_stat_names) == CQN_STAT_COUNT);

/* Each histogram's name and unit in the raw "histograms" file. */
static const char *const cqn_hist_names[] = {
	[CQN_H_RTT] = "rtt",
	[CQN_H_CQ_BATCH] = "cq_batch",
	[CQN_H_CQ_DELAY] = "cq_delay",
	[CQN_H_CQ_PROC] = "cq_proc",
	[CQN_H_CQ_ARM] = "cq_arm",
};

static const char *const cqn_hist_units[] = {
	[CQN_H_RTT] = "ns",
	[CQN_H_CQ_BATCH] = "completions",
	[CQN_H_CQ_DELAY] = "ns",
	[CQN_H_CQ_PROC] = "ns",
	[CQN_H_CQ_ARM] = "ns",
};

static_assert(ARRAY_SIZE(cqn_hist_names) == CQN_H_COUNT);
static_assert(ARRAY_SIZE(cqn_hist_units) == CQN_H_COUNT);

/**
 * cqn_stats_create() - allocate a zeroed statistics block
 * @s: the block
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int cqn_stats_create(struct cqn_stats *s)
{
	s->pcpu = alloc_percpu(struct cqn_stats_pcpu);
	return s->pcpu ? 0 : -ENOMEM;
}

/**
 * cqn_stats_destroy() - free a statistics block
 * @s: the block; may be one whose creation failed
 *
 * Context: process context.
 */
void cqn_stats_destroy(struct cqn_stats *s)
{
	free_percpu(s->pcpu);
	s->pcpu = NULL;
}

/**
 * cqn_stats_add_to() - add every CPU's share of a block to a sum
 * @s: the block
 * @sum: the running sum
 *
 * Counters may move while they are read; each is read once.
 *
 * Context: any.
 */
void cqn_stats_add_to(const struct cqn_stats *s, struct cqn_stats_sum *sum)
{
	int cpu, h, i;

	for_each_possible_cpu(cpu) {
		const struct cqn_stats_pcpu *p = per_cpu_ptr(s->pcpu, cpu);

		for (i = 0; i < CQN_STAT_COUNT; i++)
			sum->cnt[i] += READ_ONCE(p->cnt[i]);
		for (h = 0; h < CQN_H_COUNT; h++) {
			for (i = 0; i < CQN_HIST_BUCKETS; i++)
				sum->hist[h][i] += READ_ONCE(p->hist[h][i]);
			sum->hist_max[h] = max(sum->hist_max[h], READ_ONCE(p->hist_max[h]));
		}
	}
}

/**
 * cqn_stats_read() - one counter of a block, every CPU's share summed
 * @s: the block
 * @stat: the counter
 *
 * Context: any.
 * Return: its value (it may move while it is read).
 */
u64 cqn_stats_read(const struct cqn_stats *s, enum cqn_stat stat)
{
	u64 v = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		v += READ_ONCE(per_cpu_ptr(s->pcpu, cpu)->cnt[stat]);
	return v;
}

/**
 * cqn_stats_sum_add() - add one sum to another
 * @to: the running sum
 * @from: what to add
 *
 * Context: any.
 */
void cqn_stats_sum_add(struct cqn_stats_sum *to, const struct cqn_stats_sum *from)
{
	int h, i;

	for (i = 0; i < CQN_STAT_COUNT; i++)
		to->cnt[i] += from->cnt[i];
	for (h = 0; h < CQN_H_COUNT; h++) {
		for (i = 0; i < CQN_HIST_BUCKETS; i++)
			to->hist[h][i] += from->hist[h][i];
		to->hist_max[h] = max(to->hist_max[h], from->hist_max[h]);
	}
	to->poll_window_us = max(to->poll_window_us, from->poll_window_us);
	to->poll_window_trial_pct = max(to->poll_window_trial_pct, from->poll_window_trial_pct);
	to->poll_spin_us = max(to->poll_spin_us, from->poll_spin_us);
	to->poll_host_missed_pct = max(to->poll_host_missed_pct, from->poll_host_missed_pct);
}

/**
 * cqn_stats_reset() - zero a block
 * @s: the block
 *
 * Increments racing with the reset may survive it; nothing else is lost.
 *
 * Context: any.
 */
void cqn_stats_reset(struct cqn_stats *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(s->pcpu, cpu), 0, sizeof(struct cqn_stats_pcpu));
}

/**
 * cqn_stats_print() - print counters and RTT percentiles, one "key value" a line
 * @m: the seq_file
 * @sum: the summed block
 *
 * Context: process context.
 */
void cqn_stats_print(struct seq_file *m, const struct cqn_stats_sum *sum)
{
	const u64 *rtt = sum->hist[CQN_H_RTT];
	u64 rtt_max = sum->hist_max[CQN_H_RTT];
	int i;

	for (i = 0; i < CQN_STAT_COUNT; i++)
		seq_printf(m, "%s %llu\n", cqn_stat_names[i], sum->cnt[i]);
	seq_printf(m, "cq_batch_max %llu\n", sum->hist_max[CQN_H_CQ_BATCH]);
	seq_printf(m, "poll_window_us %llu\n", sum->poll_window_us);
	seq_printf(m, "poll_window_trial_pct %llu\n", sum->poll_window_trial_pct);
	seq_printf(m, "poll_spin_us %llu\n", sum->poll_spin_us);
	seq_printf(m, "poll_host_missed_pct %llu\n", sum->poll_host_missed_pct);
	seq_printf(m, "rtt_samples %llu\n", cqn_hist_total(rtt));
	seq_printf(m, "rtt_p50_ns %llu\n", cqn_hist_percentile(rtt, rtt_max, 50, 100));
	seq_printf(m, "rtt_p99_ns %llu\n", cqn_hist_percentile(rtt, rtt_max, 99, 100));
	seq_printf(m, "rtt_p999_ns %llu\n", cqn_hist_percentile(rtt, rtt_max, 999, 1000));
	seq_printf(m, "rtt_max_ns %llu\n", rtt_max);
	/* A wakeup's steps: event to processing, processing, arming. */
	for (i = CQN_H_CQ_DELAY; i <= CQN_H_CQ_ARM; i++)
		seq_printf(m, "%s_p50_ns %llu\n", cqn_hist_names[i],
			   cqn_hist_percentile(sum->hist[i], sum->hist_max[i], 50, 100));
}

/*
 * One histogram for a person to read: a line per non-empty bucket with its
 * range [low, high) in @unit (values divided by @div, three decimals), the
 * count, the cumulative share and a bar scaled to the fullest bucket.
 */
static void cqn_stats_print_hist(struct seq_file *m, const char *what, const char *unit,
				 u64 div, const u64 *b, u64 max)
{
	u64 total = cqn_hist_total(b), peak = 0, seen = 0;
	static const char bar[] = "########################################";
	int i;

	seq_printf(m, "# %s, %llu samples, max %llu; range [low, high) in %s\n",
		   what, total, max, unit);
	if (!total)
		return;
	for (i = 0; i < CQN_HIST_BUCKETS; i++)
		peak = max(peak, b[i]);
	for (i = 0; i < CQN_HIST_BUCKETS; i++) {
		u64 c = b[i];
		u64 lo = cqn_hist_bucket_low(i), hi = cqn_hist_bucket_high(i);
		int w;

		if (!c)
			continue;
		seen += c;
		w = div64_u64(c * (sizeof(bar) - 1) + peak - 1, peak);
		if (div == 1)
			seq_printf(m, "%10llu %10llu", lo, hi);
		else
			seq_printf(m, "%10llu.%03llu %10llu.%03llu", div64_u64(lo, div),
				   div64_u64(lo % div * 1000, div), div64_u64(hi, div),
				   div64_u64(hi % div * 1000, div));
		seq_printf(m, " %10llu %6llu.%02llu%% %.*s\n", c, div64_u64(seen * 100, total),
			   div64_u64(seen * 10000, total) % 100, w, bar);
	}
}

/**
 * cqn_stats_print_latency() - print the RTT histogram for a person to read
 * @m: the seq_file
 * @sum: the summed block
 *
 * One line per non-empty bucket: its range in microseconds, the count, the
 * cumulative share and a bar scaled to the fullest bucket.
 *
 * Context: process context.
 */
void cqn_stats_print_latency(struct seq_file *m, const struct cqn_stats_sum *sum)
{
	cqn_stats_print_hist(m, "round-trip time", "us", NSEC_PER_USEC, sum->hist[CQN_H_RTT],
			     sum->hist_max[CQN_H_RTT]);
}

/**
 * cqn_stats_print_cq() - print the CQ engine's histograms
 * @m: the seq_file
 * @sum: the summed block
 *
 * Batch size (completions per wakeup of the consumer), event-to-processing
 * delay, processing time per wakeup and time per arm, in the format of
 * cqn_stats_print_latency(), separated by blank lines.
 *
 * Context: process context.
 */
void cqn_stats_print_cq(struct seq_file *m, const struct cqn_stats_sum *sum)
{
	cqn_stats_print_hist(m, "batch size (completions per wakeup)", "completions", 1,
			     sum->hist[CQN_H_CQ_BATCH], sum->hist_max[CQN_H_CQ_BATCH]);
	seq_putc(m, '\n');
	cqn_stats_print_hist(m, "event to processing delay", "us", NSEC_PER_USEC,
			     sum->hist[CQN_H_CQ_DELAY], sum->hist_max[CQN_H_CQ_DELAY]);
	seq_putc(m, '\n');
	cqn_stats_print_hist(m, "processing time per wakeup", "us", NSEC_PER_USEC,
			     sum->hist[CQN_H_CQ_PROC], sum->hist_max[CQN_H_CQ_PROC]);
	seq_putc(m, '\n');
	cqn_stats_print_hist(m, "time per arm", "us", NSEC_PER_USEC,
			     sum->hist[CQN_H_CQ_ARM], sum->hist_max[CQN_H_CQ_ARM]);
}

/**
 * cqn_stats_print_hist_raw() - print every histogram for programs
 * @m: the seq_file
 * @sum: the summed block
 *
 * For each histogram a header line ``# histogram NAME unit UNIT samples N
 * max N buckets N``, then one ``low high count`` line per bucket, the empty
 * ones too, in bucket order: [low, high) in the histogram's unit (ns, or
 * completions for the batch size), exact integers; the last bucket's high
 * is U64_MAX. Histograms are separated by a blank line. Nothing in it is
 * scaled or rounded, so a reader can subtract two reads bucket by bucket.
 *
 * Context: process context.
 */
void cqn_stats_print_hist_raw(struct seq_file *m, const struct cqn_stats_sum *sum)
{
	int h, i;

	for (h = 0; h < CQN_H_COUNT; h++) {
		const u64 *b = sum->hist[h];

		if (h)
			seq_putc(m, '\n');
		seq_printf(m, "# histogram %s unit %s samples %llu max %llu buckets %u\n",
			   cqn_hist_names[h], cqn_hist_units[h], cqn_hist_total(b),
			   sum->hist_max[h], (u32)CQN_HIST_BUCKETS);
		for (i = 0; i < CQN_HIST_BUCKETS; i++)
			seq_printf(m, "%llu %llu %llu\n", cqn_hist_bucket_low(i),
				   cqn_hist_bucket_high(i), b[i]);
	}
}
