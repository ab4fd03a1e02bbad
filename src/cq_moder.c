// SPDX-License-Identifier: GPL-2.0
/*
 * Moderation of a CQ engine: programmed into the device where it can,
 * done in software by the event-driven modes where it cannot, and chosen by
 * lib/dim under adaptive moderation. The other decisions are src/moder.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>

#include "cq.h"
#include "cqn_trace.h"

/**
 * DOC: Moderation
 *
 * ``cq_count`` and ``cq_period`` (microseconds) ask for fewer wakeups: the
 * consumer is woken when ``cq_count`` completions are pending or
 * ``cq_period`` has passed since the first pending one.
 *
 * Where the provider implements modify_cq, the engine programs the device
 * with rdma_set_cq_moderation() (clamped to attr.cq_caps, with a message
 * when it clamps): ``moderation_effective`` reads ``hw count=.. period=..``.
 *
 * Where it does not (rxe and siw return -EOPNOTSUPP), the engine moderates
 * in software, in event and adaptive modes, the way a device moderates its
 * interrupts: the event queues the work item, whose intake takes the
 * completions from the CQ into a staging ring (under the engine's lock, so
 * their order is kept) and hands them to the consumer at once if
 * ``cq_count`` of them are staged. Otherwise it holds them and leaves the
 * CQ unarmed, so further completions raise no event; an hrtimer looks at
 * the CQ again when the count is expected (the completions held so far
 * over the time since the first say how far apart they come; at least
 * 20 us and at most a quarter period apart), staging what arrived, and
 * wakes the consumer when the count is reached or ``cq_period`` has passed
 * since the first staged completion. Only then, with nothing held, is the
 * CQ armed again. A lone completion therefore waits at most ``cq_period``
 * and is never stranded; a hold ends within about one gap between
 * completions of the count being reached.
 * ``moderation_effective`` reads ``sw count=.. period=..``; the timer's
 * looks are ``sw_moder_looks``, and the wakeups made because the period
 * ran out ``sw_moder_timer_fires``.
 * cq_count 1 (or both 0) is off; a count without a period gets 100 us.
 * Poll mode never waits for events, and the core's modes own their
 * handler, so software moderation is off in them.
 *
 * What it costs and buys: fewer events (``cq_events``: interrupts on
 * hardware, comp_handler calls on rxe) and fewer consumer wakeups
 * (``cq_wakeups``: the handlers' cache misses each; the intake after an
 * event is a short run of the work item that hands nothing over) when
 * completions trickle in, as with paced traffic (the client's
 * ``rate``), for a few timer looks and up to ``cq_period`` of added
 * latency. A closed-loop workload whose window holds fewer than
 * ``cq_count`` completions waits the full period on every round. On rxe a
 * closed window of messages completes in one burst of the provider's
 * tasklets, so unmoderated wakeups already take whole windows there and
 * moderation gains nothing; paced traffic shows what it does.
 */

static const char *const cqn_moder_kind_names[] = {
	[CQN_MODER_OFF] = "off",
	[CQN_MODER_HW] = "hw",
	[CQN_MODER_SW] = "sw",
};

/* Move completions from the CQ into the staging ring; c->lock held. */
static void cqn_cq_stage(struct cqn_cq *c, u64 now)
{
	struct cqn_cq_moderation *m = &c->moder;

	lockdep_assert_held(&c->lock);
	while (m->n < CQN_SW_MODER_MAX_COUNT) {
		u32 tail = (m->head + m->n) % CQN_SW_MODER_MAX_COUNT;
		u32 room = min(CQN_SW_MODER_MAX_COUNT - m->n, CQN_SW_MODER_MAX_COUNT - tail);
		int n = ib_poll_cq(c->cq, min_t(u32, room, CQN_POLL_BATCH), &m->stage[tail]);

		if (n <= 0)
			break;
		if (!m->n)
			m->first_ns = now;
		m->n += n;
	}
}

/* What software moderation's intake decided; see cqn_cq_sw_intake(). */
enum cqn_cq_intake {
	CQN_INTAKE_COUNT,	/* cq_count reached: hand over now */
	CQN_INTAKE_PERIOD,	/* cq_period ran out: hand over now */
	CQN_INTAKE_HELD,	/* held, CQ unarmed; the timer looks again */
	CQN_INTAKE_ARMED,	/* nothing held; the CQ is armed */
};

