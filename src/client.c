// SPDX-License-Identifier: GPL-2.0
/*
 * Client side of a connection: run the workload (pingpong or stream), verify
 * every echo, and measure round trips.
 *
 * Echoes of an RC connection arrive in the order the messages were sent, so
 * each echo must carry the next expected sequence number; cqn_msg_verify()
 * tells a lost, duplicated, reordered or corrupted echo from a good one and
 * each kind is counted (msg_errors and err_*), never ignored.
 *
 * An endpoint keeps cfg.connections connections to its server, one per
 * slot (struct cqn_clt_slot). Each slot has its own rdma_cm id, its share
 * of the workload (iterations and rate divided over the slots), its own
 * sequence numbers, and resolves, connects and reconnects by itself. The
 * endpoint runs when every slot is up, is done when every share is done,
 * and fails when one slot's connection is lost for good. Nothing is sent
 * until every slot was up once: the connections made first would
 * otherwise take the CPU from the handshakes of the rest (1,024
 * connections of their own CQ engines on rxe: connect requests timed out).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "cqnotify.h"
#include "cqn_msg.h"
#include "cqn_trace.h"

/* What the "slots" file shows of each slot, summed over its connections. */
static const enum cqn_stat cqn_slot_stats[] = {
	CQN_STAT_msgs_sent,
	CQN_STAT_msgs_received,
	CQN_STAT_msgs_verified,
	CQN_STAT_msg_errors,
	CQN_STAT_err_lost,
	CQN_STAT_msgs_resent,
};

struct cqn_clt_conn;

/**
 * struct cqn_clt_slot - one of a client endpoint's connections to its
 * server, across reconnects
 * @ep: the endpoint
 * @index: its number, 0 .. connections - 1
 * @cm_id: its rdma_cm id (context: the endpoint); written under ep->lock,
 *	read by the rdma_cm handler to find the slot of an id
 * @quota: with iterations: the messages this slot sends (its share)
 * @conn: its connection once established, until destroyed
 * @resume_seq: first message of the slot not yet echoed when its last
 *	connection was destroyed; the next connection starts there
 * @resume_high: highest sequence number the slot sent so far, plus one
 *	(messages below it that are sent again count as msgs_resent)
 * @reconnect_attempt: reconnect attempts since its last connection was
 *	established
 * @reconnects: reconnects of the slot in this run
 * @reconnect_pending: @reconnect_work is to connect again
 * @up: counted in clt.nup (established, or its share done)
 * @finished: its share of the workload is done
 * @retired: cqn_slot_stats of its connections already destroyed
 * @reconnect_work: with reconnect=1: connects again after a loss
 *
 * Everything from @conn on is protected by ep->state_lock.
 */
struct cqn_clt_slot {
	struct cqn_endpoint *ep;
	u32 index;
	struct rdma_cm_id *cm_id;
	u64 quota;
	struct cqn_clt_conn *conn;
	u64 resume_seq;
	u64 resume_high;
	u32 reconnect_attempt;
	u32 reconnects;
	bool reconnect_pending;
	bool up;
	bool finished;
	u64 retired[ARRAY_SIZE(cqn_slot_stats)];
	struct delayed_work reconnect_work;
};

/**
 * struct cqn_clt_conn - a client's connection
 * @c: the connection that knows no role
 * @slot: the slot it serves
 * @quota: with iterations: the messages of its slot (@slot->quota)
 * @next_seq: sequence number of the next message to send
 * @expected_seq: sequence number the next echo must carry
 * @resend_below: messages with a lower sequence number were sent on an
 *	earlier connection of the run (a resumed run sends them again)
 * @send_ns: send time by seq % c.nsend (for short messages)
 * @finished: the workload is complete
 * @primed: its sequence numbers are set for this connection (its
 *	established handler): the start of the run may make it send
 * @pace_timer: with a rate: sends the next message when it is due
 * @next_send_ns: with a rate: when the next message is due
 * @pace_off: teardown began (cqn_client_quiesce()): nothing more is sent
 *	or posted to receive, and the pace timer is not started again
 *
 * Everything but @pace_timer is protected by c.lock.
 */
struct cqn_clt_conn {
	struct cqn_conn c;
	struct cqn_clt_slot *slot;
	u64 quota;
	u64 next_seq;
	u64 expected_seq;
	u64 resend_below;
	u64 *send_ns;
	bool finished;
	bool primed;
	struct hrtimer pace_timer;
	u64 next_send_ns;
	bool pace_off;
};

static struct cqn_clt_conn *to_clt(struct cqn_conn *conn)
{
	return container_of(conn, struct cqn_clt_conn, c);
}

