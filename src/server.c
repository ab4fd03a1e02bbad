// SPDX-License-Identifier: GPL-2.0
/*
 * Server side of a connection: echo every received message back verbatim.
 *
 * A receive buffer is copied into a free send buffer and reposted at once,
 * so the receive ring stays full. When every send buffer is in flight, the
 * receive waits in a FIFO (counted as send_ring_full) until a send
 * completes: nothing is dropped, and echoes leave in arrival order.
 *
 * With srq=1 the receive buffers belong to the endpoint's SRQs (src/srq.c),
 * not to a connection; the path is the same: the connection a message
 * arrived on is its QP's context (cqn_wc_qp_context()), and the buffer goes
 * back to where it came from (cqn_conn_repost_recv()).
 *
 * What a hostile or broken peer can send, and what the server does:
 *
 * - a message larger than msg_size cannot be received: the receive fails
 *   (see cqn_server_recv_ok()). It is counted in peer_errors (and
 *   wc_errors), logged (ratelimited), and that connection alone is dropped;
 * - an empty message, or one whose cqnotify header claims a length other
 *   than what arrived, is counted in msgs_malformed, logged (ratelimited)
 *   and echoed verbatim all the same: exactly the bytes received, never
 *   more. The server is an echo for any peer (rdma_client's messages carry
 *   no header), so only a peer that checks its echoes, like a cqnotify
 *   client, judges them;
 * - connections beyond max_conns are rejected (conns_rejected, src/cm.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/slab.h>

#include "cqnotify.h"
#include "cqn_msg.h"
#include "cqn_trace.h"

/**
 * struct cqn_srv_conn - a server's connection
 * @c: the connection that knows no role
 * @pending: receive buffers waiting for a send buffer (FIFO), c.lock
 * @pending_head: first entry of @pending
 * @npending: entries in @pending
 * @npending_max: room in @pending: every receive buffer the connection can
 *	hold at once (recv_depth; with srq=1, srq_depth: one SRQ's buffers)
 */
struct cqn_srv_conn {
	struct cqn_conn c;
	struct cqn_buf **pending;
	u32 pending_head;
	u32 npending;
	u32 npending_max;
};

static struct cqn_srv_conn *to_srv(struct cqn_conn *conn)
{
	return container_of(conn, struct cqn_srv_conn, c);
}

/* A message no cqnotify client sends arrived: count it, say so (ratelimited). */
static void cqn_server_malformed(struct cqn_conn *conn, u32 len, u32 claimed)
{
	cqn_stat_inc(&conn->stats, CQN_STAT_msgs_malformed);
	if (!len)
		pr_warn_ratelimited("%s: connection %u (%s): empty message, echoed as is\n",
				    conn->ep->name, conn->id, conn->peer);
	else
		pr_warn_ratelimited("%s: connection %u (%s): %u-byte message whose header claims %u bytes, echoed as is\n",
				    conn->ep->name, conn->id, conn->peer, len, claimed);
}

/*
 * Echo receive buffer @rb (@len bytes); conn->lock held, a send buffer
 * free. @solicited: no other echo follows at once (the client may be
 * waiting for this one).
 */
static int cqn_server_echo(struct cqn_conn *conn, struct cqn_buf *rb, u32 len, bool solicited)
{
	struct ib_device *dev = conn->pd->device;
	struct cqn_buf *sb;
	u32 claimed;
	int ret;

	lockdep_assert_held(&conn->lock);
	/* Both callers saw a free send buffer under the same lock. */
	sb = cqn_conn_get_send(conn);
	ib_dma_sync_single_for_cpu(dev, rb->dma, len, DMA_FROM_DEVICE);
	if (unlikely(cqn_msg_malformed(rb->data, len, &claimed)))
		cqn_server_malformed(conn, len, claimed);
	/* @len, what arrived, whatever a header claims: nothing stale leaks out. */
	memcpy(sb->data, rb->data, len);
	ib_dma_sync_single_for_device(dev, rb->dma, len, DMA_FROM_DEVICE);
	sb->len = len;
	ret = cqn_conn_post_send(conn, sb->idx, len, solicited);
	if (ret) {
		cqn_conn_put_send(conn, sb);
		return ret;
	}
	if (unlikely(READ_ONCE(conn->ep->fault_stop_replenish))) {
		/* Fault injection: the ring runs dry and the client meets RNR NAKs. */
		cqn_stat_inc(&conn->stats, CQN_STAT_recvs_withheld);
		if (rb->srq)
			cqn_srq_withhold(rb->srq, rb);
		return 0;
	}
	return cqn_conn_repost_recv(conn, rb);
}

