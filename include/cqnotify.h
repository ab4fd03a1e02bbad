/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqnotify core: the objects every part of the module shares, and the lock order.
 *
 * An endpoint (a configfs directory) owns its connections and its CQ
 * engines (struct cqn_ep_cq around struct cqn_cq, src/cq.h; one per
 * connection, per CPU or per endpoint: cq_share); a connection owns an RC QP
 * and its buffers, and its QP uses one engine, the only place that knows how
 * completions are learned and hands each one to the connection through
 * wr_cqe->done. A connection (struct cqn_conn) knows no
 * role; the server's and the client's connections embed it, and what a
 * role does is in its struct cqn_role_ops.
 *
 * Lock order (take the outer lock first, never the reverse). The configfs
 * front end's locks (src/configfs/configfs.c) come before all of these:
 * cqn_service_sem (rwsem) -> cqn_ep_dirs_lock -> dir->lock, then the
 * service's operations take what they need below.
 *
 *   cqn_endpoints_lock (mutex, src/endpoint.c)	the list of endpoints
 *     ep->lock (mutex)				configuration, enable/disable
 *       ep->tune_lock (mutex)			live changes of CQ engines
 *         ep->cqs_lock (mutex, src/ep_cqs.c)	the CQ engines, the QPs each serves
 *           ecq->lock (spinlock, irqsave)	an engine's list of QPs (its callbacks
 *						close connections under it)
 *         ep->state_lock (spinlock, irqsave)	state, last_error, connection lists,
 *						a client's connection slots (ep->clt)
 *           conn->lock (spinlock, bh)		a connection's rings and its role's
 *						workload (struct cqn_srv_conn, _clt_conn)
 *         cq->lock (spinlock, irqsave)		a CQ engine's staging ring
 *     ep->srq.lock (mutex, src/srq.c)		a server's SRQs; also taken in
 *						rdma_cm handlers, without ep->lock
 *
 *   cqn_devices_lock (mutex, src/device.c) is a leaf: nothing is taken under it.
 *
 * rdma_cm event handlers run with the RDMA core's handler_mutex of their id
 * held, and rdma_destroy_id() takes that mutex: so no handler ever takes
 * ep->lock, and ep->lock is never held while waiting for a connection to be
 * destroyed by the reaper (ep->reap_work), the one place connections die.
 * A handler may take ep->tune_lock (a new connection catching up with a
 * live change): whoever holds it never waits for a handler or the reaper.
 * A handler finds its connection through the id's QP (id->qp->qp_context):
 * the reaper destroys the id before the QP (as nvme-rdma does), so no
 * handler runs once the QP and the connection go (cqn_conn_destroy()).
 */
#ifndef _CQNOTIFY_H
#define _CQNOTIFY_H

#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "cqn_compat.h"
#include "cqn_config.h"
#include "cqn_moder.h"
#include "cqn_service.h"
#include "cqn_stats.h"

/* Infinite RNR retries: a slow peer that has not reposted yet is not an error. */
#define CQN_RNR_RETRY_INFINITE	7
/* Largest burst fault_spurious_events injects per connection. */
#define CQN_SPURIOUS_EVENTS_MAX	10000
/* fault_arm_delay_us: the longest wait before an arm (a quiesce waits it) */
#define CQN_ARM_DELAY_US_MAX	100000

/**
 * struct cqn_device - an RDMA device as seen by the cqnotify ib_client
 * @node: entry on the device list, protected by cqn_devices_lock
 * @ibdev: the device; valid from the client's add() until its remove()
 */
struct cqn_device {
	struct list_head node;
	struct ib_device *ibdev;
};

/**
 * struct cqn_cq_owner - what the CQ engine needs from the connection it serves
 * @fatal: the CQ reported an asynchronous error; called in any context
 * @need_any: solicited_only: may the CQ be armed for solicited completions
 *	only? Returns true when the owner is waiting for a completion that
 *	raises no solicited event (a send completion); process context
 * @busy: does the owner wait for completions (work outstanding)? For the
 *	silent-CQ watchdog; any context, must not sleep
 */