/*
 * Messages sent that no echo accounts for yet. An echo accounts for the
 * messages up to its sequence number (a gap for the ones it skipped too); a
 * duplicate or a late reordered echo for none. Exact under c.lock, a hint
 * without it.
 */
static u32 cqn_client_awaited(const struct cqn_clt_conn *cc)
{
	return READ_ONCE(cc->next_seq) - READ_ONCE(cc->expected_seq);
}

static bool cqn_client_more(struct cqn_clt_conn *cc, u64 now)
{
	const struct cqn_config *cfg = &cc->c.ep->cfg;

	if (cfg->iterations)
		return cc->next_seq < cc->quota;
	if (cfg->duration_ms)
		return now < READ_ONCE(cc->c.ep->run_start_ns) +
			     (u64)cfg->duration_ms * NSEC_PER_MSEC;
	return true;
}

/*
 * Post as many messages as the workload allows; c.lock held. The last
 * message of each burst is solicited: after it the client waits for echoes,
 * so a server arming for solicited completions only must hear of it. One
 * clock reading for the whole burst makes "last" exact in duration runs;
 * none when nothing can be sent (a send's completion in pingpong).
 * rate is the endpoint's: each of its connections sends rate/connections.
 */
static int cqn_client_pump(struct cqn_clt_conn *cc)
{
	struct cqn_conn *conn = &cc->c;
	const struct cqn_config *cfg = &conn->ep->cfg;
	u32 window = cfg->workload == CQN_WL_STREAM ? cfg->queue_depth : 1;
	u64 gap = cfg->rate ? div_u64((u64)cfg->connections * NSEC_PER_SEC, cfg->rate) : 0;
	u64 now = 0;
	int ret;

	lockdep_assert_held(&conn->lock);
	/*
	 * Not after teardown began: a send posted once the drain moved the QP
	 * to error completes (flushed) after the drain's marker, and would be
	 * counted as lost.
	 */
	while (!cc->finished && !cc->pace_off && conn->established &&
	       cqn_client_awaited(cc) < window && conn->nfree_send) {
		struct cqn_buf *sb;
		bool last;
		u64 seq;

		if (!now)
			now = ktime_get_ns();
		if (!cqn_client_more(cc, now))
			break;

		if (gap && now < cc->next_send_ns) {
			/* Not due yet: the pace timer runs the pump then. */
			if (!cc->pace_off)
				hrtimer_start(&cc->pace_timer, ns_to_ktime(cc->next_send_ns),
					      HRTIMER_MODE_ABS_SOFT);
			break;
		}

		seq = cc->next_seq;
		sb = cqn_conn_get_send(conn);
		if (seq < cc->resend_below)
			cqn_stat_inc(&conn->stats, CQN_STAT_msgs_resent);
		cqn_msg_stamp(sb->data, conn->msg_size, seq, now, cfg->verify);
		sb->len = conn->msg_size;
		cc->send_ns[seq % conn->nsend] = now;
		cc->next_seq++;
		/* A paced message is always the last of its burst. */
		last = gap || cqn_client_awaited(cc) >= window || !conn->nfree_send ||
		       !cqn_client_more(cc, now);
		ret = cqn_conn_post_send(conn, sb->idx, sb->len, last);
		if (ret) {
			cc->next_seq--;
			cqn_conn_put_send(conn, sb);
			return ret;
		}
		/* No catching up in bursts after a stall: the rate is a ceiling. */
		if (gap)
			cc->next_send_ns = max(cc->next_send_ns, now) + gap;
	}
	return 0;
}

/*
 * Over when nothing more is to be sent, every echo is in and every send has
 * completed (an echo can overtake the completion of its own send); then
 * marks the connection finished. c.lock held.
 */
static bool cqn_client_over(struct cqn_clt_conn *cc)
{
	lockdep_assert_held(&cc->c.lock);
	/* The clock is read last, only when everything else says over. */
	if (cc->finished || cqn_client_awaited(cc) || cc->c.nfree_send != cc->c.nsend ||
	    cqn_client_more(cc, ktime_get_ns()))
		return false;
	cc->finished = true;
	return true;
}

/*
 * Send what the workload allows, then see whether the run is over (a clock
 * read after the pump's: it cannot see more to send than the pump did).
 * Nothing before the run starts (clt.started), nor once the endpoint
 * stops (accepting false): its connections are drained one after the
 * other, and the traffic of those still waiting would hold up each drain.
 * c.lock held; what follows is cqn_client_settle()'s, once it is dropped.
 */