/*
 * Sort a receive completion. The server's receives are all alike and
 * well-formed (one buffer of msg_size, the local DMA lkey), so a receive
 * that fails on a live connection failed on what the peer sent: a message
 * longer than msg_size, or a request it has no business making. Hardware
 * and siw report a local length error; rxe a "local QP operation error"
 * (its copy into the buffer runs out of room) or, for a request it refuses
 * before copying, the status of the NAK it returns, "remote invalid
 * request". Counted in peer_errors and wc_errors, logged (ratelimited), and
 * only this connection is dropped. Anything else, and anything once the
 * connection is closing, goes through cqn_conn_wc_ok().
 */
static bool cqn_server_recv_ok(struct cqn_conn *conn, struct ib_wc *wc)
{
	if (likely(wc->status == IB_WC_SUCCESS) ||
	    (wc->status != IB_WC_LOC_LEN_ERR && wc->status != IB_WC_LOC_QP_OP_ERR &&
	     wc->status != IB_WC_REM_INV_REQ_ERR) || READ_ONCE(conn->dead))
		return cqn_conn_wc_ok(conn, wc, "receive");
	/* What cqn_conn_wc_ok() counts and traces for every other completion. */
	trace_cqn_wc_error(conn, wc, "receive");
	cqn_stat_inc(&conn->stats, CQN_STAT_wr_completed);
	cqn_stat_inc(&conn->stats, CQN_STAT_wc_errors);
	cqn_stat_inc(&conn->stats, CQN_STAT_peer_errors);
	pr_warn_ratelimited("%s: connection %u (%s): peer's message refused (receive failed: %s; longer than msg_size %u?): dropping the peer\n",
			    conn->ep->name, conn->id, conn->peer,
			    ib_wc_status_msg(wc->status), conn->msg_size);
	cqn_conn_close(conn, "peer's message refused: %s", ib_wc_status_msg(wc->status));
	return false;
}

/*
 * A message arrived: echo it. The connection is the QP's context, the
 * buffer its ring's or an SRQ's. Context: completion processing; does not
 * sleep.
 */
static void cqn_server_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cqn_buf *rb = container_of(wc->wr_cqe, struct cqn_buf, cqe);
	struct cqn_conn *conn = cqn_wc_qp_context(cq, wc);
	struct cqn_srv_conn *sc = to_srv(conn);
	bool dead, ok;
	int ret = 0;

	if (cqn_conn_wc_dup(conn, wc, "receive"))
		return;
	ok = cqn_server_recv_ok(conn, wc);
	spin_lock_bh(&conn->lock);
	if (!cqn_conn_recv_taken(conn, wc, ok)) {
		spin_unlock_bh(&conn->lock);
		return;
	}
	/* A closing connection sends nothing more (cqn_server_quiesce()). */
	dead = READ_ONCE(conn->dead);
	if (conn->nfree_send && !sc->npending && !dead) {
		ret = cqn_server_echo(conn, rb, wc->byte_len, true);
	} else {
		/* Keep the length with the buffer: byte_len is gone after this. */
		rb->len = wc->byte_len;
		sc->pending[(sc->pending_head + sc->npending) % sc->npending_max] = rb;
		sc->npending++;
		if (!dead)
			cqn_stat_inc(&conn->stats, CQN_STAT_send_ring_full);
	}
	spin_unlock_bh(&conn->lock);
	if (ret)
		cqn_conn_close(conn, "posting the echo failed: %pe", ERR_PTR(ret));
}

/* An echo left: free its buffer, echo what waits. Context: as recv_done. */
static void cqn_server_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cqn_buf *sb = container_of(wc->wr_cqe, struct cqn_buf, cqe);
	struct cqn_conn *conn = sb->conn;
	struct cqn_srv_conn *sc = to_srv(conn);
	int ret = 0;

	if (!cqn_conn_send_taken(conn, wc, sb))
		return;
	spin_lock_bh(&conn->lock);
	cqn_conn_put_send(conn, sb);
	while (!ret && sc->npending && conn->nfree_send && !READ_ONCE(conn->dead)) {
		struct cqn_buf *rb = sc->pending[sc->pending_head];

		sc->pending_head = (sc->pending_head + 1) % sc->npending_max;
		sc->npending--;
		ret = cqn_server_echo(conn, rb, rb->len,
				      !sc->npending || conn->nfree_send == 1);
	}
	spin_unlock_bh(&conn->lock);
	if (ret)
		cqn_conn_close(conn, "posting the echo failed: %pe", ERR_PTR(ret));
}

