/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CQ engine's private state, and what each of its files provides to the
 * others. The rest of the module sees struct cqn_cq as an opaque handle
 * (include/cqnotify.h); the tracepoints (src/trace.c) read its fields.
 *
 *   src/cq.c		lifecycle, live changes
 *   src/cq_process.c	the take/process/arm core, busy polls
 *   src/cq_event.c	the event-driven modes' wakeup, comp_handler, event's work item
 *   src/cq_adaptive.c	the adaptive mode: its thread and polling window
 *   src/cq_poll.c	the poll mode's thread
 *   src/cq_poll_host.c	the poll threads' judgement of their host
 *   src/cq_core.c	the RDMA core's modes (softirq, workqueue) and its DIM
 *   src/cq_moder.c	moderation: in the device, in software, adaptive
 *   src/cq_guard.c	the silent-CQ watchdog, the storm guard, timer polling
 */
#ifndef _CQN_CQ_H
#define _CQN_CQ_H

#include <linux/dim.h>
#include <linux/irq_poll.h>
#include <linux/mutex.h>
#include <linux/sched/clock.h>
#include <linux/sched/prio.h>

#include "cqn_moder.h"
#include "cqnotify.h"

/* Completions taken from the CQ per ib_poll_cq() call, as the core does. */
#define CQN_POLL_BATCH		16
/* Completions one event-mode wakeup handles before yielding the worker. */
#define CQN_EVENT_BUDGET	256
/* fault_arm_delay_us in softirq context (irqpoll mode): a busy wait, capped. */
#define CQN_ARM_DELAY_ATOMIC_MAX_US	100
/* Timer polling (fallback, teardown's drain): the interval between polls. */
#define CQN_TIMER_POLL_NS	(200 * NSEC_PER_USEC)

/**
 * enum cqn_moder_kind - how a CQ's completions are moderated
 * @CQN_MODER_OFF: every completion wakes the consumer
 * @CQN_MODER_HW: the device moderates (rdma_set_cq_moderation())
 * @CQN_MODER_SW: the engine holds completions back (src/cq_moder.c)
 */
enum cqn_moder_kind {
	CQN_MODER_OFF,
	CQN_MODER_HW,
	CQN_MODER_SW,
};

/**
 * enum cqn_cq_state - what the engine is doing
 * @CQN_CQS_PAUSED: nothing processes the CQ (created and not started, or
 *	quiesced for a live change); completions wait in it
 * @CQN_CQS_RUNNING: the mode learns about completions its own way
 * @CQN_CQS_FALLBACK: a guard tripped (src/cq_guard.c): the CQ is polled on
 *	a timer instead of armed
 * @CQN_CQS_DRAINING: teardown's drain: polled on a timer, never armed
 * @CQN_CQS_STOPPED: stopped for good; handlers do nothing
 *
 * Process context moves the engine between PAUSED, RUNNING, DRAINING and
 * STOPPED; the work item moves it between RUNNING and FALLBACK, with a
 * compare-and-exchange, so it never undoes what process context set.
 */
enum cqn_cq_state {
	CQN_CQS_PAUSED,
	CQN_CQS_RUNNING,
	CQN_CQS_FALLBACK,
	CQN_CQS_DRAINING,
	CQN_CQS_STOPPED,
};

/**
 * enum cqn_cq_trip - what asked the work item to fall back to timer polling
 * @CQN_TRIP_STORM: the comp_handler saw more than max_events_per_ms events
 * @CQN_TRIP_WATCHDOG: the silent-CQ watchdog found work outstanding and
 *	nothing completed for watchdog_ms
 */
enum cqn_cq_trip {
	CQN_TRIP_STORM,
	CQN_TRIP_WATCHDOG,
};

/**
 * enum cqn_cq_next - what follows a wakeup of the event-driven modes
 * @CQN_NEXT_SLEEP: nothing: software moderation holds the CQ, its timer
 *	starts the next wakeup
 * @CQN_NEXT_ARM: the CQ is empty: arm it (cqn_cq_rearm())
 * @CQN_NEXT_AGAIN: another wakeup at once, the CQ left unarmed
 */
enum cqn_cq_next {
	CQN_NEXT_SLEEP,
	CQN_NEXT_ARM,
	CQN_NEXT_AGAIN,
};

struct cqn_cq;

