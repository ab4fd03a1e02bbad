// SPDX-License-Identifier: GPL-2.0
/*
 * An endpoint's CQ engines and the QPs each serves (cq_share): a
 * connection joins an engine of its group (its own with cq_share=conn,
 * its CPU's, or the endpoint's), the engine starts with its first QP,
 * drains one QP while it keeps serving the others, and goes with its last.
 * A full group gets another CQ (never an overflow); a CQ error takes down
 * exactly the QPs on that CQ, which then takes no new one. Where a QP goes
 * and how large a CQ is: src/share.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/slab.h>

#include "cqnotify.h"

/* Every QP on the engine goes down with it (a CQ error). Context: any. */
static void cqn_ep_cq_fatal(void *owner, const char *why)
{
	struct cqn_ep_cq *ecq = owner;
	struct cqn_conn *conn;
	unsigned long flags;

	WRITE_ONCE(ecq->retired, true);
	spin_lock_irqsave(&ecq->lock, flags);
	list_for_each_entry(conn, &ecq->qps, cq_node) {
		if (ecq->slots > 1)
			cqn_conn_close(conn, "%s (CQ %u, shared by %u QPs)", why, ecq->id,
				       ecq->nqps);
		else
			cqn_conn_close(conn, "%s", why);
	}
	spin_unlock_irqrestore(&ecq->lock, flags);
}

/* Does @pred hold for any QP on the engine? Context: any. */
static bool cqn_ep_cq_any(struct cqn_ep_cq *ecq, bool (*pred)(struct cqn_conn *conn))
{
	struct cqn_conn *conn;
	unsigned long flags;
	bool any = false;

	spin_lock_irqsave(&ecq->lock, flags);
	list_for_each_entry(conn, &ecq->qps, cq_node) {
		any = pred(conn);
		if (any)
			break;
	}
	spin_unlock_irqrestore(&ecq->lock, flags);
	return any;
}

/* Waiting for a completion that raises no solicited event? Its role knows. */
static bool cqn_ep_cq_conn_needs_any(struct cqn_conn *conn)
{
	return conn->ep->role->need_any(conn);
}

/*
 * solicited_only: does any QP on the engine wait for a completion that
 * raises no solicited event? (Asked from the comp_handler.)
 */
static bool cqn_ep_cq_need_any(void *owner)
{
	return cqn_ep_cq_any(owner, cqn_ep_cq_conn_needs_any);
}

/* Sends in flight, or what the role awaits. */
static bool cqn_ep_cq_conn_busy(struct cqn_conn *conn)
{
	return READ_ONCE(conn->nfree_send) != conn->nsend || conn->ep->role->busy(conn);
}

/* The watchdog's question: is any QP on the engine waiting for a completion? */
static bool cqn_ep_cq_busy(void *owner)
{
	return cqn_ep_cq_any(owner, cqn_ep_cq_conn_busy);
}

static const struct cqn_cq_owner cqn_ep_cq_owner = {
	.fatal = cqn_ep_cq_fatal,
	.need_any = cqn_ep_cq_need_any,
	.busy = cqn_ep_cq_busy,
};

/*
 * The live set for an engine of @ecq->slots QPs: cq_depth is per QP, the
 * CQ holds it for each. With cq_share=cpu a poll thread runs on its CPU
 * unless poll_cpu says otherwise.
 */
static void cqn_ep_cq_params(struct cqn_ep_cq *ecq, const struct cqn_cq_params *from,
			     struct cqn_cq_params *p)
{
	*p = *from;
	p->cq_depth = from->cq_depth * ecq->slots;
	if (ecq->ep->cfg.cq_share == CQN_SHARE_CPU && p->poll_cpu < 0 &&
	    cpu_online(ecq->group))
		p->poll_cpu = ecq->group;
}

/*
 * QPs the endpoint expects at most: what a new shared CQ is sized for (a
 * client's connections, a server's max_conns).
 */
static u32 cqn_ep_expected_qps(struct cqn_endpoint *ep)
{
	return cqn_ep_conn_limit(ep);
}

/*
 * A new engine for @group, sized by cqn_share_slots() unless fault
 * injection asked for @undersize entries. ep->cqs_lock held.
 */
