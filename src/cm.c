// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_cm: listening and accepting (server), resolving and connecting
 * (client), and every connection-manager event in between.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/error-injection.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>

#include "cqnotify.h"
#include "cqn_trace.h"

/* How long address and route resolution may take. */
#define CQN_RESOLVE_TIMEOUT_MS	2000
/* Transport retries before a silent peer fails the connection. */
#define CQN_RETRY_COUNT		7
/* Connect requests the listener may hold while they are accepted. */
#define CQN_LISTEN_BACKLOG	128

static const char *cqn_cm_devname(struct rdma_cm_id *id)
{
	return id->device ? dev_name(&id->device->dev) : "(none)";
}

/*
 * The RNR retry count @ep advertises (REQ or REP): the peer's QP uses it
 * for the sends it makes to this side, whose receive ring it describes.
 * Infinite unless the fault_rnr_retry knob says otherwise.
 */
static u8 cqn_cm_rnr_retry(struct cqn_endpoint *ep)
{
	u32 v = READ_ONCE(ep->fault_rnr_retry);

	return v ? v - 1 : CQN_RNR_RETRY_INFINITE;
}

/*
 * Server: a peer asks to connect. The new id's context is the endpoint (the
 * listener's, which the rdma_cm copies), and stays so.
 */
static int cqn_cm_connect_request(struct cqn_endpoint *ep, struct rdma_cm_id *id)
{
	struct rdma_conn_param param = {
		.rnr_retry_count = cqn_cm_rnr_retry(ep),
	};
	struct cqn_conn *conn;
	bool full;
	int ret;

	spin_lock_irq(&ep->state_lock);
	full = !ep->accepting || ep->nconns >= ep->cfg.max_conns;
	spin_unlock_irq(&ep->state_lock);
	if (full) {
		ret = -ECONNREFUSED;
		goto reject;
	}
	conn = cqn_conn_create(ep, id);
	if (IS_ERR(conn)) {
		ret = PTR_ERR(conn);
		pr_err_ratelimited("%s: connection from %pISpc failed: %pe\n",
				   ep->name,
				   &id->route.addr.dst_addr, conn);
		goto reject;
	}
	ret = cqn_conn_publish(conn);
	if (ret) {
		cqn_conn_destroy(conn, false);
		goto reject;
	}
	cqn_stat_inc(&ep->stats, CQN_STAT_conns_accepted);
	ret = rdma_accept(id, &param);
	if (ret)
		cqn_conn_close(conn, "accept failed: %pe", ERR_PTR(ret));
	/* The connection owns the id now; the reaper destroys both. */
	return 0;

reject:
	cqn_stat_inc(&ep->stats, CQN_STAT_conns_rejected);
	pr_info_ratelimited("%s: rejected connection from %pISpc: %pe\n",
			    ep->name,
			    &id->route.addr.dst_addr, ERR_PTR(ret));
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	/* Non-zero: the rdma_cm destroys the id. */
	return ret;
}

/* Events of a connection (server child id, or a client id with a QP). */
static void cqn_cm_conn_event(struct cqn_conn *conn, struct rdma_cm_id *id,
			      struct rdma_cm_event *ev)
{
	struct cqn_endpoint *ep = conn->ep;
	const char *why;

	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		spin_lock_bh(&conn->lock);
		conn->established = true;
		spin_unlock_bh(&conn->lock);
		/*
		 * A server's first message may fail it before ESTABLISHED is
		 * seen, and the reaper may be tearing it down (its id goes
		 * after the drain): a connection already closed starts nothing.
		 */
		if (READ_ONCE(conn->dead))
			break;
		trace_cqn_conn_state(conn, "connecting", "established", "rdma_cm ESTABLISHED");
		if (ep->role->established)
			ep->role->established(conn);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		why = ep->role->peer_left(conn);
		if (why)
			cqn_conn_close(conn, "%s", why);
		else
			cqn_conn_close(conn, NULL);
		break;
	case RDMA_CM_EVENT_REJECTED:
		cqn_conn_close(conn, "peer rejected: %s", rdma_reject_msg(id, ev->status));
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		cqn_conn_close(conn, "connect failed: %s (%d)", rdma_event_msg(ev->event),
			       ev->status);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		cqn_conn_close(conn, "device %s removed", cqn_cm_devname(id));
		break;
	default:
		pr_debug("connection %u: %s\n", conn->id, rdma_event_msg(ev->event));
		break;
	}
}

static int cqn_cm_client_resolved(struct cqn_endpoint *ep, struct rdma_cm_id *id)
{
	struct rdma_conn_param param = {
		.rnr_retry_count = cqn_cm_rnr_retry(ep),
		.retry_count = CQN_RETRY_COUNT,
	};
	struct cqn_conn *conn;
	int ret;

	conn = cqn_conn_create(ep, id);
	if (IS_ERR(conn)) {
		cqn_ep_fail(ep, "creating the connection on %s failed: %pe",
			    cqn_cm_devname(id), conn);
		return PTR_ERR(conn);
	}
	ret = cqn_conn_publish(conn);
	if (ret) {
		cqn_conn_destroy(conn, false);
		/* Not stopping: the slot would wait in connecting for ever. */
		if (READ_ONCE(ep->accepting))
			cqn_ep_fail(ep, "connection on %s refused: %u of %u connections live",
				    cqn_cm_devname(id), READ_ONCE(ep->nconns),
				    cqn_ep_conn_limit(ep));
		return ret;
	}
	/* In the handler, whose mutex the plain rdma_connect() would take again. */
	ret = rdma_connect_locked(id, &param);
	if (ret)
		cqn_conn_close(conn, "connect failed: %pe", ERR_PTR(ret));
	return 0;
}

