// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite cqnotify_hist: latency histogram buckets and percentiles.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "cqn_hist.h"

static void cqn_hist_test_bucket_bounds(struct kunit *test)
{
	static const u64 vals[] = { 0, 1, 7, 8, 9, 15, 16, 17, 100, 999, 1000, 1023, 1024,
				    12345, 1000000, 123456789, 1ULL << 40, (1ULL << 47) + 5 };
	int i;

	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		unsigned int b = cqn_hist_bucket(vals[i]);

		KUNIT_ASSERT_LT(test, b, (unsigned int)CQN_HIST_BUCKETS);
		KUNIT_EXPECT_LE_MSG(test, cqn_hist_bucket_low(b), vals[i], "v %llu", vals[i]);
		KUNIT_EXPECT_GT_MSG(test, cqn_hist_bucket_high(b), vals[i], "v %llu", vals[i]);
	}
	KUNIT_EXPECT_EQ(test, cqn_hist_bucket(U64_MAX), (unsigned int)CQN_HIST_BUCKETS - 1);
}

/* Buckets tile the line: each starts where the previous ends, 12.5% wide at most. */
static void cqn_hist_test_contiguous(struct kunit *test)
{
	unsigned int i;

	for (i = 1; i < CQN_HIST_BUCKETS - 1; i++) {
		u64 lo = cqn_hist_bucket_low(i), hi = cqn_hist_bucket_high(i);

		KUNIT_ASSERT_EQ(test, cqn_hist_bucket_high(i - 1), lo);
		KUNIT_ASSERT_EQ(test, cqn_hist_bucket(lo), i);
		KUNIT_ASSERT_EQ(test, cqn_hist_bucket(hi - 1), i);
		if (lo >= 8)
			KUNIT_ASSERT_LE(test, (hi - lo) * 8, lo);
	}
}

static void cqn_hist_test_percentiles(struct kunit *test)
{
	u64 *b = kunit_kzalloc(test, CQN_HIST_BUCKETS * sizeof(u64), GFP_KERNEL);
	u64 v, p50, p99, p999;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 0, 50, 100), 0ULL);
	/* 1000 samples: 1..1000 us */
	for (i = 1; i <= 1000; i++)
		b[cqn_hist_bucket((u64)i * 1000)]++;
	KUNIT_EXPECT_EQ(test, cqn_hist_total(b), 1000ULL);
	p50 = cqn_hist_percentile(b, 1000000, 50, 100);
	p99 = cqn_hist_percentile(b, 1000000, 99, 100);
	p999 = cqn_hist_percentile(b, 1000000, 999, 1000);
	/* Never below the true value, at most one bucket (12.5%) above it. */
	KUNIT_EXPECT_GE(test, p50, 500000ULL);
	KUNIT_EXPECT_LE(test, p50, 562500ULL);
	KUNIT_EXPECT_GE(test, p99, 990000ULL);
	KUNIT_EXPECT_LE(test, p99, 1000000ULL);
	KUNIT_EXPECT_GE(test, p999, 999000ULL);
	KUNIT_EXPECT_LE(test, p999, 1000000ULL);
	KUNIT_EXPECT_LE(test, p50, p99);
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 1000000, 100, 100), 1000000ULL);

	/* One outlier in a thousand moves p99.9 but not p99. */
	memset(b, 0, CQN_HIST_BUCKETS * sizeof(u64));
	b[cqn_hist_bucket(10000)] = 999;
	b[cqn_hist_bucket(5000000)] = 1;
	v = cqn_hist_percentile(b, 5000000, 99, 100);
	KUNIT_EXPECT_LT(test, v, 12000ULL);
	v = cqn_hist_percentile(b, 5000000, 9999, 10000);
	KUNIT_EXPECT_EQ(test, v, 5000000ULL);
}

/*
 * The rank's edges: the ranked sample closes its bucket (the answer is that
 * bucket, not the next non-empty one), or opens the next; rank is
 * ceil(total * num / den), never the floor; p0 is the first sample, p100
 * the largest; the answer is the top of the bucket, capped at max.
 */
