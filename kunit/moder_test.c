// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite cqnotify_moder: software moderation, the adaptive polling
 * window, adaptive moderation profiles, hardware clamping, resize rules
 * and the live cq_mode switch rule.
 */
#include <kunit/test.h>
#include <linux/math64.h>

#include "cqn_config.h"
#include "cqn_moder.h"

#define US(x)	((u64)(x) * NSEC_PER_USEC)

static void cqn_moder_test_params(struct kunit *test)
{
	struct cqn_moder m;

	KUNIT_EXPECT_FALSE(test, cqn_sw_moder_params(0, 0, &m));
	KUNIT_EXPECT_FALSE(test, cqn_sw_moder_params(1, 50, &m));
	KUNIT_EXPECT_TRUE(test, cqn_sw_moder_params(16, 50, &m));
	KUNIT_EXPECT_EQ(test, m.count, 16U);
	KUNIT_EXPECT_EQ(test, m.period_us, 50U);
	/* A count without a period still gets a period: nothing is stranded. */
	KUNIT_EXPECT_TRUE(test, cqn_sw_moder_params(16, 0, &m));
	KUNIT_EXPECT_EQ(test, m.period_us, (u32)CQN_SW_MODER_DEFAULT_PERIOD_US);
	/* A period alone holds up to the staging capacity. */
	KUNIT_EXPECT_TRUE(test, cqn_sw_moder_params(0, 30, &m));
	KUNIT_EXPECT_EQ(test, m.count, (u32)CQN_SW_MODER_MAX_COUNT);
	KUNIT_EXPECT_TRUE(test, cqn_sw_moder_params(60000, 10, &m));
	KUNIT_EXPECT_EQ(test, m.count, (u32)CQN_SW_MODER_MAX_COUNT);
}

static void cqn_moder_test_count_reached(struct kunit *test)
{
	struct cqn_moder m = { .count = 16, .period_us = 50 };
	u64 dl = 0;

	KUNIT_EXPECT_EQ(test, cqn_sw_moder_decide(&m, 0, 0, 1000, &dl), CQN_SWM_IDLE);
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_decide(&m, 15, 1000, 1000, &dl), CQN_SWM_WAIT);
	KUNIT_EXPECT_EQ(test, dl, 1000 + US(50));
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_decide(&m, 16, 1000, 1000, &dl), CQN_SWM_DISPATCH);
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_decide(&m, 40, 1000, 1000, &dl), CQN_SWM_DISPATCH);
}

/*
 * With no gap known a held CQ is looked at every quarter period, 20 us apart
 * at least, never after the deadline.
 */
static void cqn_moder_test_next_check(struct kunit *test)
{
	struct cqn_moder m = { .count = 16, .period_us = 1000 };
	struct cqn_moder tiny = { .count = 16, .period_us = 8 };

	KUNIT_EXPECT_EQ(test, cqn_sw_moder_next_check(&m, 1, 0, US(100), US(1100)), US(350));
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_next_check(&m, 1, 0, US(1000), US(1100)), US(1100));
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_next_check(&tiny, 1, 0, US(0), US(8)), US(8));
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_next_check(&tiny, 1, 0, US(0), US(100)), US(20));
}

/* With a gap known the look comes when the count is expected, within its bounds. */
static void cqn_moder_test_next_check_gap(struct kunit *test)
{
	struct cqn_moder m = { .count = 16, .period_us = 4000 };

	/* 6 more at 100 us apart: 600 us from now. */
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_next_check(&m, 10, US(100), US(0), US(4000)), US(600));
	/* Expected after a quarter period: a quarter period (the rate may change). */
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_next_check(&m, 6, US(150), US(0), US(4000)), US(1000));
	/* Expected at once: not sooner than 20 us. */
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_next_check(&m, 15, US(5), US(0), US(4000)), US(20));
	/* Never after the deadline. */
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_next_check(&m, 10, US(100), US(3800), US(4000)),
			US(4000));
	/* Count already reached (the caller dispatches): the quarter period bound. */
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_next_check(&m, 16, US(100), US(0), US(4000)), US(1000));
}

static void cqn_moder_test_gap(struct kunit *test)
{
	/* Nothing to go by: the previous estimate stands. */
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_gap(0, US(0), US(500), US(7)), US(7));
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_gap(1, US(0), US(500), US(7)), US(7));
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_gap(8, US(500), US(500), 0), 0ULL);
	/* 10 completions over 1000 us: 100 us apart (a little early, never late). */
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_gap(10, US(100), US(1100), US(7)), US(100));
}

/*
 * One hold of paced completions, one every @g ns from the first at 0, as
 * the engine runs it: stage, decide, plan the next look. Returns when the
 * hold ended; *@est carries the gap estimate into the next hold.
 */
static u64 cqn_moder_test_one_hold(struct kunit *test, const struct cqn_moder *m, u64 g,
				   u64 *est, u32 *looks)
{
	enum cqn_sw_moder_action a;
	u64 now = 0, dl = 0;
	u32 n = 1;

	*looks = 0;
	for (;;) {
		*est = cqn_sw_moder_gap(n, 0, now, *est);
		a = cqn_sw_moder_decide(m, n, 0, now, &dl);
		if (a != CQN_SWM_WAIT)
			break;
		now = cqn_sw_moder_next_check(m, n, *est, now, dl);
		n = min_t(u64, div64_u64(now, g) + 1, CQN_SW_MODER_MAX_COUNT);
		(*looks)++;
	}
	KUNIT_EXPECT_EQ(test, a, CQN_SWM_DISPATCH);
	return now;
}