static struct cqn_ep_cq *cqn_ep_cq_create(struct cqn_conn *conn, u32 group,
					  const struct cqn_cq_params *live, u32 undersize)
{
	struct cqn_endpoint *ep = conn->ep;
	struct ib_device *dev = conn->cm_id->device;
	u32 share = ep->cfg.cq_share;
	struct cqn_cq_params p;
	struct cqn_ep_cq *ecq;
	char name[40];
	u32 cqe;

	ecq = kzalloc(sizeof(*ecq), GFP_KERNEL);
	if (!ecq)
		return ERR_PTR(-ENOMEM);
	ecq->ep = ep;
	ecq->dev = dev;
	ecq->id = ep->next_cq_id++;
	ecq->group = group;
	ecq->slots = cqn_share_slots(share, live->cq_depth, cqn_ep_expected_qps(ep),
				     num_online_cpus(), dev->attrs.max_cqe);
	spin_lock_init(&ecq->lock);
	INIT_LIST_HEAD(&ecq->qps);
	cqn_ep_cq_params(ecq, live, &p);
	if (share == CQN_SHARE_CONN)
		snprintf(name, sizeof(name), "%s.%u", ep->name, conn->id);
	else
		snprintf(name, sizeof(name), "%s.cq%u", ep->name, ecq->id);
	cqe = undersize ?: p.cq_depth;
	if (undersize)
		pr_info("%s: fault injection: CQ size %u instead of %u\n", name, cqe, p.cq_depth);
	/* A shared engine counts for the endpoint, one of its own for its QP. */
	ecq->cq = cqn_cq_create(dev, &p, cqe,
				cqn_share_vector(share, group, conn->id, dev->num_comp_vectors),
				share == CQN_SHARE_CONN ? &conn->stats : &ep->stats, name,
				&cqn_ep_cq_owner, ecq);
	if (IS_ERR(ecq->cq)) {
		int ret = PTR_ERR(ecq->cq);

		kfree(ecq);
		return ERR_PTR(ret);
	}
	if (share == CQN_SHARE_CPU)
		cqn_cq_set_home(ecq->cq, group);
	list_add_tail(&ecq->node, &ep->cqs);
	cqn_stat_inc(&ep->stats, CQN_STAT_cqs_created);
	return ecq;
}

/*
 * The newest joinable engine of @group on @dev, or NULL: the QPs after a
 * fault injection's small CQ join it. A server listening on every address
 * may have connections on several devices: a CQ serves only its own
 * device's QPs. ep->cqs_lock held.
 */
static struct cqn_ep_cq *cqn_ep_cq_find(struct cqn_endpoint *ep, struct ib_device *dev,
					u32 group)
{
	struct cqn_ep_cq *ecq;

	if (ep->cfg.cq_share == CQN_SHARE_CONN)
		return NULL;
	list_for_each_entry_reverse(ecq, &ep->cqs, node)
		if (ecq->dev == dev && ecq->group == group &&
		    cqn_share_joinable(ecq->nqps, ecq->slots, READ_ONCE(ecq->retired)))
			return ecq;
	return NULL;
}

/**
 * cqn_ep_cq_join() - give a new connection the CQ engine its QP will use
 * @conn: the connection, before its QP exists
 *
 * Joins an engine of the connection's group with a free slot, or creates
 * one (another CQ for a full group) with the live set as it is now (a
 * snapshot under tune_lock). Fault injection (fault_cq_undersize) makes a
 * new, smaller CQ, which the next connections of the group share; the
 * engine keeps the configured size as its cq_depth, so that catching up
 * with the configuration (cqn_conn_publish()) does not resize it away.
 * Sets conn->cq.
 *
 * Context: process context.
 * Return: 0 or -errno (nothing joined).
 */
int cqn_ep_cq_join(struct cqn_conn *conn)
{
	struct cqn_endpoint *ep = conn->ep;
	struct cqn_cq_params live;
	struct cqn_ep_cq *ecq;
	u32 group, undersize;
	int ret = 0;

	group = cqn_share_group(ep->cfg.cq_share, conn->id, num_online_cpus());
	mutex_lock(&ep->tune_lock);
	live = ep->cfg.cq;
	mutex_lock(&ep->cqs_lock);
	undersize = atomic_xchg(&ep->fault_cq_undersize, 0);
	ecq = undersize ? NULL : cqn_ep_cq_find(ep, conn->cm_id->device, group);
	if (!ecq)
		ecq = cqn_ep_cq_create(conn, group, &live, undersize);
	if (IS_ERR(ecq)) {
		ret = PTR_ERR(ecq);
	} else {
		ecq->nqps++;
		spin_lock_irq(&ecq->lock);
		list_add_tail(&conn->cq_node, &ecq->qps);
		spin_unlock_irq(&ecq->lock);
		conn->ecq = ecq;
		conn->cq = ecq->cq;
		/* The provider may round the size up; show what it gave. */
		WRITE_ONCE(ep->cq_depth_actual, cqn_cq_ib(ecq->cq)->cqe);
	}
	mutex_unlock(&ep->cqs_lock);
	mutex_unlock(&ep->tune_lock);
	return ret;
}

