// SPDX-License-Identifier: GPL-2.0
/*
 * Connections: the RC QP, its CQ engine, DMA-mapped message rings, and the
 * single path by which a connection dies (close, then the endpoint's reaper).
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

static void cqn_conn_free_ring(struct cqn_conn *conn, struct cqn_buf *ring, u32 n,
			       enum dma_data_direction dir)
{
	struct ib_device *dev = conn->cm_id->device;
	u32 i;

	if (!ring)
		return;
	for (i = 0; i < n; i++) {
		if (!ring[i].data)
			continue;
		if (ring[i].dma)
			ib_dma_unmap_single(dev, ring[i].dma, conn->msg_size, dir);
		kfree(ring[i].data);
	}
	kfree(ring);
}

static struct cqn_buf *cqn_conn_alloc_ring(struct cqn_conn *conn, u32 n,
					   enum dma_data_direction dir,
					   void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	struct ib_device *dev = conn->cm_id->device;
	struct cqn_buf *ring;
	u32 i;

	ring = kcalloc(n, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return NULL;
	for (i = 0; i < n; i++) {
		struct cqn_buf *b = &ring[i];

		b->conn = conn;
		b->idx = i;
		b->cqe.done = done;
		b->data = kzalloc(conn->msg_size, GFP_KERNEL);
		if (!b->data)
			goto err;
		if (dir == DMA_TO_DEVICE)
			cqn_msg_init_payload(b->data, conn->msg_size);
		b->dma = ib_dma_map_single(dev, b->data, conn->msg_size, dir);
		if (ib_dma_mapping_error(dev, b->dma)) {
			b->dma = 0;
			goto err;
		}
	}
	return ring;
err:
	cqn_conn_free_ring(conn, ring, n, dir);
	return NULL;
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

	ret = ib_post_recv(conn->qp, &wr, NULL);
	if (!ret) {
		conn->posted_recv++;
		cqn_stat_inc(&conn->stats, CQN_STAT_wr_posted);
	}
	return ret;
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

	ib_dma_sync_single_for_device(conn->cm_id->device, b->dma, len, DMA_TO_DEVICE);
	ret = ib_post_send(conn->qp, &wr, NULL);
	if (!ret)
		cqn_stat_inc(&conn->stats, CQN_STAT_wr_posted);
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
 * cqn_conn_send_taken() - account for a send completion
 * @conn: the connection
 * @wc: the send completion
 * @sb: its send buffer
 *
 * A successful send is counted; the caller then puts @sb back under
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
 * The buffer is no longer posted whatever the status; a successful receive
 * is counted, and so is a receive ring left empty by it.
 *
 * Context: completion processing; does not sleep.
 * Return: @ok.
 */
bool cqn_conn_recv_taken(struct cqn_conn *conn, struct ib_wc *wc, bool ok)
{
	lockdep_assert_held(&conn->lock);
	conn->posted_recv--;
	if (!ok)
		return false;
	cqn_stat_inc(&conn->stats, CQN_STAT_msgs_received);
	cqn_stat_add(&conn->stats, CQN_STAT_bytes_received, wc->byte_len);
	if (!conn->posted_recv)
		cqn_stat_inc(&conn->stats, CQN_STAT_recv_ring_empty);
	return true;
}

/* Context: the provider's event context, possibly atomic. */
static void cqn_conn_qp_event(struct ib_event *event, void *ctx)
{
	struct cqn_conn *conn = ctx;

	cqn_stat_inc(&conn->stats, CQN_STAT_qp_async_events);
	switch (event->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		cqn_conn_close(conn, "QP event: %s", ib_event_msg(event->event));
		break;
	default:
		pr_debug("QP event %s\n", ib_event_msg(event->event));
		break;
	}
}

static void cqn_conn_cq_fatal(void *owner, const char *why)
{
	cqn_conn_close(owner, "%s", why);
}

/*
 * solicited_only: is the connection waiting for a completion that raises no
 * solicited event? Its role knows (the engine may ask from the comp_handler).
 */
static bool cqn_conn_need_any(void *owner)
{
	struct cqn_conn *conn = owner;

	return conn->ep->role->need_any(conn);
}

