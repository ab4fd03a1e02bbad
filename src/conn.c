// SPDX-License-Identifier: GPL-2.0
/*
 * Connections, the part that knows no role: the ladder that builds one (a
 * PD, the rings, the CQ engine, the RC QP, the receives posted) and takes
 * it down in reverse, joining the endpoint, live changes, and the single
 * path by which a connection dies (close, then the endpoint's reaper).
 * Its data path is src/conn_io.c; what a role adds, src/server.c and
 * src/client.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/error-injection.h>
#include <linux/slab.h>

#include "cqnotify.h"
#include "cqn_trace.h"

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
	case IB_EVENT_QP_LAST_WQE_REACHED:
		/* A QP on an SRQ in error takes no more of it (cqn_srq_drain()). */
		complete(&conn->last_wqe);
		break;
	default:
		pr_debug("QP event %s\n", ib_event_msg(event->event));
		break;
	}
}

/*
 * The steps of building a connection, each with its exit, in the order
 * cqn_conn_create() takes them and cqn_conn_destroy() undoes them. On
 * failure a step leaves nothing behind. cqn_conn_alloc_pd(),
 * cqn_conn_alloc_rings(), cqn_cq_create() and cqn_conn_create_qp() are
 * fault-injection points (fail_function: see Documentation/testing.rst).
 */
static void cqn_conn_init(struct cqn_conn *conn, struct cqn_endpoint *ep,
			  struct rdma_cm_id *cm_id)
{
	conn->ep = ep;
	conn->cm_id = cm_id;
	conn->msg_size = ep->cfg.msg_size;
	conn->nsend = ep->cfg.send_depth;
	conn->nrecv = ep->cfg.recv_depth;
	INIT_LIST_HEAD(&conn->node);
	INIT_LIST_HEAD(&conn->cq_node);
	INIT_LIST_HEAD(&conn->gone.node);
	/* Not closable until cqn_conn_publish() puts it on the endpoint. */
	conn->dead = true;
	spin_lock_init(&conn->lock);
	init_completion(&conn->last_wqe);
	snprintf(conn->peer, sizeof(conn->peer), "%pISpc", &cm_id->route.addr.dst_addr);
	spin_lock_irq(&ep->state_lock);
	conn->id = ep->next_conn_id++;
	spin_unlock_irq(&ep->state_lock);
}

/* Every send buffer free; the last pushed (index 0) goes out first. */
static int cqn_conn_free_stack_init(struct cqn_conn *conn)
{
	u32 i;

	conn->free_send = kcalloc(conn->nsend, sizeof(u32), GFP_KERNEL);
	if (!conn->free_send)
		return -ENOMEM;
	for (i = 0; i < conn->nsend; i++)
		conn->free_send[i] = conn->nsend - 1 - i;
	conn->nfree_send = conn->nsend;
	return 0;
}

static void cqn_conn_free_stack_exit(struct cqn_conn *conn)
{
	kfree(conn->free_send);
}

