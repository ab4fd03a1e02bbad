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

static struct kunit_case cqn_hist_test_cases[] = {
	KUNIT_CASE(cqn_hist_test_bucket_bounds),
	KUNIT_CASE(cqn_hist_test_contiguous),
	KUNIT_CASE(cqn_hist_test_percentiles),
	{}
};

static struct kunit_suite cqn_hist_test_suite = {
	.name = "cqnotify_hist",
	.test_cases = cqn_hist_test_cases,
};

kunit_test_suite(cqn_hist_test_suite);