struct cqn_cq_owner {
	void (*fatal)(void *owner, const char *why);
	bool (*need_any)(void *owner);
	bool (*busy)(void *owner);
};

struct cqn_cq;

/**
 * struct cqn_cq_gone - a QP that may leave completions in a shared CQ
 *	after it is destroyed (cqn_cq_qp_going())
 * @node: on the engine's list
 * @qp: the QP: compared with wc->qp, never dereferenced
 * @ctx: its qp_context
 */
struct cqn_cq_gone {
	struct list_head node;
	const struct ib_qp *qp;
	void *ctx;
};

struct cqn_srq;
struct cqn_srq_dev;

/**
 * struct cqn_buf - one message buffer and its work request identity
 * @data: the buffer
 * @dma: its DMA address
 * @cqe: identifies the work request; its done() handles the completion
 * @conn: the owning connection; NULL for a buffer of an SRQ
 * @srq: the owning SRQ (a server's receive buffer with srq=1), or NULL
 * @idx: index in its ring
 * @len: bytes posted (send buffers), or received (a receive waiting for a
 *	send buffer)
 * @flags: CQN_BUF_POSTED while its work request is outstanding
 *	(cqn_conn_wc_dup())
 *
 * A receive completion names its connection in wc->qp->qp_context, whoever
 * owns the buffer; a buffer goes back where it came from
 * (cqn_conn_repost_recv()).
 */
struct cqn_buf {
	void *data;
	u64 dma;
	struct ib_cqe cqe;
	struct cqn_conn *conn;
	struct cqn_srq *srq;
	u32 idx;
	u32 len;
	unsigned long flags;
};

/* cqn_buf.flags: its work request is posted and has not completed yet. */
#define CQN_BUF_POSTED	0

struct cqn_endpoint;

/**
 * struct cqn_drain - a marker work request of a bounded drain
 * @cqe: its identity; done() completes @done
 * @done: completed when the marker's completion arrives
 */
struct cqn_drain {
	struct ib_cqe cqe;
	struct completion done;
};

struct cqn_role_ops;

/**
 * struct cqn_conn - one RC connection, the part that knows no role
 * @ep: the endpoint it belongs to
 * @node: on @ep->conns while alive, on @ep->dead once closing
 * @id: number within the endpoint, for names and comp_vector choice
 * @cm_id: its rdma_cm id; its context stays the endpoint, the connection
 *	is found through @cm_id->qp->qp_context
 * @pd: protection domain on the connection's device
 * @cq: the CQ engine serving both queues (src/cq.c): @ecq's
 * @ecq: the endpoint's engine it joined (its own, or shared: cq_share)
 * @cq_node: on @ecq's QPs (protected by its lock)
 * @gone: on @cq's list of QPs whose completions may outlive them, from a
 *	short drain on a shared CQ until it leaves (cqn_ep_cq_going())
 * @qp: the RC QP (@cm_id->qp)
 * @qpn: its number, kept for what runs after the QP is destroyed (tracepoints
 *	of completions a shared CQ hands over after a short drain)
 * @msg_size: buffer size
 * @sbufs: send ring
 * @rbufs: receive ring
 * @nsend: send ring size
 * @nrecv: receive ring size
 * @lock: protects everything below, and the role's state
 * @free_send: stack of free send buffer indices (cqn_conn_get_send(),
 *	cqn_conn_put_send())
 * @nfree_send: entries on @free_send
 * @posted_recv: receives currently posted
 * @drain_short: teardown's drain ended with work requests not seen
 *	completing (a marker that never came, or one not waited for): their
 *	completions may still sit in a CQ that outlives the QP (src/ep_cqs.c)
 * @established: the connection reached RDMA_CM_EVENT_ESTABLISHED
 * @dead: closing; on @ep->dead (protected by ep->state_lock)
 * @stats: this connection's counters
 * @dbg_dir: debugfs directory conns/<id>
 * @peer: peer address, for logs and debugfs
 * @sdrain: send queue marker of teardown's bounded drain
 * @rdrain: receive queue marker of a bounded drain (not with an SRQ)
 * @srq_dev: srq=1: the endpoint's SRQs on the connection's device, whose
 *	PD the connection uses (src/srq.c); NULL otherwise
 * @srq: srq=1: the SRQ its QP receives from (that of its CQ's completion
 *	vector); it has no receive ring (@rbufs NULL, @posted_recv 0)
 * @last_wqe: completed by IB_EVENT_QP_LAST_WQE_REACHED (a QP on an SRQ)
 *
 * A server's connection (struct cqn_srv_conn, src/server.c) and a client's
 * (struct cqn_clt_conn, src/client.c) embed it; what they add is reached
 * through the endpoint's role operations (struct cqn_role_ops).
 */