/*
 * Paced completions: once a hold has shown how far apart they come, the
 * looks the engine plans end the next hold within a gap (plus the
 * shortest look interval) of the count being reached, in a few looks, as
 * a device would. The first hold has nothing to go by and looks every
 * quarter period, so it may end up to a quarter period late.
 */
static void cqn_moder_test_hold_ends_at_count(struct kunit *test)
{
	static const u32 gaps_us[] = { 10, 50, 120, 180, 240, 260, 300 };
	struct cqn_moder m = { .count = 16, .period_us = 4000 };
	u64 quarter = US(m.period_us) / 4;
	int i;

	for (i = 0; i < ARRAY_SIZE(gaps_us); i++) {
		u64 g = US(gaps_us[i]), est = 0, end;
		u64 reached = (u64)(m.count - 1) * g;
		u64 limit = min_t(u64, reached, US(m.period_us));
		u32 looks;

		end = cqn_moder_test_one_hold(test, &m, g, &est, &looks);
		KUNIT_EXPECT_LE_MSG(test, end, limit + quarter, "gap %u us, first hold",
				    gaps_us[i]);
		end = cqn_moder_test_one_hold(test, &m, g, &est, &looks);
		KUNIT_EXPECT_LE_MSG(test, end, limit + g + US(CQN_SW_MODER_MIN_CHECK_US),
				    "gap %u us: count reached at %llu ns, hold ended at %llu ns",
				    gaps_us[i], reached, end);
		KUNIT_EXPECT_LE(test, end, US(m.period_us));
		KUNIT_EXPECT_LE_MSG(test, looks, 6U, "gap %u us", gaps_us[i]);
	}
}

static void cqn_moder_test_period_expiry(struct kunit *test)
{
	struct cqn_moder m = { .count = 16, .period_us = 50 };
	u64 dl = 0;

	KUNIT_EXPECT_EQ(test, cqn_sw_moder_decide(&m, 3, US(100), US(149), &dl), CQN_SWM_WAIT);
	KUNIT_EXPECT_EQ(test, dl, US(150));
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_decide(&m, 3, US(100), US(150), &dl),
			CQN_SWM_DISPATCH);
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_decide(&m, 3, US(100), US(10000), &dl),
			CQN_SWM_DISPATCH);
}

/* A lone completion is dispatched at the latest one period after it came. */
static void cqn_moder_test_lone_never_stranded(struct kunit *test)
{
	static const u32 counts[] = { 0, 2, 16, 256, 65535 };
	static const u32 periods[] = { 0, 1, 50, 65535 };
	struct cqn_moder m;
	int i, j;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		for (j = 0; j < ARRAY_SIZE(periods); j++) {
			u64 first = 12345, dl = 0, now;
			enum cqn_sw_moder_action a;

			if (!cqn_sw_moder_params(counts[i], periods[j], &m))
				continue;
			a = cqn_sw_moder_decide(&m, 1, first, first, &dl);
			if (a == CQN_SWM_DISPATCH)
				continue;
			KUNIT_ASSERT_EQ(test, a, CQN_SWM_WAIT);
			KUNIT_EXPECT_LE(test, dl, first + US(m.period_us));
			KUNIT_EXPECT_GT(test, dl, first);
			now = dl;
			KUNIT_EXPECT_EQ_MSG(test, cqn_sw_moder_decide(&m, 1, first, now, &dl),
					    CQN_SWM_DISPATCH, "count %u period %u",
					    counts[i], periods[j]);
		}
	}
}

static void cqn_moder_test_staging_full(struct kunit *test)
{
	struct cqn_moder m = { .count = 0, .period_us = 1000 };
	u64 dl;

	KUNIT_EXPECT_EQ(test, cqn_sw_moder_decide(&m, CQN_SW_MODER_MAX_COUNT - 1, 0, 1, &dl),
			CQN_SWM_WAIT);
	KUNIT_EXPECT_EQ(test, cqn_sw_moder_decide(&m, CQN_SW_MODER_MAX_COUNT, 0, 1, &dl),
			CQN_SWM_DISPATCH);
}

static void cqn_moder_test_window(struct kunit *test)
{
	u32 w = 0;
	int i;

	/* Hits grow it from 0 to the cap, doubling. */
	w = cqn_adaptive_window_next(w, 50, CQN_WIN_HIT, 0);
	KUNIT_EXPECT_EQ(test, w, (u32)CQN_ADAPTIVE_STEP_US);
	w = cqn_adaptive_window_next(w, 50, CQN_WIN_HIT, 0);
	KUNIT_EXPECT_EQ(test, w, 2U * CQN_ADAPTIVE_STEP_US);
	for (i = 0; i < 10; i++)
		w = cqn_adaptive_window_next(w, 50, CQN_WIN_HIT, 0);
	KUNIT_EXPECT_EQ(test, w, 50U);
	/* Empty windows halve it down to 0. */
	w = cqn_adaptive_window_next(w, 50, CQN_WIN_EMPTY, 0);
	KUNIT_EXPECT_EQ(test, w, 25U);
	for (i = 0; i < 10; i++)
		w = cqn_adaptive_window_next(w, 50, CQN_WIN_EMPTY, 0);
	KUNIT_EXPECT_EQ(test, w, 0U);
	/* An event a window could have caught sets it to twice the gap. */
	KUNIT_EXPECT_EQ(test, cqn_adaptive_window_next(0, 50, CQN_WIN_EVENT, US(10)), 20U);
	KUNIT_EXPECT_EQ(test, cqn_adaptive_window_next(0, 50, CQN_WIN_EVENT, US(40)), 50U);
	KUNIT_EXPECT_EQ(test, cqn_adaptive_window_next(30, 50, CQN_WIN_EVENT, US(5)), 30U);
	/* One too far apart changes nothing. */
	KUNIT_EXPECT_EQ(test, cqn_adaptive_window_next(4, 50, CQN_WIN_EVENT, US(51)), 4U);
	/* A zero cap keeps the window at 0: adaptive behaves like event. */
	KUNIT_EXPECT_EQ(test, cqn_adaptive_window_next(0, 0, CQN_WIN_HIT, 0), 0U);
	KUNIT_EXPECT_EQ(test, cqn_adaptive_window_next(0, 0, CQN_WIN_EVENT, 0), 0U);
	/* A lowered cap takes effect on the next decision. */
	KUNIT_EXPECT_EQ(test, cqn_adaptive_window_next(80, 50, CQN_WIN_HIT, 0), 50U);
}

