// SPDX-License-Identifier: GPL-2.0
/*
 * What an endpoint does across its connections: their counters summed and
 * reset, live changes applied to each, what the newest one's CQ runs with,
 * and the fault knobs that act on every live connection.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "cqnotify.h"

/**
 * cqn_ep_stats_sum() - the endpoint's counters: its own, its connections'
 * and those of connections already closed
 * @ep: the endpoint
 * @sum: zeroed by the caller, filled in
 *
 * Context: process context.
 */
void cqn_ep_stats_sum(struct cqn_endpoint *ep, struct cqn_stats_sum *sum)
{
	struct cqn_conn *conn;

	cqn_stats_add_to(&ep->stats, sum);
	spin_lock_irq(&ep->state_lock);
	cqn_stats_sum_add(sum, &ep->retired);
	sum->poll_window_us = 0;
	sum->poll_window_trial_pct = 0;
	sum->poll_spin_us = 0;
	sum->poll_host_missed_pct = 0;
	list_for_each_entry(conn, &ep->conns, node) {
		cqn_stats_add_to(&conn->stats, sum);
		sum->poll_window_us = max_t(u64, sum->poll_window_us,
					    cqn_cq_window_us(conn->cq));
		sum->poll_window_trial_pct = max_t(u64, sum->poll_window_trial_pct,
						   cqn_cq_window_trial_pct(conn->cq));
		sum->poll_spin_us = max_t(u64, sum->poll_spin_us, cqn_cq_spin_us(conn->cq));
		sum->poll_host_missed_pct = max_t(u64, sum->poll_host_missed_pct,
						  cqn_cq_host_missed_pct(conn->cq));
	}
	list_for_each_entry(conn, &ep->dead, node)
		cqn_stats_add_to(&conn->stats, sum);
	list_for_each_entry(conn, &ep->reaping, node)
		cqn_stats_add_to(&conn->stats, sum);
	spin_unlock_irq(&ep->state_lock);
}

/**
 * cqn_ep_conns_closing() - connections closed but not yet torn down
 * @ep: the endpoint
 *
 * A connection leaves ``conns_active`` when it is closed and is torn down
 * by the reaper afterwards: drained (a drain on a broken CQ waits for its
 * marker up to its timeout), destroyed, its work requests accounted. Until
 * this is 0 as well, the endpoint's accounting may not balance yet.
 *
 * Context: process context; takes @ep->state_lock.
 * Return: the connections on @ep->dead and @ep->reaping.
 */
u32 cqn_ep_conns_closing(struct cqn_endpoint *ep)
{
	struct cqn_conn *conn;
	u32 n = 0;

	spin_lock_irq(&ep->state_lock);
	list_for_each_entry(conn, &ep->dead, node)
		n++;
	list_for_each_entry(conn, &ep->reaping, node)
		n++;
	spin_unlock_irq(&ep->state_lock);
	return n;
}

/**
 * cqn_ep_stats_reset() - zero every counter of the endpoint
 * @ep: the endpoint
 *
 * Context: process context.
 */
void cqn_ep_stats_reset(struct cqn_endpoint *ep)
{
	struct cqn_conn *conn;

	cqn_stats_reset(&ep->stats);
	spin_lock_irq(&ep->state_lock);
	memset(&ep->retired, 0, sizeof(ep->retired));
	list_for_each_entry(conn, &ep->conns, node)
		cqn_stats_reset(&conn->stats);
	list_for_each_entry(conn, &ep->dead, node)
		cqn_stats_reset(&conn->stats);
	list_for_each_entry(conn, &ep->reaping, node)
		cqn_stats_reset(&conn->stats);
	cqn_client_slots_reset(ep);
	spin_unlock_irq(&ep->state_lock);
}

/**
 * cqn_ep_apply_to_conns() - call a function on every live connection
 * @fn: what to call, outside every spinlock; an error stops the walk
 * @ep: the endpoint
 *
 * The connections stay allocated meanwhile: the reaper needs ep->tune_lock
 * to take one away. @fn may close a connection (the reaper destroys it
 * once this returns).
 *
 * Context: process context; not under ep->tune_lock.
 * Return: the number of connections, or the first -errno of @fn.
 */
int cqn_ep_apply_to_conns(int (*fn)(struct cqn_conn *conn), struct cqn_endpoint *ep)
{
	struct cqn_conn **conns, *conn;
	u32 n = 0, i, max = cqn_ep_conn_limit(ep);
	int ret = 0;

	conns = kcalloc(max, sizeof(*conns), GFP_KERNEL);
	if (!conns)
		return -ENOMEM;
	mutex_lock(&ep->tune_lock);
	spin_lock_irq(&ep->state_lock);
	list_for_each_entry(conn, &ep->conns, node) {
		if (n == max)
			break;
		conns[n++] = conn;
	}
	spin_unlock_irq(&ep->state_lock);
	for (i = 0; i < n && !ret; i++)
		ret = fn(conns[i]);
	mutex_unlock(&ep->tune_lock);
	kfree(conns);
	return ret ?: n;
}

