/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-cpu statistics: counters bumped with this_cpu_inc() on the hot path,
 * summed when debugfs is read, reset by writing 1 to "reset".
 */
#ifndef _CQN_STATS_H
#define _CQN_STATS_H

#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/types.h>

#include "cqn_hist.h"

/**
 * enum cqn_stat - the counters, in the order debugfs "stats" prints them
 * @CQN_STAT_msgs_sent: see Documentation/admin-guide.rst
 * @CQN_STAT_msgs_received: see Documentation/admin-guide.rst
 * @CQN_STAT_msgs_verified: see Documentation/admin-guide.rst
 * @CQN_STAT_msg_errors: see Documentation/admin-guide.rst
 * @CQN_STAT_err_bad_len: see Documentation/admin-guide.rst
 * @CQN_STAT_err_bad_magic: see Documentation/admin-guide.rst
 * @CQN_STAT_err_corrupt: see Documentation/admin-guide.rst
 * @CQN_STAT_err_lost: see Documentation/admin-guide.rst
 * @CQN_STAT_err_stale: see Documentation/admin-guide.rst
 * @CQN_STAT_msgs_malformed: see Documentation/admin-guide.rst
 * @CQN_STAT_bytes_sent: see Documentation/admin-guide.rst
 * @CQN_STAT_bytes_received: see Documentation/admin-guide.rst
 * @CQN_STAT_wc_errors: see Documentation/admin-guide.rst
 * @CQN_STAT_wc_flushed: see Documentation/admin-guide.rst
 * @CQN_STAT_wc_duplicates: see Documentation/admin-guide.rst
 * @CQN_STAT_wc_lost: see Documentation/admin-guide.rst
 * @CQN_STAT_peer_errors: see Documentation/admin-guide.rst
 * @CQN_STAT_recv_ring_empty: see Documentation/admin-guide.rst
 * @CQN_STAT_recvs_withheld: see Documentation/admin-guide.rst
 * @CQN_STAT_send_ring_full: see Documentation/admin-guide.rst
 * @CQN_STAT_srq_recvs_posted: see Documentation/admin-guide.rst
 * @CQN_STAT_srq_empty: see Documentation/admin-guide.rst
 * @CQN_STAT_srq_limit_events: see Documentation/admin-guide.rst
 * @CQN_STAT_srq_limit_rearms: see Documentation/admin-guide.rst
 * @CQN_STAT_srq_recvs_discarded: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_events: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_polls: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_empty_polls: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_spurious_events: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_rearm_missed: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_wakeups: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_arms: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_window_hits: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_window_yields: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_window_host_closed: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_window_trials: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_window_rides: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_window_shut_wakeups: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_softirq_runs: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_softirq_yields: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_poll_naps: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_nap_wakeups: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_poll_steals: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_poll_rides: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_poll_follows: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_poll_yields: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_poll_spin_raises: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_poll_host_windows: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_poll_host_busy: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_poll_host_holds: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_home_hops: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_mode_switches: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_resizes: see Documentation/admin-guide.rst
 * @CQN_STAT_moder_changes: see Documentation/admin-guide.rst
 * @CQN_STAT_core_dim_changes: see Documentation/admin-guide.rst
 * @CQN_STAT_sw_moder_timer_fires: see Documentation/admin-guide.rst
 * @CQN_STAT_sw_moder_looks: see Documentation/admin-guide.rst
 * @CQN_STAT_cpu_ns: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_watchdog_fires: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_fallbacks: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_storms: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_events_dropped: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_events_injected: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_async_events: see Documentation/admin-guide.rst
 * @CQN_STAT_cq_overflows: see Documentation/admin-guide.rst
 * @CQN_STAT_cqs_created: see Documentation/admin-guide.rst
 * @CQN_STAT_qp_async_events: see Documentation/admin-guide.rst
 * @CQN_STAT_conns_accepted: see Documentation/admin-guide.rst
 * @CQN_STAT_conns_rejected: see Documentation/admin-guide.rst
 * @CQN_STAT_conns_closed: see Documentation/admin-guide.rst
 * @CQN_STAT_wr_posted: see Documentation/admin-guide.rst
 * @CQN_STAT_wr_completed: see Documentation/admin-guide.rst
 * @CQN_STAT_reconnects: see Documentation/admin-guide.rst
 * @CQN_STAT_msgs_resent: see Documentation/admin-guide.rst
 * @CQN_STAT_COUNT: number of counters
 */