/*
 * Context: rdma_cm event handler (process context, the id's handler_mutex
 * held). Client ids belong to their endpoint, so this never returns
 * non-zero for them; a server child id is destroyed by the rdma_cm when
 * its connect request handler returns non-zero.
 */
static int cqn_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cqn_endpoint *ep = id->context;
	int ret;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return cqn_cm_connect_request(ep, id);
	/* A connection on the id has a QP, whose context it is (as nvmet-rdma). */
	if (id->qp) {
		cqn_cm_conn_event(id->qp->qp_context, id, ev);
		return 0;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, CQN_RESOLVE_TIMEOUT_MS);
		if (ret)
			cqn_client_id_lost(ep, id, "route resolution failed: %pe", ERR_PTR(ret));
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		cqn_cm_client_resolved(ep, id);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		cqn_client_id_lost(ep, id, "address resolution failed: %pe", ERR_PTR(ev->status));
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		cqn_client_id_lost(ep, id, "route resolution failed: %pe", ERR_PTR(ev->status));
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* The ib_client's remove() stops the endpoint and frees the id. */
		cqn_ep_fail(ep, "device %s removed", cqn_cm_devname(id));
		break;
	default:
		pr_debug("%s: %s\n", ep->name,
			 rdma_event_msg(ev->event));
		break;
	}
	return 0;
}

/* A new rdma_cm id for @ep, and the endpoint's address with its port in @addr. */
static struct rdma_cm_id *cqn_cm_create_id(struct cqn_endpoint *ep,
					   struct sockaddr_storage *addr)
{
	struct rdma_cm_id *id;

	lockdep_assert_held(&ep->lock);
	*addr = ep->cfg.addr;
	if (addr->ss_family == AF_INET6)
		((struct sockaddr_in6 *)addr)->sin6_port = htons(ep->cfg.port);
	else
		((struct sockaddr_in *)addr)->sin_port = htons(ep->cfg.port);
	id = rdma_create_id(&init_net, cqn_cm_handler, ep, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		cqn_ep_fail(ep, "creating the rdma_cm id failed: %pe", id);
	return id;
}

/* Fault-injection points of enable (fail_function). */
static noinline int cqn_cm_listen_id(struct rdma_cm_id *id)
{
	return rdma_listen(id, CQN_LISTEN_BACKLOG);
}

ALLOW_ERROR_INJECTION(cqn_cm_listen_id, ERRNO);

static noinline int cqn_cm_resolve(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return rdma_resolve_addr(id, NULL, addr, CQN_RESOLVE_TIMEOUT_MS);
}

ALLOW_ERROR_INJECTION(cqn_cm_resolve, ERRNO);

/* A server's first step: bind to its address, then listen. */
static int cqn_cm_bind_listen(struct rdma_cm_id *id, struct sockaddr *addr, const char **what)
{
	int ret;

	*what = "bind to";
	ret = rdma_bind_addr(id, addr);
	if (ret)
		return ret;
	*what = "listen on";
	return cqn_cm_listen_id(id);
}

/* A client's first step: resolve the server's address (events do the rest). */
static int cqn_cm_resolve_addr(struct rdma_cm_id *id, struct sockaddr *addr, const char **what)
{
	*what = "address resolution of";
	return cqn_cm_resolve(id, addr);
}

/*
 * An id of the endpoint's own in *@idp (ep->cm_id, or a client slot's),
 * and its first @step on the endpoint's address: on failure the endpoint
 * fails with what the step was doing, and the id goes. *@idp is set before
 * the step, which may start events: the handler finds a slot by its id.
 */
static int cqn_cm_start(struct cqn_endpoint *ep, struct rdma_cm_id **idp,
			int (*step)(struct rdma_cm_id *id, struct sockaddr *addr,
				    const char **what))
{
	struct sockaddr_storage addr;
	const char *what = "";
	struct rdma_cm_id *id;
	int ret;

	id = cqn_cm_create_id(ep, &addr);
	if (IS_ERR(id))
		return PTR_ERR(id);
	WRITE_ONCE(*idp, id);
	ret = step(id, (struct sockaddr *)&addr, &what);
	if (ret) {
		cqn_ep_fail(ep, "%s %pISpc failed: %pe", what, &addr, ERR_PTR(ret));
		WRITE_ONCE(*idp, NULL);
		rdma_destroy_id(id);
	}
	return ret;
}

/**
 * cqn_cm_listen() - start a server endpoint listening
 * @ep: the endpoint, ep->lock held
 *
 * Context: process context.
 * Return: 0 or -errno (the reason is in last_error).
 */
int cqn_cm_listen(struct cqn_endpoint *ep)
{
	return cqn_cm_start(ep, &ep->cm_id, cqn_cm_bind_listen);
}

/**
 * cqn_cm_connect() - start one connection of a client endpoint: resolve
 * the server's address
 * @ep: the endpoint, ep->lock held
 * @idp: where the new id goes (a connection slot's), NULL on failure
 *
 * The rest (route, connection, workload) follows from rdma_cm events.
 *
 * Context: process context.
 * Return: 0 or -errno (the reason is in last_error).
 */
int cqn_cm_connect(struct cqn_endpoint *ep, struct rdma_cm_id **idp)
{
	return cqn_cm_start(ep, idp, cqn_cm_resolve_addr);
}