struct cqn_conn {
	struct cqn_endpoint *ep;
	struct list_head node;
	u32 id;
	struct rdma_cm_id *cm_id;
	struct ib_pd *pd;
	struct cqn_cq *cq;
	struct cqn_ep_cq *ecq;
	struct list_head cq_node;
	struct cqn_cq_gone gone;
	struct ib_qp *qp;
	u32 qpn;
	u32 msg_size;
	struct cqn_buf *sbufs;
	struct cqn_buf *rbufs;
	u32 nsend;
	u32 nrecv;

	/* protects the rings, the role's workload state and established */
	spinlock_t lock;
	u32 *free_send;
	u32 nfree_send;
	u32 posted_recv;
	bool drain_short;
	bool established;

	bool dead;
	struct cqn_stats stats;
	struct dentry *dbg_dir;
	char peer[64];
	struct cqn_drain sdrain;
	struct cqn_drain rdrain;
	struct cqn_srq_dev *srq_dev;
	struct cqn_srq *srq;
	struct completion last_wqe;
};

/**
 * struct cqn_role_ops - what a role adds to the connections and the
 * endpoint that know no role
 * @created: why a new connection exists (its first cqn_conn_state event)
 * @take_id: the reaper is destroying @conn: the rdma_cm id to destroy with
 *	it (a server's child id; a client's slot gives its id up, the slot
 *	connects again with a new one), or NULL; process context
 * @one_conn: does the endpoint have one connection at a time, which its
 *	debugfs stats name (a client of connections=1)? NULL for no
 * @conn_limit: the most connections the endpoint has at once (a client's
 *	connections); NULL for max_conns (a server)
 * @conn_alloc: allocate the role's connection on @cm_id, which embeds
 *	struct cqn_conn, with its role state sized by the configuration;
 *	process context. Returns the base connection or NULL
 * @conn_free: free what @conn_alloc allocated
 * @recv_done: the wr_cqe->done of the receive buffers
 * @send_done: the wr_cqe->done of the send buffers
 * @start: enable: start a new run in the role's first state
 *	(__cqn_ep_start_run()) and listen or connect; ep->lock held.
 *	Returns 0 or -errno (the reason in last_error)
 * @stop: disable: stop what the role runs besides its connections (the
 *	client's reconnects); ep->lock held, accepting already false. May be NULL
 * @release: disable, once every connection is destroyed: free what
 *	@start allocated (a client's ids and slots); ep->lock held. May be NULL
 * @on_device: does the endpoint hold an id of its own on @ibdev (a
 *	client's slots)? ep->lock held. NULL: only ep->cm_id counts
 * @established: a connection reached ESTABLISHED; rdma_cm handler. May
 *	be NULL
 * @lost: a connection closed with an error, @why; any context,
 *	ep->state_lock held (it must not sleep). NULL when that is no concern
 *	of the endpoint's (a server)
 * @peer_left: the peer disconnected: is that an error? NULL for a
 *	normal close, or the reason
 * @need_any: the CQ engine's question (struct cqn_cq_owner) for the role
 * @busy: does the role wait for something beyond sends in flight (for the
 *	silent-CQ watchdog); any context, must not sleep
 * @quiesce: teardown, before the drain: start nothing new. May be NULL
 * @retire: teardown, drained, ep->state_lock held: what a later
 *	connection of the run takes over. May be NULL
 */