/* The watchdog's question: sends in flight, or what the role awaits. */
static bool cqn_conn_busy(void *owner)
{
	struct cqn_conn *conn = owner;

	return READ_ONCE(conn->nfree_send) != conn->nsend || conn->ep->role->busy(conn);
}

static const struct cqn_cq_owner cqn_conn_cq_owner = {
	.fatal = cqn_conn_cq_fatal,
	.need_any = cqn_conn_need_any,
	.busy = cqn_conn_busy,
};

/*
 * The steps of building a connection, each a fault-injection point
 * (fail_function: see Documentation/testing.rst). On failure each leaves
 * nothing behind.
 */
static noinline int cqn_conn_alloc_pd(struct cqn_conn *conn)
{
	struct ib_pd *pd = ib_alloc_pd(conn->cm_id->device, 0);

	if (IS_ERR(pd))
		return PTR_ERR(pd);
	conn->pd = pd;
	return 0;
}

ALLOW_ERROR_INJECTION(cqn_conn_alloc_pd, ERRNO);

static noinline int cqn_conn_create_qp(struct cqn_conn *conn, struct ib_qp_init_attr *attr)
{
	return rdma_create_qp(conn->cm_id, conn->pd, attr);
}

ALLOW_ERROR_INJECTION(cqn_conn_create_qp, ERRNO);

static noinline int cqn_conn_alloc_rings(struct cqn_conn *conn)
{
	const struct cqn_role_ops *role = conn->ep->role;

	conn->sbufs = cqn_conn_alloc_ring(conn, conn->nsend, DMA_TO_DEVICE, role->send_done);
	if (!conn->sbufs)
		return -ENOMEM;
	conn->rbufs = cqn_conn_alloc_ring(conn, conn->nrecv, DMA_FROM_DEVICE, role->recv_done);
	if (!conn->rbufs) {
		cqn_conn_free_ring(conn, conn->sbufs, conn->nsend, DMA_TO_DEVICE);
		conn->sbufs = NULL;
		return -ENOMEM;
	}
	return 0;
}

ALLOW_ERROR_INJECTION(cqn_conn_alloc_rings, ERRNO);

static void cqn_conn_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cqn_drain *d = container_of(wc->wr_cqe, struct cqn_drain, cqe);

	complete(&d->done);
}

/* Post a drain marker (@swr or @rwr) and wait a bounded time for it. */
static void cqn_conn_drain_one(struct cqn_conn *conn, struct cqn_drain *d,
			       const struct ib_send_wr *swr, const struct ib_recv_wr *rwr)
{
	int ret;

	d->cqe.done = cqn_conn_drain_done;
	init_completion(&d->done);
	ret = swr ? ib_post_send(conn->qp, swr, NULL) : ib_post_recv(conn->qp, rwr, NULL);
	if (ret)
		pr_warn_ratelimited("%s: connection %u: posting the %s drain marker failed: %pe\n",
				    conn->ep->name, conn->id,
				    swr ? "send" : "receive", ERR_PTR(ret));
	else if (!wait_for_completion_timeout(&d->done, msecs_to_jiffies(CQN_DRAIN_MS)))
		pr_warn_ratelimited("%s: connection %u: the %s drain marker never completed\n",
				    conn->ep->name, conn->id,
				    swr ? "send" : "receive");
}

/*
 * ib_drain_qp() without its unbounded waits: after a CQ overflow the
 * provider may have dropped a marker's completion, a lost interrupt leaves
 * an event-driven engine asleep, a dead device completes nothing, and
 * teardown must not hang on any of them (the engine polls meanwhile, see
 * cqn_cq_drain_begin()). The same steps: the QP to the error state, then a
 * marker on each queue, whose completion follows every earlier one of that
 * queue. The markers live in @conn: one that completes after its wait gave
 * up still finds them (the connection outlives its CQ processing).
 * Context: process context; the CQ engine still runs.
 */
static void cqn_conn_drain_bounded(struct cqn_conn *conn)
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
	cqn_conn_drain_one(conn, &conn->sdrain, &swr.wr, NULL);
	cqn_conn_drain_one(conn, &conn->rdrain, NULL, &rwr);
}

