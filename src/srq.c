// SPDX-License-Identifier: GPL-2.0
/*
 * A server's shared receive queues (srq=1), as nvmet-rdma's use_srq: on
 * each device its connections arrive on, a PD and one SRQ per completion
 * vector, each with srq_depth receive buffers of its own. A connection's
 * QP receives from the SRQ of its CQ's vector; a buffer belongs to the
 * SRQ, goes back to it once echoed, and may carry the next message of any
 * connection on that SRQ. The SRQ's limit event says when fewer than a
 * quarter of its buffers are posted (the peers are about to meet RNR NAKs).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/error-injection.h>
#include <linux/slab.h>

#include "cqnotify.h"

/*
 * How long teardown waits for IB_EVENT_QP_LAST_WQE_REACHED: hardware
 * reports it as soon as its QP in error takes nothing more from the SRQ;
 * rxe and siw (6.1) never do, and flush the one receive a QP may have in
 * progress as it enters the error state, before the send marker that
 * follows completes. The first teardown on a device finds out which
 * (CQN_SRQ_LAST_WQE_MS); a device that reported it is waited for up to
 * CQN_SRQ_LAST_WQE_MAX_MS, one that did not is not waited for again.
 */
#define CQN_SRQ_LAST_WQE_MS	50
#define CQN_SRQ_LAST_WQE_MAX_MS	2000

/**
 * struct cqn_srq - one SRQ, of one completion vector of one device
 * @dev: the endpoint's SRQs on that device
 * @srq: the SRQ
 * @bufs: its receive buffers
 * @nbufs: entries in @bufs (srq_depth)
 * @limit: where its limit event is armed (cqn_srq_limit())
 * @rearm_at: posted buffers from which it is armed again after it fired:
 *	twice @limit (half the SRQ), so that completions not processed yet
 *	when it fired (which @queued still counts) cannot re-arm it while the
 *	SRQ is still below @limit
 * @queued: buffers posted to it and not completed yet
 * @rearm_pending: the limit event fired; it is armed again once the SRQ
 *	holds @rearm_at buffers again
 * @rearm_work: arms the limit event again (ib_modify_srq() may sleep)
 * @vector: its completion vector
 * @lock: protects @withheld and @nwithheld
 * @withheld: indices of the buffers fault_stop_replenish kept back
 * @nwithheld: entries in @withheld
 */
struct cqn_srq {
	struct cqn_srq_dev *dev;
	struct ib_srq *srq;
	struct cqn_buf *bufs;
	u32 nbufs;
	u32 limit;
	u32 rearm_at;
	atomic_t queued;
	atomic_t rearm_pending;
	struct work_struct rearm_work;
	int vector;
	/* protects withheld, nwithheld */
	spinlock_t lock;
	u32 *withheld;
	u32 nwithheld;
};

/**
 * struct cqn_srq_dev - an endpoint's SRQs on one device
 * @node: on ep->srq.devs
 * @ep: the endpoint
 * @ibdev: the device
 * @pd: the PD of the SRQs and of every connection that uses them
 * @nsrqs: entries in @srqs: the device's completion vectors, at most its
 *	max_srq
 * @srqs: each vector's SRQ, NULL until a connection on that vector needs it
 * @last_wqe: does the device report IB_EVENT_QP_LAST_WQE_REACHED? 0 not
 *	known yet, 1 it did, -1 a teardown waited for it in vain
 *	(cqn_srq_drain(); read and written without a lock)
 *
 * Protected by ep->srq.lock, but for @last_wqe.
 */
struct cqn_srq_dev {
	struct list_head node;
	struct cqn_endpoint *ep;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 nsrqs;
	struct cqn_srq **srqs;
	int last_wqe;
};

/**
 * cqn_srq_ep_init() - an endpoint without SRQs
 * @ep: the endpoint, being created
 *
 * Context: process context.
 */
void cqn_srq_ep_init(struct cqn_endpoint *ep)
{
	mutex_init(&ep->srq.lock);
	INIT_LIST_HEAD(&ep->srq.devs);
}

static bool cqn_srq_used(struct cqn_endpoint *ep)
{
	return ep->cfg.srq && ep->cfg.role == CQN_ROLE_SERVER;
}

/*
 * The device's SRQs: 0 means none. A fault-injection point (fail_function,
 * NULL type: it then returns 0), for a device without SRQ support, which
 * neither rxe nor siw is.
 */
static noinline u32 cqn_srq_dev_max_srq(struct ib_device *ibdev)
{
	return ibdev->attrs.max_srq;
}