/* With srq=1, the PD of the endpoint's SRQs on the device (src/srq.c). */
static noinline int cqn_conn_alloc_pd(struct cqn_conn *conn)
{
	struct ib_pd *pd;
	int ret;

	ret = cqn_srq_conn_pd(conn);
	if (ret || conn->srq_dev)
		return ret;
	pd = ib_alloc_pd(conn->cm_id->device, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	conn->pd = pd;
	return 0;
}

ALLOW_ERROR_INJECTION(cqn_conn_alloc_pd, ERRNO);

static void cqn_conn_free_pd(struct cqn_conn *conn)
{
	if (!conn->srq_dev)
		ib_dealloc_pd(conn->pd);
}

/*
 * The CQ engine: the connection's own, or a shared one of its group
 * (cq_share), with the live set as it is now (src/ep_cqs.c).
 */
static int cqn_conn_cq_init(struct cqn_conn *conn)
{
	return cqn_ep_cq_join(conn);
}

static void cqn_conn_cq_exit(struct cqn_conn *conn)
{
	cqn_ep_cq_leave(conn);
}

static noinline int cqn_conn_create_qp(struct cqn_conn *conn)
{
	struct ib_qp_init_attr attr = {
		.event_handler = cqn_conn_qp_event,
		.qp_context = conn,
		.send_cq = cqn_cq_ib(conn->cq),
		.recv_cq = cqn_cq_ib(conn->cq),
		/* One extra entry on each queue for the drain request of teardown. */
		.cap = {
			.max_send_wr = conn->nsend + 1,
			.max_recv_wr = conn->nrecv + 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_srq *srq;
	int ret;

	if (conn->srq_dev) {
		/* The SRQ of the CQ's completion vector, as nvmet-rdma's use_srq. */
		srq = cqn_srq_conn_srq(conn);
		if (IS_ERR(srq))
			return PTR_ERR(srq);
		attr.srq = srq;
		attr.cap.max_recv_wr = 0;
		attr.cap.max_recv_sge = 0;
	}
	ret = rdma_create_qp(conn->cm_id, conn->pd, &attr);
	if (ret)
		return ret;
	conn->qp = conn->cm_id->qp;
	conn->qpn = conn->qp->qp_num;
	return 0;
}

ALLOW_ERROR_INJECTION(cqn_conn_create_qp, ERRNO);

static void cqn_conn_destroy_qp(struct cqn_conn *conn)
{
	rdma_destroy_qp(conn->cm_id);
}

/* The CQ engine runs and every receive buffer is posted (an SRQ's already are). */
static int cqn_conn_start(struct cqn_conn *conn)
{
	u32 i;
	int ret;

	ret = cqn_ep_cq_start(conn);
	if (ret)
		return ret;
	for (i = 0; !conn->srq && i < conn->nrecv; i++) {
		ret = cqn_conn_post_recv(conn, i);
		if (ret) {
			cqn_ep_cq_drain_begin(conn);
			cqn_conn_drain(conn);
			cqn_ep_cq_drain_end(conn);
			return ret;
		}
	}
	return 0;
}

/*
 * Disconnect, drain the QP so that every posted work request completes
 * exactly once (flushed ones are counted), and stop the engine. The drain
 * polls the CQ whatever the mode's events do and waits a bounded time
 * (CQN_DRAIN_MS a queue), so teardown ends within seconds even after a
 * lost interrupt or a CQ overflow; work requests whose completion never
 * came are counted as lost (wc_lost) once the QP has left its CQ engine
 * (cqn_conn_destroy()), which hands over what a shared CQ still holds.
 */
static void cqn_conn_stop(struct cqn_conn *conn)
{
	if (conn->ep->role->quiesce)
		conn->ep->role->quiesce(conn);
	if (conn->established)
		rdma_disconnect(conn->cm_id);
	cqn_ep_cq_drain_begin(conn);
	cqn_conn_drain(conn);
	cqn_ep_cq_drain_end(conn);
	cqn_conn_drain_check(conn);
	if (conn->drain_short)
		cqn_ep_cq_going(conn);
	trace_cqn_conn_state(conn, "closing", "closed", "drained");
}

/**
 * cqn_conn_create() - build a connection on an rdma_cm id
 * @ep: the endpoint
 * @cm_id: an id whose route is resolved (client) or that carries a connect
 *	request (server); its context stays the endpoint (the connection is
 *	its QP's context)
 *
 * The role allocates its connection; then the PD, both rings, the CQ
 * engine and the RC QP; the engine starts and every receive buffer is
 * posted. The caller publishes it, then connects or accepts.
 *
 * Context: process context (rdma_cm event handler).
 * Return: the connection or ERR_PTR(-errno); on error nothing is left behind
 * and @cm_id is untouched.
 */
struct cqn_conn *cqn_conn_create(struct cqn_endpoint *ep, struct rdma_cm_id *cm_id)
{
	struct cqn_conn *conn;
	int ret;

	conn = ep->role->conn_alloc(ep, cm_id);
	if (!conn)
		return ERR_PTR(-ENOMEM);
	cqn_conn_init(conn, ep, cm_id);
	ret = cqn_stats_create(&conn->stats);
	if (ret)
		goto err_role;
	ret = cqn_conn_free_stack_init(conn);
	if (ret)
		goto err_stats;
	ret = cqn_conn_alloc_pd(conn);
	if (ret)
		goto err_free_stack;
	ret = cqn_conn_alloc_rings(conn);
	if (ret)
		goto err_pd;
	ret = cqn_conn_cq_init(conn);
	if (ret)
		goto err_rings;
	ret = cqn_conn_create_qp(conn);
	if (ret)
		goto err_cq;
	ret = cqn_conn_start(conn);
	if (ret)
		goto err_qp;
	trace_cqn_conn_state(conn, "new", "connecting", ep->role->created);
	return conn;

err_qp:
	cqn_conn_destroy_qp(conn);
err_cq:
	cqn_conn_cq_exit(conn);
err_rings:
	cqn_conn_free_rings(conn);
err_pd:
	cqn_conn_free_pd(conn);
err_free_stack:
	cqn_conn_free_stack_exit(conn);
err_stats:
	cqn_stats_destroy(&conn->stats);
err_role:
	ep->role->conn_free(conn);
	return ERR_PTR(ret);
}

/* Its counters leave the reaper's list and join the endpoint's totals at once. */
static void cqn_conn_retire(struct cqn_conn *conn)
{
	struct cqn_endpoint *ep = conn->ep;
	unsigned long flags;

	spin_lock_irqsave(&ep->state_lock, flags);
	list_del_init(&conn->node);
	cqn_stats_add_to(&conn->stats, &ep->retired);
	ep->retired.cnt[CQN_STAT_conns_closed]++;
	if (ep->role->retire)
		ep->role->retire(conn);
	spin_unlock_irqrestore(&ep->state_lock, flags);
}

/**
 * cqn_conn_destroy() - tear a connection down, in the reverse order of create
 * @conn: the connection, no longer on any endpoint list but the reaper's
 * @destroy_id: the reaper destroys it: its rdma_cm id goes too (the role's
 *	take_id() says which); false in an rdma_cm handler of the id, whose
 *	id stays (the rdma_cm destroys it when the handler returns non-zero)
 *
 * Leaves the endpoint (cqn_conn_publish()'s undoing), stops (disconnect,
 * bounded drain), then undoes cqn_conn_create()'s steps in reverse: the
 * CQ goes before the buffers, so that after a drain that gave up a core
 * mode's CQ cannot hand a late completion to a freed buffer's done().
 *
 * The id goes before the QP, as in nvme-rdma: a handler finds its
 * connection through id->qp, which it reads without the rdma_cm's locks,
 * and rdma_destroy_id() waits for the id's handlers; destroyed the other
 * way round, a handler could read a QP freed under it (KASAN saw one on a
 * client's id, which outlived its connection). A handler that runs in
 * between finds the connection closed and starts nothing.
 *
 * Context: process context, not an rdma_cm handler of this id when
 * @destroy_id is true.
 */
void cqn_conn_destroy(struct cqn_conn *conn, bool destroy_id)
{
	struct cqn_endpoint *ep = conn->ep;
	struct rdma_cm_id *id;

	cqn_conn_stop(conn);
	cqn_debugfs_conn_destroy(conn);
	id = destroy_id ? ep->role->take_id(conn) : NULL;
	if (id) {
		rdma_destroy_id(id);
		ib_destroy_qp(conn->qp);
	} else {
		cqn_conn_destroy_qp(conn);
	}
	cqn_conn_cq_exit(conn);
	cqn_conn_count_lost(conn);
	cqn_conn_free_rings(conn);
	cqn_conn_free_pd(conn);
	cqn_conn_retire(conn);
	cqn_conn_free_stack_exit(conn);
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
 * as many connections as its role allows (cqn_ep_conn_limit(): a server's
 * max_conns, a client's connections); the caller then destroys @conn.
 */
int cqn_conn_publish(struct cqn_conn *conn)
{
	struct cqn_endpoint *ep = conn->ep;
	int ret = -ECONNREFUSED;

	mutex_lock(&ep->tune_lock);
	spin_lock_irq(&ep->state_lock);
	if (ep->accepting && ep->nconns < cqn_ep_conn_limit(ep)) {
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
	lockdep_assert_held(&conn->ep->tune_lock);
	return cqn_ep_cq_retune(conn);
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
 *	role (a client's endpoint fails, or that connection's slot reconnects)
 * @...: arguments for @fmt
 *
 * Idempotent: the first call wins, later ones do nothing. The role hears
 * of the loss under ep->state_lock, while the connection is still its:
 * once the lock is dropped, a reaper already running (for another
 * connection) may destroy it.
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

	if (fmt && (ep->role->lost || trace_cqn_conn_state_enabled())) {
		va_start(args, fmt);
		vsnprintf(why, sizeof(why), fmt, args);
		va_end(args);
	}
	spin_lock_irqsave(&ep->state_lock, flags);
	if (!conn->dead) {
		conn->dead = true;
		first = true;
		list_move_tail(&conn->node, &ep->dead);
		ep->nconns--;
		trace_cqn_conn_state(conn,
				     READ_ONCE(conn->established) ? "established" : "connecting",
				     "closing", fmt ? why : "no error");
		if (fmt && ep->role->lost)
			ep->role->lost(conn, why);
	}
	spin_unlock_irqrestore(&ep->state_lock, flags);
	if (first)
		cqn_ep_queue_reap(ep);
}