static int cqn_client_advance(struct cqn_clt_conn *cc, bool *finished)
{
	struct cqn_endpoint *ep = cc->c.ep;
	int ret;

	*finished = false;
	if (!READ_ONCE(ep->clt.started) || !READ_ONCE(ep->accepting))
		return 0;
	ret = cqn_client_pump(cc);
	*finished = !ret && cqn_client_over(cc);
	return ret;
}

/* A slot's share is done; the last one ends the endpoint's run. */
static void cqn_client_slot_done(struct cqn_clt_slot *slot)
{
	struct cqn_endpoint *ep = slot->ep;
	unsigned long flags;

	spin_lock_irqsave(&ep->state_lock, flags);
	if (!slot->finished) {
		slot->finished = true;
		if (++ep->clt.nfinished == ep->clt.nslots)
			__cqn_ep_change_state(ep, CQN_EP_DONE, "workload done");
	}
	spin_unlock_irqrestore(&ep->state_lock, flags);
}

/*
 * After cqn_client_advance(), c.lock dropped: a posting failure closes
 * the connection; a share that is over is recorded and closes it normally.
 */
static void cqn_client_settle(struct cqn_clt_conn *cc, int ret, bool finished)
{
	if (ret) {
		cqn_conn_close(&cc->c, "posting failed: %pe", ERR_PTR(ret));
	} else if (finished) {
		cqn_client_slot_done(cc->slot);
		cqn_conn_close(&cc->c, NULL);
	}
}

/*
 * Send what the workload allows now that the run started; a connection
 * whose established handler has not set its sequence numbers yet starts
 * there. Context: process context (cqn_ep_apply_to_conns()).
 */
static int cqn_client_go(struct cqn_conn *conn)
{
	struct cqn_clt_conn *cc = to_clt(conn);
	bool finished = false;
	int ret = 0;

	spin_lock_bh(&conn->lock);
	if (cc->primed)
		ret = cqn_client_advance(cc, &finished);
	spin_unlock_bh(&conn->lock);
	cqn_client_settle(cc, ret, finished);
	return 0;
}

/*
 * The connection is established: send, once the run started. A slot
 * resumed after a reconnect starts from the first message whose echo its
 * lost connection did not verify. The endpoint runs once every slot is
 * up; the first time in a run, the run starts: its clock, and the
 * connections established before, which waited for this one (their
 * handlers primed them; one that has not yet starts itself, as it reads
 * clt.started after this set it). Context: rdma_cm event handler.
 */
static void cqn_client_established(struct cqn_conn *conn)
{
	struct cqn_clt_conn *cc = to_clt(conn);
	struct cqn_clt_slot *slot = cc->slot;
	struct cqn_endpoint *ep = conn->ep;
	bool finished, start = false;
	u64 resume, high;
	int ret;

	spin_lock_irq(&ep->state_lock);
	/* A connection resets its slot's attempts; a resumed run keeps its start. */
	slot->reconnect_attempt = 0;
	slot->conn = cc;
	if (!slot->up) {
		slot->up = true;
		ep->clt.nup++;
	}
	if (ep->clt.nup == ep->clt.nslots) {
		__cqn_ep_change_state(ep, CQN_EP_RUNNING,
				      ep->clt.nslots > 1 ? "connections established" :
				      "connection established");
		if (!ep->clt.started) {
			__cqn_ep_start_clock(ep);
			WRITE_ONCE(ep->clt.started, true);
			start = ep->clt.nslots > 1;
		}
	}
	resume = slot->resume_seq;
	high = slot->resume_high;
	spin_unlock_irq(&ep->state_lock);

	spin_lock_bh(&conn->lock);
	cc->next_seq = resume;
	cc->expected_seq = resume;
	cc->resend_below = high;
	cc->primed = true;
	ret = cqn_client_advance(cc, &finished);
	spin_unlock_bh(&conn->lock);
	cqn_client_settle(cc, ret, finished);
	/* Not started, the others would wait in silence: the run fails. */
	if (start) {
		ret = cqn_ep_apply_to_conns(cqn_client_go, ep);
		if (ret < 0)
			cqn_ep_fail(ep, "starting the run's connections failed: %pe", ERR_PTR(ret));
	}
}