struct cqn_role_ops {
	const char *created;
	struct rdma_cm_id *(*take_id)(struct cqn_conn *conn);
	bool (*one_conn)(const struct cqn_endpoint *ep);
	u32 (*conn_limit)(const struct cqn_endpoint *ep);
	struct cqn_conn *(*conn_alloc)(struct cqn_endpoint *ep, struct rdma_cm_id *cm_id);
	void (*conn_free)(struct cqn_conn *conn);
	void (*recv_done)(struct ib_cq *cq, struct ib_wc *wc);
	void (*send_done)(struct ib_cq *cq, struct ib_wc *wc);
	int (*start)(struct cqn_endpoint *ep);
	void (*stop)(struct cqn_endpoint *ep);
	void (*release)(struct cqn_endpoint *ep);
	bool (*on_device)(struct cqn_endpoint *ep, struct ib_device *ibdev);
	void (*established)(struct cqn_conn *conn);
	void (*lost)(struct cqn_conn *conn, const char *why);
	const char *(*peer_left)(struct cqn_conn *conn);
	bool (*need_any)(struct cqn_conn *conn);
	bool (*busy)(struct cqn_conn *conn);
	void (*quiesce)(struct cqn_conn *conn);
	void (*retire)(struct cqn_conn *conn);
};

struct cqn_clt_slot;

/**
 * struct cqn_ep_client - a client endpoint's connection slots, one per
 * connection it keeps to its server (the "connections" attribute)
 * @slots: the slots (struct cqn_clt_slot, src/client.c), from enable to
 *	disable; each has its own rdma_cm id, its share of the workload, and
 *	what it keeps across its connections (the resume point, reconnects)
 * @nslots: entries in @slots (cfg.connections)
 * @nup: slots whose connection is established or whose share is done
 * @nfinished: slots whose share of the workload is done
 * @started: every slot was up once in this run: its connections send
 *	(until then an established connection waits for the others, so
 *	that the first connections' traffic does not hold up the handshakes
 *	of the rest); read without the lock by the connections
 *
 * @slots and @nslots change under ep->lock (and ep->state_lock); the
 * rest, and what the slots keep, is protected by ep->state_lock.
 */
struct cqn_ep_client {
	struct cqn_clt_slot *slots;
	u32 nslots;
	u32 nup;
	u32 nfinished;
	bool started;
};

/**
 * struct cqn_ep_cq - one of an endpoint's CQ engines and the QPs it serves
 * @ep: the endpoint
 * @node: on ep->cqs
 * @dev: the device of its CQ (only that device's QPs join it)
 * @cq: the engine
 * @id: number within the endpoint (debugfs "cqs"; a shared engine's name)
 * @group: cqn_share_group() of its QPs
 * @slots: QPs it is sized for (cqn_share_slots())
 * @nqps: QPs it serves
 * @drainers: connections draining their QP on it
 * @started: cqn_cq_start() ran and no cqn_cq_stop() since
 * @retired: takes no new QP (a CQ error took it down, or its last QP is
 *	going); read without a lock by the CQ error path
 * @lock: protects @qps; taken in any context (the engine's callbacks)
 * @qps: the connections whose QP it serves (conn->cq_node)
 *
 * Everything but @qps is protected by ep->cqs_lock (src/ep_cqs.c).
 */
