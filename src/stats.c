// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cpu statistics blocks: create, sum, reset and print.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
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
	[CQN_STAT_bytes_sent] = "bytes_sent",
	[CQN_STAT_bytes_received] = "bytes_received",
	[CQN_STAT_wc_errors] = "wc_errors",
	[CQN_STAT_wc_flushed] = "wc_flushed",
	[CQN_STAT_recv_ring_empty] = "recv_ring_empty",
	[CQN_STAT_send_ring_full] = "send_ring_full",
	[CQN_STAT_cq_events] = "cq_events",
	[CQN_STAT_cq_polls] = "cq_polls",
	[CQN_STAT_cq_empty_polls] = "cq_empty_polls",
	[CQN_STAT_cq_spurious_events] = "cq_spurious_events",
	[CQN_STAT_cq_rearm_missed] = "cq_rearm_missed",
	[CQN_STAT_cq_async_events] = "cq_async_events",
	[CQN_STAT_qp_async_events] = "qp_async_events",
	[CQN_STAT_conns_accepted] = "conns_accepted",
	[CQN_STAT_conns_rejected] = "conns_rejected",
	[CQN_STAT_conns_closed] = "conns_closed",
};

static_assert(ARRAY_SIZE(cqn_stat_names) == CQN_STAT_COUNT);

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
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct cqn_stats_pcpu *p = per_cpu_ptr(s->pcpu, cpu);

		for (i = 0; i < CQN_STAT_COUNT; i++)
			sum->cnt[i] += READ_ONCE(p->cnt[i]);
		for (i = 0; i < CQN_HIST_BUCKETS; i++)
			sum->rtt[i] += READ_ONCE(p->rtt[i]);
		sum->rtt_max = max(sum->rtt_max, READ_ONCE(p->rtt_max));
	}
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
	int i;

	for (i = 0; i < CQN_STAT_COUNT; i++)
		to->cnt[i] += from->cnt[i];
	for (i = 0; i < CQN_HIST_BUCKETS; i++)
		to->rtt[i] += from->rtt[i];
	to->rtt_max = max(to->rtt_max, from->rtt_max);
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
	int i;

	for (i = 0; i < CQN_STAT_COUNT; i++)
		seq_printf(m, "%s %llu\n", cqn_stat_names[i], sum->cnt[i]);
	seq_printf(m, "rtt_samples %llu\n", cqn_hist_total(sum->rtt));
	seq_printf(m, "rtt_p50_ns %llu\n", cqn_hist_percentile(sum->rtt, sum->rtt_max, 50, 100));
	seq_printf(m, "rtt_p99_ns %llu\n", cqn_hist_percentile(sum->rtt, sum->rtt_max, 99, 100));
	seq_printf(m, "rtt_p999_ns %llu\n",
		   cqn_hist_percentile(sum->rtt, sum->rtt_max, 999, 1000));
	seq_printf(m, "rtt_max_ns %llu\n", sum->rtt_max);
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
	u64 total = cqn_hist_total(sum->rtt), peak = 0, seen = 0;
	static const char bar[] = "########################################";
	int i;

	seq_printf(m, "# round-trip time, %llu samples; range [low, high) in us\n", total);
	if (!total)
		return;
	for (i = 0; i < CQN_HIST_BUCKETS; i++)
		peak = max(peak, sum->rtt[i]);
	for (i = 0; i < CQN_HIST_BUCKETS; i++) {
		u64 c = sum->rtt[i];
		u64 lo = cqn_hist_bucket_low(i), hi = cqn_hist_bucket_high(i);
		int w;

		if (!c)
			continue;
		seen += c;
		w = div64_u64(c * (sizeof(bar) - 1) + peak - 1, peak);
		seq_printf(m, "%10llu.%03llu %10llu.%03llu %10llu %6llu.%02llu%% %.*s\n",
			   lo / 1000, lo % 1000, hi / 1000, hi % 1000, c,
			   div64_u64(seen * 100, total),
			   div64_u64(seen * 10000, total) % 100, w, bar);
	}
}