enum cqn_stat {
	CQN_STAT_msgs_sent,
	CQN_STAT_msgs_received,
	CQN_STAT_msgs_verified,
	CQN_STAT_msg_errors,
	CQN_STAT_err_bad_len,
	CQN_STAT_err_bad_magic,
	CQN_STAT_err_corrupt,
	CQN_STAT_err_lost,
	CQN_STAT_err_stale,
	CQN_STAT_msgs_malformed,
	CQN_STAT_bytes_sent,
	CQN_STAT_bytes_received,
	CQN_STAT_wc_errors,
	CQN_STAT_wc_flushed,
	CQN_STAT_wc_duplicates,
	CQN_STAT_wc_lost,
	CQN_STAT_peer_errors,
	CQN_STAT_recv_ring_empty,
	CQN_STAT_recvs_withheld,
	CQN_STAT_send_ring_full,
	CQN_STAT_srq_recvs_posted,
	CQN_STAT_srq_empty,
	CQN_STAT_srq_limit_events,
	CQN_STAT_srq_limit_rearms,
	CQN_STAT_srq_recvs_discarded,
	CQN_STAT_cq_events,
	CQN_STAT_cq_polls,
	CQN_STAT_cq_empty_polls,
	CQN_STAT_cq_spurious_events,
	CQN_STAT_cq_rearm_missed,
	CQN_STAT_cq_wakeups,
	CQN_STAT_cq_arms,
	CQN_STAT_cq_window_hits,
	CQN_STAT_cq_window_yields,
	CQN_STAT_cq_window_host_closed,
	CQN_STAT_cq_window_trials,
	CQN_STAT_cq_window_rides,
	CQN_STAT_cq_window_shut_wakeups,
	CQN_STAT_cq_softirq_runs,
	CQN_STAT_cq_softirq_yields,
	CQN_STAT_cq_poll_naps,
	CQN_STAT_cq_nap_wakeups,
	CQN_STAT_cq_poll_steals,
	CQN_STAT_cq_poll_rides,
	CQN_STAT_cq_poll_follows,
	CQN_STAT_cq_poll_yields,
	CQN_STAT_cq_poll_spin_raises,
	CQN_STAT_cq_poll_host_windows,
	CQN_STAT_cq_poll_host_busy,
	CQN_STAT_cq_poll_host_holds,
	CQN_STAT_cq_home_hops,
	CQN_STAT_cq_mode_switches,
	CQN_STAT_cq_resizes,
	CQN_STAT_moder_changes,
	CQN_STAT_core_dim_changes,
	CQN_STAT_sw_moder_timer_fires,
	CQN_STAT_sw_moder_looks,
	CQN_STAT_cpu_ns,
	CQN_STAT_cq_watchdog_fires,
	CQN_STAT_cq_fallbacks,
	CQN_STAT_cq_storms,
	CQN_STAT_cq_events_dropped,
	CQN_STAT_cq_events_injected,
	CQN_STAT_cq_async_events,
	CQN_STAT_cq_overflows,
	CQN_STAT_cqs_created,
	CQN_STAT_qp_async_events,
	CQN_STAT_conns_accepted,
	CQN_STAT_conns_rejected,
	CQN_STAT_conns_closed,
	CQN_STAT_wr_posted,
	CQN_STAT_wr_completed,
	CQN_STAT_reconnects,
	CQN_STAT_msgs_resent,
	CQN_STAT_COUNT
};

/**
 * enum cqn_hist_id - the histograms of a statistics block
 * @CQN_H_RTT: client round-trip time, nanoseconds
 * @CQN_H_CQ_BATCH: completions handed to the connection per wakeup
 * @CQN_H_CQ_DELAY: from a completion event to the start of its processing, ns
 * @CQN_H_CQ_PROC: time one wakeup spent processing completions, ns
 * @CQN_H_CQ_ARM: time one arm of the CQ took (ib_req_notify_cq() with
 *	IB_CQ_REPORT_MISSED_EVENTS), ns
 * @CQN_H_COUNT: number of histograms
 */
