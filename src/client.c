// SPDX-License-Identifier: GPL-2.0
/*
 * Client side of a connection: run the workload (pingpong or stream), verify
 * every echo, and measure round trips.
 *
 * Echoes of an RC connection arrive in the order the messages were sent, so
 * each echo must carry the next expected sequence number; cqn_msg_verify()
 * tells a lost, duplicated, reordered or corrupted echo from a good one and
 * each kind is counted (msg_errors and err_*), never ignored.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "cqnotify.h"
#include "cqn_msg.h"
#include "cqn_trace.h"

/**
 * struct cqn_clt_conn - a client's connection
 * @c: the connection that knows no role
 * @next_seq: sequence number of the next message to send
 * @expected_seq: sequence number the next echo must carry
 * @resend_below: messages with a lower sequence number were sent on an
 *	earlier connection of the run (a resumed run sends them again)
 * @send_ns: send time by seq % c.nsend (for short messages)
 * @finished: the workload is complete
 * @pace_timer: with a rate: sends the next message when it is due
 * @next_send_ns: with a rate: when the next message is due
 * @pace_off: teardown began (cqn_client_quiesce()): nothing more is sent,
 *	and the pace timer is not started again
 *
 * Everything but @pace_timer is protected by c.lock.
 */
struct cqn_clt_conn {
	struct cqn_conn c;
	u64 next_seq;
	u64 expected_seq;
	u64 resend_below;
	u64 *send_ns;
	bool finished;
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
		return cc->next_seq < cfg->iterations;
	if (cfg->duration_ms)
		return now < READ_ONCE(cc->c.ep->run_start_ns) +
			     (u64)cfg->duration_ms * NSEC_PER_MSEC;
	return true;
}

/*
 * Post as many messages as the workload allows; c.lock held. The last
 * message of each burst is solicited: after it the client waits for echoes,
 * so a server arming for solicited completions only must hear of it. One
 * clock reading for the whole burst makes "last" exact in duration runs.
 */