/*
 * Software moderation: stage what the CQ holds and say it is to be handed
 * over now; or hold it, with the CQ unarmed, and look again with the timer
 * (at most a quarter period later); or, when nothing is held, arm the CQ.
 * It polls and arms, so it never runs in the provider's completion context:
 * 6.12's rxe calls the comp_handler with the CQ's lock held, which
 * ib_poll_cq() and ib_req_notify_cq() take again.
 * Context: the timer's (softirq) or the work item's.
 */
static enum cqn_cq_intake cqn_cq_sw_intake(struct cqn_cq *c)
{
	struct cqn_cq_moderation *m = &c->moder;
	enum cqn_sw_moder_action act;
	unsigned long flags;
	u64 now, deadline = 0, next = 0;
	bool by_period;

	for (;;) {
		spin_lock_irqsave(&c->lock, flags);
		now = ktime_get_ns();
		cqn_cq_stage(c, now);
		m->gap_ns = cqn_sw_moder_gap(m->n, m->first_ns, now, m->gap_ns);
		act = cqn_sw_moder_decide(&m->eff, m->n, m->first_ns, now, &deadline);
		by_period = act == CQN_SWM_DISPATCH && m->n < m->eff.count &&
			    m->n < CQN_SW_MODER_MAX_COUNT;
		if (act == CQN_SWM_WAIT) {
			next = cqn_sw_moder_next_check(&m->eff, m->n, m->gap_ns, now, deadline);
			m->timer_armed = true;
		}
		spin_unlock_irqrestore(&c->lock, flags);

		if (act == CQN_SWM_DISPATCH)
			return by_period ? CQN_INTAKE_PERIOD : CQN_INTAKE_COUNT;
		if (act == CQN_SWM_WAIT) {
			hrtimer_start(&m->timer, ns_to_ktime(next - now), HRTIMER_MODE_REL_SOFT);
			return CQN_INTAKE_HELD;
		}
		if (cqn_cq_arm(c) <= 0)
			return CQN_INTAKE_ARMED;
	}
}

/* Context: softirq (HRTIMER_MODE_REL_SOFT). */
static enum hrtimer_restart cqn_cq_moder_timer_fn(struct hrtimer *t)
{
	struct cqn_cq *c = container_of(t, struct cqn_cq, moder.timer);
	enum cqn_cq_intake in;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->moder.timer_armed = false;
	spin_unlock_irqrestore(&c->lock, flags);
	if (!cqn_cq_live(c))
		return HRTIMER_NORESTART;
	cqn_stat_inc(c->stats, CQN_STAT_sw_moder_looks);
	in = cqn_cq_sw_intake(c);
	if (in == CQN_INTAKE_PERIOD)
		cqn_stat_inc(c->stats, CQN_STAT_sw_moder_timer_fires);
	if (in == CQN_INTAKE_COUNT || in == CQN_INTAKE_PERIOD)
		cqn_cq_kick(c);
	return HRTIMER_NORESTART;
}

/**
 * cqn_cq_moder_hold() - software moderation's intake after an event
 * @c: the engine
 *
 * Under software moderation an event only says the CQ has something: the
 * intake decides whether to hand it over now or hold it (it must not run in
 * the comp_handler, which neither polls nor arms). Teardown's drain hands
 * everything over at once.
 *
 * Context: the work item.
 * Return: true when nothing is to be handed over now (held, or the CQ was
 * empty and is armed again).
 */
bool cqn_cq_moder_hold(struct cqn_cq *c)
{
	enum cqn_cq_intake in;

	if (READ_ONCE(c->moder.kind) != CQN_MODER_SW || READ_ONCE(c->state) == CQN_CQS_DRAINING)
		return false;
	in = cqn_cq_sw_intake(c);
	return in == CQN_INTAKE_HELD || in == CQN_INTAKE_ARMED;
}

/**
 * cqn_cq_moder_rearm() - end a wakeup under software moderation
 * @c: the engine
 *
 * Instead of arming the CQ: stage what came meanwhile and hold it, arm the
 * CQ when nothing is held, or wake the consumer again when the count is
 * already reached.
 *
 * Context: the work item.
 * Return: false when software moderation is off (the caller arms).
 */
bool cqn_cq_moder_rearm(struct cqn_cq *c)
{
	enum cqn_cq_intake in;

	if (READ_ONCE(c->moder.kind) != CQN_MODER_SW)
		return false;
	in = cqn_cq_sw_intake(c);
	if (in == CQN_INTAKE_COUNT || in == CQN_INTAKE_PERIOD)
		cqn_cq_kick(c);
	return true;
}