/*
 * The poll thread's spin before a nap: poll_idle_us until a first nap's
 * event hands over a completion that came after a gap a spin of at most
 * CQN_POLL_SPIN_MAX_X times poll_idle_us, and at most the longest nap,
 * would have caught; then twice that gap. A nap that hands nothing over
 * halves it, never below poll_idle_us; a later nap's completion, or one
 * beyond the bound, leaves it; poll_idle_us 0 never naps, and a
 * poll_idle_us changed live bounds what was learned.
 */
static void cqn_moder_test_poll_spin(struct kunit *test)
{
	u32 spin;

	KUNIT_EXPECT_EQ(test, cqn_poll_spin_now(0, 100), 100U);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_now(0, 0), 0U);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_now(700, 0), 0U);
	/* 6.12's pingpong: the reply came 110 us after the thread's last completion. */
	spin = cqn_poll_spin_next(0, 100, true, US(110));
	KUNIT_EXPECT_EQ(test, spin, 220U);
	/* Caught by spinning from then on; a slower one raises it again. */
	spin = cqn_poll_spin_next(spin, 100, true, US(300));
	KUNIT_EXPECT_EQ(test, spin, 600U);
	/* A shorter one after it leaves it: the spin only grows with the gaps. */
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(spin, 100, true, US(230)), 600U);
	/* Never beyond CQN_POLL_SPIN_MAX_X times poll_idle_us. */
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(spin, 100, true, US(900)),
			100U * CQN_POLL_SPIN_MAX_X);
	/* A gap beyond the bound, or a later nap's completion, teaches nothing. */
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(spin, 100, true, US(1001)), spin);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(spin, 100, false, US(150)), spin);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(0, 100, false, US(150)), 100U);
	/* Naps that hand nothing over: halved, to poll_idle_us at the least. */
	spin = cqn_poll_spin_next(spin, 100, false, 0);
	KUNIT_EXPECT_EQ(test, spin, 300U);
	spin = cqn_poll_spin_next(spin, 100, true, 0);
	KUNIT_EXPECT_EQ(test, spin, 150U);
	spin = cqn_poll_spin_next(spin, 100, false, 0);
	KUNIT_EXPECT_EQ(test, spin, 100U);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(spin, 100, false, 0), 100U);
	/* poll_idle_us 0: never a spin to nap after. */
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(600, 0, true, US(110)), 0U);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(600, 0, false, 0), 0U);
	/* poll_idle_us lowered live to 20: 600 learned under 100 becomes 200. */
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_now(600, 20), 20U * CQN_POLL_SPIN_MAX_X);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(600, 20, false, 0), 100U);
	/* Raised live to 500: what was learned under 100 is below it. */
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_now(220, 500), 500U);
	/* Never beyond the longest nap, nor below poll_idle_us for that. */
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_max(100), 1000ULL);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_max(500), (u64)CQN_POLL_NAP_MAX_US);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_max(5000), 5000ULL);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(0, 500, true, US(600)), (u32)CQN_POLL_NAP_MAX_US);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(0, 1000, true, US(900)), 1000U);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(0, 5000, true, US(4000)), 5000U);
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_now(20000, 5000), 5000U);
	/* A partial microsecond counts as one: the spin covers the gap. */
	KUNIT_EXPECT_EQ(test, cqn_poll_spin_next(0, 100, true, US(110) + 1), 222U);
}

/*
 * The poll thread's naps: none while the CQ was empty for less than
 * poll_idle_us, then CQN_POLL_NAP_MIN_US doubling to CQN_POLL_NAP_MAX_US;
 * none ever with poll_idle_us 0.
 */