static void cqn_client_count_error(struct cqn_conn *conn, enum cqn_msg_verdict v,
				   u64 expected, u64 seq)
{
	static const enum cqn_stat kind[] = {
		[CQN_MSG_BAD_LEN] = CQN_STAT_err_bad_len,
		[CQN_MSG_BAD_MAGIC] = CQN_STAT_err_bad_magic,
		[CQN_MSG_CORRUPT] = CQN_STAT_err_corrupt,
		[CQN_MSG_LOST] = CQN_STAT_err_lost,
		[CQN_MSG_STALE] = CQN_STAT_err_stale,
	};

	cqn_stat_inc(&conn->stats, CQN_STAT_msg_errors);
	cqn_stat_inc(&conn->stats, kind[v]);
	pr_err_ratelimited("%s: echo expected seq %llu: %s (seq %llu)\n",
			   conn->ep->name, expected,
			   cqn_msg_verdict_name(v), seq);
}

/*
 * Judge an echo in receive buffer @rb (@len bytes) and move expected_seq
 * on; c.lock held. An intact echo is timed (it arrived at @now); a bad
 * one counted.
 */
static void cqn_client_take_echo(struct cqn_clt_conn *cc, struct cqn_buf *rb, u32 len,
				 u64 now)
{
	struct cqn_conn *conn = &cc->c;
	const struct cqn_config *cfg = &conn->ep->cfg;
	enum cqn_msg_verdict v = CQN_MSG_OK;
	u64 seq, send_ns, rtt;

	seq = cc->expected_seq;
	if (cc->expected_seq >= cc->next_seq) {
		/* Every message sent is accounted for: nobody awaits this. */
		v = CQN_MSG_STALE;
	} else if (cfg->verify) {
		ib_dma_sync_single_for_cpu(conn->pd->device, rb->dma, len, DMA_FROM_DEVICE);
		v = cqn_msg_verify(rb->data, len, conn->msg_size, cc->expected_seq, &seq,
				   &send_ns);
	}
	if (v == CQN_MSG_OK) {
		if (cfg->verify)
			cqn_stat_inc(&conn->stats, CQN_STAT_msgs_verified);
		rtt = now - cc->send_ns[seq % conn->nsend];
		cqn_stat_hist(&conn->stats, CQN_H_RTT, rtt);
		trace_cqn_rtt(conn, seq, rtt);
		cc->expected_seq++;
	} else {
		cqn_client_count_error(conn, v, cc->expected_seq, seq);
		/* Resynchronise on an intact later message; otherwise move on. */
		/* A gap skips what it says, never messages not yet sent. */
		if (v == CQN_MSG_LOST)
			cc->expected_seq = min(seq + 1, cc->next_seq);
		else if (v != CQN_MSG_STALE)
			cc->expected_seq++;
	}
}

/* An echo arrived: verify it, time it, send more. Context: completion processing. */
static void cqn_client_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cqn_buf *rb = container_of(wc->wr_cqe, struct cqn_buf, cqe);
	struct cqn_conn *conn = rb->conn;
	struct cqn_clt_conn *cc = to_clt(conn);
	bool finished = false;
	u64 now = ktime_get_ns();
	bool ok;
	int ret;

	if (cqn_conn_wc_dup(conn, wc, "receive"))
		return;
	ok = cqn_conn_wc_ok(conn, wc, "receive");
	spin_lock_bh(&conn->lock);
	if (!cqn_conn_recv_taken(conn, wc, ok)) {
		spin_unlock_bh(&conn->lock);
		return;
	}
	cqn_client_take_echo(cc, rb, wc->byte_len, now);
	/*
	 * Teardown began: nothing more is sent, so no echo needs the buffer,
	 * and the drain owns the ring. A repost could outlive the QP: after
	 * a short drain a shared CQ hands this completion over once the QP
	 * is destroyed (cqn_ep_cq_leave()).
	 */
	if (cc->pace_off) {
		spin_unlock_bh(&conn->lock);
		return;
	}
	ret = cqn_conn_post_recv(conn, rb->idx);
	if (!ret)
		ret = cqn_client_advance(cc, &finished);
	spin_unlock_bh(&conn->lock);
	cqn_client_settle(cc, ret, finished);
}

/* A message left: free its buffer, send more. Context: completion processing. */
static void cqn_client_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cqn_buf *sb = container_of(wc->wr_cqe, struct cqn_buf, cqe);
	struct cqn_clt_conn *cc = to_clt(sb->conn);
	bool finished;
	int ret;

	if (!cqn_conn_send_taken(&cc->c, wc, sb))
		return;
	spin_lock_bh(&cc->c.lock);
	cqn_conn_put_send(&cc->c, sb);
	ret = cqn_client_advance(cc, &finished);
	spin_unlock_bh(&cc->c.lock);
	cqn_client_settle(cc, ret, finished);
}

