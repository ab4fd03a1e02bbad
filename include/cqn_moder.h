/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CQ engine's pure decisions: software moderation (when to wake the
 * consumer), the adaptive polling window, the DIM profile,
 * hardware moderation limits and CQ resize validation. No verbs, no locks,
 * no clocks: the caller passes the time in, so the KUnit suite
 * cqnotify_moder tests every rule.
 */
#ifndef _CQN_MODER_H
#define _CQN_MODER_H

#include <linux/time64.h>
#include <linux/types.h>

#include "cqn_config.h"

/* Completions software moderation can hold back at once (its staging ring). */
#define CQN_SW_MODER_MAX_COUNT		256
/* cq_period used by software moderation when cq_count is set and cq_period is 0. */
#define CQN_SW_MODER_DEFAULT_PERIOD_US	100
/* Shortest interval between two looks at a held CQ, microseconds. */
#define CQN_SW_MODER_MIN_CHECK_US	20
/* First non-zero adaptive polling window, microseconds. */
#define CQN_ADAPTIVE_STEP_US		4
/* The poll thread's first nap once its CQ stayed empty, microseconds. */
#define CQN_POLL_NAP_MIN_US		10
/* Its longest nap: what a completion after a long gap may wait. */
#define CQN_POLL_NAP_MAX_US		1000
/*
 * How far its learned spin may rise: this many times poll_idle_us, and no
 * further than its longest nap (cqn_poll_spin_max()).
 */
#define CQN_POLL_SPIN_MAX_X		10
/*
 * A pass of the poll loop that found the CQ empty and ran nothing else on
 * its CPU, yet took this long, lost its CPU to the host: a vCPU waiting
 * for a host CPU (cq_poll_steals). Longer than any interrupt of a guest;
 * a host's scheduler takes its CPUs away for milliseconds at a time.
 */
#define CQN_POLL_STEAL_US		1000
/* After a steal, the poll thread naps as soon as its CQ is empty this long. */
#define CQN_POLL_STEAL_HOLD_MS		100
/*
 * The poll thread's rates (struct cqn_poll_rates) halve once they cover
 * this much time: they follow what the last tens of milliseconds did.
 */
#define CQN_POLL_RATES_WINDOW_MS	50
/* Each side of the comparison needs this much time before it counts. */
#define CQN_POLL_RATES_MIN_US		500
/* Longest the poll thread leaves its CQ to the naps' events in one go. */
#define CQN_POLL_RIDE_MAX_MS		20
/*
 * Once a ride or a steal says the host is busy, the poll thread is held to
 * one CPU (the one that takes its CQ's events, if lower-numbered) for this
 * long, then lets the scheduler place it again (cqn_poll_follow()).
 */
#define CQN_POLL_FOLLOW_MS		1000
/*
 * Let go, it stays free at least this long: time for the scheduler to
 * spread threads that a quiet host no longer needs on one CPU (sharing a
 * CPU, they would ride, and so look busy, for ever).
 */
#define CQN_POLL_FREE_MS		250
/*
 * Adaptive mode's thread tries its events alone (no window opens) for
 * CQN_WINDOW_TRIAL_MS, CQN_WINDOW_RECHECK_MS after each whole
 * CQN_WINDOW_TRIAL_EVERY_MS of the clock, so the threads of one guest try
 * together; while the events carry the CQ faster it rides them until the
 * next whole CQN_WINDOW_RIDE_MAX_MS, opens its windows for
 * CQN_WINDOW_RECHECK_MS to measure them again, and tries again
 * (cqn_window_ride()). CQN_WINDOW_TRIAL_EVERY_MS is a multiple of
 * CQN_WINDOW_RIDE_MAX_MS.
 */
#define CQN_WINDOW_TRIAL_EVERY_MS	1000
#define CQN_WINDOW_TRIAL_MS		20
#define CQN_WINDOW_RIDE_MAX_MS		200
#define CQN_WINDOW_RECHECK_MS		20
/* cqn_window_trial_pct() says at most this: events a hundred times as fast. */
#define CQN_WINDOW_TRIAL_PCT_MAX	10000
/*
 * The events win a trial above this cqn_window_trial_pct(), half again
 * the windows' rate, and carry the CQ while they keep at least the
 * second, three quarters of it (cqn_window_events_faster()).
 */
#define CQN_WINDOW_WIN_PCT		150
#define CQN_WINDOW_KEEP_PCT		75
/*
 * The poll threads judge their host by how much of the guest's busy time the
 * scheduler tick accounted (cqn_poll_host_busy()), once per this much
 * busy time of the guest's CPUs: 64 ticks at HZ=250.
 */
#define CQN_POLL_HOST_WINDOW_MS		256
/* A poll thread looks at the judgement once per this much of its own time. */
#define CQN_POLL_HOST_LOOK_MS		16
/* A quiet host turns busy when the tick accounted less than this share, in %... */
#define CQN_POLL_HOST_BUSY_PCT		80
/* ...and a busy one quiet again when it accounted at least this share. */
#define CQN_POLL_HOST_QUIET_PCT		90
/* A hold for the host lasts this long at least (cqn_poll_host_judged())... */
#define CQN_POLL_HOST_HOLD_MIN_MS	1000
/* ...twice the last one's if it starts this soon after the last ended... */
#define CQN_POLL_HOST_AGAIN_MS		1000
/* ...and never more than this. */
#define CQN_POLL_HOST_HOLD_MAX_MS	16000
/* Levels of the DIM profile (lib/dim's RDMA_DIM_PARAMS_NUM_PROFILES). */
#define CQN_DIM_LEVELS			9

