// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoints: create and destroy, enable and disable, the state shown to the
 * administrator, the reaper that destroys connections, and what happens to
 * endpoints when their RDMA device goes away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/slab.h>

#include "cqnotify.h"
#include "cqn_trace.h"

/* protects cqn_endpoints */
static DEFINE_MUTEX(cqn_endpoints_lock);
static LIST_HEAD(cqn_endpoints);

/*
 * The one place ep->state changes; ep->state_lock held. @new_run: the move
 * starts a run (enable); otherwise it is a move within a run.
 * cqn_ep_state_change_ok() says which moves are legal (an endpoint in
 * error stays there until disabled or enabled again; a run that is done
 * only ends). A new run clears last_error and the run's times; running
 * starts the run's clock unless a resumed run keeps its start; done and
 * error stop it (error keeps the first end). Going to error, or back to
 * connecting within a run, @why becomes last_error. Every change fires the
 * cqn_ep_state tracepoint with @why.
 */
static bool cqn_ep_move(struct cqn_endpoint *ep, enum cqn_ep_state to, const char *why,
			bool new_run)
{
	enum cqn_ep_state from = ep->state;

	lockdep_assert_held(&ep->state_lock);
	if (!cqn_ep_state_change_ok(from, to, new_run))
		return false;
	if (from != to)
		trace_cqn_ep_state(ep->name, cqn_ep_state_names[from], cqn_ep_state_names[to],
				   why);
	if (new_run) {
		ep->last_error[0] = '\0';
		WRITE_ONCE(ep->run_start_ns, 0);
		ep->run_end_ns = 0;
	}
	switch (to) {
	case CQN_EP_RUNNING:
		if (!ep->run_start_ns)
			WRITE_ONCE(ep->run_start_ns, ktime_get_ns());
		break;
	case CQN_EP_CONNECTING:
		if (!new_run)
			strscpy(ep->last_error, why, sizeof(ep->last_error));
		break;
	case CQN_EP_DONE:
		ep->run_end_ns = ktime_get_ns();
		break;
	case CQN_EP_ERROR:
		strscpy(ep->last_error, why, sizeof(ep->last_error));
		if (!ep->run_end_ns)
			ep->run_end_ns = ktime_get_ns();
		break;
	default:
		break;
	}
	WRITE_ONCE(ep->state, to);
	return true;
}

/**
 * __cqn_ep_change_state() - move the endpoint to @to within its run, if
 * that is a legal move
 * @ep: the endpoint, ep->state_lock held
 * @to: the new state
 * @why: the reason, for the cqn_ep_state tracepoint and, going to error or
 *	back to connecting, for last_error
 *
 * Context: any, ep->state_lock held.
 * Return: true if the endpoint is in @to now.
 */
bool __cqn_ep_change_state(struct cqn_endpoint *ep, enum cqn_ep_state to, const char *why)
{
	return cqn_ep_move(ep, to, why, false);
}

/**
 * cqn_ep_change_state() - move the endpoint to @to within its run, if that
 * is a legal move
 * @ep: the endpoint
 * @to: the new state
 * @why: the reason (see __cqn_ep_change_state())
 *
 * Context: any.
 * Return: true if the endpoint is in @to now.
 */
bool cqn_ep_change_state(struct cqn_endpoint *ep, enum cqn_ep_state to, const char *why)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&ep->state_lock, flags);
	ret = cqn_ep_move(ep, to, why, false);
	spin_unlock_irqrestore(&ep->state_lock, flags);
	return ret;
}

/**
 * __cqn_ep_start_run() - enable: move the endpoint to the first state of a
 * new run
 * @ep: the endpoint, ep->state_lock held, idle or in error
 * @to: CQN_EP_RUNNING (a server) or CQN_EP_CONNECTING (a client)
 *
 * Context: any, ep->state_lock held.
 * Return: true if the endpoint is in @to now.
 */
bool __cqn_ep_start_run(struct cqn_endpoint *ep, enum cqn_ep_state to)
{
	return cqn_ep_move(ep, to, "enabled", true);
}

/**
 * __cqn_ep_start_clock() - the run's clock starts now, unless it runs
 * already: a client's run starts once every connection is established,
 * and keeps its start across reconnects
 * @ep: the endpoint, ep->state_lock held
 *
 * Context: any, ep->state_lock held.
 */
