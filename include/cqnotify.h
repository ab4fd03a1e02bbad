/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqnotify core: the objects every part of the module shares, and the lock order.
 *
 * An endpoint (a configfs directory) owns its connections; a connection owns
 * an RC QP, its buffers and a CQ engine (struct cqn_cq), which is the only
 * place that knows how completions are learned and hands each one to the
 * connection through wr_cqe->done.
 *
 * Lock order (take the outer lock first, never the reverse):
 *
 *   cqn_endpoints_lock (mutex, src/endpoint.c)	the list of endpoints
 *     ep->lock (mutex)				configuration, enable/disable
 *       ep->state_lock (spinlock, irqsave)	state, last_error, connection lists
 *         conn->lock (spinlock, bh)		a connection's rings and workload
 *
 *   cqn_devices_lock (mutex, src/device.c) is a leaf: nothing is taken under it.
 *
 * rdma_cm event handlers run with the RDMA core's handler_mutex of their id
 * held, and rdma_destroy_id() takes that mutex: so no handler ever takes
 * ep->lock, and ep->lock is never held while waiting for a connection to be
 * destroyed by the reaper (ep->reap_work), the one place connections die.
 */
#ifndef _CQNOTIFY_H
#define _CQNOTIFY_H

#include <linux/configfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "cqn_config.h"
#include "cqn_stats.h"

/* Longest last_error text. */
#define CQN_ERR_LEN	128

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
 * enum cqn_ep_state - the life of an endpoint, as shown in "state"
 * @CQN_EP_IDLE: not enabled
 * @CQN_EP_CONNECTING: client: resolving and connecting
 * @CQN_EP_RUNNING: server: listening; client: running its workload
 * @CQN_EP_DONE: client: workload finished, connection closed
 * @CQN_EP_ERROR: stopped by an error; last_error says which
 */
enum cqn_ep_state {
	CQN_EP_IDLE,
	CQN_EP_CONNECTING,
	CQN_EP_RUNNING,
	CQN_EP_DONE,
	CQN_EP_ERROR,
};

/**
 * struct cqn_cq - a CQ and the engine that learns about its completions
 * @cq: the verbs CQ
 * @mode: enum cqn_cq_mode this engine runs in
 * @stats: where the engine counts (the connection's block)
 * @work: event mode: drains the CQ after a completion event
 * @poller: poll mode: the busy-polling thread
 * @stopping: set before teardown; the completion handler then does nothing
 * @from_event: the next drain was started by an event (to count spurious ones)
 * @fatal: called (any context) when the CQ reports an asynchronous error
 * @owner: argument for @fatal
 * @wcs: the poll array of the one context that processes the CQ (the event
 *	work item never runs twice at once; the poll thread is alone)
 */
struct cqn_cq {
	struct ib_cq *cq;
	u32 mode;
	struct cqn_stats *stats;
	struct work_struct work;
	struct task_struct *poller;
	bool stopping;
	bool from_event;
	void (*fatal)(void *owner, const char *why);
	void *owner;
	struct ib_wc *wcs;
};

/**
 * struct cqn_buf - one message buffer and its work request identity
 * @data: the buffer
 * @dma: its DMA address
 * @cqe: identifies the work request; its done() handles the completion
 * @conn: the owning connection
 * @idx: index in its ring
 * @len: bytes posted (send buffers)
 */
struct cqn_buf {
	void *data;
	u64 dma;
	struct ib_cqe cqe;
	struct cqn_conn *conn;
	u32 idx;
	u32 len;
};

struct cqn_endpoint;