static struct cqn_conn *cqn_server_conn_alloc(struct cqn_endpoint *ep, struct rdma_cm_id *cm_id)
{
	struct cqn_srv_conn *sc = kzalloc(sizeof(*sc), GFP_KERNEL);

	if (!sc)
		return NULL;
	sc->npending_max = ep->cfg.srq ? ep->cfg.srq_depth : ep->cfg.recv_depth;
	sc->pending = kcalloc(sc->npending_max, sizeof(*sc->pending), GFP_KERNEL);
	if (!sc->pending) {
		kfree(sc);
		return NULL;
	}
	return &sc->c;
}

/*
 * Receives still waiting for a send buffer when the connection went: an
 * SRQ's buffers go back to it for the other connections (its QP is
 * destroyed, the SRQ outlives it). A ring's were freed with the ring:
 * their pointers are not to be followed.
 */
static void cqn_server_conn_free(struct cqn_conn *conn)
{
	struct cqn_srv_conn *sc = to_srv(conn);
	struct cqn_buf *rb;

	for (; conn->srq && sc->npending; sc->npending--) {
		rb = sc->pending[sc->pending_head];
		sc->pending_head = (sc->pending_head + 1) % sc->npending_max;
		cqn_srq_post(rb->srq, rb);
	}
	kfree(sc->pending);
	kfree(sc);
}

/*
 * A server listens from the start: it runs until disabled. With srq=1 the
 * device it listens on (every device, bound to any address) must have
 * SRQs of srq_depth.
 */
static int cqn_server_start(struct cqn_endpoint *ep)
{
	int ret;

	spin_lock_irq(&ep->state_lock);
	__cqn_ep_start_run(ep, CQN_EP_RUNNING);
	spin_unlock_irq(&ep->state_lock);
	ret = cqn_cm_listen(ep);
	if (ret)
		return ret;
	return cqn_srq_check(ep);
}

/*
 * Teardown, before the drain: the connection is dead (cqn_conn_close()
 * set it under ep->state_lock), and an echo that began before may still be
 * posting under conn->lock: once that is over, no echo follows (what
 * arrives meanwhile waits in the FIFO, and an SRQ's buffers go back in
 * cqn_server_conn_free()). An echo posted after the drain's send marker
 * would complete after it: counted lost, and on a CQ engine shared with
 * other QPs handed to a connection already freed.
 */
static void cqn_server_quiesce(struct cqn_conn *conn)
{
	spin_lock_bh(&conn->lock);
	spin_unlock_bh(&conn->lock);
}

/* solicited_only: receives that wait for a send buffer need a send completion. */
static bool cqn_server_need_any(struct cqn_conn *conn)
{
	return READ_ONCE(to_srv(conn)->npending);
}

/* A server awaits nothing but its sends: the base counts those. */
static bool cqn_server_busy(struct cqn_conn *conn)
{
	return false;
}

/* Whoever leaves, the server carries on: a disconnect is a normal close. */
static const char *cqn_server_peer_left(struct cqn_conn *conn)
{
	return NULL;
}

/* A connection owns the child id its connect request came on. */
static struct rdma_cm_id *cqn_server_take_id(struct cqn_conn *conn)
{
	return conn->cm_id;
}

/*
 * cqn_server_ops - the server's role: a connection per connect request,
 * each echoing what arrives; the endpoint runs until it is disabled
 */
const struct cqn_role_ops cqn_server_ops = {
	.created = "connect request",
	.take_id = cqn_server_take_id,
	.conn_alloc = cqn_server_conn_alloc,
	.conn_free = cqn_server_conn_free,
	.recv_done = cqn_server_recv_done,
	.send_done = cqn_server_send_done,
	.start = cqn_server_start,
	.quiesce = cqn_server_quiesce,
	.peer_left = cqn_server_peer_left,
	.need_any = cqn_server_need_any,
	.busy = cqn_server_busy,
};