void __cqn_ep_start_clock(struct cqn_endpoint *ep)
{
	lockdep_assert_held(&ep->state_lock);
	if (!ep->run_start_ns)
		WRITE_ONCE(ep->run_start_ns, ktime_get_ns());
}

/**
 * cqn_ep_conn_limit() - the most connections the endpoint has at once
 * @ep: the endpoint, enabled
 *
 * Context: any.
 * Return: a client's connections, a server's max_conns.
 */
u32 cqn_ep_conn_limit(const struct cqn_endpoint *ep)
{
	const struct cqn_role_ops *role = READ_ONCE(ep->role);

	return role && role->conn_limit ? role->conn_limit(ep) : READ_ONCE(ep->cfg.max_conns);
}

/**
 * cqn_ep_fail() - put an endpoint in the error state with a reason
 * @ep: the endpoint
 * @fmt: the reason, shown in last_error and logged (ratelimited)
 * @...: arguments for @fmt
 *
 * The first error of a run wins. Resources are not released here.
 *
 * Context: any.
 */
void cqn_ep_fail(struct cqn_endpoint *ep, const char *fmt, ...)
{
	char why[CQN_ERR_LEN];
	va_list args;

	va_start(args, fmt);
	vsnprintf(why, sizeof(why), fmt, args);
	va_end(args);
	if (cqn_ep_change_state(ep, CQN_EP_ERROR, why))
		pr_err_ratelimited("%s: %s\n", ep->name, why);
}

/**
 * cqn_ep_state() - the endpoint's state
 * @ep: the endpoint
 *
 * Context: any.
 * Return: an enum cqn_ep_state value.
 */
u32 cqn_ep_state(struct cqn_endpoint *ep)
{
	return READ_ONCE(ep->state);
}

/**
 * cqn_ep_run_ns() - how long the current (or last) run has lasted
 * @ep: the endpoint
 *
 * Context: any.
 * Return: nanoseconds, 0 if it never ran.
 */
u64 cqn_ep_run_ns(struct cqn_endpoint *ep)
{
	unsigned long flags;
	u64 start, end;

	spin_lock_irqsave(&ep->state_lock, flags);
	start = ep->run_start_ns;
	end = ep->run_end_ns ?: ktime_get_ns();
	spin_unlock_irqrestore(&ep->state_lock, flags);
	return start && end > start ? end - start : 0;
}

static void cqn_ep_reap_work(struct work_struct *work)
{
	struct cqn_endpoint *ep = container_of(work, struct cqn_endpoint, reap_work);
	struct cqn_conn *conn;

	for (;;) {
		/* A live change in progress may be using the connection. */
		mutex_lock(&ep->tune_lock);
		spin_lock_irq(&ep->state_lock);
		conn = list_first_entry_or_null(&ep->dead, struct cqn_conn, node);
		/* Still counted by cqn_ep_stats_sum() until it is retired. */
		if (conn)
			list_move_tail(&conn->node, &ep->reaping);
		spin_unlock_irq(&ep->state_lock);
		mutex_unlock(&ep->tune_lock);
		if (!conn)
			break;
		cqn_conn_destroy(conn, true);
	}
}

/*
 * Close every connection (on @ibdev only, if given) and wait until they are
 * gone. @why: the error that closes them (their role hears of each), or NULL.
 */
static void cqn_ep_close_conns(struct cqn_endpoint *ep, struct ib_device *ibdev,
			       const char *why)
{
	struct cqn_conn *conn, *tmp;

	spin_lock_irq(&ep->state_lock);
	list_for_each_entry_safe(conn, tmp, &ep->conns, node) {
		if (ibdev && conn->cm_id->device != ibdev)
			continue;
		conn->dead = true;
		list_move_tail(&conn->node, &ep->dead);
		ep->nconns--;
		trace_cqn_conn_state(conn,
				     READ_ONCE(conn->established) ? "established" : "connecting",
				     "closing", why ?: "endpoint stopped");
		if (why && ep->role->lost)
			ep->role->lost(conn, why);
	}
	spin_unlock_irq(&ep->state_lock);
	queue_work(cqn_reap_wq, &ep->reap_work);
	flush_work(&ep->reap_work);
}