struct cqn_ep_cq {
	struct cqn_endpoint *ep;
	struct list_head node;
	struct ib_device *dev;
	struct cqn_cq *cq;
	u32 id;
	u32 group;
	u32 slots;
	u32 nqps;
	u32 drainers;
	bool started;
	bool retired;
	/* protects qps; the engine's callbacks take it in any context */
	spinlock_t lock;
	struct list_head qps;
};

/**
 * struct cqn_ep_srq - a server's shared receive queues (srq=1, src/srq.c)
 * @lock: protects @devs and each one's SRQs; taken by rdma_cm handlers
 *	(a connection's first use creates them), never held while waiting
 *	for one
 * @devs: struct cqn_srq_dev of each device connections arrived on: its PD
 *	and one SRQ per completion vector, created at first use, destroyed
 *	when the endpoint stops (or the device goes) after every connection
 */
struct cqn_ep_srq {
	/* protects devs and their SRQs; taken in rdma_cm handlers */
	struct mutex lock;
	struct list_head devs;
};

struct cqn_ep_debugfs;

/**
 * struct cqn_endpoint - the service side of an endpoint directory
 * @name: the directory's name
 * @node: on cqn_endpoints, protected by cqn_endpoints_lock
 * @lock: protects @cfg, @role, @enabled, @cm_id and @cq_depth_actual
 * @tune_lock: serialises live changes of the connections' CQ engines with
 *	new connections joining and the reaper taking connections away
 * @cqs_lock: protects @cqs, @next_cq_id and the engines on @cqs (taken
 *	after @tune_lock)
 * @cqs: the CQ engines (struct cqn_ep_cq)
 * @next_cq_id: id for the next engine
 * @cfg: the configuration it runs (a copy taken at enable; live changes
 *	are copied in as one struct cqn_cq_params, cfg.cq, under @tune_lock)
 * @role: the role's operations, chosen from cfg.role at enable
 * @enabled: running (the "enable" attribute)
 * @cm_id: server: the listening rdma_cm id; client: NULL (its ids are its
 *	slots', @clt)
 * @cq_depth_actual: CQ entries the provider gave the newest connection
 * @state_lock: protects the fields below
 * @state: enum cqn_ep_state
 * @last_error: why the endpoint is in CQN_EP_ERROR
 * @conns: live connections
 * @dead: connections waiting for the reaper
 * @reaping: connections the reaper is destroying; their counters count
 *	until cqn_conn_destroy() moves them to @retired
 * @nconns: entries on @conns
 * @next_conn_id: id for the next connection
 * @accepting: new connections may be added, and a client's connections
 *	send (false from the start of a stop: nothing is sent while
 *	the connections drain)
 * @run_start_ns: when the current run started
 * @run_end_ns: when it ended (0 while running)
 * @retired: totals of connections already destroyed
 * @clt: client: its connection slots
 * @srq: server with srq=1: its shared receive queues
 * @reap_work: destroys the connections on @dead
 * @stats: endpoint-level counters (connections accepted, rejected)
 * @dbg: its debugfs directory and control files (src/debugfs.c); NULL
 *	when debugfs could not have them
 * @fault_cq_undersize: fault injection (debugfs): the next connection gets
 *	a CQ of this many entries instead of cq_depth; 0 for none
 * @fault_stop_replenish: fault injection (debugfs): the server stops
 *	reposting the receive buffers its connections consume
 * @fault_rnr_retry: fault injection (debugfs): 1 + the RNR retry count new
 *	connections advertise to their peer; 0 for the default (infinite)
 * @fault_drain_short: fault injection (debugfs): teardown's drains post
 *	their markers and do not wait for them, so each ends short
 */
struct cqn_endpoint {
	const char *name;
	struct list_head node;