/**
 * struct cqn_conn - one RC connection, server or client side
 * @ep: the endpoint it belongs to
 * @node: on @ep->conns while alive, on @ep->dead once closing
 * @id: number within the endpoint, for names and comp_vector choice
 * @cm_id: its rdma_cm id
 * @pd: protection domain on the connection's device
 * @cq: the CQ engine serving both queues
 * @qp: the RC QP (@cm_id->qp)
 * @msg_size: buffer size
 * @sbufs: send ring
 * @rbufs: receive ring
 * @nsend: send ring size
 * @nrecv: receive ring size
 * @lock: protects everything below
 * @free_send: stack of free send buffer indices
 * @nfree_send: entries on @free_send
 * @pending: server: receive indices waiting for a send buffer (FIFO)
 * @pending_head: first entry of @pending
 * @npending: entries in @pending
 * @posted_recv: receives currently posted
 * @next_seq: client: sequence number of the next message to send
 * @expected_seq: client: sequence number the next echo must carry
 * @outstanding: client: messages sent whose echo has not arrived
 * @send_ns: client: send time by seq % @nsend (for short messages)
 * @established: the connection reached RDMA_CM_EVENT_ESTABLISHED
 * @finished: client: the workload is complete
 * @owns_id: destroying the connection destroys @cm_id (server side; a
 *	client's id belongs to its endpoint)
 * @dead: closing; on @ep->dead (protected by ep->state_lock)
 * @stats: this connection's counters
 * @dbg_dir: debugfs directory (server connections)
 * @peer: peer address, for logs and debugfs
 */
struct cqn_conn {
	struct cqn_endpoint *ep;
	struct list_head node;
	u32 id;
	struct rdma_cm_id *cm_id;
	struct ib_pd *pd;
	struct cqn_cq cq;
	struct ib_qp *qp;
	u32 msg_size;
	struct cqn_buf *sbufs;
	struct cqn_buf *rbufs;
	u32 nsend;
	u32 nrecv;

	/* protects the rings and the workload state below */
	spinlock_t lock;
	u32 *free_send;
	u32 nfree_send;
	u32 *pending;
	u32 pending_head;
	u32 npending;
	u32 posted_recv;
	u64 next_seq;
	u64 expected_seq;
	u32 outstanding;
	u64 *send_ns;
	bool established;
	bool finished;
	bool owns_id;

	bool dead;
	struct cqn_stats stats;
	struct dentry *dbg_dir;
	char peer[64];
};

/**
 * struct cqn_endpoint - a configfs directory under endpoints/
 * @group: the configfs group
 * @node: on cqn_endpoints, protected by cqn_endpoints_lock
 * @lock: protects @cfg, @enabled, @cm_id and @cq_depth_actual
 * @cfg: the configuration
 * @enabled: the "enable" attribute
 * @cm_id: server: the listening rdma_cm id; client: its connection's id
 * @cq_depth_actual: CQ entries the provider gave the newest connection
 * @state_lock: protects the fields below
 * @state: enum cqn_ep_state
 * @last_error: why the endpoint is in CQN_EP_ERROR
 * @conns: live connections
 * @dead: connections waiting for the reaper
 * @nconns: entries on @conns
 * @next_conn_id: id for the next connection
 * @accepting: new connections may be added
 * @run_start_ns: when the current run started
 * @run_end_ns: when it ended (0 while running)
 * @retired: totals of connections already destroyed
 * @reap_work: destroys the connections on @dead
 * @stats: endpoint-level counters (connections accepted, rejected)
 * @dbg_dir: debugfs directory
 * @dbg_conns: debugfs directory for per-connection directories
 */
struct cqn_endpoint {
	struct config_group group;
	struct list_head node;

	/* protects cfg, enabled, cm_id; never taken in rdma_cm handlers */
	struct mutex lock;
	struct cqn_config cfg;
	bool enabled;
	struct rdma_cm_id *cm_id;
	int cq_depth_actual;

	/* protects state, last_error, the connection lists and run times */
	spinlock_t state_lock;
	u32 state;
	char last_error[CQN_ERR_LEN];
	struct list_head conns;
	struct list_head dead;
	u32 nconns;
	u32 next_conn_id;
	bool accepting;
	u64 run_start_ns;
	u64 run_end_ns;
	struct cqn_stats_sum retired;