static void cqn_moder_test_poll_nap(struct kunit *test)
{
	u32 nap = 0;
	int i;

	KUNIT_EXPECT_EQ(test, cqn_poll_nap_next(0, US(99), 100, false), 0U);
	KUNIT_EXPECT_EQ(test, cqn_poll_nap_next(0, US(100000), 0, false), 0U);
	nap = cqn_poll_nap_next(nap, US(100), 100, false);
	KUNIT_EXPECT_EQ(test, nap, (u32)CQN_POLL_NAP_MIN_US);
	nap = cqn_poll_nap_next(nap, US(120), 100, false);
	KUNIT_EXPECT_EQ(test, nap, 2U * CQN_POLL_NAP_MIN_US);
	for (i = 0; i < 20; i++)
		nap = cqn_poll_nap_next(nap, US(200 + i), 100, false);
	KUNIT_EXPECT_EQ(test, nap, (u32)CQN_POLL_NAP_MAX_US);
	/* Whatever poll_idle_us, the naps start at the first and end at the longest. */
	KUNIT_EXPECT_EQ(test, cqn_poll_nap_next(0, US(5), 5, false), (u32)CQN_POLL_NAP_MIN_US);
	KUNIT_EXPECT_EQ(test, cqn_poll_nap_next(CQN_POLL_NAP_MAX_US, US(200000), 100000, false),
			(u32)CQN_POLL_NAP_MAX_US);
	KUNIT_EXPECT_EQ(test, cqn_poll_nap_next(0, US(99999), 100000, false), 0U);
	/* Completions again (the caller restarts from 0): spin. */
	KUNIT_EXPECT_EQ(test, cqn_poll_nap_next(0, 0, 100, false), 0U);
	/* Stolen: a nap as soon as the CQ is empty, doubling as before... */
	nap = cqn_poll_nap_next(0, 0, 100, true);
	KUNIT_EXPECT_EQ(test, nap, (u32)CQN_POLL_NAP_MIN_US);
	KUNIT_EXPECT_EQ(test, cqn_poll_nap_next(nap, US(1), 100000, true),
			2U * CQN_POLL_NAP_MIN_US);
	KUNIT_EXPECT_EQ(test, cqn_poll_nap_next(CQN_POLL_NAP_MAX_US, 0, 100, true),
			(u32)CQN_POLL_NAP_MAX_US);
	/* ...but never with poll_idle_us 0. */
	KUNIT_EXPECT_EQ(test, cqn_poll_nap_next(0, US(100000), 0, true), 0U);
}

/*
 * A stolen pass of the poll loop: a quiet one (empty CQ, nothing else run
 * on its CPU) of at least CQN_POLL_STEAL_US. A long pass that ran softirqs,
 * switched or found completions is the guest's own work.
 */
static void cqn_moder_test_poll_stolen(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, cqn_poll_stolen(US(CQN_POLL_STEAL_US), true));
	KUNIT_EXPECT_TRUE(test, cqn_poll_stolen(US(50000), true));
	KUNIT_EXPECT_FALSE(test, cqn_poll_stolen(US(CQN_POLL_STEAL_US) - 1, true));
	KUNIT_EXPECT_FALSE(test, cqn_poll_stolen(US(2), true));
	KUNIT_EXPECT_FALSE(test, cqn_poll_stolen(US(50000), false));
	KUNIT_EXPECT_FALSE(test, cqn_poll_stolen(0, false));
}

/*
 * Following the events: a free thread is held only when the host is busy,
 * to the CPU that takes its CQ's events if that is a lower one than its
 * own, else to its own (two threads following each other meet, not swap);
 * a held one moves down with the events, busy or not, and is let go after
 * CQN_POLL_FOLLOW_MS whatever happens, then stays free CQN_POLL_FREE_MS.
 */
static void cqn_moder_test_poll_follow(struct kunit *test)
{
	u64 hold = US(CQN_POLL_FOLLOW_MS * 1000), free = US(CQN_POLL_FREE_MS * 1000);

	/* Free: a quiet host leaves it to the scheduler. */
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(-1, 1, 0, false, free), -1);
	/* A busy one holds it where the events are taken, if lower... */
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(-1, 1, 0, true, free), 0);
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(-1, 3, 2, true, hold * 5), 2);
	/* ...else where it runs, and where it runs with no event taken yet. */
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(-1, 0, 1, true, free), 0);
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(-1, 1, 1, true, free), 1);
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(-1, 1, -1, true, free), 1);
	/* Not before it has been free a while: the scheduler places it first. */
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(-1, 1, 0, true, free - 1), -1);
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(-1, 1, 0, true, 0), -1);
	/* Held: it stays, or moves down with the events, until the hold is over. */
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(1, 1, 1, false, hold - 1), 1);
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(1, 1, 0, false, 10), 0);
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(0, 0, 1, true, 10), 0);
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(1, 1, -1, true, 10), 1);
	/* Where the scheduler last ran it does not matter while held. */
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(1, 0, 1, false, 10), 1);
	/* Then it is let go, even on a busy host. */
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(1, 1, 1, true, hold), -1);
	KUNIT_EXPECT_EQ(test, cqn_poll_follow(0, 0, 0, false, hold + 1), -1);
}

/*
 * Judging the host by the ticks: busy under CQN_POLL_HOST_BUSY_PCT of the
 * run time sampled, quiet again only from CQN_POLL_HOST_QUIET_PCT; a
 * window without run time changes nothing.
 */
