/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An endpoint's configuration: the values configfs attributes hold, their
 * ranges and defaults, and the cross-attribute rules checked at enable.
 * Pure data and pure functions, tested by the KUnit suite cqnotify_config.
 */
#ifndef _CQN_CONFIG_H
#define _CQN_CONFIG_H

#include <linux/socket.h>
#include <linux/types.h>

#include "cqn_share.h"

/* rdma_client and rdma_server from rdmacm-utils default to this port. */
#define CQN_DEFAULT_PORT	7471
#define CQN_MSG_SIZE_MAX	(1024 * 1024)
/* A queue deeper than this gains nothing on any provider we know. */
#define CQN_DEPTH_MAX		8192
#define CQN_CQ_DEPTH_MAX	65536
#define CQN_MAX_CONNS_MAX	1024
/* Most connections one client endpoint makes to its server. */
#define CQN_CONNECTIONS_MAX	1024
#define CQN_DURATION_MS_MAX	(24 * 3600 * 1000)
/* Registered buffers one connection may pin: send + receive rings. */
#define CQN_CONN_BUF_MAX	(64 * 1024 * 1024)
/* Longest watchdog_ms: a minute. */
#define CQN_WATCHDOG_MS_MAX	60000
/* Largest max_events_per_ms. */
#define CQN_EVENTS_PER_MS_MAX	1000000
/* Default poll_window_max_us of adaptive mode. */
#define CQN_POLL_WINDOW_DEFAULT_US	200
/* Largest client rate, messages per second. */
#define CQN_RATE_MAX		10000000
/* Reconnect attempts of a client (reconnect=1) before it gives up. */
#define CQN_RECONNECT_ATTEMPTS	8
/* Backoff before the first attempt, doubled for each next one. */
#define CQN_RECONNECT_BASE_MS	50
/* Longest backoff. */
#define CQN_RECONNECT_MAX_MS	2000
/* Largest poll_window_max_us. */
#define CQN_POLL_WINDOW_MAX_US		100000
/* Default poll_idle_us of poll mode. */
#define CQN_POLL_IDLE_DEFAULT_US	100
/* Largest poll_idle_us. */
#define CQN_POLL_IDLE_MAX_US		100000
/* Smallest srq_depth: its limit event (a quarter of it) needs room to fire. */
#define CQN_SRQ_DEPTH_MIN	16
/* Largest srq_depth: as many receives as the largest CQ holds completions. */
#define CQN_SRQ_DEPTH_MAX	CQN_CQ_DEPTH_MAX
/* Default srq_depth: nvmet-rdma's srq_size of 1024, times four. */
#define CQN_SRQ_DEPTH_DEFAULT	4096

/**
 * enum cqn_role - what an endpoint does
 * @CQN_ROLE_SERVER: listen and echo every message back
 * @CQN_ROLE_CLIENT: connect, send a workload, verify the echoes
 */
enum cqn_role {
	CQN_ROLE_SERVER,
	CQN_ROLE_CLIENT,
};

/**
 * enum cqn_cq_mode - how the CQ engine learns about completions
 * @CQN_CQ_EVENT: comp_handler schedules a drain; re-arm after each drain
 * @CQN_CQ_POLL: a kernel thread busy-polls and never arms
 * @CQN_CQ_ADAPTIVE: event-driven, but keeps polling for a while after each
 *	event before re-arming
 * @CQN_CQ_SOFTIRQ: the RDMA core's ib_alloc_cq() with IB_POLL_SOFTIRQ
 * @CQN_CQ_WORKQUEUE: the RDMA core's ib_alloc_cq() with IB_POLL_WORKQUEUE
 * @CQN_CQ_IRQPOLL: event-driven, the CQ emptied in softirq context by the
 *	engine's own irq_poll (no workqueue hop), with its moderation and guards
 * @CQN_CQ_MODE_COUNT: number of modes
 */
enum cqn_cq_mode {
	CQN_CQ_EVENT,
	CQN_CQ_POLL,
	CQN_CQ_ADAPTIVE,
	CQN_CQ_SOFTIRQ,
	CQN_CQ_WORKQUEUE,
	CQN_CQ_IRQPOLL,
	CQN_CQ_MODE_COUNT,
};

/**
 * enum cqn_poll_priority - the scheduling priority of a poll thread
 * @CQN_POLL_PRIO_LOW: nice 19: every other task of its CPU runs first
 * @CQN_POLL_PRIO_NORMAL: nice 0: it shares its CPU with the other tasks
 * @CQN_POLL_PRIO_COUNT: number of priorities
 */
enum cqn_poll_priority {
	CQN_POLL_PRIO_LOW,
	CQN_POLL_PRIO_NORMAL,
	CQN_POLL_PRIO_COUNT,
};