/**
 * cqn_conn_create() - build a connection on an rdma_cm id
 * @ep: the endpoint
 * @cm_id: an id whose route is resolved (client) or that carries a connect
 *	request (server); its context stays the endpoint (the connection is
 *	its QP's context)
 *
 * Allocates the PD, the CQ engine, the RC QP and both rings, and posts every
 * receive buffer. The CQ engine is started; the caller connects or accepts.
 *
 * Context: process context (rdma_cm event handler).
 * Return: the connection or ERR_PTR(-errno); on error nothing is left behind
 * and @cm_id is untouched.
 */
struct cqn_conn *cqn_conn_create(struct cqn_endpoint *ep, struct rdma_cm_id *cm_id)
{
	const struct cqn_config *cfg = &ep->cfg;
	struct ib_qp_init_attr qp_attr = {};
	struct cqn_conn *conn;
	char name[40];
	struct cqn_cq_params params;
	u32 i, cqe;
	int ret;

	conn = ep->role->conn_alloc(ep);
	if (!conn)
		return ERR_PTR(-ENOMEM);
	conn->ep = ep;
	conn->cm_id = cm_id;
	conn->msg_size = cfg->msg_size;
	conn->nsend = cfg->send_depth;
	conn->nrecv = cfg->recv_depth;
	INIT_LIST_HEAD(&conn->node);
	/* Not closable until cqn_conn_publish() puts it on the endpoint. */
	conn->dead = true;
	spin_lock_init(&conn->lock);
	snprintf(conn->peer, sizeof(conn->peer), "%pISpc", &cm_id->route.addr.dst_addr);

	ret = cqn_stats_create(&conn->stats);
	if (ret)
		goto err_free;

	conn->free_send = kcalloc(conn->nsend, sizeof(u32), GFP_KERNEL);
	if (!conn->free_send) {
		ret = -ENOMEM;
		goto err_arrays;
	}
	for (i = 0; i < conn->nsend; i++)
		conn->free_send[i] = conn->nsend - 1 - i;
	conn->nfree_send = conn->nsend;

	ret = cqn_conn_alloc_pd(conn);
	if (ret)
		goto err_arrays;

	spin_lock_irq(&ep->state_lock);
	conn->id = ep->next_conn_id++;
	spin_unlock_irq(&ep->state_lock);
	snprintf(name, sizeof(name), "%s.%u", ep->name, conn->id);
	mutex_lock(&ep->tune_lock);
	params = ep->cfg.cq;
	mutex_unlock(&ep->tune_lock);
	/*
	 * Fault injection bypasses the sizing rule for this one connection;
	 * the engine keeps the configured cq_depth, so that catching up with
	 * the configuration (cqn_conn_publish()) does not resize it away.
	 */
	cqe = atomic_xchg(&ep->fault_cq_undersize, 0);
	if (cqe)
		pr_info("%s: fault injection: CQ size %u instead of cq_depth %u\n",
			name, cqe, params.cq_depth);
	else
		cqe = params.cq_depth;
	conn->cq = cqn_cq_create(cm_id->device, &params, cqe,
				 conn->id % max(cm_id->device->num_comp_vectors, 1),
				 &conn->stats, name, &cqn_conn_cq_owner, conn);
	if (IS_ERR(conn->cq)) {
		ret = PTR_ERR(conn->cq);
		goto err_pd;
	}
	/* The provider may round the size up; show what it gave. */
	WRITE_ONCE(ep->cq_depth_actual, cqn_cq_ib(conn->cq)->cqe);

	qp_attr.event_handler = cqn_conn_qp_event;
	qp_attr.qp_context = conn;
	qp_attr.send_cq = cqn_cq_ib(conn->cq);
	qp_attr.recv_cq = cqn_cq_ib(conn->cq);
	/* One extra entry on each queue for the drain request of teardown. */
	qp_attr.cap.max_send_wr = conn->nsend + 1;
	qp_attr.cap.max_recv_wr = conn->nrecv + 1;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.cap.max_recv_sge = 1;
	qp_attr.sq_sig_type = IB_SIGNAL_ALL_WR;
	qp_attr.qp_type = IB_QPT_RC;
	ret = cqn_conn_create_qp(conn, &qp_attr);
	if (ret)
		goto err_cq;
	conn->qp = cm_id->qp;

	ret = cqn_conn_alloc_rings(conn);
	if (ret)
		goto err_qp;

	ret = cqn_cq_start(conn->cq);
	if (ret)
		goto err_rbufs;

