// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite cqnotify_share: where a connection's QP goes (cq_share) and
 * how many QPs a new CQ is sized for.
 */
#include <kunit/test.h>

#include "cqn_share.h"

/* conn: every connection alone; cpu: round robin; endpoint: one group. */
static void cqn_share_test_group(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cqn_share_group(CQN_SHARE_CONN, 0, 2), 0);
	KUNIT_EXPECT_EQ(test, cqn_share_group(CQN_SHARE_CONN, 5, 2), 5);
	KUNIT_EXPECT_EQ(test, cqn_share_group(CQN_SHARE_CPU, 5, 2), 1);
	KUNIT_EXPECT_EQ(test, cqn_share_group(CQN_SHARE_CPU, 6, 4), 2);
	KUNIT_EXPECT_EQ(test, cqn_share_group(CQN_SHARE_CPU, 7, 0), 0);
	KUNIT_EXPECT_EQ(test, cqn_share_group(CQN_SHARE_ENDPOINT, 1023, 8), 0);
}

/* rxe has one completion vector: everything lands on it. */
static void cqn_share_test_vector(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cqn_share_vector(CQN_SHARE_CONN, 5, 5, 1), 0);
	KUNIT_EXPECT_EQ(test, cqn_share_vector(CQN_SHARE_CONN, 5, 5, 4), 1);
	KUNIT_EXPECT_EQ(test, cqn_share_vector(CQN_SHARE_CPU, 3, 7, 2), 1);
	KUNIT_EXPECT_EQ(test, cqn_share_vector(CQN_SHARE_CPU, 3, 7, 0), 0);
	KUNIT_EXPECT_EQ(test, cqn_share_vector(CQN_SHARE_ENDPOINT, 0, 9, 4), 0);
}

/* The sizing rule summed over the QPs a CQ serves, within the device. */
static void cqn_share_test_slots(struct kunit *test)
{
	/* One per connection, whatever is expected. */
	KUNIT_EXPECT_EQ(test, cqn_share_slots(CQN_SHARE_CONN, 256, 64, 2, 32767), 1);
	/* The endpoint's QPs on one CQ: 16 * 256 = 4096 entries. */
	KUNIT_EXPECT_EQ(test, cqn_share_slots(CQN_SHARE_ENDPOINT, 256, 16, 2, 32767), 16);
	/* A CPU's share, rounded up: 17 over 2 CPUs is 9 each. */
	KUNIT_EXPECT_EQ(test, cqn_share_slots(CQN_SHARE_CPU, 256, 17, 2, 32767), 9);
	/* More than one CQ holds: as many as fit (32767 / 256 = 127). */
	KUNIT_EXPECT_EQ(test, cqn_share_slots(CQN_SHARE_ENDPOINT, 256, 1024, 1, 32767), 127);
	/* A QP larger than the device's CQ still gets one slot (creation fails). */
	KUNIT_EXPECT_EQ(test, cqn_share_slots(CQN_SHARE_ENDPOINT, 65536, 4, 1, 32767), 1);
	KUNIT_EXPECT_EQ(test, cqn_share_slots(CQN_SHARE_CPU, 256, 0, 2, 32767), 1);
	KUNIT_EXPECT_EQ(test, cqn_share_slots(CQN_SHARE_CPU, 0, 8, 2, 32767), 1);
	/* The entries never exceed the device's CQ. */
	KUNIT_EXPECT_LE(test, cqn_share_slots(CQN_SHARE_CPU, 300, 1024, 1, 32767) * 300, 32767);
}

/* A full CQ takes no QP: the group grows by another CQ. */
static void cqn_share_test_joinable(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, cqn_share_joinable(0, 1, false));
	KUNIT_EXPECT_FALSE(test, cqn_share_joinable(1, 1, false));
	KUNIT_EXPECT_TRUE(test, cqn_share_joinable(126, 127, false));
	KUNIT_EXPECT_FALSE(test, cqn_share_joinable(127, 127, false));
	KUNIT_EXPECT_FALSE(test, cqn_share_joinable(3, 127, true));
}

/*
 * Busy from a quarter budget's wakeup; idle when an event's wakeup finds
 * fewer than 8; the same in between, and after the short end of a burst.
 */
static void cqn_share_test_busy(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, cqn_share_busy(false, CQN_SHARE_BUSY, true));
	KUNIT_EXPECT_TRUE(test, cqn_share_busy(false, 256, false));
	KUNIT_EXPECT_FALSE(test, cqn_share_busy(false, CQN_SHARE_BUSY - 1, true));
	KUNIT_EXPECT_TRUE(test, cqn_share_busy(true, CQN_SHARE_BUSY - 1, true));
	KUNIT_EXPECT_TRUE(test, cqn_share_busy(true, CQN_SHARE_IDLE, true));
	KUNIT_EXPECT_FALSE(test, cqn_share_busy(true, CQN_SHARE_IDLE - 1, true));
	KUNIT_EXPECT_FALSE(test, cqn_share_busy(true, 0, true));
	KUNIT_EXPECT_FALSE(test, cqn_share_busy(false, 1, true));
	/* What is left after a long wakeup does not make the engine idle. */
	KUNIT_EXPECT_TRUE(test, cqn_share_busy(true, 0, false));
	KUNIT_EXPECT_TRUE(test, cqn_share_busy(true, CQN_SHARE_IDLE - 1, false));
	KUNIT_EXPECT_FALSE(test, cqn_share_busy(false, 3, false));
}

static struct kunit_case cqn_share_test_cases[] = {
	KUNIT_CASE(cqn_share_test_group),
	KUNIT_CASE(cqn_share_test_vector),
	KUNIT_CASE(cqn_share_test_slots),
	KUNIT_CASE(cqn_share_test_joinable),
	KUNIT_CASE(cqn_share_test_busy),
	{}
};

static struct kunit_suite cqn_share_test_suite = {
	.name = "cqnotify_share",
	.test_cases = cqn_share_test_cases,
};

kunit_test_suite(cqn_share_test_suite);