/* A paced message is due: run the pump. Context: hrtimer softirq. */
static enum hrtimer_restart cqn_client_pace(struct hrtimer *timer)
{
	struct cqn_clt_conn *cc = container_of(timer, struct cqn_clt_conn, pace_timer);
	bool finished;
	int ret;

	spin_lock_bh(&cc->c.lock);
	ret = cqn_client_advance(cc, &finished);
	spin_unlock_bh(&cc->c.lock);
	cqn_client_settle(cc, ret, finished);
	return HRTIMER_NORESTART;
}

/*
 * A slot lost its connection, or could not make one; ep->state_lock held.
 * With reconnect=1 and attempts left, the endpoint goes back to
 * "connecting" and the slot connects again after a backoff
 * (cqn_reconnect_delay_ms()), resuming its share from the first message
 * not yet echoed; otherwise the endpoint fails with @why as the reason
 * (the other slots' connections go when it is disabled). A run that is
 * over (done) or failed already, or a slot whose share is done, stays as
 * it is.
 */
static void __cqn_client_slot_lost(struct cqn_clt_slot *slot, const char *why)
{
	struct cqn_endpoint *ep = slot->ep;
	struct cqn_ep_client *clt = &ep->clt;
	char reason[CQN_ERR_LEN];
	u32 attempt;

	lockdep_assert_held(&ep->state_lock);
	if (ep->state == CQN_EP_ERROR || ep->state == CQN_EP_DONE || slot->reconnect_pending ||
	    slot->finished)
		return;
	if (slot->up) {
		slot->up = false;
		clt->nup--;
	}
	/* One connection: the reason as it is; several: which one. */
	if (clt->nslots > 1)
		snprintf(reason, sizeof(reason), "connection %u of %u: %s", slot->index,
			 clt->nslots, why);
	else
		strscpy(reason, why, sizeof(reason));
	if (READ_ONCE(ep->cfg.reconnect) && ep->accepting &&
	    slot->reconnect_attempt < CQN_RECONNECT_ATTEMPTS &&
	    __cqn_ep_change_state(ep, CQN_EP_CONNECTING, reason)) {
		attempt = ++slot->reconnect_attempt;
		slot->reconnect_pending = true;
		slot->reconnects++;
		cqn_ep_queue_delayed(&slot->reconnect_work, cqn_reconnect_delay_ms(attempt));
		cqn_stat_inc(&ep->stats, CQN_STAT_reconnects);
		pr_info_ratelimited("%s: %s; reconnecting in %u ms (attempt %u of %u)\n",
				    ep->name, reason, cqn_reconnect_delay_ms(attempt), attempt,
				    CQN_RECONNECT_ATTEMPTS);
		return;
	}
	attempt = slot->reconnect_attempt;
	if (attempt) {
		/* The reason comes first: it is cut rather than the count. */
		char given_up[CQN_ERR_LEN];

		scnprintf(given_up, sizeof(given_up), "%s (gave up after %u reconnect attempts)",
			  reason, attempt);
		strscpy(reason, given_up, sizeof(reason));
	}
	if (__cqn_ep_change_state(ep, CQN_EP_ERROR, reason))
		pr_err_ratelimited("%s: %s\n", ep->name, reason);
}

/*
 * The slot of a client's id. Its id is set before the id can report an
 * event, and changes only once the id is destroyed (which waits for its
 * handlers): a handler always finds its own. NULL for none.
 */
static struct cqn_clt_slot *cqn_client_slot_of(struct cqn_endpoint *ep, struct rdma_cm_id *id)
{
	struct cqn_clt_slot *slots = READ_ONCE(ep->clt.slots);
	u32 i, n = READ_ONCE(ep->clt.nslots);

	for (i = 0; slots && i < n; i++)
		if (READ_ONCE(slots[i].cm_id) == id)
			return &slots[i];
	return NULL;
}

/**
 * cqn_client_id_lost() - a client's id could not make its connection
 * (address or route resolution failed)
 * @ep: the client endpoint
 * @id: the id, one of its slots'
 * @fmt: why (shown in last_error)
 * @...: arguments for @fmt
 *
 * Its slot reconnects (reconnect=1, attempts left) or the endpoint fails.
 *
 * Context: rdma_cm event handler of @id.
 */
void cqn_client_id_lost(struct cqn_endpoint *ep, struct rdma_cm_id *id, const char *fmt, ...)
{
	struct cqn_clt_slot *slot = cqn_client_slot_of(ep, id);
	char why[CQN_ERR_LEN];
	unsigned long flags;
	va_list args;

	va_start(args, fmt);
	vsnprintf(why, sizeof(why), fmt, args);
	va_end(args);
	if (WARN_ON_ONCE(!slot)) {
		cqn_ep_fail(ep, "%s", why);
		return;
	}
	spin_lock_irqsave(&ep->state_lock, flags);
	__cqn_client_slot_lost(slot, why);
	spin_unlock_irqrestore(&ep->state_lock, flags);
}