enum cqn_hist_id {
	CQN_H_RTT,
	CQN_H_CQ_BATCH,
	CQN_H_CQ_DELAY,
	CQN_H_CQ_PROC,
	CQN_H_CQ_ARM,
	CQN_H_COUNT
};

/**
 * struct cqn_stats_pcpu - one CPU's share of a statistics block
 * @cnt: the counters
 * @hist: the histograms
 * @hist_max: the largest value each histogram saw on this CPU
 */
struct cqn_stats_pcpu {
	u64 cnt[CQN_STAT_COUNT];
	u64 hist[CQN_H_COUNT][CQN_HIST_BUCKETS];
	u64 hist_max[CQN_H_COUNT];
};

/**
 * struct cqn_stats_sum - a statistics block summed over CPUs
 * @cnt: the counters
 * @hist: the histograms
 * @hist_max: the largest value each histogram saw
 * @poll_window_us: adaptive mode's current polling window (largest of the
 *	live CQs; a gauge filled in by whoever sums live connections)
 * @poll_window_trial_pct: what adaptive mode's last trial of its events
 *	alone found (largest of the live CQs; a gauge, filled in the same way)
 * @poll_spin_us: poll mode's current spin before a nap (largest of the
 *	live CQs; a gauge, filled in the same way)
 * @poll_host_missed_pct: the share of a poll thread's run time the tick
 *	missed in its last window (largest of the live CQs; a gauge, filled
 *	in the same way)
 */
struct cqn_stats_sum {
	u64 cnt[CQN_STAT_COUNT];
	u64 hist[CQN_H_COUNT][CQN_HIST_BUCKETS];
	u64 hist_max[CQN_H_COUNT];
	u64 poll_window_us;
	u64 poll_window_trial_pct;
	u64 poll_spin_us;
	u64 poll_host_missed_pct;
};

/**
 * struct cqn_stats - a statistics block (per endpoint, per connection)
 * @pcpu: per-cpu counters
 */
struct cqn_stats {
	struct cqn_stats_pcpu __percpu *pcpu;
};

extern const char *const cqn_stat_names[];

int cqn_stats_create(struct cqn_stats *s);
void cqn_stats_destroy(struct cqn_stats *s);
void cqn_stats_add_to(const struct cqn_stats *s, struct cqn_stats_sum *sum);
u64 cqn_stats_read(const struct cqn_stats *s, enum cqn_stat stat);
void cqn_stats_sum_add(struct cqn_stats_sum *to, const struct cqn_stats_sum *from);
void cqn_stats_reset(struct cqn_stats *s);
void cqn_stats_print(struct seq_file *m, const struct cqn_stats_sum *sum);
void cqn_stats_print_latency(struct seq_file *m, const struct cqn_stats_sum *sum);
void cqn_stats_print_cq(struct seq_file *m, const struct cqn_stats_sum *sum);
void cqn_stats_print_hist_raw(struct seq_file *m, const struct cqn_stats_sum *sum);

/**
 * cqn_stat_add() - add to a counter of this CPU
 * @s: the block
 * @stat: the counter
 * @v: the amount
 *
 * Context: any, including the completion handler.
 */
static inline void cqn_stat_add(struct cqn_stats *s, enum cqn_stat stat, u64 v)
{
	this_cpu_add(s->pcpu->cnt[stat], v);
}

/**
 * cqn_stat_inc() - count one event on this CPU
 * @s: the block
 * @stat: the counter
 *
 * Context: any, including the completion handler.
 */
static inline void cqn_stat_inc(struct cqn_stats *s, enum cqn_stat stat)
{
	this_cpu_inc(s->pcpu->cnt[stat]);
}

/**
 * cqn_stat_hist() - record one value in a histogram of this CPU
 * @s: the block
 * @h: the histogram
 * @v: the value
 *
 * Context: any, including the completion handler.
 */
static inline void cqn_stat_hist(struct cqn_stats *s, enum cqn_hist_id h, u64 v)
{
	struct cqn_stats_pcpu *p = get_cpu_ptr(s->pcpu);

	p->hist[h][cqn_hist_bucket(v)]++;
	if (v > p->hist_max[h])
		p->hist_max[h] = v;
	put_cpu_ptr(s->pcpu);
}

#endif /* _CQN_STATS_H */