/**
 * struct cqn_cq_mode_ops - what a cq_mode does
 * @alloc: create the verbs CQ (c->cq) with the mode's handlers
 * @free: destroy it
 * @run: start learning about completions: queue a first wakeup that
 *	empties the CQ before arming it, or start the poll thread; NULL when
 *	the core does it
 * @halt: stop every context that processes the CQ; completions wait in it;
 *	NULL when the core owns them
 * @after_empty: adaptive mode: keep polling once a wakeup found the CQ
 *	empty; true when the budget ran out (the caller starts another
 *	wakeup at once)
 * @event_seen: adaptive mode: an event that arrived at @ns started a wakeup
 * @kick: start a wakeup of the consumer (cqn_cq_kick()); NULL: queue the
 *	work item
 * @work: poll mode: what the work item does (its naps' events)
 * @events: the mode arms the CQ and sleeps: software moderation, the
 *	guards and teardown's timer drain apply
 * @batch_bh: a wakeup in process context hands its batch over with
 *	bottom halves disabled (cqn_cq_process_bh()): event mode. Not
 *	adaptive mode, whose windows then caught almost no completion
 *	(Documentation/benchmarks.rst)
 * @core: the RDMA core polls the CQ (ib_alloc_cq())
 *
 * Chosen once when the engine is created, and again on a live switch while
 * the engine is quiesced, as __ib_alloc_cq() chooses by poll context.
 */
struct cqn_cq_mode_ops {
	int (*alloc)(struct cqn_cq *c, struct ib_device *ibdev, u32 cqe, int comp_vector);
	void (*free)(struct cqn_cq *c);
	int (*run)(struct cqn_cq *c);
	void (*halt)(struct cqn_cq *c);
	bool (*after_empty)(struct cqn_cq *c, int done);
	void (*event_seen)(struct cqn_cq *c, u64 ns);
	void (*kick)(struct cqn_cq *c);
	void (*work)(struct cqn_cq *c);
	bool events;
	bool batch_bh;
	bool core;
};

/**
 * struct cqn_cq_caps - what the device offers the engine
 * @resize: the provider implements resize_cq
 * @modify: the provider implements modify_cq
 * @max_count: the device's moderation count limit
 * @max_period: the device's moderation period limit, microseconds
 * @max_cqe: the device's CQ size limit
 */
struct cqn_cq_caps {
	bool resize;
	bool modify;
	u16 max_count;
	u16 max_period;
	int max_cqe;
};

/**
 * struct cqn_cq_moderation - moderation in effect (src/cq_moder.c)
 * @kind: enum cqn_moder_kind
 * @eff: the count and period in effect
 * @ignored: moderation was asked for in a mode where software moderation
 *	does not run (and the device has no modify_cq)
 * @level: adaptive moderation's level in the DIM profile
 * @dim: adaptive moderation: lib/dim's state (rdma_dim()); its work item
 *	applies a new level
 * @done: completions handed over so far
 * @fed: of those, the ones DIM has been told about
 * @timer: software moderation: looks at a held CQ again, wakes the consumer
 *	when the period runs out
 * @timer_armed: @timer is queued (c->lock)
 * @stage: software moderation: completions taken from the CQ, not yet
 *	handed to the owner (a ring of CQN_SW_MODER_MAX_COUNT, c->lock)
 * @head: first entry of @stage
 * @n: entries in @stage
 * @first_ns: when the oldest staged completion was taken
 * @gap_ns: the time between completions the last hold showed (c->lock;
 *	cqn_sw_moder_gap()), 0 before any
 */
struct cqn_cq_moderation {
	u32 kind;
	struct cqn_moder eff;
	bool ignored;
	unsigned int level;
	struct dim dim;
	u64 done;
	u64 fed;
	struct hrtimer timer;
	bool timer_armed;
	struct ib_wc *stage;
	u32 head;
	u32 n;
	u64 first_ns;
	u64 gap_ns;
};

/**
 * struct cqn_cq_guard - the guards of the event-driven modes (src/cq_guard.c)
 * @watchdog: the silent-CQ watchdog, every watchdog_ms
 * @last_done: when completions were last handed over, in jiffies (the
 *	watchdog's own granularity: a clock read per wakeup saved)
 * @started: cqn_cq_guard_start() ran (@last_done is valid)
 * @trips: enum cqn_cq_trip bits: a guard asks the work item to fall back
 * @storm_start_ns: start of the comp_handler's current millisecond
 * @storm_events: events in it
 * @cause: why the current fallback began, "watchdog" or "storm"; NULL
 *	when there is none (kept across a quiesce)
 * @entered_ns: when it began
 * @start_ns: start of the current fallback sample
 * @done: completions in it
 * @until_ns: earliest end of the fallback
 */