static void cqn_moder_test_poll_host_busy(struct kunit *test)
{
	u64 ran = US(CQN_POLL_HOST_WINDOW_MS * 1000);
	u64 busy_at = div64_u64(ran * CQN_POLL_HOST_BUSY_PCT, 100);
	u64 quiet_at = div64_u64(ran * CQN_POLL_HOST_QUIET_PCT, 100);

	/* A vCPU the host ran all along: every tick seen. */
	KUNIT_EXPECT_FALSE(test, cqn_poll_host_busy(false, ran, ran));
	/* One it ran half the time. */
	KUNIT_EXPECT_TRUE(test, cqn_poll_host_busy(false, ran / 2, ran));
	KUNIT_EXPECT_TRUE(test, cqn_poll_host_busy(false, 0, ran));
	/* The thresholds, from quiet. */
	KUNIT_EXPECT_FALSE(test, cqn_poll_host_busy(false, busy_at, ran));
	KUNIT_EXPECT_TRUE(test, cqn_poll_host_busy(false, busy_at - 1, ran));
	/* From busy, between the two: still busy; at the quiet one: quiet. */
	KUNIT_EXPECT_TRUE(test, cqn_poll_host_busy(true, busy_at, ran));
	KUNIT_EXPECT_TRUE(test, cqn_poll_host_busy(true, quiet_at - 1, ran));
	KUNIT_EXPECT_FALSE(test, cqn_poll_host_busy(true, quiet_at, ran));
	/* More sampled than ran (a tick just after the window's start). */
	KUNIT_EXPECT_FALSE(test, cqn_poll_host_busy(true, ran + US(4000), ran));
	/* No run time: nothing to judge by. */
	KUNIT_EXPECT_TRUE(test, cqn_poll_host_busy(true, 0, 0));
	KUNIT_EXPECT_FALSE(test, cqn_poll_host_busy(false, 0, 0));
}

/*
 * Holding for the host: a busy window starts a hold of
 * CQN_POLL_HOST_HOLD_MIN_MS; a quiet window ends it only once that is
 * over; busy windows keep it; a hold started within CQN_POLL_HOST_AGAIN_MS
 * of the last one's end lasts twice as long, up to
 * CQN_POLL_HOST_HOLD_MAX_MS, and one started later the least again.
 */
static void cqn_moder_test_poll_host_judged(struct kunit *test)
{
	u64 min = US(CQN_POLL_HOST_HOLD_MIN_MS * 1000), again = US(CQN_POLL_HOST_AGAIN_MS * 1000);
	struct cqn_poll_hold h = {};
	u64 t = US(5000000);
	u32 want;
	int i;

	/* Quiet: nothing starts. */
	KUNIT_EXPECT_FALSE(test, cqn_poll_host_judged(&h, false, t));
	KUNIT_EXPECT_FALSE(test, h.on);
	/* Busy: held, for the least. */
	KUNIT_EXPECT_TRUE(test, cqn_poll_host_judged(&h, true, t));
	KUNIT_EXPECT_TRUE(test, h.on);
	KUNIT_EXPECT_EQ(test, h.hold_ms, (u32)CQN_POLL_HOST_HOLD_MIN_MS);
	/* Quiet before the hold is over: still held. */
	KUNIT_EXPECT_FALSE(test, cqn_poll_host_judged(&h, false, t + min - 1));
	KUNIT_EXPECT_TRUE(test, h.on);
	/* Busy after it: still held, for as long as that lasts. */
	KUNIT_EXPECT_FALSE(test, cqn_poll_host_judged(&h, true, t + 10 * min));
	KUNIT_EXPECT_TRUE(test, h.on);
	/* Quiet after it: let go. */
	t += 10 * min;
	KUNIT_EXPECT_TRUE(test, cqn_poll_host_judged(&h, false, t));
	KUNIT_EXPECT_FALSE(test, h.on);
	/* Busy again soon: the hold doubles, each time, up to the most. */
	for (i = 1; i < 8; i++) {
		KUNIT_EXPECT_TRUE(test, cqn_poll_host_judged(&h, true, t + again - 1));
		want = min_t(u32, CQN_POLL_HOST_HOLD_MIN_MS << i, CQN_POLL_HOST_HOLD_MAX_MS);
		KUNIT_EXPECT_EQ(test, h.hold_ms, want);
		t += again - 1 + US(h.hold_ms * 1000);
		KUNIT_EXPECT_FALSE(test, cqn_poll_host_judged(&h, false, t - 1));
		KUNIT_EXPECT_TRUE(test, cqn_poll_host_judged(&h, false, t));
	}
	KUNIT_EXPECT_EQ(test, h.hold_ms, (u32)CQN_POLL_HOST_HOLD_MAX_MS);
	/* Busy again late: the least again. */
	KUNIT_EXPECT_TRUE(test, cqn_poll_host_judged(&h, true, t + again));
	KUNIT_EXPECT_EQ(test, h.hold_ms, (u32)CQN_POLL_HOST_HOLD_MIN_MS);
}

/*
 * The poll thread's rates: each side adds up, halves once the two cover
 * CQN_POLL_RATES_WINDOW_MS, and a stretch longer than the window counts
 * as the window at its own rate.
 */
static void cqn_moder_test_poll_rates(struct kunit *test)
{
	struct cqn_poll_rates r = {};

	cqn_poll_rates_add(&r, false, 40, US(1000));
	cqn_poll_rates_add(&r, true, 10, US(1000));
	KUNIT_EXPECT_EQ(test, r.polled, 40ULL);
	KUNIT_EXPECT_EQ(test, r.polled_ns, US(1000));
	KUNIT_EXPECT_EQ(test, r.carried, 10ULL);
	KUNIT_EXPECT_EQ(test, r.carried_ns, US(1000));
	/* Reaching the window halves all four. */
	cqn_poll_rates_add(&r, true, 960, US(CQN_POLL_RATES_WINDOW_MS * 1000 - 2000));
	KUNIT_EXPECT_EQ(test, r.polled, 20ULL);
	KUNIT_EXPECT_EQ(test, r.polled_ns, US(500));
	KUNIT_EXPECT_EQ(test, r.carried, 485ULL);
	KUNIT_EXPECT_EQ(test, r.carried_ns, US(CQN_POLL_RATES_WINDOW_MS * 1000 / 2 - 500));
	/* A held spell of a whole second: the window's worth, at its rate. */
	r = (struct cqn_poll_rates){};
	cqn_poll_rates_add(&r, false, 4000000, US(1000000));
	KUNIT_EXPECT_EQ(test, r.polled, 4ULL * CQN_POLL_RATES_WINDOW_MS * 1000 / 2);
	KUNIT_EXPECT_EQ(test, r.polled_ns, US(CQN_POLL_RATES_WINDOW_MS * 1000 / 2));
	KUNIT_EXPECT_EQ(test, r.carried, 0ULL);
}