	/* protects cfg, enabled, cm_id; never taken in rdma_cm handlers */
	struct mutex lock;
	struct cqn_config cfg;
	const struct cqn_role_ops *role;
	bool enabled;
	struct rdma_cm_id *cm_id;
	int cq_depth_actual;
	/* live changes of CQ engines vs. connections joining and leaving */
	struct mutex tune_lock;
	/* the CQ engines and what each serves; taken after tune_lock */
	struct mutex cqs_lock;
	struct list_head cqs;
	u32 next_cq_id;

	/* protects state, last_error, the connection lists and run times */
	spinlock_t state_lock;
	u32 state;
	char last_error[CQN_ERR_LEN];
	struct list_head conns;
	struct list_head dead;
	struct list_head reaping;
	u32 nconns;
	u32 next_conn_id;
	bool accepting;
	u64 run_start_ns;
	u64 run_end_ns;
	struct cqn_stats_sum retired;

	struct cqn_ep_client clt;
	struct cqn_ep_srq srq;

	struct work_struct reap_work;
	struct cqn_stats stats;
	struct cqn_ep_debugfs *dbg;

	atomic_t fault_cq_undersize;
	bool fault_stop_replenish;
	u32 fault_rnr_retry;
	bool fault_drain_short;
};

extern struct workqueue_struct *cqn_wq;
extern struct workqueue_struct *cqn_reap_wq;

/* src/device.c */
int cqn_device_init(void);
void cqn_device_exit(void);
void cqn_devices_show(struct seq_file *m);
unsigned int cqn_device_count(void);
int cqn_devices_check(int (*check)(struct ib_device *ibdev, void *arg), void *arg);

/* src/service.c */
int cqn_service_register(void);
void cqn_service_unregister(void);

/* src/debugfs.c */
int cqn_debugfs_init(void);
void cqn_debugfs_exit(void);
void cqn_debugfs_ep_create(struct cqn_endpoint *ep);
void cqn_debugfs_ep_destroy(struct cqn_endpoint *ep);
void cqn_debugfs_conn_create(struct cqn_conn *conn);
void cqn_debugfs_conn_destroy(struct cqn_conn *conn);

/* src/endpoint.c */
void cqn_endpoint_exit(void);
struct cqn_endpoint *cqn_ep_create(const char *name);
void cqn_ep_register(struct cqn_endpoint *ep);
void cqn_ep_unregister(struct cqn_endpoint *ep);
void cqn_ep_destroy(struct cqn_endpoint *ep);
void cqn_ep_queue_reap(struct cqn_endpoint *ep);
int cqn_ep_enable(struct cqn_endpoint *ep, const struct cqn_config *cfg);
void cqn_ep_disable(struct cqn_endpoint *ep);
void cqn_ep_fail(struct cqn_endpoint *ep, const char *fmt, ...) __printf(2, 3);
bool __cqn_ep_change_state(struct cqn_endpoint *ep, enum cqn_ep_state to, const char *why);
bool cqn_ep_change_state(struct cqn_endpoint *ep, enum cqn_ep_state to, const char *why);
bool __cqn_ep_start_run(struct cqn_endpoint *ep, enum cqn_ep_state to);
void __cqn_ep_start_clock(struct cqn_endpoint *ep);
u32 cqn_ep_conn_limit(const struct cqn_endpoint *ep);
void cqn_ep_queue_delayed(struct delayed_work *dw, unsigned int ms);
u32 cqn_ep_state(struct cqn_endpoint *ep);
u64 cqn_ep_run_ns(struct cqn_endpoint *ep);
void cqn_endpoints_device_removed(struct ib_device *ibdev);