struct cqn_cq_guard {
	struct delayed_work watchdog;
	unsigned long last_done;
	bool started;
	unsigned long trips;
	u64 storm_start_ns;
	u32 storm_events;
	const char *cause;
	u64 entered_ns;
	u64 start_ns;
	u64 done;
	u64 until_ns;
};

/**
 * struct cqn_cq_core - the RDMA core's modes (src/cq_core.c)
 * @handler: the core's comp_handler, called after counting
 * @has_dim: the core runs its DIM on this CQ (cqn_core_dim()); cleared
 *	under c->lock before the CQ is freed
 * @dim_level: the level of the core's DIM the comp_handler saw last; a new
 *	one counts in ``core_dim_changes``
 * @dim_moved: the comp_handler saw the core's DIM leave its first level
 * @held: cqn_cq_core_flush() runs: the comp_handler passes no event on
 */
struct cqn_cq_core {
	void (*handler)(struct ib_cq *cq, void *ctx);
	bool has_dim;
	u8 dim_level;
	bool dim_moved;
	bool held;
};

/**
 * struct cqn_cq_faults - fault injection (debugfs)
 * @drop_events: swallow this many events
 * @arm_delay_us: a wakeup of the event and adaptive modes waits this long
 *	between its last empty poll and the arm, so the next completion lands
 *	in the window the arm's missed-event report covers
 */
struct cqn_cq_faults {
	atomic_t drop_events;
	u32 arm_delay_us;
};

/**
 * struct cqn_poll_host_view - what one thread (a poll thread, adaptive
 *	mode's) took of the guest-wide judgement of its host
 * @seq: the last judgement it took
 * @held: that judgement holds it for the host (a poll thread to the
 *	lowest CPU; adaptive mode's windows shut)
 * @look: when it looks again (cqn_cq_clock())
 */
struct cqn_poll_host_view {
	unsigned long seq;
	bool held;
	u64 look;
};

/**
 * struct cqn_cq - a CQ and the engine that learns about its completions
 * @cq: the verbs CQ
 * @name: "<endpoint>.<connection>", for threads, logs and trace events
 * @comp_vector: the completion vector the CQ was created on (debugfs stats)
 * @stats: where the engine counts (the connection's block)
 * @owner_ops: the owner's callbacks
 * @owner: their argument
 * @mode_ops: what @mode does (changed only while quiesced)
 * @mode: enum cqn_cq_mode this engine runs in
 * @params: the live-tunable attributes it runs with (cqn_cq_reconfigure());
 *	params.cq_mode is the mode asked for, @mode the one running
 * @state: enum cqn_cq_state
 * @overflowed: the provider reported IB_EVENT_CQ_ERR: completions were lost,
 *	so teardown cannot count on its drain requests completing
 * @gone: QPs destroyed, or about to be, whose completions may still be
 *	in the CQ (struct cqn_cq_gone; RCU list, changed under the owner's
 *	serialisation)
 * @caps: what the device offers
 * @work: event mode: processes the CQ after an event
 * @hop: event mode: queues @work on @work_cpu, from @work's end
 *	(cqn_cq_queue_work())
 * @work_cpu: the CPU a busy engine's @work runs on (cqn_cq_set_home()), or
 *	WORK_CPU_UNBOUND: the one that queues it
 * @busy: the last wakeups found a backlog (cqn_share_busy())
 * @iop: irqpoll mode: processes the CQ after an event, in softirq context
 *	(irq_poll, with a budget); disabled in every other mode
 * @iop_on: @iop is enabled
 * @from_event: the next wakeup was started by an event
 * @event_ns: when the event that started the next wakeup arrived
 * @poller: poll mode: the busy-polling thread
 * @spinner: adaptive mode: the thread that runs its wakeups (created at its
 *	first start, parked while the engine is quiesced, stopped when it is
 *	destroyed)
 * @spin_kicked: adaptive mode: bit 0, a wakeup of @spinner is wanted
 * @nap: poll mode: CQN_NAP_ARMED, @poller naps with the CQ armed and the
 *	work item may process it; CQN_NAP_BUSY, the work item does
 * @nap_carried: poll mode: completions the work item handed over during
 *	naps so far (written by the work item only)
 * @nap_hit_ns: poll mode: when the work item first handed completions over
 *	in the current nap (0: not yet)
 * @nap_last_ns: poll mode: when it last did
 * @spin_us: poll mode: the spin @poller learned from its naps
 *	(cqn_poll_spin_next(), 0 before it learned), for the stats
 * @host_missed_pct: poll mode: the share of the guest's busy time the tick
 *	missed in the last window @poller took (src/cq_poll_host.c), for the
 *	stats
 * @nap_cpu: poll mode: the CPU where the work item last handed completions
 *	over during a nap (the CPU that took their event), -1 before that
 * @poll_cpus_lock: poll mode: serialises changes to @poller's CPUs, by a
 *	live poll_cpu (cqn_cq_take_tuning()) and by the thread's own holds
 *	(cqn_cq_poll_follow()), so that a hold never undoes poll_cpu
 * @poll_timer: timer polling (fallback, drain): the next poll
 * @window_us: adaptive mode: the current polling window
 * @window_start_ns: adaptive mode: when the last window started
 * @spin_host: adaptive mode: what @spinner took of the guest-wide judgement
 *	of the host (src/cq_poll_host.c)
 * @spin_rides: adaptive mode: @spinner's trials of its events alone
 *	(cqn_window_ride())
 * @spin_seen: adaptive mode: completions handed over since @spinner last
 *	looked at @spin_rides
 * @spin_shut: adaptive mode: no window opens (the hold for the host, a
 *	trial or a ride of the events alone): event mode's work item carries
 *	the CQ while @spinner sleeps
 * @spin_to_shut: adaptive mode: @spinner shuts the windows once its wakeup
 *	has armed the CQ (written by @spinner only)
 * @spin_handed: adaptive mode: the work item's wakeup handed the CQ back
 *	to @spinner (written by the work item only)
 * @moder: moderation
 * @guard: the guards
 * @core: the core's modes
 * @faults: fault injection
 * @lock: protects the staging ring, moder.timer_armed and core.has_dim;
 *	every ib_poll_cq() of an own-mode CQ happens under it, so completions
 *	keep their order
 * @wcs: the poll array of the one context that processes the CQ (the work
 *	item never runs twice at once; the poll thread is alone)
 */