/**
 * enum cqn_workload - what a client sends
 * @CQN_WL_PINGPONG: one message at a time, the next after its echo
 * @CQN_WL_STREAM: keep queue_depth messages outstanding
 */
enum cqn_workload {
	CQN_WL_PINGPONG,
	CQN_WL_STREAM,
};

/**
 * struct cqn_cq_params - the live-tunable attributes of an endpoint
 * @cq_depth: requested CQ entries
 * @cq_mode: enum cqn_cq_mode
 * @cq_count: moderation: completions per event (0: off)
 * @cq_period: moderation: microseconds per event (0: off)
 * @adaptive_moderation: pick cq_count/cq_period from the observed load
 * @poll_cpu: poll mode: CPU the polling thread runs on (-1: any)
 * @poll_window_max_us: adaptive mode: longest polling window
 * @poll_idle_us: poll mode: how long the CQ stays empty before the poll
 *	thread naps between polls (0: it never does)
 * @poll_priority: poll mode: enum cqn_poll_priority of the poll thread
 * @solicited_only: arm the CQ for solicited completions only
 * @watchdog_ms: silent-CQ watchdog period (0: off)
 * @max_events_per_ms: event storm threshold (0: off)
 *
 * configfs accepts a store of these while the endpoint is enabled
 * (cqn_config_is_live()); a running CQ engine takes the set in one
 * cqn_cq_reconfigure(). Copied by assignment.
 */
struct cqn_cq_params {
	u32 cq_depth;
	u32 cq_mode;
	u32 cq_count;
	u32 cq_period;
	bool adaptive_moderation;
	s32 poll_cpu;
	u32 poll_window_max_us;
	u32 poll_idle_us;
	u32 poll_priority;
	bool solicited_only;
	u32 watchdog_ms;
	u32 max_events_per_ms;
};

/**
 * struct cqn_config - the attributes of an endpoint
 * @role: enum cqn_role
 * @addr: server: bind address (may be any); client: server address
 * @port: TCP-style port of the rdma_cm service
 * @msg_size: largest message, bytes
 * @send_depth: send queue depth (and send buffers)
 * @recv_depth: receive queue depth (and receive buffers)
 * @cq: the live-tunable attributes (struct cqn_cq_params): the one
 *	definition of what may change while the endpoint runs
 * @max_conns: server: connections accepted at once
 * @cq_share: enum cqn_cq_share: one CQ engine per connection, per CPU or
 *	for the whole endpoint (not live: its connections are placed at
 *	creation)
 * @connections: client: RC connections to the server, each running its
 *	share of the workload (iterations and rate are the endpoint's totals)
 * @srq: server: its connections receive from a shared receive queue, one
 *	per completion vector of the device (src/srq.c), instead of a ring each
 * @srq_depth: server, with @srq: receive buffers of each SRQ
 * @workload: client: enum cqn_workload
 * @queue_depth: client stream: messages outstanding
 * @iterations: client: messages to send (0: use @duration_ms)
 * @duration_ms: client: run time when @iterations is 0 (0 with it: forever)
 * @verify: client: check every echo
 * @rate: client: messages per second at most, paced by a timer (open
 *	loop within the window); 0: as fast as the window allows
 * @reconnect: client: after losing its connection, connect again (with
 *	backoff, at most CQN_RECONNECT_ATTEMPTS times in a row) and resume
 *	the workload from the first message not yet echoed
 */
struct cqn_config {
	u32 role;
	struct sockaddr_storage addr;
	u32 port;
	u32 msg_size;
	u32 send_depth;
	u32 recv_depth;
	struct cqn_cq_params cq;
	u32 max_conns;
	u32 cq_share;
	u32 connections;
	bool srq;
	u32 srq_depth;
	u32 workload;
	u32 queue_depth;
	u32 iterations;
	u32 duration_ms;
	bool verify;
	u32 rate;
	bool reconnect;
};

extern const char *const cqn_role_names[];
extern const char *const cqn_cq_mode_names[];
extern const char *const cqn_workload_names[];
extern const char *const cqn_poll_priority_names[];
extern const unsigned int cqn_role_count, cqn_workload_count;

void cqn_config_defaults(struct cqn_config *cfg);
int cqn_config_check(const struct cqn_config *cfg, char *why, size_t len);
u64 cqn_config_buf_bytes(const struct cqn_config *cfg);
u32 cqn_srq_limit(u32 depth);
bool cqn_cq_mode_is_core(u32 mode);
int cqn_cq_mode_switch_check(u32 from, u32 to);
u32 cqn_reconnect_delay_ms(u32 attempt);
bool cqn_config_is_live(size_t offset);

#endif /* _CQN_CONFIG_H */