/*
 * Riding the naps' events: with both rates measured, starting when the
 * events' is more than 5/4 of the thread's and going on while it is at
 * least 3/4 of it, for at most CQN_POLL_RIDE_MAX_MS at a time.
 */
static void cqn_moder_test_poll_ride(struct kunit *test)
{
	struct cqn_poll_rates busy_host = { .polled = 5, .polled_ns = US(1000),
					    .carried = 10, .carried_ns = US(1000) };
	struct cqn_poll_rates quiet = { .polled = 40, .polled_ns = US(1000),
					.carried = 26, .carried_ns = US(1000) };
	struct cqn_poll_rates close = { .polled = 100, .polled_ns = US(1000),
					.carried = 125, .carried_ns = US(1000) };
	struct cqn_poll_rates unheld = { .polled = 0, .polled_ns = US(400),
					 .carried = 10, .carried_ns = US(1000) };

	KUNIT_EXPECT_TRUE(test, cqn_poll_ride(&busy_host, false, US(10)));
	KUNIT_EXPECT_TRUE(test, cqn_poll_ride(&busy_host, true,
					      US(CQN_POLL_RIDE_MAX_MS * 1000) - 1));
	/* Not past the longest ride. */
	KUNIT_EXPECT_FALSE(test, cqn_poll_ride(&busy_host, true, US(CQN_POLL_RIDE_MAX_MS * 1000)));
	/* The thread does better, or not a quarter worse: it takes the CQ back. */
	KUNIT_EXPECT_FALSE(test, cqn_poll_ride(&quiet, false, US(10)));
	KUNIT_EXPECT_FALSE(test, cqn_poll_ride(&quiet, true, US(10)));
	KUNIT_EXPECT_FALSE(test, cqn_poll_ride(&close, false, US(10)));
	close.carried++;
	KUNIT_EXPECT_TRUE(test, cqn_poll_ride(&close, false, US(10)));
	/* A ride goes on down to three quarters of the thread's rate, not below. */
	close.carried = 75;
	KUNIT_EXPECT_TRUE(test, cqn_poll_ride(&close, true, US(10)));
	KUNIT_EXPECT_FALSE(test, cqn_poll_ride(&close, false, US(10)));
	close.carried = 74;
	KUNIT_EXPECT_FALSE(test, cqn_poll_ride(&close, true, US(10)));
	/* Too little time held to judge the thread by. */
	KUNIT_EXPECT_FALSE(test, cqn_poll_ride(&unheld, false, US(10)));
	unheld.polled_ns = US(CQN_POLL_RATES_MIN_US);
	KUNIT_EXPECT_TRUE(test, cqn_poll_ride(&unheld, false, US(10)));
}

/*
 * Look every millisecond at @w with @per_ms completions a millisecond,
 * from *@t for @ms; return how many looks said to ride. *@t moves on.
 */
static unsigned int cqn_moder_test_looks(struct cqn_window_rides *w, u64 *t, u32 per_ms,
					 unsigned int ms)
{
	unsigned int rode = 0;

	while (ms--) {
		*t += US(1000);
		rode += cqn_window_ride(w, per_ms, *t);
	}
	return rode;
}

/*
 * Adaptive mode's trials of the events alone, on one grid of the clock: the
 * first CQN_WINDOW_RECHECK_MS past the next whole CQN_WINDOW_TRIAL_EVERY_MS;
 * a trial of CQN_WINDOW_TRIAL_MS that the windows win (events slower, or
 * faster by less than half again) opens them until the same point of the
 * next period; one the events win (half again as fast) rides them while
 * they keep three quarters of the windows' rate, until the next whole
 * CQN_WINDOW_RIDE_MAX_MS at most, and the next trial follows
 * CQN_WINDOW_RECHECK_MS of open windows.
 */