	for (i = 0; i < conn->nrecv; i++) {
		ret = cqn_conn_post_recv(conn, i);
		if (ret)
			goto err_drain;
	}
	trace_cqn_conn_state(conn, "new", "connecting", ep->role->created);
	return conn;

err_drain:
	cqn_cq_drain_begin(conn->cq);
	cqn_conn_drain_bounded(conn);
	cqn_cq_stop(conn->cq);
err_rbufs:
	cqn_conn_free_ring(conn, conn->rbufs, conn->nrecv, DMA_FROM_DEVICE);
	cqn_conn_free_ring(conn, conn->sbufs, conn->nsend, DMA_TO_DEVICE);
err_qp:
	rdma_destroy_qp(cm_id);
err_cq:
	cqn_cq_destroy(conn->cq);
err_pd:
	ib_dealloc_pd(conn->pd);
err_arrays:
	kfree(conn->free_send);
	cqn_stats_destroy(&conn->stats);
err_free:
	ep->role->conn_free(conn);
	return ERR_PTR(ret);
}

/*
 * After the drain every work request has completed, so every send buffer
 * is free again and no receive is posted; what is not was dropped by a CQ
 * overflow (or its completion was still on the way when a bounded drain
 * gave up). Counted as wc_lost, so that wr_posted always equals
 * msgs_sent + msgs_received + wc_errors + wc_flushed + wc_lost.
 * Context: process context, after the drain.
 */
static void cqn_conn_count_lost(struct cqn_conn *conn)
{
	u32 sends, recvs;

	spin_lock_bh(&conn->lock);
	sends = conn->nsend - conn->nfree_send;
	recvs = conn->posted_recv;
	spin_unlock_bh(&conn->lock);
	if (!sends && !recvs)
		return;
	cqn_stat_add(&conn->stats, CQN_STAT_wc_lost, sends + recvs);
	pr_warn_ratelimited("%s: connection %u: %u work requests never completed (%u sends, %u receives)\n",
			    conn->ep->name, conn->id, sends + recvs,
			    sends, recvs);
}

/**
 * cqn_conn_destroy() - tear a connection down, in the reverse order of create
 * @conn: the connection, no longer on any endpoint list
 * @destroy_id: also destroy its rdma_cm id (false when the rdma_cm will,
 *	because a handler returns non-zero)
 *
 * Disconnects, drains the QP so that every posted work request completes
 * exactly once (flushed ones are counted), then frees everything. The
 * drain polls the CQ whatever the mode's events do and waits a bounded
 * time (CQN_DRAIN_MS a queue); work requests whose completion never came
 * are counted as lost (wc_lost), so teardown ends within seconds even
 * after a lost interrupt or a CQ overflow.
 *
 * Context: process context, not an rdma_cm handler of this id when
 * @destroy_id is true.
 */
void cqn_conn_destroy(struct cqn_conn *conn, bool destroy_id)
{
	struct cqn_endpoint *ep = conn->ep;
	unsigned long flags;

	if (ep->role->quiesce)
		ep->role->quiesce(conn);
	if (conn->established)
		rdma_disconnect(conn->cm_id);
	cqn_cq_drain_begin(conn->cq);
	cqn_conn_drain_bounded(conn);
	cqn_cq_stop(conn->cq);
	cqn_conn_count_lost(conn);
	trace_cqn_conn_state(conn, "closing", "closed", "drained");
	cqn_debugfs_conn_destroy(conn);
	rdma_destroy_qp(conn->cm_id);
	/*
	 * The CQ goes before the buffers: after a drain that gave up, a core
	 * mode's CQ could still hand a late completion to a buffer's done().
	 */
	cqn_cq_destroy(conn->cq);
	cqn_conn_free_ring(conn, conn->rbufs, conn->nrecv, DMA_FROM_DEVICE);
	cqn_conn_free_ring(conn, conn->sbufs, conn->nsend, DMA_TO_DEVICE);
	ib_dealloc_pd(conn->pd);
	if (destroy_id && ep->role->owns_id)
		rdma_destroy_id(conn->cm_id);

	/* Its counters leave the reaper's list and join the totals at once. */
	spin_lock_irqsave(&ep->state_lock, flags);
	list_del_init(&conn->node);
	cqn_stats_add_to(&conn->stats, &ep->retired);
	ep->retired.cnt[CQN_STAT_conns_closed]++;
	if (ep->role->retire)
		ep->role->retire(conn);
	spin_unlock_irqrestore(&ep->state_lock, flags);

	kfree(conn->free_send);
	cqn_stats_destroy(&conn->stats);
	ep->role->conn_free(conn);
}