/*
 * Connect a slot again after a loss. enable, disable and live changes
 * hold ep->lock, and disable cancels this work while holding it: so it
 * only tries the lock, and comes back shortly while the endpoint still runs.
 */
static void cqn_client_reconnect_work(struct work_struct *work)
{
	struct cqn_clt_slot *slot = container_of(to_delayed_work(work), struct cqn_clt_slot,
						 reconnect_work);
	struct cqn_endpoint *ep = slot->ep;
	struct rdma_cm_id *old;
	bool go;

	if (!mutex_trylock(&ep->lock)) {
		if (READ_ONCE(ep->accepting))
			cqn_ep_queue_delayed(&slot->reconnect_work, 10);
		return;
	}
	spin_lock_irq(&ep->state_lock);
	go = ep->accepting && slot->reconnect_pending;
	slot->reconnect_pending = false;
	spin_unlock_irq(&ep->state_lock);
	if (go && ep->enabled) {
		/* The lost connection is destroyed first; then its id goes. */
		flush_work(&ep->reap_work);
		old = slot->cm_id;
		WRITE_ONCE(slot->cm_id, NULL);
		if (old)
			rdma_destroy_id(old);
		/* A failure here is final: cqn_cm_connect() says why. */
		cqn_cm_connect(ep, &slot->cm_id);
	}
	mutex_unlock(&ep->lock);
}

/*
 * A new run: a slot per connection, each starting from its first message
 * with every attempt left; iterations are divided over them (the first
 * iterations % connections get one more). Each slot starts resolving.
 */
static int cqn_client_start(struct cqn_endpoint *ep)
{
	u32 i, n = ep->cfg.connections, iters = ep->cfg.iterations;
	struct cqn_clt_slot *slots;
	int ret;

	lockdep_assert_held(&ep->lock);
	/* The run starts first, so that a failure below is its error. */
	spin_lock_irq(&ep->state_lock);
	ep->clt.nup = 0;
	ep->clt.nfinished = 0;
	WRITE_ONCE(ep->clt.started, false);
	__cqn_ep_start_run(ep, CQN_EP_CONNECTING);
	spin_unlock_irq(&ep->state_lock);
	slots = kvcalloc(n, sizeof(*slots), GFP_KERNEL);
	if (!slots) {
		cqn_ep_fail(ep, "allocating %u connection slots failed: %pe", n, ERR_PTR(-ENOMEM));
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		slots[i].ep = ep;
		slots[i].index = i;
		slots[i].quota = iters / n + (i < iters % n);
		INIT_DELAYED_WORK(&slots[i].reconnect_work, cqn_client_reconnect_work);
	}
	spin_lock_irq(&ep->state_lock);
	WRITE_ONCE(ep->clt.nslots, n);
	WRITE_ONCE(ep->clt.slots, slots);
	spin_unlock_irq(&ep->state_lock);
	for (i = 0; i < n; i++) {
		/* A failure fails the endpoint; disable takes what was made. */
		ret = cqn_cm_connect(ep, &slots[i].cm_id);
		if (ret)
			return ret;
	}
	return 0;
}

/* No reconnect any more: each sees accepting false and ends without ep->lock. */
static void cqn_client_stop(struct cqn_endpoint *ep)
{
	u32 i;

	spin_lock_irq(&ep->state_lock);
	for (i = 0; i < ep->clt.nslots; i++)
		ep->clt.slots[i].reconnect_pending = false;
	spin_unlock_irq(&ep->state_lock);
	for (i = 0; i < ep->clt.nslots; i++)
		cancel_delayed_work_sync(&ep->clt.slots[i].reconnect_work);
}

/*
 * Every connection is destroyed: the slots' ids go (waiting for their
 * handlers, which can no longer add a connection), then the slots.
 */
static void cqn_client_release(struct cqn_endpoint *ep)
{
	struct cqn_clt_slot *slots = ep->clt.slots;
	u32 i, n = ep->clt.nslots;

	lockdep_assert_held(&ep->lock);
	for (i = 0; i < n; i++) {
		if (slots[i].cm_id)
			rdma_destroy_id(slots[i].cm_id);
		WRITE_ONCE(slots[i].cm_id, NULL);
	}
	spin_lock_irq(&ep->state_lock);
	WRITE_ONCE(ep->clt.slots, NULL);
	WRITE_ONCE(ep->clt.nslots, 0);
	ep->clt.nup = 0;
	ep->clt.nfinished = 0;
	spin_unlock_irq(&ep->state_lock);
	kvfree(slots);
}