static void cqn_moder_test_window_ride(struct kunit *test)
{
	struct cqn_window_rides w = {};
	unsigned int every = CQN_WINDOW_TRIAL_EVERY_MS, trial = CQN_WINDOW_TRIAL_MS;
	unsigned int recheck = CQN_WINDOW_RECHECK_MS;
	u64 period = US(every * 1000), max = US(CQN_WINDOW_RIDE_MAX_MS * 1000);
	u64 t = period + US((recheck + 1) * 1000), since;
	u32 pct;

	/* The first look starts the clock; the windows stay open a while. */
	KUNIT_EXPECT_FALSE(test, cqn_window_ride(&w, 0, t));
	KUNIT_EXPECT_EQ(test, w.due_ns, 2 * period + US(recheck * 1000));
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 20, every - 2), 0U);
	/* A trial, all of it, however its first milliseconds go. */
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 20, 1), 1U);
	KUNIT_EXPECT_EQ(test, t, w.due_ns - US(trial * 1000));
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 0, trial - 1), trial - 1);
	/* The events handed over a quarter as much: the windows open again. */
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 10, 1), 0U);
	KUNIT_EXPECT_FALSE(test, w.riding);
	/* 10 in the trial's 20 ms against 20 a millisecond: 2.5 %. */
	KUNIT_EXPECT_EQ(test, w.trial_pct, 2U);
	KUNIT_EXPECT_EQ(test, w.due_ns, 3 * period + US(recheck * 1000));
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 20, every - trial - 1), 0U);
	/* Events 1.4 times as fast: not enough to win. */
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 28, trial), trial);
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 28, 1), 0U);
	KUNIT_EXPECT_FALSE(test, w.won);
	/*
	 * 28 a millisecond against the windows' 20, and the 28 of the look
	 * that began the trial, which counted for the windows: 138.
	 */
	KUNIT_EXPECT_EQ(test, w.trial_pct, 138U);
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 20, every - trial - 1), 0U);
	/* The next trial: the events now twice as fast win it and ride on. */
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 40, trial), trial);
	since = w.since_ns;
	KUNIT_EXPECT_EQ(test, since, 4 * period + US(recheck * 1000));
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 40, 1), 1U);
	KUNIT_EXPECT_TRUE(test, w.won);
	/* Twice the windows' 20, less the first look's 40 for the windows. */
	KUNIT_EXPECT_EQ(test, w.trial_pct, 194U);
	/* Until the next whole CQN_WINDOW_RIDE_MAX_MS, not past it. */
	while (cqn_window_ride(&w, 40, t + US(1000)))
		t += US(1000);
	t += US(1000);
	KUNIT_EXPECT_EQ(test, t, 4 * period + max);
	/* Then the windows measure themselves again, and the next trial comes soon. */
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 10, recheck - 1), 0U);
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 10, 1), 1U);
	KUNIT_EXPECT_EQ(test, cqn_moder_test_looks(&w, &t, 40, trial), trial);
	KUNIT_EXPECT_TRUE(test, w.won);
	/* A ride ends once the events fall below three quarters of the windows. */
	while (cqn_window_ride(&w, 1, t + US(1000)))
		t += US(1000);
	t += US(1000);
	KUNIT_EXPECT_LT(test, t, 4 * period + 2 * max);
	KUNIT_EXPECT_FALSE(test, w.riding);
	/* The figure is the trial's, not the ride's end's. */
	KUNIT_EXPECT_GT(test, w.trial_pct, 150U);
	/* The next trial is the grid's, past the next whole CQN_WINDOW_RIDE_MAX_MS. */
	KUNIT_EXPECT_EQ(test, w.due_ns, 4 * period + 2 * max + US(recheck * 1000));
	/* A look at the same instant again counts nothing and decides the same. */
	KUNIT_EXPECT_FALSE(test, cqn_window_ride(&w, 5, t));
	/* Traffic that starts over keeps the last trial's figure. */
	pct = w.trial_pct;
	w.last_ns = 0;
	KUNIT_EXPECT_FALSE(test, cqn_window_ride(&w, 0, t + US(1000)));
	KUNIT_EXPECT_EQ(test, w.trial_pct, pct);
}

/*
 * The trial's figure: the events' rate in % of the windows', what
 * cqn_window_events_faster() weighs; nothing before both sides have
 * CQN_POLL_RATES_MIN_US behind them, nor when the events handed nothing
 * over; at most CQN_WINDOW_TRIAL_PCT_MAX.
 */
static void cqn_moder_test_window_trial_pct(struct kunit *test)
{
	u64 min = US(CQN_POLL_RATES_MIN_US);
	struct cqn_poll_rates r = { .polled = 20, .polled_ns = min,
				    .carried = 30, .carried_ns = min };

	KUNIT_EXPECT_EQ(test, cqn_window_trial_pct(&r), 150U);
	r.carried_ns = 2 * min;
	KUNIT_EXPECT_EQ(test, cqn_window_trial_pct(&r), 75U);
	r.carried = 0;
	KUNIT_EXPECT_EQ(test, cqn_window_trial_pct(&r), 0U);
	r.carried = 30;
	r.polled_ns = min - 1;
	KUNIT_EXPECT_EQ(test, cqn_window_trial_pct(&r), 0U);
	r.polled_ns = min;
	r.carried_ns = min - 1;
	KUNIT_EXPECT_EQ(test, cqn_window_trial_pct(&r), 0U);
	/* The windows handed nothing over, or far less: the most it says. */
	r.carried_ns = min;
	r.polled = 0;
	KUNIT_EXPECT_EQ(test, cqn_window_trial_pct(&r), (u32)CQN_WINDOW_TRIAL_PCT_MAX);
	/* Unless the events handed nothing over either. */
	r.carried = 0;
	KUNIT_EXPECT_EQ(test, cqn_window_trial_pct(&r), 0U);
	r.polled = 1;
	r.carried = 1000000;
	KUNIT_EXPECT_EQ(test, cqn_window_trial_pct(&r), (u32)CQN_WINDOW_TRIAL_PCT_MAX);
	r.carried = U32_MAX;
	r.carried_ns = U32_MAX;
	r.polled_ns = U32_MAX;
	KUNIT_EXPECT_EQ(test, cqn_window_trial_pct(&r), (u32)CQN_WINDOW_TRIAL_PCT_MAX);
}

/*
 * The DIM profile: level 0 is off in software, each level moderates at
 * least as much as the one before, and a level past the table is refused.
 */