/* src/ep_conns.c */
void cqn_ep_stats_sum(struct cqn_endpoint *ep, struct cqn_stats_sum *sum);
void cqn_ep_stats_reset(struct cqn_endpoint *ep);
u32 cqn_ep_conns_closing(struct cqn_endpoint *ep);
int cqn_ep_apply_to_conns(int (*fn)(struct cqn_conn *conn), struct cqn_endpoint *ep);
int cqn_ep_retune(struct cqn_endpoint *ep);
int cqn_ep_moderation_show(struct cqn_endpoint *ep, char *buf, size_t len);
void cqn_ep_fault_drop_events(struct cqn_endpoint *ep, u32 n);
void cqn_ep_fault_arm_delay(struct cqn_endpoint *ep, u32 us);
int cqn_ep_fault_spurious_events(struct cqn_endpoint *ep, u32 n);
int cqn_ep_fault_qp_error(struct cqn_endpoint *ep);

/**
 * cqn_conn_get_send() - take a free send buffer
 * @conn: the connection, conn->lock held
 *
 * The free send buffers are a stack, so the buffer used last (still warm in
 * the cache) goes out first.
 *
 * Context: conn->lock held.
 * Return: the buffer, or NULL when every one is in flight.
 */
static inline struct cqn_buf *cqn_conn_get_send(struct cqn_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	if (!conn->nfree_send)
		return NULL;
	return &conn->sbufs[conn->free_send[--conn->nfree_send]];
}

/**
 * cqn_conn_put_send() - give a send buffer back: it completed or was never posted
 * @conn: the connection, conn->lock held
 * @sb: the buffer
 *
 * Context: conn->lock held.
 */
static inline void cqn_conn_put_send(struct cqn_conn *conn, struct cqn_buf *sb)
{
	lockdep_assert_held(&conn->lock);
	if (WARN_ON_ONCE(conn->nfree_send >= conn->nsend))
		return;
	conn->free_send[conn->nfree_send++] = sb->idx;
}

/* src/ep_cqs.c */
int cqn_ep_cq_join(struct cqn_conn *conn);
int cqn_ep_cq_start(struct cqn_conn *conn);
void cqn_ep_cq_drain_begin(struct cqn_conn *conn);
void cqn_ep_cq_drain_end(struct cqn_conn *conn);
void cqn_ep_cq_going(struct cqn_conn *conn);
void cqn_ep_cq_leave(struct cqn_conn *conn);
int cqn_ep_cq_retune(struct cqn_conn *conn);
void cqn_ep_cqs_show(struct cqn_endpoint *ep, struct seq_file *m);

/* src/conn_io.c */
struct cqn_buf *cqn_ring_alloc(struct ib_device *dev, u32 n, u32 msg_size,
			       enum dma_data_direction dir,
			       void (*done)(struct ib_cq *cq, struct ib_wc *wc));
void cqn_ring_free(struct ib_device *dev, struct cqn_buf *ring, u32 n, u32 msg_size,
		   enum dma_data_direction dir);
int cqn_conn_alloc_rings(struct cqn_conn *conn);
void cqn_conn_free_rings(struct cqn_conn *conn);
void cqn_conn_drain(struct cqn_conn *conn);
void cqn_conn_drain_check(struct cqn_conn *conn);
void cqn_conn_count_lost(struct cqn_conn *conn);
bool cqn_conn_recv_taken(struct cqn_conn *conn, struct ib_wc *wc, bool ok);
bool cqn_conn_wc_dup(struct cqn_conn *conn, struct ib_wc *wc, const char *what);
bool cqn_conn_send_taken(struct cqn_conn *conn, struct ib_wc *wc, struct cqn_buf *sb);
bool cqn_conn_wc_ok(struct cqn_conn *conn, struct ib_wc *wc, const char *what);
int cqn_conn_post_send(struct cqn_conn *conn, u32 idx, u32 len, bool solicited);
int cqn_conn_post_recv(struct cqn_conn *conn, u32 idx);
int cqn_conn_repost_recv(struct cqn_conn *conn, struct cqn_buf *rb);