/* Apply count/period: in hardware if the device can, else in software. */
static int cqn_cq_moder_set(struct cqn_cq *c, u32 count, u32 period)
{
	struct cqn_moder eff = {};
	u32 kind = CQN_MODER_OFF;
	bool ignored = false;
	unsigned long flags;
	int ret;

	if (c->caps.modify) {
		if (cqn_hw_moder_clamp(count, period, c->caps.max_count, c->caps.max_period, &eff))
			pr_info_ratelimited("%s: moderation clamped to count %u period %u us (device limits)\n",
					    c->name, eff.count, eff.period_us);
		ret = rdma_set_cq_moderation(c->cq, eff.count, eff.period_us);
		if (!ret) {
			kind = (eff.count || eff.period_us) ? CQN_MODER_HW : CQN_MODER_OFF;
			goto done;
		}
		if (ret != -EOPNOTSUPP)
			return ret;
	}
	memset(&eff, 0, sizeof(eff));
	ignored = cqn_sw_moder_params(count, period, &eff);
	if (ignored && c->mode_ops->events) {
		kind = CQN_MODER_SW;
		ignored = false;
		if (count > CQN_SW_MODER_MAX_COUNT)
			pr_info_ratelimited("%s: software moderation: cq_count %u capped at %u\n",
					    c->name, count, CQN_SW_MODER_MAX_COUNT);
	} else if (ignored) {
		memset(&eff, 0, sizeof(eff));
		pr_info_ratelimited("%s: cq_count/cq_period ignored: software moderation runs in event, adaptive and irqpoll modes only\n",
				    c->name);
	}
done:
	spin_lock_irqsave(&c->lock, flags);
	c->moder.eff = eff;
	WRITE_ONCE(c->moder.ignored, ignored);
	WRITE_ONCE(c->moder.kind, kind);
	spin_unlock_irqrestore(&c->lock, flags);
	cqn_stat_inc(c->stats, CQN_STAT_moder_changes);
	trace_cqn_cq_moderation(c, cqn_moder_kind_names[kind], eff.count, eff.period_us);
	return 0;
}

/**
 * cqn_cq_moder_apply() - apply the moderation asked for
 * @c: the engine, quiesced or not yet started
 *
 * cq_count/cq_period, or under adaptive moderation the DIM profile of its
 * current level.
 *
 * Context: process context.
 * Return: 0 or -errno from the device (the previous moderation stays).
 */
int cqn_cq_moder_apply(struct cqn_cq *c)
{
	struct cqn_moder m = { c->params.cq_count, c->params.cq_period };

	if (c->params.adaptive_moderation)
		cqn_dim_profile(c->moder.level, &m);
	return cqn_cq_moder_set(c, m.count, m.period_us);
}

/*
 * DIM moved its level: apply it, then let DIM measure again (it waits in
 * DIM_APPLY_NEW_PROFILE until told), as the core's ib_cq_rdma_dim_work().
 * Context: system_wq; cqn_cq_moder_halt() cancels it before a live change.
 */
static void cqn_cq_dim_work(struct work_struct *w)
{
	struct dim *dim = container_of(w, struct dim, work);
	struct cqn_cq *c = dim->priv;
	unsigned int level = READ_ONCE(dim->profile_ix);
	struct cqn_moder m;

	if (cqn_cq_live(c) && c->params.adaptive_moderation && cqn_dim_profile(level, &m)) {
		WRITE_ONCE(c->moder.level, level);
		if (cqn_cq_moder_set(c, m.count, m.period_us))
			pr_warn_ratelimited("%s: adaptive moderation level %u failed\n",
					    c->name, level);
	}
	dim->state = DIM_START_MEASURE;
}

/**
 * cqn_cq_moder_restart() - adaptive moderation starts from level 0
 * @c: the engine, quiesced or not yet started
 *
 * DIM's state as the core's rdma_dim_init() sets it: measuring, going
 * right, at RDMA_DIM_START_PROFILE.
 *
 * Context: process context.
 */
void cqn_cq_moder_restart(struct cqn_cq *c)
{
	struct dim *dim = &c->moder.dim;

	memset(&dim->prev_stats, 0, sizeof(dim->prev_stats));
	memset(&dim->start_sample, 0, sizeof(dim->start_sample));
	memset(&dim->measuring_sample, 0, sizeof(dim->measuring_sample));
	dim->state = DIM_START_MEASURE;
	dim->tune_state = DIM_GOING_RIGHT;
	dim->profile_ix = RDMA_DIM_START_PROFILE;
	dim->steps_right = 0;
	dim->steps_left = 0;
	dim->tired = 0;
	dim->priv = c;
	c->moder.level = RDMA_DIM_START_PROFILE;
	c->moder.fed = c->moder.done;
}