static void cqn_moder_test_dim_profile(struct kunit *test)
{
	struct cqn_moder m, prev, eff;
	unsigned int l;

	KUNIT_ASSERT_TRUE(test, cqn_dim_profile(0, &m));
	KUNIT_EXPECT_EQ(test, m.count, 1U);
	KUNIT_EXPECT_FALSE(test, cqn_sw_moder_params(m.count, m.period_us, &eff));
	for (l = 1; l < CQN_DIM_LEVELS; l++) {
		prev = m;
		KUNIT_ASSERT_TRUE(test, cqn_dim_profile(l, &m));
		KUNIT_EXPECT_GE(test, m.count, prev.count);
		KUNIT_EXPECT_GE(test, m.period_us, prev.period_us);
		KUNIT_EXPECT_TRUE(test, m.count > prev.count || m.period_us > prev.period_us);
		KUNIT_EXPECT_TRUE(test, cqn_sw_moder_params(m.count, m.period_us, &eff));
	}
	KUNIT_EXPECT_EQ(test, m.count, 32U);
	KUNIT_EXPECT_EQ(test, m.period_us, 32U);
	prev = m;
	KUNIT_EXPECT_FALSE(test, cqn_dim_profile(CQN_DIM_LEVELS, &m));
	KUNIT_EXPECT_EQ(test, m.count, prev.count);
}

static void cqn_moder_test_hw_clamp(struct kunit *test)
{
	struct cqn_moder m;

	KUNIT_EXPECT_FALSE(test, cqn_hw_moder_clamp(16, 50, 65535, 4095, &m));
	KUNIT_EXPECT_EQ(test, m.count, 16U);
	KUNIT_EXPECT_EQ(test, m.period_us, 50U);
	KUNIT_EXPECT_TRUE(test, cqn_hw_moder_clamp(60000, 9000, 255, 4095, &m));
	KUNIT_EXPECT_EQ(test, m.count, 255U);
	KUNIT_EXPECT_EQ(test, m.period_us, 4095U);
}

static void cqn_moder_test_resize(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cqn_cq_resize_check(512, 129, 65536, true), 0);
	KUNIT_EXPECT_EQ(test, cqn_cq_resize_check(129, 129, 65536, true), 0);
	KUNIT_EXPECT_EQ(test, cqn_cq_resize_check(128, 129, 65536, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_cq_resize_check(70000, 129, 65536, true), -ERANGE);
	KUNIT_EXPECT_EQ(test, cqn_cq_resize_check(512, 129, 65536, false), -EOPNOTSUPP);
}

static void cqn_moder_test_mode_switch(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cqn_cq_mode_switch_check(CQN_CQ_EVENT, CQN_CQ_POLL), 0);
	KUNIT_EXPECT_EQ(test, cqn_cq_mode_switch_check(CQN_CQ_POLL, CQN_CQ_ADAPTIVE), 0);
	KUNIT_EXPECT_EQ(test, cqn_cq_mode_switch_check(CQN_CQ_ADAPTIVE, CQN_CQ_EVENT), 0);
	KUNIT_EXPECT_EQ(test, cqn_cq_mode_switch_check(CQN_CQ_SOFTIRQ, CQN_CQ_SOFTIRQ), 0);
	KUNIT_EXPECT_EQ(test, cqn_cq_mode_switch_check(CQN_CQ_EVENT, CQN_CQ_SOFTIRQ), -EBUSY);
	KUNIT_EXPECT_EQ(test, cqn_cq_mode_switch_check(CQN_CQ_WORKQUEUE, CQN_CQ_POLL), -EBUSY);
	KUNIT_EXPECT_EQ(test, cqn_cq_mode_switch_check(CQN_CQ_SOFTIRQ, CQN_CQ_WORKQUEUE), -EBUSY);
}

static struct kunit_case cqn_moder_test_cases[] = {
	KUNIT_CASE(cqn_moder_test_params),
	KUNIT_CASE(cqn_moder_test_count_reached),
	KUNIT_CASE(cqn_moder_test_period_expiry),
	KUNIT_CASE(cqn_moder_test_next_check),
	KUNIT_CASE(cqn_moder_test_next_check_gap),
	KUNIT_CASE(cqn_moder_test_gap),
	KUNIT_CASE(cqn_moder_test_hold_ends_at_count),
	KUNIT_CASE(cqn_moder_test_lone_never_stranded),
	KUNIT_CASE(cqn_moder_test_staging_full),
	KUNIT_CASE(cqn_moder_test_window),
	KUNIT_CASE(cqn_moder_test_poll_nap),
	KUNIT_CASE(cqn_moder_test_poll_spin),
	KUNIT_CASE(cqn_moder_test_poll_stolen),
	KUNIT_CASE(cqn_moder_test_poll_follow),
	KUNIT_CASE(cqn_moder_test_poll_host_busy),
	KUNIT_CASE(cqn_moder_test_poll_host_judged),
	KUNIT_CASE(cqn_moder_test_poll_rates),
	KUNIT_CASE(cqn_moder_test_poll_ride),
	KUNIT_CASE(cqn_moder_test_window_ride),
	KUNIT_CASE(cqn_moder_test_window_trial_pct),
	KUNIT_CASE(cqn_moder_test_dim_profile),
	KUNIT_CASE(cqn_moder_test_hw_clamp),
	KUNIT_CASE(cqn_moder_test_resize),
	KUNIT_CASE(cqn_moder_test_mode_switch),
	{}
};

static struct kunit_suite cqn_moder_test_suite = {
	.name = "cqnotify_moder",
	.test_cases = cqn_moder_test_cases,
};

kunit_test_suite(cqn_moder_test_suite);