/* src/srq.c */
void cqn_srq_ep_init(struct cqn_endpoint *ep);
int cqn_srq_check(struct cqn_endpoint *ep);
int cqn_srq_conn_pd(struct cqn_conn *conn);
struct ib_srq *cqn_srq_conn_srq(struct cqn_conn *conn);
int cqn_srq_post(struct cqn_srq *s, struct cqn_buf *b);
void cqn_srq_taken(struct cqn_srq *s);
void cqn_srq_withhold(struct cqn_srq *s, struct cqn_buf *b);
void cqn_srq_release(struct cqn_endpoint *ep);
void cqn_srq_drain(struct cqn_conn *conn);
void cqn_srq_destroy_all(struct cqn_endpoint *ep, struct ib_device *ibdev);
void cqn_srq_show(struct seq_file *m, struct cqn_endpoint *ep);

/* src/conn.c */
struct cqn_conn *cqn_conn_create(struct cqn_endpoint *ep, struct rdma_cm_id *cm_id);
void cqn_conn_destroy(struct cqn_conn *conn, bool destroy_id);
int cqn_conn_publish(struct cqn_conn *conn);
void cqn_conn_close(struct cqn_conn *conn, const char *fmt, ...) __printf(2, 3);
int cqn_conn_retune(struct cqn_conn *conn);
int cqn_conn_fault_qp_error(struct cqn_conn *conn);

/* src/cq.c */
struct cqn_cq *cqn_cq_create(struct ib_device *ibdev, const struct cqn_cq_params *p,
			     u32 cqe, int comp_vector, struct cqn_stats *stats,
			     const char *name, const struct cqn_cq_owner *ops, void *owner);
void cqn_cq_set_home(struct cqn_cq *c, int cpu);
int cqn_cq_start(struct cqn_cq *c);
void cqn_cq_drain_begin(struct cqn_cq *c);
void cqn_cq_drain_end(struct cqn_cq *c);
int cqn_cq_flush(struct cqn_cq *c);
void cqn_cq_qp_going(struct cqn_cq *c, struct cqn_cq_gone *g, const struct ib_qp *qp, void *ctx);
void cqn_cq_qp_gone(struct cqn_cq *c, struct cqn_cq_gone *g);
void *cqn_wc_qp_context(struct ib_cq *cq, const struct ib_wc *wc);
void cqn_cq_stop(struct cqn_cq *c);
void cqn_cq_destroy(struct cqn_cq *c);
int cqn_cq_reconfigure(struct cqn_cq *c, const struct cqn_cq_params *p, u32 max_posted);
struct ib_cq *cqn_cq_ib(struct cqn_cq *c);
u32 cqn_cq_mode(struct cqn_cq *c);
int cqn_cq_comp_vector(struct cqn_cq *c);
int cqn_cq_moderation_show(struct cqn_cq *c, char *buf, size_t len);
u32 cqn_cq_window_us(struct cqn_cq *c);
u32 cqn_cq_window_trial_pct(struct cqn_cq *c);
u32 cqn_cq_spin_us(struct cqn_cq *c);
u32 cqn_cq_host_missed_pct(struct cqn_cq *c);
void cqn_cq_fault_drop_events(struct cqn_cq *c, u32 n);
void cqn_cq_fault_arm_delay(struct cqn_cq *c, u32 us);
int cqn_cq_fault_spurious_events(struct cqn_cq *c, u32 n);

/* src/cm.c */
int cqn_cm_listen(struct cqn_endpoint *ep);
int cqn_cm_connect(struct cqn_endpoint *ep, struct rdma_cm_id **idp);

/* src/server.c */
extern const struct cqn_role_ops cqn_server_ops;

/* src/client.c */
extern const struct cqn_role_ops cqn_client_ops;
void cqn_client_id_lost(struct cqn_endpoint *ep, struct rdma_cm_id *id, const char *fmt, ...)
	__printf(3, 4);
void cqn_client_slots_show(struct seq_file *m, struct cqn_endpoint *ep);
void cqn_client_slots_reset(struct cqn_endpoint *ep);

#endif /* _CQNOTIFY_H */