/**
 * struct cqn_moder - moderation parameters
 * @count: completions that wake the consumer at once (0: no count limit)
 * @period_us: longest a completion waits, microseconds (0: no delay)
 */
struct cqn_moder {
	u32 count;
	u32 period_us;
};

/**
 * struct cqn_poll_rates - what the poll thread and its naps' events each
 *	handed over, and in how long (cqn_poll_rates_add())
 * @polled: completions the thread took while it held the CQ
 * @polled_ns: the time it held the CQ
 * @carried: completions the naps' work item handed over
 * @carried_ns: the time the thread napped with the CQ armed
 */
struct cqn_poll_rates {
	u64 polled;
	u64 polled_ns;
	u64 carried;
	u64 carried_ns;
};

/**
 * struct cqn_window_rides - adaptive mode's thread's trials of its events
 *	alone (cqn_window_ride())
 * @rates: what the CQ handed over with windows open (polled), and with
 *	none in this trial or ride (carried); each side halves over its own
 *	CQN_POLL_RATES_WINDOW_MS
 * @last_ns: the last look, 0: none since the traffic started
 * @since_ns: when the windows last opened, or the trial or ride began
 * @due_ns: when the next trial begins, or the trial or ride is judged
 * @riding: no window opens: a trial or a ride
 * @won: the events won the trial, and carry the CQ until they fall behind
 * @trial_pct: the events' completions a second in the last trial judged,
 *	in % of the windows' (cqn_window_trial_pct()); kept when the traffic
 *	starts over
 */
struct cqn_window_rides {
	struct cqn_poll_rates rates;
	u64 last_ns;
	u64 since_ns;
	u64 due_ns;
	bool riding;
	bool won;
	u32 trial_pct;
};

/**
 * struct cqn_poll_hold - the poll thread's hold to the lowest CPU, for its
 *	host (cqn_poll_host_judged())
 * @on: the thread is held
 * @hold_ms: how long this hold, or the last, lasts at least
 * @since_ns: when it started, or ended (0: never held)
 */
struct cqn_poll_hold {
	bool on;
	u32 hold_ms;
	u64 since_ns;
};

/**
 * enum cqn_sw_moder_action - what software moderation does now
 * @CQN_SWM_IDLE: nothing is pending
 * @CQN_SWM_WAIT: hold the pending completions until the deadline
 * @CQN_SWM_DISPATCH: wake the consumer now
 */
enum cqn_sw_moder_action {
	CQN_SWM_IDLE,
	CQN_SWM_WAIT,
	CQN_SWM_DISPATCH,
};

/**
 * enum cqn_window_outcome - what ended or followed an adaptive polling window
 * @CQN_WIN_HIT: a completion arrived while polling inside the window
 * @CQN_WIN_EMPTY: the window ran out with nothing found; the CQ is re-armed
 * @CQN_WIN_EVENT: an event arrived after the CQ was re-armed
 */
enum cqn_window_outcome {
	CQN_WIN_HIT,
	CQN_WIN_EMPTY,
	CQN_WIN_EVENT,
};

bool cqn_sw_moder_params(u32 cq_count, u32 cq_period, struct cqn_moder *eff);
u64 cqn_sw_moder_gap(u32 pending, u64 first_ns, u64 now_ns, u64 prev_ns);
u64 cqn_sw_moder_next_check(const struct cqn_moder *m, u32 pending, u64 gap_ns, u64 now_ns,
			    u64 deadline_ns);
enum cqn_sw_moder_action cqn_sw_moder_decide(const struct cqn_moder *m, u32 pending,
					     u64 first_ns, u64 now_ns, u64 *deadline_ns);
bool cqn_hw_moder_clamp(u32 cq_count, u32 cq_period, u32 max_count, u32 max_period,
			struct cqn_moder *eff);
u32 cqn_adaptive_window_next(u32 cur_us, u32 max_us, enum cqn_window_outcome outcome,
			     u64 idle_ns);
u32 cqn_poll_nap_next(u32 nap_us, u64 idle_ns, u32 idle_us, bool stolen);
u64 cqn_poll_spin_max(u32 idle_us);
u32 cqn_poll_spin_now(u32 spin_us, u32 idle_us);
u32 cqn_poll_spin_next(u32 spin_us, u32 idle_us, bool first, u64 gap_ns);
bool cqn_poll_stolen(u64 pass_ns, bool quiet);
bool cqn_poll_host_busy(bool busy, u64 ticked_ns, u64 ran_ns);
bool cqn_poll_host_judged(struct cqn_poll_hold *h, bool busy, u64 now_ns);
int cqn_poll_follow(int held, int cpu, int event_cpu, bool busy, u64 since_ns);
void cqn_poll_rates_add(struct cqn_poll_rates *r, bool carried, u32 n, u64 ns);
bool cqn_poll_rates_faster(const struct cqn_poll_rates *r, bool riding);
bool cqn_poll_ride(const struct cqn_poll_rates *r, bool riding, u64 riding_ns);
bool cqn_window_ride(struct cqn_window_rides *w, u32 n, u64 now_ns);
u32 cqn_window_trial_pct(const struct cqn_poll_rates *r);
bool cqn_dim_profile(unsigned int level, struct cqn_moder *m);
int cqn_cq_resize_check(u32 new_cqe, u32 max_posted, u32 max_cqe, bool can_resize);

#endif /* _CQN_MODER_H */
