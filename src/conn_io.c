// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's data path, the part that knows no role: its DMA-mapped
 * message rings, posting, sorting completions by status, and the bounded
 * drain of teardown.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/error-injection.h>
#include <linux/slab.h>

#include "cqnotify.h"
#include "cqn_msg.h"
#include "cqn_trace.h"

/*
 * How long teardown waits for each drain marker: a flush of a full queue
 * takes milliseconds, even on the debug kernel under TCG; past this the
 * provider is not delivering (a CQ overflow dropped the marker, or a dead
 * device) and the rest is counted as lost.
 */
#define CQN_DRAIN_MS		2000

/**
 * cqn_ring_free() - unmap and free a ring of message buffers
 * @dev: the device it is mapped for
 * @ring: the ring, or NULL
 * @n: its buffers
 * @msg_size: each buffer's size
 * @dir: the direction it was mapped with
 *
 * Nothing of it may be posted any more.
 *
 * Context: process context.
 */
void cqn_ring_free(struct ib_device *dev, struct cqn_buf *ring, u32 n, u32 msg_size,
		   enum dma_data_direction dir)
{
	u32 i;

	if (!ring)
		return;
	for (i = 0; i < n; i++) {
		if (!ring[i].data)
			continue;
		if (ring[i].dma)
			ib_dma_unmap_single(dev, ring[i].dma, msg_size, dir);
		kfree(ring[i].data);
	}
	kfree(ring);
}

/**
 * cqn_ring_alloc() - a ring of DMA-mapped message buffers
 * @dev: the device to map them for
 * @n: buffers
 * @msg_size: each buffer's size
 * @dir: DMA_TO_DEVICE (send: carries cqnotify's payload pattern) or
 *	DMA_FROM_DEVICE (receive)
 * @done: each buffer's wr_cqe->done
 *
 * The caller sets each buffer's owner (@conn or @srq).
 *
 * Context: process context.
 * Return: the ring, or NULL (nothing left behind).
 */