/* Release everything a run holds; the state is left as it is. */
static void cqn_ep_stop(struct cqn_endpoint *ep)
{
	lockdep_assert_held(&ep->lock);
	spin_lock_irq(&ep->state_lock);
	WRITE_ONCE(ep->accepting, false);
	spin_unlock_irq(&ep->state_lock);
	if (ep->role && ep->role->stop)
		ep->role->stop(ep);

	cqn_ep_close_conns(ep, NULL, NULL);
	if (ep->cm_id) {
		/* Waits for its handlers; they can no longer add connections. */
		rdma_destroy_id(ep->cm_id);
		ep->cm_id = NULL;
	}
	flush_work(&ep->reap_work);
	/* A client's ids and slots, once nothing is left that uses them. */
	if (ep->role && ep->role->release)
		ep->role->release(ep);
	/* Every connection is gone: nothing receives from the SRQs any more. */
	cqn_srq_destroy_all(ep, NULL);

	spin_lock_irq(&ep->state_lock);
	if (!ep->run_end_ns && ep->run_start_ns)
		ep->run_end_ns = ktime_get_ns();
	spin_unlock_irq(&ep->state_lock);
}

/**
 * cqn_ep_queue_delayed() - queue work of an endpoint that may sleep (a
 * reconnect) on the reaper's workqueue
 * @dw: the work
 * @ms: the delay in milliseconds
 *
 * Context: any.
 */
void cqn_ep_queue_delayed(struct delayed_work *dw, unsigned int ms)
{
	queue_delayed_work(cqn_reap_wq, dw, msecs_to_jiffies(ms));
}

/**
 * cqn_ep_queue_reap() - have the reaper destroy the endpoint's dead connections
 * @ep: the endpoint
 *
 * Context: any.
 */
void cqn_ep_queue_reap(struct cqn_endpoint *ep)
{
	queue_work(cqn_reap_wq, &ep->reap_work);
}

/**
 * cqn_ep_enable() - start an endpoint: listen (server) or connect (client)
 * @ep: the endpoint, ep->lock held
 * @cfg: the configuration to run (copied)
 *
 * Statistics start again from zero with each run.
 *
 * Context: process context.
 * Return: 0; -EBUSY if already enabled; -EINVAL or -ERANGE for a
 * configuration that breaks a rule (last_error says which); or the -errno
 * of the rdma_cm (the endpoint is then in the error state).
 */
int cqn_ep_enable(struct cqn_endpoint *ep, const struct cqn_config *cfg)
{
	char why[CQN_ERR_LEN];
	int ret;

	lockdep_assert_held(&ep->lock);
	if (ep->enabled)
		return -EBUSY;
	/* Nothing of a previous run is left to read the old configuration. */
	ep->cfg = *cfg;
	ret = cqn_config_check(&ep->cfg, why, sizeof(why));
	if (ret) {
		pr_err_ratelimited("%s: cannot enable: %s\n", ep->name, why);
		spin_lock_irq(&ep->state_lock);
		strscpy(ep->last_error, why, sizeof(ep->last_error));
		spin_unlock_irq(&ep->state_lock);
		return ret;
	}

	cqn_ep_stats_reset(ep);
	WRITE_ONCE(ep->role, ep->cfg.role == CQN_ROLE_SERVER ? &cqn_server_ops : &cqn_client_ops);
	spin_lock_irq(&ep->state_lock);
	WRITE_ONCE(ep->accepting, true);
	spin_unlock_irq(&ep->state_lock);
	ret = ep->role->start(ep);
	if (ret) {
		cqn_ep_stop(ep);
		return ret;
	}
	ep->enabled = true;
	return 0;
}

/**
 * cqn_ep_disable() - stop an endpoint and release everything it holds
 * @ep: the endpoint, ep->lock held
 *
 * Every connection is disconnected and drained (every posted work request
 * completes, flushed ones are counted) before it is destroyed. last_error
 * is kept for the administrator to read.
 *
 * Context: process context.
 */
void cqn_ep_disable(struct cqn_endpoint *ep)
{
	lockdep_assert_held(&ep->lock);
	cqn_ep_stop(ep);
	cqn_ep_change_state(ep, CQN_EP_IDLE, "disabled");
	ep->enabled = false;
}