/*
 * Device removal: does one of the slots' ids sit on @ibdev? Under
 * ep->state_lock: the reaper takes a slot's id under it before it destroys
 * the id (cqn_client_take_id()).
 */
static bool cqn_client_on_device(struct cqn_endpoint *ep, struct ib_device *ibdev)
{
	struct rdma_cm_id *id;
	bool on = false;
	u32 i;

	lockdep_assert_held(&ep->lock);
	spin_lock_irq(&ep->state_lock);
	for (i = 0; i < ep->clt.nslots && !on; i++) {
		id = ep->clt.slots[i].cm_id;
		on = id && id->device == ibdev;
	}
	spin_unlock_irq(&ep->state_lock);
	return on;
}

/*
 * The reaper destroys a connection, and its slot's id first (which waits
 * for the id's handlers): the slot connects again, if it does, with a new
 * id (cqn_client_reconnect_work() flushes the reaper before it looks).
 * The id is the connection's own, the one it was created on.
 */
static struct rdma_cm_id *cqn_client_take_id(struct cqn_conn *conn)
{
	struct cqn_clt_slot *slot = to_clt(conn)->slot;
	struct cqn_endpoint *ep = conn->ep;
	struct rdma_cm_id *id = NULL;

	spin_lock_irq(&ep->state_lock);
	if (slot->cm_id == conn->cm_id) {
		id = slot->cm_id;
		WRITE_ONCE(slot->cm_id, NULL);
	}
	spin_unlock_irq(&ep->state_lock);
	return id;
}

/**
 * cqn_client_slots_show() - debugfs "slots": a client's connection slots,
 * one line each
 * @m: the seq_file
 * @ep: the endpoint
 *
 * "<index> conn <id>|- <state> reconnects <n>" and the counters of
 * cqn_slot_stats, its live connection's and its destroyed ones' summed; a
 * server, or a client not enabled, has no line.
 *
 * Context: process context.
 */
void cqn_client_slots_show(struct seq_file *m, struct cqn_endpoint *ep)
{
	u64 v[ARRAY_SIZE(cqn_slot_stats)];
	struct cqn_clt_slot *slot;
	const char *state;
	u32 i, j, n;
	s64 conn;

	for (i = 0;; i++) {
		spin_lock_irq(&ep->state_lock);
		n = ep->clt.nslots;
		if (i >= n) {
			spin_unlock_irq(&ep->state_lock);
			break;
		}
		slot = &ep->clt.slots[i];
		conn = slot->conn ? (s64)slot->conn->c.id : -1;
		for (j = 0; j < ARRAY_SIZE(cqn_slot_stats); j++)
			v[j] = slot->retired[j] +
			       (slot->conn ? cqn_stats_read(&slot->conn->c.stats,
							    cqn_slot_stats[j]) : 0);
		state = slot->finished ? "done" : slot->up ? "up" : "connecting";
		j = slot->reconnects;
		spin_unlock_irq(&ep->state_lock);

		seq_printf(m, "%u conn ", i);
		if (conn < 0)
			seq_puts(m, "-");
		else
			seq_printf(m, "%lld", conn);
		seq_printf(m, " %s reconnects %u", state, j);
		for (j = 0; j < ARRAY_SIZE(cqn_slot_stats); j++)
			seq_printf(m, " %s %llu", cqn_stat_names[cqn_slot_stats[j]], v[j]);
		seq_putc(m, '\n');
	}
}

/**
 * cqn_client_slots_reset() - zero the slots' counters of destroyed
 * connections (the endpoint's counters are being reset)
 * @ep: the endpoint, ep->state_lock held
 *
 * Context: any, ep->state_lock held.
 */
void cqn_client_slots_reset(struct cqn_endpoint *ep)
{
	u32 i;

	lockdep_assert_held(&ep->state_lock);
	for (i = 0; i < ep->clt.nslots; i++) {
		memset(ep->clt.slots[i].retired, 0, sizeof(ep->clt.slots[i].retired));
		ep->clt.slots[i].reconnects = 0;
	}
}

/* A connection for the slot whose id's route is resolved. */
static struct cqn_conn *cqn_client_conn_alloc(struct cqn_endpoint *ep, struct rdma_cm_id *cm_id)
{
	struct cqn_clt_slot *slot = cqn_client_slot_of(ep, cm_id);
	struct cqn_clt_conn *cc;

