/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear histograms for latencies: 8 buckets per power of two, so a
 * bucket is at most 12.5% wide. Pure functions (KUnit suite cqnotify_hist).
 */
#ifndef _CQN_HIST_H
#define _CQN_HIST_H

#include <linux/bits.h>
#include <linux/types.h>

/* Sub-buckets per power of two, as a shift: 3 gives 8 (12.5% resolution). */
#define CQN_HIST_SUB_SHIFT	3
#define CQN_HIST_SUB		BIT(CQN_HIST_SUB_SHIFT)
/* Values above 2^47 ns (39 hours) share the last bucket. */
#define CQN_HIST_MAX_MSB	47
#define CQN_HIST_BUCKETS	((CQN_HIST_MAX_MSB - CQN_HIST_SUB_SHIFT + 2) * CQN_HIST_SUB)

unsigned int cqn_hist_bucket(u64 v);
u64 cqn_hist_bucket_low(unsigned int idx);
u64 cqn_hist_bucket_high(unsigned int idx);
u64 cqn_hist_percentile(const u64 *buckets, u64 max, u32 num, u32 den);
u64 cqn_hist_total(const u64 *buckets);

#endif /* _CQN_HIST_H */