/**
 * cqn_endpoints_device_removed() - an RDMA device is going away
 * @ibdev: the device
 *
 * Connections on it are closed and destroyed before this returns; an
 * endpoint whose own id is bound to it (a client, one of whose slots' ids
 * is, or a server bound to one of its addresses) stops with last_error
 * "device <name> removed".
 *
 * Context: process context (the ib_client's remove()).
 */
void cqn_endpoints_device_removed(struct ib_device *ibdev)
{
	struct cqn_endpoint *ep;
	char why[CQN_ERR_LEN];

	snprintf(why, sizeof(why), "device %s removed", dev_name(&ibdev->dev));
	mutex_lock(&cqn_endpoints_lock);
	list_for_each_entry(ep, &cqn_endpoints, node) {
		mutex_lock(&ep->lock);
		if ((ep->cm_id && ep->cm_id->device == ibdev) ||
		    (ep->role && ep->role->on_device && ep->role->on_device(ep, ibdev))) {
			cqn_ep_fail(ep, "%s", why);
			cqn_ep_stop(ep);
		} else {
			cqn_ep_close_conns(ep, ibdev, why);
			cqn_srq_destroy_all(ep, ibdev);
		}
		mutex_unlock(&ep->lock);
	}
	mutex_unlock(&cqn_endpoints_lock);
}

/**
 * cqn_ep_create() - a new, idle endpoint with the default configuration
 * @name: the configfs directory name (copied)
 *
 * Context: process context.
 * Return: the endpoint or ERR_PTR(-ENOMEM).
 */
struct cqn_endpoint *cqn_ep_create(const char *name)
{
	struct cqn_endpoint *ep;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ep->name = kstrdup(name, GFP_KERNEL);
	if (!ep->name || cqn_stats_create(&ep->stats)) {
		kfree(ep->name);
		kfree(ep);
		return ERR_PTR(-ENOMEM);
	}
	mutex_init(&ep->lock);
	mutex_init(&ep->tune_lock);
	mutex_init(&ep->cqs_lock);
	INIT_LIST_HEAD(&ep->cqs);
	spin_lock_init(&ep->state_lock);
	INIT_LIST_HEAD(&ep->conns);
	INIT_LIST_HEAD(&ep->dead);
	INIT_LIST_HEAD(&ep->reaping);
	INIT_WORK(&ep->reap_work, cqn_ep_reap_work);
	cqn_srq_ep_init(ep);
	cqn_config_defaults(&ep->cfg);
	ep->state = CQN_EP_IDLE;
	return ep;
}

/**
 * cqn_ep_register() - make a new endpoint visible (debugfs, device removal)
 * @ep: the endpoint
 *
 * Context: process context.
 */
void cqn_ep_register(struct cqn_endpoint *ep)
{
	cqn_debugfs_ep_create(ep);
	mutex_lock(&cqn_endpoints_lock);
	list_add_tail(&ep->node, &cqn_endpoints);
	mutex_unlock(&cqn_endpoints_lock);
}

/**
 * cqn_ep_unregister() - stop an endpoint that is being removed (rmdir,
 * or the service unloading)
 * @ep: the endpoint
 *
 * Context: process context.
 */
void cqn_ep_unregister(struct cqn_endpoint *ep)
{
	mutex_lock(&cqn_endpoints_lock);
	list_del(&ep->node);
	mutex_unlock(&cqn_endpoints_lock);

	mutex_lock(&ep->lock);
	if (ep->enabled)
		cqn_ep_disable(ep);
	mutex_unlock(&ep->lock);
	cqn_debugfs_ep_destroy(ep);
}

/**
 * cqn_ep_destroy() - free an endpoint
 * @ep: the endpoint, unregistered
 *
 * Context: process context.
 */
void cqn_ep_destroy(struct cqn_endpoint *ep)
{
	cancel_work_sync(&ep->reap_work);
	WARN_ON_ONCE(!list_empty(&ep->cqs));
	cqn_stats_destroy(&ep->stats);
	mutex_destroy(&ep->cqs_lock);
	mutex_destroy(&ep->lock);
	kfree(ep->name);
	kfree(ep);
}

/**
 * cqn_endpoint_exit() - module exit: every endpoint is gone
 *
 * Context: process context.
 */
void cqn_endpoint_exit(void)
{
	WARN_ON(!list_empty(&cqn_endpoints));
}