struct cqn_buf *cqn_ring_alloc(struct ib_device *dev, u32 n, u32 msg_size,
			       enum dma_data_direction dir,
			       void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	struct cqn_buf *ring;
	u32 i;

	ring = kcalloc(n, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return NULL;
	for (i = 0; i < n; i++) {
		struct cqn_buf *b = &ring[i];

		b->idx = i;
		b->cqe.done = done;
		b->data = kzalloc(msg_size, GFP_KERNEL);
		if (!b->data)
			goto err;
		if (dir == DMA_TO_DEVICE)
			cqn_msg_init_payload(b->data, msg_size);
		b->dma = ib_dma_map_single(dev, b->data, msg_size, dir);
		if (ib_dma_mapping_error(dev, b->dma)) {
			b->dma = 0;
			goto err;
		}
	}
	return ring;
err:
	cqn_ring_free(dev, ring, n, msg_size, dir);
	return NULL;
}

static struct cqn_buf *cqn_conn_alloc_ring(struct cqn_conn *conn, u32 n,
					   enum dma_data_direction dir,
					   void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	struct cqn_buf *ring = cqn_ring_alloc(conn->pd->device, n, conn->msg_size, dir, done);
	u32 i;

	for (i = 0; ring && i < n; i++)
		ring[i].conn = conn;
	return ring;
}

static void cqn_conn_free_ring(struct cqn_conn *conn, struct cqn_buf *ring, u32 n,
			       enum dma_data_direction dir)
{
	/* The id may be gone already (cqn_conn_destroy()): the PD is not. */
	cqn_ring_free(conn->pd->device, ring, n, conn->msg_size, dir);
}

/**
 * cqn_conn_alloc_rings() - allocate and map both message rings
 * @conn: the connection; the send ring carries cqnotify's payload pattern,
 *	each buffer's wr_cqe->done is its role's
 *
 * A server's connection with srq=1 has no receive ring: its receives come
 * from the SRQ's buffers (src/srq.c). A fault-injection point
 * (fail_function).
 *
 * Context: process context.
 * Return: 0 or -ENOMEM; on failure nothing is left behind.
 */
noinline int cqn_conn_alloc_rings(struct cqn_conn *conn)
{
	const struct cqn_role_ops *role = conn->ep->role;

	conn->sbufs = cqn_conn_alloc_ring(conn, conn->nsend, DMA_TO_DEVICE, role->send_done);
	if (!conn->sbufs)
		return -ENOMEM;
	if (conn->srq_dev)
		return 0;
	conn->rbufs = cqn_conn_alloc_ring(conn, conn->nrecv, DMA_FROM_DEVICE, role->recv_done);
	if (!conn->rbufs) {
		cqn_conn_free_ring(conn, conn->sbufs, conn->nsend, DMA_TO_DEVICE);
		conn->sbufs = NULL;
		return -ENOMEM;
	}
	return 0;
}

ALLOW_ERROR_INJECTION(cqn_conn_alloc_rings, ERRNO);

/**
 * cqn_conn_free_rings() - unmap and free both message rings
 * @conn: the connection; nothing of them is posted any more
 *
 * Context: process context.
 */
void cqn_conn_free_rings(struct cqn_conn *conn)
{
	cqn_conn_free_ring(conn, conn->rbufs, conn->nrecv, DMA_FROM_DEVICE);
	cqn_conn_free_ring(conn, conn->sbufs, conn->nsend, DMA_TO_DEVICE);
	conn->rbufs = NULL;
	conn->sbufs = NULL;
}

/**
 * cqn_conn_post_recv() - post receive buffer @idx
 * @conn: the connection
 * @idx: index in the receive ring
 *
 * Context: any; caller holds conn->lock or owns the connection exclusively.
 * Return: 0 or -errno from the provider.
 */
int cqn_conn_post_recv(struct cqn_conn *conn, u32 idx)
{
	struct cqn_buf *b = &conn->rbufs[idx];
	struct ib_sge sge = {
		.addr = b->dma,
		.length = conn->msg_size,
		.lkey = conn->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &b->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int ret;

	set_bit(CQN_BUF_POSTED, &b->flags);
	ret = ib_post_recv(conn->qp, &wr, NULL);
	if (!ret) {
		conn->posted_recv++;
		cqn_stat_inc(&conn->stats, CQN_STAT_wr_posted);
	} else {
		clear_bit(CQN_BUF_POSTED, &b->flags);
	}
	return ret;
}

/**
 * cqn_conn_repost_recv() - give a receive buffer back to whoever owns it
 * @conn: the connection it arrived on
 * @rb: the buffer: of @conn's ring, or of an SRQ (then any connection on
 *	that SRQ may receive into it next)
 *
 * Context: any; caller holds conn->lock.
 * Return: 0 or -errno from the provider.
 */
int cqn_conn_repost_recv(struct cqn_conn *conn, struct cqn_buf *rb)
{
	if (rb->srq)
		return cqn_srq_post(rb->srq, rb);
	return cqn_conn_post_recv(conn, rb->idx);
}

/**
 * cqn_conn_post_send() - post send buffer @idx with @len bytes
 * @conn: the connection
 * @idx: index in the send ring
 * @len: bytes to send (may be 0)
 * @solicited: set IB_SEND_SOLICITED: the peer may be waiting for this one
 *	(see "CQ modes", solicited_only)
 *
 * Context: any; caller holds conn->lock.
 * Return: 0 or -errno from the provider.
 */
int cqn_conn_post_send(struct cqn_conn *conn, u32 idx, u32 len, bool solicited)
{
	struct cqn_buf *b = &conn->sbufs[idx];
	struct ib_sge sge = {
		.addr = b->dma,
		.length = len,
		.lkey = conn->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &b->cqe,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED | (solicited ? IB_SEND_SOLICITED : 0),
	};
	int ret;

	ib_dma_sync_single_for_device(conn->pd->device, b->dma, len, DMA_TO_DEVICE);
	set_bit(CQN_BUF_POSTED, &b->flags);
	ret = ib_post_send(conn->qp, &wr, NULL);
	if (!ret)
		cqn_stat_inc(&conn->stats, CQN_STAT_wr_posted);
	else
		clear_bit(CQN_BUF_POSTED, &b->flags);
	return ret;
}

/**
 * cqn_conn_wc_ok() - sort a work completion by status
 * @conn: the connection
 * @wc: the completion
 * @what: "send" or "receive", for the log (wc->opcode is undefined when
 *	the status is not success)
 *
 * Every completion is counted in wr_completed (with wr_posted, the proof
 * that each work request completes exactly once). Success goes on; a flush
 * during teardown is counted quietly, and so is any error status once the
 * connection is closing (siw completes the work request in progress at
 * disconnect with "local QP operation error" rather than a flush); a flush
 * on a live, established connection means its QP went to the error state,
 * which closes it (before it is established, the rdma_cm event that
 * follows says why); any other status is counted, logged (ratelimited)
 * and closes the connection.
 *
 * Context: completion processing; does not sleep.
 * Return: true if @wc succeeded.
 */
bool cqn_conn_wc_ok(struct cqn_conn *conn, struct ib_wc *wc, const char *what)
{
	cqn_stat_inc(&conn->stats, CQN_STAT_wr_completed);
	if (likely(wc->status == IB_WC_SUCCESS))
		return true;
	/* Not the flushes of teardown: what happens to a live connection. */
	if (!READ_ONCE(conn->dead))
		trace_cqn_wc_error(conn, wc, what);
	if (wc->status == IB_WC_WR_FLUSH_ERR || READ_ONCE(conn->dead)) {
		cqn_stat_inc(&conn->stats, CQN_STAT_wc_flushed);
		/* Before ESTABLISHED the rdma_cm event says why (siw flushes first). */
		if (!READ_ONCE(conn->dead) && READ_ONCE(conn->established))
			cqn_conn_close(conn, "wc status: %s (QP in error state)",
				       ib_wc_status_msg(wc->status));
		return false;
	}
	cqn_stat_inc(&conn->stats, CQN_STAT_wc_errors);
	pr_err_ratelimited("%s: connection %u (%s): %s completion failed: %s (vendor 0x%x)\n",
			   conn->ep->name, conn->id, conn->peer, what,
			   ib_wc_status_msg(wc->status), wc->vendor_err);
	cqn_conn_close(conn, "wc status: %s", ib_wc_status_msg(wc->status));
	return false;
}

/**
 * cqn_conn_wc_dup() - a completion for a buffer whose work request is not posted
 * @conn: the connection
 * @wc: the completion
 * @what: "send" or "receive", for the log
 *
 * Each posted work request completes once. A second completion for it
 * (a provider bug: a CQE written twice) would put its buffer back twice,
 * and two messages would share it. It is counted (``wc_duplicates``),
 * logged (ratelimited) and closes the connection; the caller drops it
 * before any accounting. Otherwise the buffer is marked not posted.
 *
 * Context: completion processing; does not sleep; conn->lock not held.
 * Return: true if @wc is a duplicate (the caller returns at once).
 */
bool cqn_conn_wc_dup(struct cqn_conn *conn, struct ib_wc *wc, const char *what)
{
	struct cqn_buf *b = container_of(wc->wr_cqe, struct cqn_buf, cqe);

	if (likely(test_and_clear_bit(CQN_BUF_POSTED, &b->flags)))
		return false;
	cqn_stat_inc(&conn->stats, CQN_STAT_wc_duplicates);
	pr_err_ratelimited("%s: connection %u (%s): a second %s completion for buffer %u (the provider completed a work request twice): closing the connection\n",
			   conn->ep->name, conn->id, conn->peer, what, b->idx);
	cqn_conn_close(conn, "duplicate %s completion", what);
	return true;
}

/**
 * cqn_conn_send_taken() - account for a send completion
 * @conn: the connection
 * @wc: the send completion
 * @sb: its send buffer
 *
 * A duplicate is dropped (cqn_conn_wc_dup()). A successful send is
 * counted; the caller then puts @sb back under
 * conn->lock and sends what may follow. A failed one closes the connection
 * (cqn_conn_wc_ok()) and its buffer goes back to the free stack here, only
 * so that teardown can tell completed sends from lost ones: nothing more is
 * sent on a closing connection.
 *
 * Context: completion processing; does not sleep.
 * Return: true if the send succeeded.
 */
bool cqn_conn_send_taken(struct cqn_conn *conn, struct ib_wc *wc, struct cqn_buf *sb)
{
	if (cqn_conn_wc_dup(conn, wc, "send"))
		return false;
	if (!cqn_conn_wc_ok(conn, wc, "send")) {
		spin_lock_bh(&conn->lock);
		cqn_conn_put_send(conn, sb);
		spin_unlock_bh(&conn->lock);
		return false;
	}
	cqn_stat_inc(&conn->stats, CQN_STAT_msgs_sent);
	cqn_stat_add(&conn->stats, CQN_STAT_bytes_sent, sb->len);
	return true;
}

/**
 * cqn_conn_recv_taken() - account for a receive completion
 * @conn: the connection, conn->lock held
 * @wc: the receive completion
 * @ok: what cqn_conn_wc_ok() said of @wc
 *
 * The buffer is no longer posted whatever the status: on the connection's
 * ring, or on the SRQ it came from (wc->wr_cqe is the buffer, whoever owns
 * it); an SRQ's buffer that failed (a flush: its QP is closing) goes back
 * to the SRQ at once. A successful receive is counted, and so is a receive ring left
 * empty by it (an SRQ's: srq_empty, counted by cqn_srq_taken()).
 *
 * Context: completion processing; does not sleep.
 * Return: @ok.
 */
bool cqn_conn_recv_taken(struct cqn_conn *conn, struct ib_wc *wc, bool ok)
{
	struct cqn_buf *rb = container_of(wc->wr_cqe, struct cqn_buf, cqe);
	bool empty;

	lockdep_assert_held(&conn->lock);
	if (rb->srq) {
		cqn_srq_taken(rb->srq);
		/* Not this connection's to keep: back for the others on the SRQ. */
		if (!ok) {
			cqn_srq_post(rb->srq, rb);
			return false;
		}
		empty = false;
	} else {
		conn->posted_recv--;
		empty = !conn->posted_recv;
	}
	if (!ok)
		return false;
	cqn_stat_inc(&conn->stats, CQN_STAT_msgs_received);
	cqn_stat_add(&conn->stats, CQN_STAT_bytes_received, wc->byte_len);
	if (empty)
		cqn_stat_inc(&conn->stats, CQN_STAT_recv_ring_empty);
	return true;
}

static void cqn_conn_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cqn_drain *d = container_of(wc->wr_cqe, struct cqn_drain, cqe);

	complete(&d->done);
}

/*
 * Post a drain marker (@swr or @rwr) and wait a bounded time for it; a
 * drain without it is short (conn->drain_short).
 */
static void cqn_conn_drain_one(struct cqn_conn *conn, struct cqn_drain *d,
			       const struct ib_send_wr *swr, const struct ib_recv_wr *rwr)
{
	const char *q = swr ? "send" : "receive";
	int ret;

	d->cqe.done = cqn_conn_drain_done;
	init_completion(&d->done);
	ret = swr ? ib_post_send(conn->qp, swr, NULL) : ib_post_recv(conn->qp, rwr, NULL);
	if (ret) {
		conn->drain_short = true;
		pr_warn_ratelimited("%s: connection %u: posting the %s drain marker failed: %pe\n",
				    conn->ep->name, conn->id, q, ERR_PTR(ret));
	} else if (READ_ONCE(conn->ep->fault_drain_short)) {
		conn->drain_short = true;
	} else if (!wait_for_completion_timeout(&d->done, msecs_to_jiffies(CQN_DRAIN_MS))) {
		conn->drain_short = true;
		pr_warn_ratelimited("%s: connection %u: the %s drain marker never completed\n",
				    conn->ep->name, conn->id, q);
	}
}

/**
 * cqn_conn_drain() - ib_drain_qp() with a bounded wait
 * @conn: the connection
 *
 * ib_drain_qp() without its unbounded waits: after a CQ overflow the
 * provider may have dropped a marker's completion, a lost interrupt leaves
 * an event-driven engine asleep, a dead device completes nothing, and
 * teardown must not hang on any of them (the engine polls meanwhile, see
 * cqn_cq_drain_begin()). The same steps: the QP to the error state, then a
 * marker on each queue, whose completion follows every earlier one of that
 * queue. The markers live in @conn: one that completes after its wait gave
 * up still finds them (the connection outlives its CQ processing).
 *
 * A QP on an SRQ has no receive queue to put a marker on, and the SRQ's
 * buffers stay posted for the other connections: cqn_srq_drain() waits
 * for what the QP took from it instead, before the send marker.
 *
 * Context: process context; the CQ engine still runs.
 */
void cqn_conn_drain(struct cqn_conn *conn)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_rdma_wr swr = {
		.wr = {
			.wr_cqe = &conn->sdrain.cqe,
			.opcode = IB_WR_RDMA_WRITE,
		},
	};
	struct ib_recv_wr rwr = { .wr_cqe = &conn->rdrain.cqe };
	int ret;

	ret = ib_modify_qp(conn->qp, &attr, IB_QP_STATE);
	if (ret) {
		pr_warn_ratelimited("%s: connection %u: moving the QP to error failed: %pe\n",
				    conn->ep->name, conn->id,
				    ERR_PTR(ret));
		return;
	}
	if (conn->srq)
		cqn_srq_drain(conn);
	cqn_conn_drain_one(conn, &conn->sdrain, &swr.wr, NULL);
	if (!conn->srq)
		cqn_conn_drain_one(conn, &conn->rdrain, NULL, &rwr);
}