struct cqn_cq {
	struct ib_cq *cq;
	char name[40];
	int comp_vector;
	struct cqn_stats *stats;
	const struct cqn_cq_owner *owner_ops;
	void *owner;

	const struct cqn_cq_mode_ops *mode_ops;
	u32 mode;
	struct cqn_cq_params params;
	u32 state;
	bool overflowed;
	struct list_head gone;
	struct cqn_cq_caps caps;

	struct work_struct work;
	struct work_struct hop;
	int work_cpu;
	bool busy;
	struct irq_poll iop;
	bool iop_on;
	bool from_event;
	u64 event_ns;
	struct task_struct *poller;
	struct task_struct *spinner;
	unsigned long spin_kicked;
	unsigned long nap;
	u32 nap_carried;
	u64 nap_hit_ns;
	u64 nap_last_ns;
	u32 spin_us;
	u32 host_missed_pct;
	int nap_cpu;
	/* serialises changes to @poller's CPUs (poll_cpu, its holds) */
	struct mutex poll_cpus_lock;
	struct hrtimer poll_timer;
	u32 window_us;
	u64 window_start_ns;
	struct cqn_poll_host_view spin_host;
	struct cqn_window_rides spin_rides;
	u32 spin_seen;
	bool spin_shut;
	bool spin_to_shut;
	bool spin_handed;

	struct cqn_cq_moderation moder;
	struct cqn_cq_guard guard;
	struct cqn_cq_core core;
	struct cqn_cq_faults faults;

	/* protects the staging ring, moder.timer_armed, core.has_dim */
	spinlock_t lock;
	struct ib_wc *wcs;
};

/**
 * cqn_cq_clock() - the engine's clock for its own durations and histograms
 *
 * local_clock(): the TSC, read per CPU, where ktime_get_ns() reads the
 * clocksource, which may be slow (HPET under QEMU TCG, whose TSCs the
 * kernel finds unsynchronized: an emulated device read, several per
 * wakeup). Monotonic on one CPU; two CPUs' readings agree within a tick,
 * so an interval across CPUs (event to work item) may come out a little
 * off, and a negative one is dropped. Message timestamps (RTT), run times
 * and software moderation's deadlines keep ktime_get_ns().
 *
 * Context: any.
 * Return: nanoseconds.
 */
static inline u64 cqn_cq_clock(void)
{
	return local_clock();
}

/**
 * cqn_cq_live() - may handlers and timers process the CQ?
 * @c: the engine
 *
 * Context: any.
 * Return: true while running, falling back or draining.
 */
static inline bool cqn_cq_live(struct cqn_cq *c)
{
	u32 s = READ_ONCE(c->state);

	return s == CQN_CQS_RUNNING || s == CQN_CQS_FALLBACK || s == CQN_CQS_DRAINING;
}