static int cqn_client_pump(struct cqn_clt_conn *cc)
{
	struct cqn_conn *conn = &cc->c;
	const struct cqn_config *cfg = &conn->ep->cfg;
	u32 window = cfg->workload == CQN_WL_STREAM ? cfg->queue_depth : 1;
	u64 gap = cfg->rate ? div_u64(NSEC_PER_SEC, cfg->rate) : 0;
	u64 now = ktime_get_ns();
	int ret;

	lockdep_assert_held(&conn->lock);
	/*
	 * Not after teardown began: a send posted once the drain moved the QP
	 * to error completes (flushed) after the drain's marker, and would be
	 * counted as lost.
	 */
	while (!cc->finished && !cc->pace_off && conn->established &&
	       cqn_client_awaited(cc) < window && conn->nfree_send && cqn_client_more(cc, now)) {
		struct cqn_buf *sb;
		bool last;
		u64 seq;

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
static bool cqn_client_over(struct cqn_clt_conn *cc, u64 now)
{
	lockdep_assert_held(&cc->c.lock);
	if (cc->finished || cqn_client_awaited(cc) || cc->c.nfree_send != cc->c.nsend ||
	    cqn_client_more(cc, now))
		return false;
	cc->finished = true;
	return true;
}

/*
 * Send what the workload allows, then see whether the run is over (a clock
 * read after the pump's: it cannot see more to send than the pump did).
 * c.lock held; what follows is cqn_client_settle()'s, once it is dropped.
 */
static int cqn_client_advance(struct cqn_clt_conn *cc, bool *finished)
{
	int ret = cqn_client_pump(cc);

	*finished = !ret && cqn_client_over(cc, ktime_get_ns());
	return ret;
}

/*
 * After cqn_client_advance(), c.lock dropped: a posting failure closes
 * the connection; a run that is over is recorded and closes it normally.
 */
static void cqn_client_settle(struct cqn_clt_conn *cc, int ret, bool finished)
{
	if (ret) {
		cqn_conn_close(&cc->c, "posting failed: %pe", ERR_PTR(ret));
	} else if (finished) {
		cqn_ep_change_state(cc->c.ep, CQN_EP_DONE, "workload done");
		cqn_conn_close(&cc->c, NULL);
	}
}

/*
 * The connection is established: start sending. A run resumed after a
 * reconnect starts from the first message whose echo the lost connection
 * did not verify. Context: rdma_cm event handler.
 */
static void cqn_client_established(struct cqn_conn *conn)
{
	struct cqn_clt_conn *cc = to_clt(conn);
	struct cqn_endpoint *ep = conn->ep;
	u64 resume, high;
	bool finished;
	int ret;

	spin_lock_irq(&ep->state_lock);
	/* A connection resets the attempts; a resumed run keeps its start. */
	if (__cqn_ep_change_state(ep, CQN_EP_RUNNING, "connection established"))
		ep->clt.reconnect_attempt = 0;
	resume = ep->clt.resume_seq;
	high = ep->clt.resume_high;
	spin_unlock_irq(&ep->state_lock);

	spin_lock_bh(&conn->lock);
	cc->next_seq = resume;
	cc->expected_seq = resume;
	cc->resend_below = high;
	ret = cqn_client_advance(cc, &finished);
	spin_unlock_bh(&conn->lock);
	cqn_client_settle(cc, ret, finished);
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
		ib_dma_sync_single_for_cpu(conn->cm_id->device, rb->dma, len, DMA_FROM_DEVICE);
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
	bool ok = cqn_conn_wc_ok(conn, wc, "receive");
	bool finished = false;
	u64 now = ktime_get_ns();
	int ret;

	spin_lock_bh(&conn->lock);
	if (!cqn_conn_recv_taken(conn, wc, ok)) {
		spin_unlock_bh(&conn->lock);
		return;
	}
	cqn_client_take_echo(cc, rb, wc->byte_len, now);
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

/**
 * cqn_client_lost() - a client lost its connection, or could not make one
 * @ep: the client endpoint
 * @fmt: why (shown in last_error)
 * @...: arguments for @fmt
 *
 * With reconnect=1 and attempts left, the endpoint goes back to
 * "connecting" and connects again after a backoff
 * (cqn_reconnect_delay_ms()), resuming the workload from the first message
 * not yet echoed; otherwise it fails with @fmt as the reason. A run that is
 * over (done) or failed already stays as it is.
 *
 * Context: any.
 */
void cqn_client_lost(struct cqn_endpoint *ep, const char *fmt, ...)
{
	struct cqn_ep_client *clt = &ep->clt;
	char why[CQN_ERR_LEN];
	unsigned long flags;
	u32 attempt = 0;
	bool retry = false;
	va_list args;

	va_start(args, fmt);
	vsnprintf(why, sizeof(why), fmt, args);
	va_end(args);

	spin_lock_irqsave(&ep->state_lock, flags);
	if (ep->state == CQN_EP_ERROR || ep->state == CQN_EP_DONE || clt->reconnect_pending) {
		spin_unlock_irqrestore(&ep->state_lock, flags);
		return;
	}
	if (READ_ONCE(ep->cfg.reconnect) && ep->accepting &&
	    clt->reconnect_attempt < CQN_RECONNECT_ATTEMPTS &&
	    __cqn_ep_change_state(ep, CQN_EP_CONNECTING, why)) {
		attempt = ++clt->reconnect_attempt;
		clt->reconnect_pending = true;
		cqn_ep_queue_delayed(&clt->reconnect_work, cqn_reconnect_delay_ms(attempt));
		cqn_stat_inc(&ep->stats, CQN_STAT_reconnects);
		retry = true;
	} else {
		attempt = clt->reconnect_attempt;
	}
	spin_unlock_irqrestore(&ep->state_lock, flags);

	if (retry)
		pr_info_ratelimited("%s: %s; reconnecting in %u ms (attempt %u of %u)\n",
				    ep->name, why, cqn_reconnect_delay_ms(attempt), attempt,
				    CQN_RECONNECT_ATTEMPTS);
	else if (attempt)
		cqn_ep_fail(ep, "%s (gave up after %u reconnect attempts)", why, attempt);
	else
		cqn_ep_fail(ep, "%s", why);
}

/*
 * Connect again after a loss. enable, disable and live changes hold
 * ep->lock, and disable cancels this work while holding it: so it only
 * tries the lock, and comes back shortly while the endpoint still runs.
 */
static void cqn_client_reconnect_work(struct work_struct *work)
{
	struct cqn_endpoint *ep = container_of(to_delayed_work(work), struct cqn_endpoint,
					       clt.reconnect_work);
	struct rdma_cm_id *old;
	bool go;

	if (!mutex_trylock(&ep->lock)) {
		if (READ_ONCE(ep->accepting))
			cqn_ep_queue_delayed(&ep->clt.reconnect_work, 10);
		return;
	}
	spin_lock_irq(&ep->state_lock);
	go = ep->accepting && ep->clt.reconnect_pending;
	ep->clt.reconnect_pending = false;
	spin_unlock_irq(&ep->state_lock);
	if (go && ep->enabled) {
		/* The lost connection is destroyed first; then its id goes. */
		flush_work(&ep->reap_work);
		old = ep->cm_id;
		ep->cm_id = NULL;
		if (old)
			rdma_destroy_id(old);
		/* A failure here is final: cqn_cm_connect() says why. */
		cqn_cm_connect(ep);
	}
	mutex_unlock(&ep->lock);
}

/**
 * cqn_client_ep_init() - set up what a client endpoint keeps across its
 * connections (every endpoint, whatever its role: the role is chosen at enable)
 * @ep: the new endpoint
 *
 * Context: process context.
 */
void cqn_client_ep_init(struct cqn_endpoint *ep)
{
	INIT_DELAYED_WORK(&ep->clt.reconnect_work, cqn_client_reconnect_work);
}

/**
 * cqn_client_ep_exit() - wait for a reconnect of a dying endpoint
 * @ep: the endpoint, unregistered
 *
 * Context: process context.
 */
void cqn_client_ep_exit(struct cqn_endpoint *ep)
{
	cancel_delayed_work_sync(&ep->clt.reconnect_work);
}

/* A new run starts from the first message, with every attempt left. */
static int cqn_client_start(struct cqn_endpoint *ep)
{
	spin_lock_irq(&ep->state_lock);
	ep->clt.reconnect_attempt = 0;
	ep->clt.reconnect_pending = false;
	ep->clt.resume_seq = 0;
	ep->clt.resume_high = 0;
	__cqn_ep_start_run(ep, CQN_EP_CONNECTING);
	spin_unlock_irq(&ep->state_lock);
	return cqn_cm_connect(ep);
}

/* No reconnect any more: it sees accepting false and ends without ep->lock. */
static void cqn_client_stop(struct cqn_endpoint *ep)
{
	spin_lock_irq(&ep->state_lock);
	ep->clt.reconnect_pending = false;
	spin_unlock_irq(&ep->state_lock);
	cancel_delayed_work_sync(&ep->clt.reconnect_work);
}

static struct cqn_conn *cqn_client_conn_alloc(struct cqn_endpoint *ep)
{
	struct cqn_clt_conn *cc = kzalloc(sizeof(*cc), GFP_KERNEL);

	if (!cc)
		return NULL;
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

/* A client's connection is its run: losing it is an error, or a reconnect. */
static void cqn_client_conn_lost(struct cqn_endpoint *ep, const char *why)
{
	cqn_client_lost(ep, "%s", why);
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

/* Teardown: nothing more is sent, from the pace timer or from completions. */
static void cqn_client_quiesce(struct cqn_conn *conn)
{
	struct cqn_clt_conn *cc = to_clt(conn);

	spin_lock_bh(&conn->lock);
	cc->pace_off = true;
	spin_unlock_bh(&conn->lock);
	hrtimer_cancel(&cc->pace_timer);
}

/* Drained: no echo can arrive any more. A reconnect resumes here. */
static void cqn_client_retire(struct cqn_conn *conn)
{
	struct cqn_clt_conn *cc = to_clt(conn);
	struct cqn_ep_client *clt = &conn->ep->clt;

	lockdep_assert_held(&conn->ep->state_lock);
	if (!conn->established)
		return;
	clt->resume_seq = cc->expected_seq;
	clt->resume_high = max(clt->resume_high, cc->next_seq);
}

/*
 * cqn_client_ops - the client's role: one connection at a time running the
 * workload; its loss is the endpoint's error, or a reconnect that resumes
 */
const struct cqn_role_ops cqn_client_ops = {
	.created = "route resolved",
	.one_conn = true,
	.conn_alloc = cqn_client_conn_alloc,
	.conn_free = cqn_client_conn_free,
	.recv_done = cqn_client_recv_done,
	.send_done = cqn_client_send_done,
	.start = cqn_client_start,
	.stop = cqn_client_stop,
	.established = cqn_client_established,
	.lost = cqn_client_conn_lost,
	.peer_left = cqn_client_peer_left,
	.need_any = cqn_client_need_any,
	.busy = cqn_client_busy,
	.quiesce = cqn_client_quiesce,
	.retire = cqn_client_retire,
};