/**
 * cqn_cq_moder_feed() - tell DIM what the wakeup handed over
 * @c: the engine
 *
 * Called once per wakeup that ends by re-arming the CQ, with the
 * completions handed over since the last call, as the core's workqueue
 * poller calls rdma_dim() once per run that re-arms.
 *
 * Context: the work item.
 */
void cqn_cq_moder_feed(struct cqn_cq *c)
{
	u64 n = c->moder.done - c->moder.fed;

	if (!c->params.adaptive_moderation)
		return;
	c->moder.fed = c->moder.done;
	rdma_dim(&c->moder.dim, n);
}

/**
 * cqn_cq_moderation_show() - the moderation in effect, for people
 * @c: the engine
 * @buf: output
 * @len: size of @buf
 *
 * "off", "hw count=C period=P" or "sw count=C period=P", followed by
 * " adaptive level=L" under adaptive moderation. Moderation asked for in a
 * mode where software moderation does not run (poll, softirq, workqueue on
 * a provider without modify_cq) reads "off (ignored in this cq_mode)".
 * A core-mode CQ under the core's DIM (cqn_core_dim()) reads "core dim
 * level=L count=C period=P" once DIM has moved from its first level (it
 * then programs the device itself), and before that what the engine set
 * followed by "; core dim level=0, not applied yet".
 *
 * Context: any.
 * Return: the length written.
 */
int cqn_cq_moderation_show(struct cqn_cq *c, char *buf, size_t len)
{
	u32 kind = READ_ONCE(c->moder.kind);
	struct cqn_moder p;
	bool dim;
	u8 ix;
	int n;

	/*
	 * Once the core's DIM has left its first level it has programmed the
	 * device itself, over what the engine set (its work calls modify_cq).
	 */
	dim = cqn_cq_core_dim_level(c, &ix);
	if (dim && (ix != RDMA_DIM_START_PROFILE || READ_ONCE(c->core.dim_moved)) &&
	    cqn_dim_profile(ix, &p))
		return scnprintf(buf, len, "core dim level=%u count=%u period=%u", ix, p.count,
				 p.period_us);
	if (kind == CQN_MODER_OFF && READ_ONCE(c->moder.ignored))
		n = scnprintf(buf, len, "off (ignored in this cq_mode)");
	else if (kind == CQN_MODER_OFF)
		n = scnprintf(buf, len, "off");
	else
		n = scnprintf(buf, len, "%s count=%u period=%u", cqn_moder_kind_names[kind],
			      READ_ONCE(c->moder.eff.count), READ_ONCE(c->moder.eff.period_us));
	if (c->params.adaptive_moderation)
		n += scnprintf(buf + n, len - n, " adaptive level=%u", READ_ONCE(c->moder.level));
	if (dim)
		n += scnprintf(buf + n, len - n, "; core dim level=%u, not applied yet",
			       RDMA_DIM_START_PROFILE);
	return n;
}

/**
 * cqn_cq_moder_init() - prepare software moderation's timer and DIM
 * @c: the engine
 *
 * Context: process context.
 */
void cqn_cq_moder_init(struct cqn_cq *c)
{
	cqn_hrtimer_setup(&c->moder.timer, cqn_cq_moder_timer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_SOFT);
	INIT_WORK(&c->moder.dim.work, cqn_cq_dim_work);
	cqn_cq_moder_restart(c);
}

/**
 * cqn_cq_moder_halt() - stop software moderation's timer and DIM's work
 * @c: the engine, its state no longer live, its work item cancelled
 *
 * What is staged stays staged: the next wakeup hands it over first.
 *
 * Context: process context.
 */
void cqn_cq_moder_halt(struct cqn_cq *c)
{
	hrtimer_cancel(&c->moder.timer);
	spin_lock_irq(&c->lock);
	c->moder.timer_armed = false;
	spin_unlock_irq(&c->lock);
	/* Nothing feeds DIM now: a level it decided and did not apply is dropped. */
	cancel_work_sync(&c->moder.dim.work);
	c->moder.dim.state = DIM_START_MEASURE;
}