	struct work_struct reap_work;
	struct cqn_stats stats;
	struct dentry *dbg_dir;
	struct dentry *dbg_conns;
};

extern struct workqueue_struct *cqn_wq;
extern const char *const cqn_ep_state_names[];

/* src/device.c */
int cqn_device_init(void);
void cqn_device_exit(void);
void cqn_devices_show(struct seq_file *m);
unsigned int cqn_device_count(void);

/* src/configfs.c */
int cqn_configfs_init(void);
void cqn_configfs_exit(void);

/* src/debugfs.c */
int cqn_debugfs_init(void);
void cqn_debugfs_exit(void);
void cqn_debugfs_ep_create(struct cqn_endpoint *ep);
void cqn_debugfs_ep_destroy(struct cqn_endpoint *ep);
void cqn_debugfs_conn_create(struct cqn_conn *conn);
void cqn_debugfs_conn_destroy(struct cqn_conn *conn);

/* src/endpoint.c */
int cqn_endpoint_init(void);
void cqn_endpoint_exit(void);
struct cqn_endpoint *cqn_ep_create(const char *name);
void cqn_ep_register(struct cqn_endpoint *ep);
void cqn_ep_unregister(struct cqn_endpoint *ep);
void cqn_ep_destroy(struct cqn_endpoint *ep);
void cqn_ep_queue_reap(struct cqn_endpoint *ep);
int cqn_ep_enable(struct cqn_endpoint *ep);
void cqn_ep_disable(struct cqn_endpoint *ep);
void cqn_ep_fail(struct cqn_endpoint *ep, const char *fmt, ...) __printf(2, 3);
void cqn_ep_set_state(struct cqn_endpoint *ep, enum cqn_ep_state state);
u32 cqn_ep_state(struct cqn_endpoint *ep);
void cqn_ep_stats_sum(struct cqn_endpoint *ep, struct cqn_stats_sum *sum);
void cqn_ep_stats_reset(struct cqn_endpoint *ep);
u64 cqn_ep_run_ns(struct cqn_endpoint *ep);
void cqn_endpoints_device_removed(struct ib_device *ibdev);

/* src/conn.c */
struct cqn_conn *cqn_conn_create(struct cqn_endpoint *ep, struct rdma_cm_id *cm_id);
void cqn_conn_destroy(struct cqn_conn *conn, bool destroy_id);
int cqn_conn_publish(struct cqn_conn *conn);
void cqn_conn_close(struct cqn_conn *conn, const char *fmt, ...) __printf(2, 3);
int cqn_conn_post_recv(struct cqn_conn *conn, u32 idx);
int cqn_conn_post_send(struct cqn_conn *conn, u32 idx, u32 len);
bool cqn_conn_wc_ok(struct cqn_conn *conn, struct ib_wc *wc);
bool cqn_conn_recv_taken(struct cqn_conn *conn, struct ib_wc *wc, bool ok);

/* src/cq.c */
int cqn_cq_create(struct cqn_cq *c, struct ib_device *ibdev, const struct cqn_config *cfg,
		  int comp_vector, struct cqn_stats *stats,
		  void (*fatal)(void *owner, const char *why), void *owner);
int cqn_cq_start(struct cqn_cq *c, const char *name);
void cqn_cq_stop(struct cqn_cq *c);
void cqn_cq_destroy(struct cqn_cq *c);

/* src/cm.c */
int cqn_cm_listen(struct cqn_endpoint *ep);
int cqn_cm_connect(struct cqn_endpoint *ep);

/* src/server.c */
void cqn_server_recv_done(struct ib_cq *cq, struct ib_wc *wc);
void cqn_server_send_done(struct ib_cq *cq, struct ib_wc *wc);

/* src/client.c */
void cqn_client_start(struct cqn_conn *conn);
void cqn_client_recv_done(struct ib_cq *cq, struct ib_wc *wc);
void cqn_client_send_done(struct ib_cq *cq, struct ib_wc *wc);

#endif /* _CQNOTIFY_H */