ALLOW_ERROR_INJECTION(cqn_srq_dev_max_srq, NULL);

/* Can @ibdev have SRQs of srq_depth? If not, why. */
static int cqn_srq_dev_why(struct cqn_endpoint *ep, struct ib_device *ibdev, char *why,
			   size_t len)
{
	if (!cqn_srq_dev_max_srq(ibdev)) {
		snprintf(why, len, "srq=1: device %s has no shared receive queues (max_srq 0)",
			 dev_name(&ibdev->dev));
		return -EOPNOTSUPP;
	}
	if (ep->cfg.srq_depth > ibdev->attrs.max_srq_wr) {
		snprintf(why, len, "srq_depth %u > max_srq_wr %d of device %s", ep->cfg.srq_depth,
			 ibdev->attrs.max_srq_wr, dev_name(&ibdev->dev));
		return -ERANGE;
	}
	return 0;
}

/* At enable: a device that cannot have them fails the endpoint. */
static int cqn_srq_dev_check(struct ib_device *ibdev, void *arg)
{
	struct cqn_endpoint *ep = arg;
	char why[CQN_ERR_LEN];
	int ret;

	ret = cqn_srq_dev_why(ep, ibdev, why, sizeof(why));
	if (ret)
		cqn_ep_fail(ep, "%s", why);
	return ret;
}

/**
 * cqn_srq_check() - enable of a server with srq=1: can its device have SRQs?
 * @ep: the endpoint, ep->lock held, listening
 *
 * The device it is bound to, or, bound to any address, every device
 * present (a connection may arrive on any of them) must support SRQs of
 * srq_depth entries.
 *
 * Context: process context.
 * Return: 0; -EOPNOTSUPP for a device without SRQs, -ERANGE for srq_depth
 * beyond its max_srq_wr (the endpoint is then in error, last_error says
 * which device and why).
 */
int cqn_srq_check(struct cqn_endpoint *ep)
{
	lockdep_assert_held(&ep->lock);
	if (!cqn_srq_used(ep))
		return 0;
	if (ep->cm_id->device)
		return cqn_srq_dev_check(ep->cm_id->device, ep);
	return cqn_devices_check(cqn_srq_dev_check, ep);
}

/* Arm the limit event (again): it fires once, when fewer than s->limit are posted. */
static int cqn_srq_arm(struct cqn_srq *s)
{
	struct ib_srq_attr attr = { .srq_limit = s->limit };

	return ib_modify_srq(s->srq, &attr, IB_SRQ_LIMIT);
}

/*
 * Arm again once refilled to half its buffers (armed below the limit, the
 * event would fire again at the next receive); the refill that reaches it
 * queues this again (cqn_srq_post()).
 */
static void cqn_srq_rearm_work(struct work_struct *work)
{
	struct cqn_srq *s = container_of(work, struct cqn_srq, rearm_work);
	struct cqn_endpoint *ep = s->dev->ep;
	int ret;

	atomic_set(&s->rearm_pending, 1);
	if (atomic_read(&s->queued) < s->rearm_at || !atomic_xchg(&s->rearm_pending, 0))
		return;
	ret = cqn_srq_arm(s);
	if (ret)
		pr_warn_ratelimited("%s: SRQ of vector %d: arming its limit event again failed: %pe\n",
				    ep->name, s->vector, ERR_PTR(ret));
	else
		cqn_stat_inc(&ep->stats, CQN_STAT_srq_limit_rearms);
}

/* Context: the provider's event context, possibly atomic (rxe: its responder). */
static void cqn_srq_event(struct ib_event *event, void *ctx)
{
	struct cqn_srq *s = ctx;
	struct cqn_endpoint *ep = s->dev->ep;

	if (event->event == IB_EVENT_SRQ_LIMIT_REACHED) {
		cqn_stat_inc(&ep->stats, CQN_STAT_srq_limit_events);
		queue_work(cqn_wq, &s->rearm_work);
		return;
	}
	pr_warn_ratelimited("%s: SRQ of vector %d: %s\n", ep->name, s->vector,
			    ib_event_msg(event->event));
}

/**
 * cqn_srq_post() - post a receive buffer to the SRQ that owns it
 * @s: the SRQ
 * @b: one of its buffers, not posted
 *
 * Counted in wr_posted and srq_recvs_posted of the endpoint. After its
 * limit event fired, the refill that brings the SRQ back to half its
 * buffers has it armed again.
 *
 * Context: any; does not sleep.
 * Return: 0 or -errno from the provider.
 */