/* The work requests whose completion has not been handled yet. */
static void cqn_conn_outstanding(struct cqn_conn *conn, u32 *sends, u32 *recvs)
{
	spin_lock_bh(&conn->lock);
	*sends = conn->nsend - conn->nfree_send;
	*recvs = conn->posted_recv;
	spin_unlock_bh(&conn->lock);
}

/**
 * cqn_conn_drain_check() - did the drain see every work request complete?
 * @conn: the connection, drained
 *
 * After a full drain every send buffer is free again and no receive is
 * posted. One that is not makes the drain short (conn->drain_short): the
 * missing completions may still sit in a CQ that outlives the QP, and
 * cqn_ep_cq_leave() hands them over before the connection goes. Only what
 * has not completed then is lost (cqn_conn_count_lost()).
 *
 * Context: process context, after the drain.
 */
void cqn_conn_drain_check(struct cqn_conn *conn)
{
	u32 sends, recvs;

	cqn_conn_outstanding(conn, &sends, &recvs);
	if (sends || recvs)
		conn->drain_short = true;
}

/**
 * cqn_conn_count_lost() - count the work requests that never completed
 * @conn: the connection, its QP destroyed and its CQ engine left
 *
 * Every completion its QP produced has been handed over by now (a shared
 * CQ's by cqn_ep_cq_leave()); what has not completed was dropped by a CQ
 * overflow, by the provider, or left in the connection's own CQ when a
 * bounded drain gave up. Counted as wc_lost, so that wr_posted always
 * equals msgs_sent + msgs_received + wc_errors + wc_flushed + wc_lost,
 * each work request counted once: counted earlier, at the drain's end, a
 * completion the shared CQ handed over later would count twice.
 *
 * Context: process context.
 */
void cqn_conn_count_lost(struct cqn_conn *conn)
{
	u32 sends, recvs;

	cqn_conn_outstanding(conn, &sends, &recvs);
	if (!sends && !recvs)
		return;
	cqn_stat_add(&conn->stats, CQN_STAT_wc_lost, sends + recvs);
	pr_warn_ratelimited("%s: connection %u: %u work requests never completed (%u sends, %u receives)\n",
			    conn->ep->name, conn->id, sends + recvs,
			    sends, recvs);
}