	if (WARN_ON_ONCE(!slot))
		return NULL;
	cc = kzalloc(sizeof(*cc), GFP_KERNEL);
	if (!cc)
		return NULL;
	cc->slot = slot;
	cc->quota = slot->quota;
	cc->send_ns = kcalloc(ep->cfg.send_depth, sizeof(u64), GFP_KERNEL);
	if (!cc->send_ns) {
		kfree(cc);
		return NULL;
	}
	cqn_hrtimer_setup(&cc->pace_timer, cqn_client_pace, CLOCK_MONOTONIC,
			  HRTIMER_MODE_ABS_SOFT);
	return &cc->c;
}

static void cqn_client_conn_free(struct cqn_conn *conn)
{
	struct cqn_clt_conn *cc = to_clt(conn);

	kfree(cc->send_ns);
	kfree(cc);
}

/*
 * A client's connection runs its slot's share: losing it is the
 * endpoint's error, or the slot's reconnect. ep->state_lock held.
 */
static void cqn_client_conn_lost(struct cqn_conn *conn, const char *why)
{
	__cqn_client_slot_lost(to_clt(conn)->slot, why);
}

static bool cqn_client_one_conn(const struct cqn_endpoint *ep)
{
	return ep->cfg.connections == 1;
}

static u32 cqn_client_conn_limit(const struct cqn_endpoint *ep)
{
	return ep->cfg.connections;
}

static const char *cqn_client_peer_left(struct cqn_conn *conn)
{
	return READ_ONCE(to_clt(conn)->finished) ? NULL : "peer disconnected";
}

/*
 * solicited_only: waiting for a completion that raises no solicited event?
 * When the client cannot send for lack of a buffer, or when every echo is
 * in and only send completions are outstanding. Read without c.lock (the
 * engine asks right after it processed the CQ, from the context that
 * changes these fields).
 */
static bool cqn_client_need_any(struct cqn_conn *conn)
{
	u32 nfree = READ_ONCE(conn->nfree_send);

	return !nfree || (nfree != conn->nsend && !cqn_client_awaited(to_clt(conn)));
}

static bool cqn_client_busy(struct cqn_conn *conn)
{
	return cqn_client_awaited(to_clt(conn));
}

/* Teardown: nothing more is sent or reposted, from the pace timer or from completions. */
static void cqn_client_quiesce(struct cqn_conn *conn)
{
	struct cqn_clt_conn *cc = to_clt(conn);

	spin_lock_bh(&conn->lock);
	cc->pace_off = true;
	spin_unlock_bh(&conn->lock);
	hrtimer_cancel(&cc->pace_timer);
}

/*
 * Drained: no echo can arrive any more. Its counters stay the slot's; a
 * reconnect of the slot resumes here.
 */
static void cqn_client_retire(struct cqn_conn *conn)
{
	struct cqn_clt_conn *cc = to_clt(conn);
	struct cqn_clt_slot *slot = cc->slot;
	u32 i;

	lockdep_assert_held(&conn->ep->state_lock);
	if (slot->conn == cc)
		slot->conn = NULL;
	for (i = 0; i < ARRAY_SIZE(cqn_slot_stats); i++)
		slot->retired[i] += cqn_stats_read(&conn->stats, cqn_slot_stats[i]);
	if (!conn->established)
		return;
	slot->resume_seq = cc->expected_seq;
	slot->resume_high = max(slot->resume_high, cc->next_seq);
}

/*
 * cqn_client_ops - the client's role: a connection per slot, each running
 * its share of the workload; a loss is the endpoint's error, or a
 * reconnect of that slot that resumes
 */
const struct cqn_role_ops cqn_client_ops = {
	.created = "route resolved",
	.one_conn = cqn_client_one_conn,
	.conn_limit = cqn_client_conn_limit,
	.conn_alloc = cqn_client_conn_alloc,
	.conn_free = cqn_client_conn_free,
	.recv_done = cqn_client_recv_done,
	.send_done = cqn_client_send_done,
	.start = cqn_client_start,
	.stop = cqn_client_stop,
	.release = cqn_client_release,
	.on_device = cqn_client_on_device,
	.take_id = cqn_client_take_id,
	.established = cqn_client_established,
	.lost = cqn_client_conn_lost,
	.peer_left = cqn_client_peer_left,
	.need_any = cqn_client_need_any,
	.busy = cqn_client_busy,
	.quiesce = cqn_client_quiesce,
	.retire = cqn_client_retire,
};