/**
 * cqn_ep_cq_start() - make sure the connection's engine learns of completions
 * @conn: the connection, its QP created
 *
 * The first QP starts the engine; the others find it running.
 *
 * Context: process context.
 * Return: 0 or -errno from cqn_cq_start().
 */
int cqn_ep_cq_start(struct cqn_conn *conn)
{
	struct cqn_ep_cq *ecq = conn->ecq;
	int ret = 0;

	mutex_lock(&conn->ep->cqs_lock);
	if (!ecq->started) {
		ret = cqn_cq_start(ecq->cq);
		ecq->started = !ret;
	}
	mutex_unlock(&conn->ep->cqs_lock);
	return ret;
}

/*
 * A drain in progress keeps the engine polling: after the engine was
 * flushed or reconfigured, put it back in its draining state. Context:
 * ep->cqs_lock held.
 */
static void cqn_ep_cq_keep_draining(struct cqn_ep_cq *ecq)
{
	lockdep_assert_held(&ecq->ep->cqs_lock);
	if (ecq->drainers)
		cqn_cq_drain_begin(ecq->cq);
}

/**
 * cqn_ep_cq_drain_begin() - the connection's QP is about to be drained
 * @conn: the connection
 *
 * The engine polls from here on, events or not (cqn_cq_drain_begin()),
 * and so serves the other QPs on it too until the last drain ends.
 *
 * Context: process context.
 */
void cqn_ep_cq_drain_begin(struct cqn_conn *conn)
{
	struct cqn_ep_cq *ecq = conn->ecq;

	mutex_lock(&conn->ep->cqs_lock);
	if (!ecq->drainers++)
		cqn_cq_drain_begin(ecq->cq);
	mutex_unlock(&conn->ep->cqs_lock);
}

/**
 * cqn_ep_cq_drain_end() - the connection's QP is drained
 * @conn: the connection
 *
 * The engine's last QP stops it: it takes no new QP and goes when the QP
 * leaves. Otherwise, once no other drain runs, the engine goes back to
 * learning of completions the way its mode does.
 *
 * Context: process context.
 */
void cqn_ep_cq_drain_end(struct cqn_conn *conn)
{
	struct cqn_ep_cq *ecq = conn->ecq;

	mutex_lock(&conn->ep->cqs_lock);
	ecq->drainers--;
	if (ecq->nqps == 1) {
		WRITE_ONCE(ecq->retired, true);
		cqn_cq_stop(ecq->cq);
		ecq->started = false;
	} else if (!ecq->drainers) {
		cqn_cq_drain_end(ecq->cq);
	}
	mutex_unlock(&conn->ep->cqs_lock);
}

/**
 * cqn_ep_cq_going() - the connection's drain ended short: its QP may leave
 *	completions behind on a shared CQ
 * @conn: the connection, its QP not destroyed yet
 *
 * An engine that serves other QPs goes on handing over completions, this
 * QP's too, after the QP is destroyed: their handlers find the connection
 * without reading the QP (cqn_cq_qp_going()) until it leaves the engine.
 *
 * Context: process context.
 */
void cqn_ep_cq_going(struct cqn_conn *conn)
{
	struct cqn_ep_cq *ecq = conn->ecq;

	mutex_lock(&conn->ep->cqs_lock);
	if (ecq->nqps > 1 && list_empty(&conn->gone.node))
		cqn_cq_qp_going(ecq->cq, &conn->gone, conn->qp, conn);
	mutex_unlock(&conn->ep->cqs_lock);
}

