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

#include "cqnotify.h"
#include "cqn_msg.h"
#include "cqn_trace.h"

static bool cqn_client_more(struct cqn_conn *conn, u64 now)
{
	const struct cqn_config *cfg = &conn->ep->cfg;

	if (cfg->iterations)
		return conn->next_seq < cfg->iterations;
	if (cfg->duration_ms)
		return now < READ_ONCE(conn->ep->run_start_ns) +
			     (u64)cfg->duration_ms * NSEC_PER_MSEC;
	return true;
}

/*
 * Post as many messages as the workload allows; conn->lock held. The last
 * message of each burst is solicited: after it the client waits for echoes,
 * so a server arming for solicited completions only must hear of it. One
 * clock reading for the whole burst makes "last" exact in duration runs.
 */
static int cqn_client_pump(struct cqn_conn *conn)
{
	const struct cqn_config *cfg = &conn->ep->cfg;
	u32 window = cfg->workload == CQN_WL_STREAM ? cfg->queue_depth : 1;
	u64 gap = cfg->rate ? div_u64(NSEC_PER_SEC, cfg->rate) : 0;
	u64 now = ktime_get_ns();
	int ret;

	lockdep_assert_held(&conn->lock);
	while (!conn->finished && conn->established && cqn_client_awaited(conn) < window &&
	       conn->nfree_send && cqn_client_more(conn, now)) {
		struct cqn_buf *sb;
		bool last;
		u64 seq;

		if (gap && now < conn->next_send_ns) {
			/* Not due yet: the pace timer runs the pump then. */
			if (!conn->pace_off)
				hrtimer_start(&conn->pace_timer, ns_to_ktime(conn->next_send_ns),
					      HRTIMER_MODE_ABS_SOFT);
			break;
		}

		seq = conn->next_seq;
		sb = cqn_conn_get_send(conn);
		if (seq < conn->resend_below)
			cqn_stat_inc(&conn->stats, CQN_STAT_msgs_resent);
		cqn_msg_stamp(sb->data, conn->msg_size, seq, now, cfg->verify);
		sb->len = conn->msg_size;
		conn->send_ns[seq % conn->nsend] = now;
		conn->next_seq++;
		/* A paced message is always the last of its burst. */
		last = gap || cqn_client_awaited(conn) >= window || !conn->nfree_send ||
		       !cqn_client_more(conn, now);
		ret = cqn_conn_post_send(conn, sb->idx, sb->len, last);
		if (ret) {
			conn->next_seq--;
			cqn_conn_put_send(conn, sb);
			return ret;
		}
		/* No catching up in bursts after a stall: the rate is a ceiling. */
		if (gap)
			conn->next_send_ns = max(conn->next_send_ns, now) + gap;
	}
	return 0;
}

/*
 * Over when nothing more is to be sent, every echo is in and every send has
 * completed (an echo can overtake the completion of its own send); then
 * marks the connection finished. conn->lock held.
 */
static bool cqn_client_over(struct cqn_conn *conn, u64 now)
{
	lockdep_assert_held(&conn->lock);
	if (conn->finished || cqn_client_awaited(conn) || conn->nfree_send != conn->nsend ||
	    cqn_client_more(conn, now))
		return false;
	conn->finished = true;
	return true;
}

/*
 * Send what the workload allows, then see whether the run is over (a clock
 * read after the pump's: it cannot see more to send than the pump did).
 * conn->lock held; what follows is cqn_client_settle()'s, once it is dropped.
 */
static int cqn_client_advance(struct cqn_conn *conn, bool *finished)
{
	int ret = cqn_client_pump(conn);

	*finished = !ret && cqn_client_over(conn, ktime_get_ns());
	return ret;
}

/*
 * After cqn_client_advance(), conn->lock dropped: a posting failure closes
 * the connection; a run that is over is recorded and closes it normally.
 */
static void cqn_client_settle(struct cqn_conn *conn, int ret, bool finished)
{
	if (ret) {
		cqn_conn_close(conn, "posting failed: %pe", ERR_PTR(ret));
	} else if (finished) {
		cqn_ep_set_state(conn->ep, CQN_EP_DONE);
		cqn_conn_close(conn, NULL);
	}
}

/**
 * cqn_client_start() - the connection is established: start sending
 * @conn: the connection
 *
 * A run resumed after a reconnect starts from the first message whose echo
 * the lost connection did not verify.
 *
 * Context: rdma_cm event handler.
 */