/**
 * cqn_ep_retune() - apply the live-tunable attributes to every connection
 * @ep: the endpoint, ep->lock held, enabled
 *
 * Connections created meanwhile catch up by themselves (cqn_conn_publish()).
 *
 * Context: process context.
 * Return: 0, or the first -errno (the caller restores the attribute and
 * calls this again so that every connection runs the old value).
 */
int cqn_ep_retune(struct cqn_endpoint *ep)
{
	int ret;

	lockdep_assert_held(&ep->lock);
	ret = cqn_ep_apply_to_conns(cqn_conn_retune, ep);
	return ret < 0 ? ret : 0;
}

/**
 * cqn_ep_fault_qp_error() - fault injection: move the QP of every live
 * connection to the error state
 * @ep: the endpoint
 *
 * Every work request outstanding on them completes with a flush; the
 * connections close (a client with reconnect=1 connects again).
 *
 * Context: process context.
 * Return: the number of connections hit, or -errno.
 */
int cqn_ep_fault_qp_error(struct cqn_endpoint *ep)
{
	return cqn_ep_apply_to_conns(cqn_conn_fault_qp_error, ep);
}

/**
 * cqn_ep_moderation_show() - moderation_effective: what the newest
 * connection's CQ runs with
 * @ep: the endpoint
 * @buf: output
 * @len: size of @buf
 *
 * Context: process context.
 * Return: the length written; "off" without a connection.
 */
int cqn_ep_moderation_show(struct cqn_endpoint *ep, char *buf, size_t len)
{
	struct cqn_conn *conn;
	int n;

	spin_lock_irq(&ep->state_lock);
	if (list_empty(&ep->conns)) {
		n = scnprintf(buf, len, "off");
	} else {
		conn = list_last_entry(&ep->conns, struct cqn_conn, node);
		n = cqn_cq_moderation_show(conn->cq, buf, len);
	}
	spin_unlock_irq(&ep->state_lock);
	return n;
}

/*
 * Apply a fault knob's value to every CQ engine of the endpoint: each
 * connection's, or each shared one once (cq_share).
 */
static void cqn_ep_set_each_cq(struct cqn_endpoint *ep, void (*set)(struct cqn_cq *c, u32 v),
			       u32 v)
{
	struct cqn_ep_cq *ecq;

	mutex_lock(&ep->cqs_lock);
	list_for_each_entry(ecq, &ep->cqs, node)
		set(ecq->cq, v);
	mutex_unlock(&ep->cqs_lock);
}

/**
 * cqn_ep_fault_drop_events() - fault injection: every CQ engine of the
 * endpoint loses its next @n completion events
 * @ep: the endpoint
 * @n: events to lose per engine
 *
 * Context: process context.
 */
void cqn_ep_fault_drop_events(struct cqn_endpoint *ep, u32 n)
{
	cqn_ep_set_each_cq(ep, cqn_cq_fault_drop_events, n);
}

/**
 * cqn_ep_fault_arm_delay() - fault injection: every CQ engine of the
 * endpoint waits @us between a wakeup's last empty poll and its arm
 * @ep: the endpoint
 * @us: the wait in microseconds; 0 stops it
 *
 * Context: process context.
 */
void cqn_ep_fault_arm_delay(struct cqn_endpoint *ep, u32 us)
{
	cqn_ep_set_each_cq(ep, cqn_cq_fault_arm_delay, us);
}

/**
 * cqn_ep_fault_spurious_events() - fault injection: every CQ engine of the
 * endpoint takes a burst of @n events with nothing behind them
 * @ep: the endpoint
 * @n: events per engine
 *
 * Context: process context.
 * Return: 0, or -EOPNOTSUPP when the endpoint's cq_mode is one of the core's.
 */
int cqn_ep_fault_spurious_events(struct cqn_endpoint *ep, u32 n)
{
	struct cqn_ep_cq *ecq;
	int ret = 0;

	mutex_lock(&ep->cqs_lock);
	list_for_each_entry(ecq, &ep->cqs, node) {
		ret = cqn_cq_fault_spurious_events(ecq->cq, n);
		if (ret)
			break;
	}
	mutex_unlock(&ep->cqs_lock);
	return ret;
}