/**
 * cqn_ep_cq_leave() - the connection's QP is destroyed: leave its engine
 * @conn: the connection
 *
 * The last QP to leave destroys the engine and its CQ. One whose drain
 * ended short (conn->drain_short) leaves others on the CQ: the
 * completions its QP may have left there are handed over first
 * (cqn_cq_flush(); their handlers find the connection through
 * cqn_ep_cq_going()'s entry, not the QP), so none reaches a buffer freed
 * after this.
 *
 * Context: process context.
 */
void cqn_ep_cq_leave(struct cqn_conn *conn)
{
	struct cqn_endpoint *ep = conn->ep;
	struct cqn_ep_cq *ecq = conn->ecq;
	bool last;

	mutex_lock(&ep->cqs_lock);
	spin_lock_irq(&ecq->lock);
	list_del_init(&conn->cq_node);
	spin_unlock_irq(&ecq->lock);
	last = !--ecq->nqps;
	if (!last && conn->drain_short) {
		/* Its QP is gone; completions it left in the CQ go to it now. */
		pr_info_ratelimited("%s: connection %u: drain ended short; %d completions taken from its shared CQ %u before it goes\n",
				    ep->name, conn->id, cqn_cq_flush(ecq->cq), ecq->id);
		cqn_ep_cq_keep_draining(ecq);
	}
	if (last) {
		list_del(&ecq->node);
		if (ecq->started)
			cqn_cq_stop(ecq->cq);
		/* No handler runs after this: its QP's entry goes with it. */
		cqn_cq_destroy(ecq->cq);
		INIT_LIST_HEAD(&conn->gone.node);
	} else {
		/* The CQ holds nothing of its QP's any more. */
		cqn_cq_qp_gone(ecq->cq, &conn->gone);
	}
	mutex_unlock(&ep->cqs_lock);
	if (last)
		kfree(ecq);
	conn->ecq = NULL;
	conn->cq = NULL;
}

/**
 * cqn_ep_cq_retune() - make the connection's engine match the configuration
 * @conn: the connection
 *
 * Hands the live-tunable attributes (ep->cfg.cq, cq_depth per QP) to the
 * engine, which takes what differs (cqn_cq_reconfigure()): the QPs sharing
 * it call this in turn, and only the first changes anything. A drain in
 * progress on the engine keeps it polling.
 *
 * Context: process context, ep->tune_lock held.
 * Return: 0 or the first -errno; what failed keeps its previous setting.
 */
int cqn_ep_cq_retune(struct cqn_conn *conn)
{
	struct cqn_endpoint *ep = conn->ep;
	struct cqn_ep_cq *ecq = conn->ecq;
	struct cqn_cq_params p;
	int ret;

	lockdep_assert_held(&ep->tune_lock);
	mutex_lock(&ep->cqs_lock);
	cqn_ep_cq_params(ecq, &ep->cfg.cq, &p);
	ret = cqn_cq_reconfigure(ecq->cq, &p, ecq->slots * (conn->nsend + conn->nrecv + 1));
	cqn_ep_cq_keep_draining(ecq);
	WRITE_ONCE(ep->cq_depth_actual, cqn_cq_ib(ecq->cq)->cqe);
	mutex_unlock(&ep->cqs_lock);
	return ret;
}

/**
 * cqn_ep_cqs_show() - debugfs "cqs": the endpoint's CQ engines, one a line
 * @ep: the endpoint
 * @m: the file
 *
 * Context: process context.
 */
void cqn_ep_cqs_show(struct cqn_endpoint *ep, struct seq_file *m)
{
	struct cqn_ep_cq *ecq;
	char moder[64];

	mutex_lock(&ep->cqs_lock);
	list_for_each_entry(ecq, &ep->cqs, node) {
		cqn_cq_moderation_show(ecq->cq, moder, sizeof(moder));
		seq_printf(m, "cq %u device %s share %s group %u comp_vector %d qps %u slots %u cqe %d mode %s moderation %s%s\n",
			   ecq->id, dev_name(&ecq->dev->dev), cqn_cq_share_names[ep->cfg.cq_share],
			   ecq->group,
			   cqn_cq_comp_vector(ecq->cq), ecq->nqps, ecq->slots,
			   cqn_cq_ib(ecq->cq)->cqe, cqn_cq_mode_names[cqn_cq_mode(ecq->cq)],
			   moder, READ_ONCE(ecq->retired) ? " retired" : "");
	}
	mutex_unlock(&ep->cqs_lock);
}