static void cqn_hist_test_rank_boundaries(struct kunit *test)
{
	u64 *b = kunit_kzalloc(test, CQN_HIST_BUCKETS * sizeof(u64), GFP_KERNEL);
	unsigned int lo, hi;

	KUNIT_ASSERT_NOT_NULL(test, b);
	lo = cqn_hist_bucket(100);
	hi = cqn_hist_bucket(1000);
	KUNIT_ASSERT_LT(test, lo + 1, hi);
	/* 10 samples at 100, 10 at 1000, empty buckets between them. */
	b[lo] = 10;
	b[hi] = 10;
	/* rank 10 of 20: the last sample of the lower bucket */
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 1000, 50, 100),
			cqn_hist_bucket_high(lo) - 1);
	/* rank 11: the first of the upper one (capped at the largest sample) */
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 1000, 55, 100), 1000ULL);
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 1000, 51, 100), 1000ULL);
	/* 20 * 9 / 20 = 9 exactly and 20 * 1 / 2 = 10 exactly: no rounding up */
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 1000, 9, 20),
			cqn_hist_bucket_high(lo) - 1);
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 1000, 1, 2),
			cqn_hist_bucket_high(lo) - 1);
	/* p0 is the first sample's bucket; p100 the largest sample */
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 1000, 0, 100),
			cqn_hist_bucket_high(lo) - 1);
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 1000, 100, 100), 1000ULL);
	/* The top of the bucket, not its bottom: 1000 lies in [lo(hi), high(hi)). */
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, U64_MAX, 100, 100),
			cqn_hist_bucket_high(hi) - 1);
	KUNIT_EXPECT_GE(test, cqn_hist_bucket_high(hi) - 1, 1000ULL);

	/* Three samples, one a bucket: p50's rank is ceil(1.5) = 2. */
	memset(b, 0, CQN_HIST_BUCKETS * sizeof(u64));
	b[cqn_hist_bucket(100)] = 1;
	b[cqn_hist_bucket(200)] = 1;
	b[cqn_hist_bucket(400)] = 1;
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 400, 50, 100),
			cqn_hist_bucket_high(cqn_hist_bucket(200)) - 1);
	/* p34: ceil(1.02) = 2; p33: ceil(0.99) = 1 */
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 400, 34, 100),
			cqn_hist_bucket_high(cqn_hist_bucket(200)) - 1);
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 400, 33, 100),
			cqn_hist_bucket_high(cqn_hist_bucket(100)) - 1);
	/* p67: ceil(2.01) = 3, the largest sample */
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 400, 67, 100), 400ULL);

	/* One sample: every percentile is it (its bucket's top capped at it). */
	memset(b, 0, CQN_HIST_BUCKETS * sizeof(u64));
	b[cqn_hist_bucket(12345)] = 1;
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 12345, 1, 1000), 12345ULL);
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 12345, 999, 1000), 12345ULL);
	/* A sample of 0 (bucket 0) reads 0. */
	memset(b, 0, CQN_HIST_BUCKETS * sizeof(u64));
	b[0] = 5;
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 0, 99, 100), 0ULL);
	/* Samples in the last bucket (past 2^48): bounded by the largest one. */
	memset(b, 0, CQN_HIST_BUCKETS * sizeof(u64));
	b[CQN_HIST_BUCKETS - 1] = 2;
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, (1ULL << 50) + 7, 50, 100),
			(1ULL << 50) + 7);
	/* den 0 is no percentile */
	KUNIT_EXPECT_EQ(test, cqn_hist_percentile(b, 100, 1, 0), 0ULL);
}

static struct kunit_case cqn_hist_test_cases[] = {
	KUNIT_CASE(cqn_hist_test_bucket_bounds),
	KUNIT_CASE(cqn_hist_test_contiguous),
	KUNIT_CASE(cqn_hist_test_percentiles),
	KUNIT_CASE(cqn_hist_test_rank_boundaries),
	{}
};

static struct kunit_suite cqn_hist_test_suite = {
	.name = "cqnotify_hist",
	.test_cases = cqn_hist_test_cases,
};

kunit_test_suite(cqn_hist_test_suite);