/* src/cq_event.c */
void cqn_cq_queue_work(struct cqn_cq *c);

/**
 * cqn_cq_kick() - start a wakeup of the consumer: the mode's, or the work item
 * @c: the engine
 *
 * Context: any.
 */
static inline void cqn_cq_kick(struct cqn_cq *c)
{
	if (c->mode_ops->kick)
		c->mode_ops->kick(c);
	else
		cqn_cq_queue_work(c);
}

/* src/cq_process.c */
void cqn_cq_hand_over(struct cqn_cq *c, struct ib_cq *cq, struct ib_wc *wcs, int n);
int cqn_cq_process(struct cqn_cq *c, int budget, bool from_event);
int cqn_cq_process_bh(struct cqn_cq *c, int budget, bool from_event);
int cqn_cq_busy_poll(struct cqn_cq *c, int budget, bool may_sleep);
int cqn_cq_arm(struct cqn_cq *c);

/* src/cq.c */
bool cqn_cq_change_state(struct cqn_cq *c, u32 from, u32 to);
int cqn_cq_own_alloc(struct cqn_cq *c, struct ib_device *ibdev, u32 cqe, int comp_vector);
void cqn_cq_own_free(struct cqn_cq *c);
void cqn_cq_event_handler(struct ib_event *event, void *ctx);

/* src/cq_event.c */
extern const struct cqn_cq_mode_ops cqn_cq_event_ops;
void cqn_cq_comp_handler(struct ib_cq *cq, void *ctx);
enum cqn_cq_next cqn_cq_wakeup(struct cqn_cq *c, int budget);
void cqn_cq_rearm(struct cqn_cq *c);
bool cqn_cq_task_wakeup(struct cqn_cq *c);
void cqn_cq_work(struct work_struct *work);
void cqn_cq_home_hop(struct work_struct *work);

/* src/cq_adaptive.c */
extern const struct cqn_cq_mode_ops cqn_cq_adaptive_ops;
void cqn_cq_spin_stop(struct cqn_cq *c);

/* src/cq_irqpoll.c */
extern const struct cqn_cq_mode_ops cqn_cq_irqpoll_ops;
void cqn_cq_irqpoll_init(struct cqn_cq *c);

/* src/cq_poll.c */
extern const struct cqn_cq_mode_ops cqn_cq_poll_ops;

/* The nice value of a poll thread at @prio (enum cqn_poll_priority). */
static inline int cqn_cq_poll_nice(u32 prio)
{
	return prio == CQN_POLL_PRIO_NORMAL ? 0 : MAX_NICE;
}

/* src/cq_poll_host.c */

void cqn_poll_host_join(struct cqn_cq *c, struct cqn_poll_host_view *v, u64 now);
void cqn_poll_host_leave(void);
bool cqn_poll_host_look(struct cqn_cq *c, struct cqn_poll_host_view *v, u64 now);
int cqn_poll_host_cpu(void);
bool cqn_poll_held_at(int cpu, int was);

/* src/cq_core.c */
extern const struct cqn_cq_mode_ops cqn_cq_softirq_ops;
extern const struct cqn_cq_mode_ops cqn_cq_workqueue_ops;
void cqn_cq_core_forget_dim(struct cqn_cq *c);
int cqn_cq_core_flush(struct cqn_cq *c);
bool cqn_cq_core_dim_level(struct cqn_cq *c, u8 *level);

/* src/cq_moder.c */
void cqn_cq_moder_init(struct cqn_cq *c);
void cqn_cq_moder_halt(struct cqn_cq *c);
int cqn_cq_moder_apply(struct cqn_cq *c);
void cqn_cq_moder_restart(struct cqn_cq *c);
void cqn_cq_moder_feed(struct cqn_cq *c);
bool cqn_cq_moder_hold(struct cqn_cq *c);
bool cqn_cq_moder_rearm(struct cqn_cq *c);

/* src/cq_guard.c */
void cqn_cq_guard_init(struct cqn_cq *c);
void cqn_cq_guard_start(struct cqn_cq *c);
void cqn_cq_guard_stop(struct cqn_cq *c);
void cqn_cq_guard_retime(struct cqn_cq *c, u32 watchdog_ms);
void cqn_cq_guard_event(struct cqn_cq *c, u64 now);
void cqn_cq_guard_done(struct cqn_cq *c, int done);
bool cqn_cq_guard_poll(struct cqn_cq *c);
void cqn_cq_timer_poll(struct cqn_cq *c);
void cqn_cq_timer_poll_halt(struct cqn_cq *c);

#endif /* _CQN_CQ_H */