/**
 * cqn_conn_publish() - put a new connection on its endpoint's list
 * @conn: the connection, fresh from cqn_conn_create()
 *
 * A live change made while the connection was being built did not see it:
 * once on the list, it catches up with the configuration.
 *
 * Context: process context.
 * Return: 0, or -ECONNREFUSED when the endpoint is stopping or already has
 * max_conns connections (the caller then destroys @conn).
 */
int cqn_conn_publish(struct cqn_conn *conn)
{
	struct cqn_endpoint *ep = conn->ep;
	int ret = -ECONNREFUSED;

	mutex_lock(&ep->tune_lock);
	spin_lock_irq(&ep->state_lock);
	if (ep->accepting && ep->nconns < ep->cfg.max_conns) {
		list_add_tail(&conn->node, &ep->conns);
		ep->nconns++;
		conn->dead = false;
		ret = 0;
	}
	spin_unlock_irq(&ep->state_lock);
	if (!ret)
		cqn_debugfs_conn_create(conn);
	if (!ret && cqn_conn_retune(conn))
		pr_warn_ratelimited("%s: connection %u keeps its CQ settings: a live change did not apply\n",
				    ep->name, conn->id);
	mutex_unlock(&ep->tune_lock);
	return ret;
}

/**
 * cqn_conn_retune() - make the connection's CQ engine match the configuration
 * @conn: the connection
 *
 * Hands the live-tunable attributes (ep->cfg.cq) to the engine, which
 * takes what differs from what it runs with (cqn_cq_reconfigure()).
 * Idempotent.
 *
 * Context: process context, ep->tune_lock held.
 * Return: 0 or the first -errno; what failed keeps its previous setting.
 */
int cqn_conn_retune(struct cqn_conn *conn)
{
	int ret;

	lockdep_assert_held(&conn->ep->tune_lock);
	ret = cqn_cq_reconfigure(conn->cq, &conn->ep->cfg.cq, conn->nsend + conn->nrecv + 1);
	WRITE_ONCE(conn->ep->cq_depth_actual, cqn_cq_ib(conn->cq)->cqe);
	return ret;
}

/**
 * cqn_conn_fault_qp_error() - fault injection: move the QP to the error state
 * @conn: the connection
 *
 * Context: process context, ep->tune_lock held.
 * Return: 0 or -errno from ib_modify_qp().
 */
int cqn_conn_fault_qp_error(struct cqn_conn *conn)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	lockdep_assert_held(&conn->ep->tune_lock);
	return ib_modify_qp(conn->qp, &attr, IB_QP_STATE);
}

/**
 * cqn_conn_close() - mark a connection for teardown by the endpoint's reaper
 * @conn: the connection
 * @fmt: why, or NULL for a normal close; an error reason goes to the
 *	role (a client's endpoint fails, or reconnects)
 * @...: arguments for @fmt
 *
 * Idempotent: the first call wins, later ones do nothing.
 *
 * Context: any (completion handler, event handler, process).
 */
void cqn_conn_close(struct cqn_conn *conn, const char *fmt, ...)
{
	struct cqn_endpoint *ep = conn->ep;
	unsigned long flags;
	bool first = false;
	va_list args;

	char why[CQN_ERR_LEN];

	spin_lock_irqsave(&ep->state_lock, flags);
	if (!conn->dead) {
		conn->dead = true;
		first = true;
		list_move_tail(&conn->node, &ep->dead);
		ep->nconns--;
	}
	spin_unlock_irqrestore(&ep->state_lock, flags);
	if (!first)
		return;
	if (fmt && (ep->role->lost || trace_cqn_conn_state_enabled())) {
		va_start(args, fmt);
		vsnprintf(why, sizeof(why), fmt, args);
		va_end(args);
	}
	trace_cqn_conn_state(conn, READ_ONCE(conn->established) ? "established" : "connecting",
			     "closing", fmt ? why : "no error");
	if (fmt && ep->role->lost)
		ep->role->lost(ep, why);
	cqn_ep_queue_reap(ep);
}