int cqn_srq_post(struct cqn_srq *s, struct cqn_buf *b)
{
	struct cqn_endpoint *ep = s->dev->ep;
	struct ib_sge sge = {
		.addr = b->dma,
		.length = ep->cfg.msg_size,
		.lkey = s->dev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &b->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int ret;

	set_bit(CQN_BUF_POSTED, &b->flags);
	ret = ib_post_srq_recv(s->srq, &wr, NULL);
	if (ret) {
		clear_bit(CQN_BUF_POSTED, &b->flags);
		pr_warn_ratelimited("%s: SRQ of vector %d: posting a receive failed: %pe\n",
				    ep->name, s->vector, ERR_PTR(ret));
		return ret;
	}
	cqn_stat_inc(&ep->stats, CQN_STAT_wr_posted);
	cqn_stat_inc(&ep->stats, CQN_STAT_srq_recvs_posted);
	if (atomic_inc_return(&s->queued) >= s->rearm_at && atomic_read(&s->rearm_pending) &&
	    atomic_xchg(&s->rearm_pending, 0))
		queue_work(cqn_wq, &s->rearm_work);
	return 0;
}

/* Post again what fault_stop_replenish kept back. */
static void cqn_srq_release_withheld(struct cqn_srq *s)
{
	unsigned long flags;
	u32 idx;

	for (;;) {
		spin_lock_irqsave(&s->lock, flags);
		if (!s->nwithheld) {
			spin_unlock_irqrestore(&s->lock, flags);
			return;
		}
		idx = s->withheld[--s->nwithheld];
		spin_unlock_irqrestore(&s->lock, flags);
		if (cqn_srq_post(s, &s->bufs[idx]))
			return;
	}
}

/**
 * cqn_srq_withhold() - fault_stop_replenish: keep a buffer of the SRQ back
 * @s: the SRQ
 * @b: one of its buffers, received and echoed
 *
 * The SRQ runs low for every connection on it; the buffer goes back when
 * the knob is turned off (cqn_srq_release()).
 *
 * Context: completion processing; does not sleep.
 */
void cqn_srq_withhold(struct cqn_srq *s, struct cqn_buf *b)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (!WARN_ON_ONCE(s->nwithheld >= s->nbufs))
		s->withheld[s->nwithheld++] = b->idx;
	spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * cqn_srq_taken() - a buffer of the SRQ completed (on any connection)
 * @s: the SRQ
 *
 * Counts srq_empty when that left none posted: the next message to any
 * connection on it meets an RNR NAK.
 *
 * Context: completion processing; does not sleep.
 */
void cqn_srq_taken(struct cqn_srq *s)
{
	if (atomic_dec_return(&s->queued) == 0)
		cqn_stat_inc(&s->dev->ep->stats, CQN_STAT_srq_empty);
}

/*
 * Destroy an SRQ no QP uses any more. Buffers still posted never complete:
 * counted in srq_recvs_discarded, so that wr_posted stays accounted for.
 */
static void cqn_srq_destroy(struct cqn_srq *s)
{
	struct cqn_srq_dev *d = s->dev;
	u32 n;

	cancel_work_sync(&s->rearm_work);
	n = atomic_read(&s->queued);
	if (n)
		cqn_stat_add(&d->ep->stats, CQN_STAT_srq_recvs_discarded, n);
	/* The RDMA core warns if a QP still used it. */
	ib_destroy_srq(s->srq);
	cqn_ring_free(d->ibdev, s->bufs, s->nbufs, d->ep->cfg.msg_size, DMA_FROM_DEVICE);
	kfree(s->withheld);
	kfree(s);
}

/* A new SRQ on vector @vector of @d: its buffers posted, its limit event armed. */
static struct cqn_srq *cqn_srq_create(struct cqn_srq_dev *d, int vector)
{
	struct cqn_endpoint *ep = d->ep;
	struct ib_srq_init_attr init = {
		.event_handler = cqn_srq_event,
		.attr = {
			.max_wr = ep->cfg.srq_depth,
			.max_sge = 1,
		},
		.srq_type = IB_SRQT_BASIC,
	};
	struct cqn_srq *s;
	u32 i;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->dev = d;
	s->vector = vector;
	s->nbufs = ep->cfg.srq_depth;
	s->limit = cqn_srq_limit(s->nbufs);
	s->rearm_at = min(2 * s->limit, s->nbufs);
	INIT_WORK(&s->rearm_work, cqn_srq_rearm_work);
	spin_lock_init(&s->lock);
	s->withheld = kcalloc(s->nbufs, sizeof(*s->withheld), GFP_KERNEL);
	if (!s->withheld) {
		ret = -ENOMEM;
		goto err_free;
	}
	init.srq_context = s;
	s->srq = ib_create_srq(d->pd, &init);
	if (IS_ERR(s->srq)) {
		ret = PTR_ERR(s->srq);
		goto err_free;
	}
	s->bufs = cqn_ring_alloc(d->ibdev, s->nbufs, ep->cfg.msg_size, DMA_FROM_DEVICE,
				 ep->role->recv_done);
	if (!s->bufs) {
		ret = -ENOMEM;
		goto err_srq;
	}
	for (i = 0; i < s->nbufs; i++) {
		s->bufs[i].srq = s;
		ret = cqn_srq_post(s, &s->bufs[i]);
		if (ret)
			goto err_posted;
	}
	ret = cqn_srq_arm(s);
	if (ret)
		goto err_posted;
	return s;

err_posted:
	/* cqn_srq_destroy() undoes the rest, and counts what was posted. */
	cqn_srq_destroy(s);
	return ERR_PTR(ret);
err_srq:
	ib_destroy_srq(s->srq);
err_free:
	kfree(s->withheld);
	kfree(s);
	return ERR_PTR(ret);
}

/* The endpoint's SRQs on @ibdev, made (with their PD) at first use. */
static struct cqn_srq_dev *cqn_srq_dev_get(struct cqn_endpoint *ep, struct ib_device *ibdev)
{
	char why[CQN_ERR_LEN];
	struct cqn_srq_dev *d;
	int ret;

	lockdep_assert_held(&ep->srq.lock);
	list_for_each_entry(d, &ep->srq.devs, node)
		if (d->ibdev == ibdev)
			return d;
	/* A device added since enable was not checked then: its connections are refused. */
	ret = cqn_srq_dev_why(ep, ibdev, why, sizeof(why));
	if (ret) {
		pr_err_ratelimited("%s: %s\n", ep->name, why);
		return ERR_PTR(ret);
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	d->ep = ep;
	d->ibdev = ibdev;
	d->nsrqs = clamp_t(u32, ibdev->num_comp_vectors, 1, cqn_srq_dev_max_srq(ibdev));
	d->srqs = kcalloc(d->nsrqs, sizeof(*d->srqs), GFP_KERNEL);
	if (!d->srqs) {
		ret = -ENOMEM;
		goto err_free;
	}
	d->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(d->pd)) {
		ret = PTR_ERR(d->pd);
		goto err_srqs;
	}
	list_add_tail(&d->node, &ep->srq.devs);
	return d;

err_srqs:
	kfree(d->srqs);
err_free:
	kfree(d);
	return ERR_PTR(ret);
}

/**
 * cqn_srq_conn_pd() - with srq=1, a new connection uses the PD of the
 * endpoint's SRQs on its device
 * @conn: the connection, being created
 *
 * Sets @conn->pd and @conn->srq_dev, making the device's PD first if
 * need be; without srq=1 (or as a client) does nothing.
 *
 * Context: process context (rdma_cm handler).
 * Return: 0, or -errno (the device has no SRQs: -EOPNOTSUPP, or not of
 * srq_depth: -ERANGE).
 */
int cqn_srq_conn_pd(struct cqn_conn *conn)
{
	struct cqn_endpoint *ep = conn->ep;
	struct cqn_srq_dev *d;

	if (!cqn_srq_used(ep))
		return 0;
	mutex_lock(&ep->srq.lock);
	d = cqn_srq_dev_get(ep, conn->cm_id->device);
	mutex_unlock(&ep->srq.lock);
	if (IS_ERR(d))
		return PTR_ERR(d);
	conn->srq_dev = d;
	conn->pd = d->pd;
	return 0;
}

/**
 * cqn_srq_conn_srq() - the SRQ a new connection's QP receives from
 * @conn: the connection, being created, its CQ made (cqn_srq_conn_pd()
 *	found its device's SRQs)
 *
 * The SRQ of the CQ's completion vector (so a message and its completion
 * stay on one vector), created, filled and armed at first use. Sets
 * @conn->srq.
 *
 * Context: process context (rdma_cm handler).
 * Return: the ib_srq, or ERR_PTR(-errno).
 */
struct ib_srq *cqn_srq_conn_srq(struct cqn_conn *conn)
{
	struct cqn_srq_dev *d = conn->srq_dev;
	struct cqn_srq *s;
	u32 v = (u32)max(cqn_cq_comp_vector(conn->cq), 0) % d->nsrqs;

	mutex_lock(&conn->ep->srq.lock);
	s = d->srqs[v];
	if (!s) {
		s = cqn_srq_create(d, v);
		if (!IS_ERR(s))
			d->srqs[v] = s;
	}
	mutex_unlock(&conn->ep->srq.lock);
	if (IS_ERR(s))
		return ERR_CAST(s);
	conn->srq = s;
	return s->srq;
}

/**
 * cqn_srq_release() - fault_stop_replenish is off: every SRQ of the
 * endpoint gets back the buffers it kept back
 * @ep: the endpoint
 *
 * Peers waiting on RNR NAKs of an SRQ run dry go on (a connection's own
 * ring gets nothing back: its withheld buffers stay so).
 *
 * Context: process context.
 */
void cqn_srq_release(struct cqn_endpoint *ep)
{
	struct cqn_srq_dev *d;
	u32 i;

	mutex_lock(&ep->srq.lock);
	list_for_each_entry(d, &ep->srq.devs, node)
		for (i = 0; i < d->nsrqs; i++)
			if (d->srqs[i])
				cqn_srq_release_withheld(d->srqs[i]);
	mutex_unlock(&ep->srq.lock);
}

/**
 * cqn_srq_drain() - teardown of a QP on an SRQ, in the error state
 * @conn: the connection
 *
 * The SRQ's buffers stay posted for the other connections; only those
 * this QP took must complete before its CQ goes. As the InfiniBand spec
 * (10.3.1) and the core's __ib_drain_srq() have it: wait for Last WQE
 * Reached, then the send marker that follows orders the rest. Bounded,
 * and learnt per device: rxe and siw never report it, and a teardown of
 * many connections must not wait for each in vain.
 *
 * Context: process context.
 */
void cqn_srq_drain(struct cqn_conn *conn)
{
	struct cqn_srq_dev *d = conn->srq_dev;
	int known = READ_ONCE(d->last_wqe);
	unsigned int ms = known > 0 ? CQN_SRQ_LAST_WQE_MAX_MS : CQN_SRQ_LAST_WQE_MS;

	if (known < 0)
		return;
	if (wait_for_completion_timeout(&conn->last_wqe, msecs_to_jiffies(ms)))
		WRITE_ONCE(d->last_wqe, 1);
	else if (!known)
		WRITE_ONCE(d->last_wqe, -1);
}

/**
 * cqn_srq_destroy_all() - destroy the endpoint's SRQs (on @ibdev only, if
 * given), their buffers and their PDs
 * @ep: the endpoint; no connection on those devices is left
 * @ibdev: the device going away, or NULL for every device (disable)
 *
 * Context: process context.
 */
void cqn_srq_destroy_all(struct cqn_endpoint *ep, struct ib_device *ibdev)
{
	struct cqn_srq_dev *d, *tmp;
	u32 i;

	mutex_lock(&ep->srq.lock);
	list_for_each_entry_safe(d, tmp, &ep->srq.devs, node) {
		if (ibdev && d->ibdev != ibdev)
			continue;
		for (i = 0; i < d->nsrqs; i++)
			if (d->srqs[i])
				cqn_srq_destroy(d->srqs[i]);
		ib_dealloc_pd(d->pd);
		list_del(&d->node);
		kfree(d->srqs);
		kfree(d);
	}
	mutex_unlock(&ep->srq.lock);
}

/**
 * cqn_srq_show() - the SRQ lines of an endpoint's debugfs "stats"
 * @m: the seq_file
 * @ep: the endpoint
 *
 * "srq" (1: enabled, its connections receive from SRQs), "srqs" (how many exist),
 * "srq_recvs_queued" (their buffers posted now). With the counters,
 * wr_posted = msgs_sent + msgs_received + wc_errors + wc_flushed + wc_lost +
 * srq_recvs_queued + srq_recvs_discarded.
 *
 * Context: process context.
 */
void cqn_srq_show(struct seq_file *m, struct cqn_endpoint *ep)
{
	struct cqn_srq_dev *d;
	u32 n = 0, queued = 0, i;

	mutex_lock(&ep->srq.lock);
	list_for_each_entry(d, &ep->srq.devs, node) {
		for (i = 0; i < d->nsrqs; i++) {
			if (!d->srqs[i])
				continue;
			n++;
			queued += atomic_read(&d->srqs[i]->queued);
		}
	}
	mutex_unlock(&ep->srq.lock);
	seq_printf(m, "srq %d\n", READ_ONCE(ep->enabled) && cqn_srq_used(ep));
	seq_printf(m, "srqs %u\n", n);
	seq_printf(m, "srq_recvs_queued %u\n", queued);
}
