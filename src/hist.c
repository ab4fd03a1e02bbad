// SPDX-License-Identifier: GPL-2.0
/*
 * Log-linear latency histograms and their percentiles.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/math64.h>

#include "cqn_compat.h"
#include "cqn_hist.h"

/**
 * cqn_hist_bucket() - the bucket a value falls in
 * @v: the value (nanoseconds, or any unit)
 *
 * Values below CQN_HIST_SUB have a bucket each; above, each power of two is
 * split in CQN_HIST_SUB equal parts.
 *
 * Context: any.
 * Return: an index below CQN_HIST_BUCKETS.
 */
unsigned int cqn_hist_bucket(u64 v)
{
	unsigned int msb, sub;

	if (v < CQN_HIST_SUB)
		return v;
	msb = fls64(v) - 1;
	if (msb > CQN_HIST_MAX_MSB)
		return CQN_HIST_BUCKETS - 1;
	sub = (v >> (msb - CQN_HIST_SUB_SHIFT)) & (CQN_HIST_SUB - 1);
	return (msb - CQN_HIST_SUB_SHIFT + 1) * CQN_HIST_SUB + sub;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_hist_bucket);

/**
 * cqn_hist_bucket_low() - smallest value of a bucket
 * @idx: bucket index
 *
 * Context: any.
 * Return: the value.
 */
u64 cqn_hist_bucket_low(unsigned int idx)
{
	unsigned int msb;

	if (idx < CQN_HIST_SUB)
		return idx;
	msb = idx / CQN_HIST_SUB + CQN_HIST_SUB_SHIFT - 1;
	return (u64)(CQN_HIST_SUB + idx % CQN_HIST_SUB) << (msb - CQN_HIST_SUB_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(cqn_hist_bucket_low);

/**
 * cqn_hist_bucket_high() - first value above a bucket
 * @idx: bucket index
 *
 * Context: any.
 * Return: the value; U64_MAX for the last bucket.
 */
u64 cqn_hist_bucket_high(unsigned int idx)
{
	if (idx >= CQN_HIST_BUCKETS - 1)
		return U64_MAX;
	return cqn_hist_bucket_low(idx + 1);
}
EXPORT_SYMBOL_IF_KUNIT(cqn_hist_bucket_high);

/**
 * cqn_hist_total() - number of samples in a histogram
 * @buckets: CQN_HIST_BUCKETS counts
 *
 * Context: any.
 * Return: the sum.
 */
u64 cqn_hist_total(const u64 *buckets)
{
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < CQN_HIST_BUCKETS; i++)
		n += buckets[i];
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_hist_total);

/**
 * cqn_hist_percentile() - the value below which num/den of the samples lie
 * @buckets: CQN_HIST_BUCKETS counts
 * @max: the largest sample seen (bounds the answer)
 * @num: numerator, e.g. 999
 * @den: denominator, e.g. 1000
 *
 * The answer is the top of the bucket holding the sample of that rank, so
 * it overstates by less than one bucket width (12.5%), never understates.
 *
 * Context: any.
 * Return: the percentile, 0 for an empty histogram.
 */
u64 cqn_hist_percentile(const u64 *buckets, u64 max, u32 num, u32 den)
{
	u64 total = cqn_hist_total(buckets);
	u64 rank, seen = 0;
	unsigned int i;

	if (!total || !den)
		return 0;
	/* rank = ceil(total * num / den), at least 1 */
	rank = div64_u64(total * num + den - 1, den);
	if (!rank)
		rank = 1;
	for (i = 0; i < CQN_HIST_BUCKETS; i++) {
		seen += buckets[i];
		if (seen >= rank)
			return min(cqn_hist_bucket_high(i) - 1, max);
	}
	return max;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_hist_percentile);