void cqn_client_start(struct cqn_conn *conn)
{
	struct cqn_endpoint *ep = conn->ep;
	u64 resume, high;
	bool finished;
	int ret;

	spin_lock_irq(&ep->state_lock);
	resume = ep->resume_seq;
	high = ep->resume_high;
	spin_unlock_irq(&ep->state_lock);

	spin_lock_bh(&conn->lock);
	conn->next_seq = resume;
	conn->expected_seq = resume;
	conn->resend_below = high;
	ret = cqn_client_advance(conn, &finished);
	spin_unlock_bh(&conn->lock);
	cqn_client_settle(conn, ret, finished);
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

/**
 * cqn_client_recv_done() - an echo arrived: verify it, time it, send more
 * @cq: the CQ
 * @wc: the completion
 *
 * Context: completion processing of the connection's CQ engine; does not sleep.
 */
void cqn_client_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cqn_buf *rb = container_of(wc->wr_cqe, struct cqn_buf, cqe);
	struct cqn_conn *conn = rb->conn;
	const struct cqn_config *cfg = &conn->ep->cfg;
	enum cqn_msg_verdict v = CQN_MSG_OK;
	bool ok = cqn_conn_wc_ok(conn, wc, "receive");
	bool finished = false;
	u64 now = ktime_get_ns();
	u64 seq, send_ns, rtt;
	int ret;

	spin_lock_bh(&conn->lock);
	if (!cqn_conn_recv_taken(conn, wc, ok)) {
		spin_unlock_bh(&conn->lock);
		return;
	}

	seq = conn->expected_seq;
	if (conn->expected_seq >= conn->next_seq) {
		/* Every message sent is accounted for: nobody awaits this. */
		v = CQN_MSG_STALE;
	} else if (cfg->verify) {
		ib_dma_sync_single_for_cpu(conn->cm_id->device, rb->dma, wc->byte_len,
					   DMA_FROM_DEVICE);
		v = cqn_msg_verify(rb->data, wc->byte_len, conn->msg_size,
				   conn->expected_seq, &seq, &send_ns);
	}
	if (v == CQN_MSG_OK) {
		if (cfg->verify)
			cqn_stat_inc(&conn->stats, CQN_STAT_msgs_verified);
		rtt = now - conn->send_ns[seq % conn->nsend];
		cqn_stat_hist(&conn->stats, CQN_H_RTT, rtt);
		trace_cqn_rtt(conn, seq, rtt);
		conn->expected_seq++;
	} else {
		cqn_client_count_error(conn, v, conn->expected_seq, seq);
		/* Resynchronise on an intact later message; otherwise move on. */
		/* A gap skips what it says, never messages not yet sent. */
		if (v == CQN_MSG_LOST)
			conn->expected_seq = min(seq + 1, conn->next_seq);
		else if (v != CQN_MSG_STALE)
			conn->expected_seq++;
	}

	ret = cqn_conn_post_recv(conn, rb->idx);
	if (!ret)
		ret = cqn_client_advance(conn, &finished);
	spin_unlock_bh(&conn->lock);
	cqn_client_settle(conn, ret, finished);
}

/**
 * cqn_client_send_done() - a message left: free its buffer, send more
 * @cq: the CQ
 * @wc: the completion
 *
 * Context: completion processing of the connection's CQ engine; does not sleep.
 */
void cqn_client_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cqn_buf *sb = container_of(wc->wr_cqe, struct cqn_buf, cqe);
	struct cqn_conn *conn = sb->conn;
	bool finished;
	int ret;

	if (!cqn_conn_wc_ok(conn, wc, "send")) {
		cqn_conn_send_failed(conn, sb->idx);
		return;
	}
	cqn_stat_inc(&conn->stats, CQN_STAT_msgs_sent);
	cqn_stat_add(&conn->stats, CQN_STAT_bytes_sent, sb->len);

	spin_lock_bh(&conn->lock);
	cqn_conn_put_send(conn, sb);
	ret = cqn_client_advance(conn, &finished);
	spin_unlock_bh(&conn->lock);
	cqn_client_settle(conn, ret, finished);
}

/**
 * cqn_client_pace() - a paced message is due: run the pump
 * @timer: the connection's pace timer
 *
 * Context: hrtimer softirq; does not sleep.
 * Return: HRTIMER_NORESTART (the pump starts the timer again when needed).
 */
enum hrtimer_restart cqn_client_pace(struct hrtimer *timer)
{
	struct cqn_conn *conn = container_of(timer, struct cqn_conn, pace_timer);
	bool finished;
	int ret;

	spin_lock_bh(&conn->lock);
	ret = cqn_client_advance(conn, &finished);
	spin_unlock_bh(&conn->lock);
	cqn_client_settle(conn, ret, finished);
	return HRTIMER_NORESTART;
}
