// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoint configuration: defaults, names, and the rules that tie attributes
 * together (checked when the endpoint is enabled, not at each store, so the
 * attributes can be written in any order).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/export.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "cqn_compat.h"
#include "cqn_config.h"
#include "cqn_service.h"

const char *const cqn_ep_state_names[] = {
	[CQN_EP_IDLE] = "idle",
	[CQN_EP_CONNECTING] = "connecting",
	[CQN_EP_RUNNING] = "running",
	[CQN_EP_DONE] = "done",
	[CQN_EP_ERROR] = "error",
};
EXPORT_SYMBOL_GPL(cqn_ep_state_names);

static_assert(ARRAY_SIZE(cqn_ep_state_names) == CQN_EP_STATE_COUNT);

#define CQN_EP_TO(s)	BIT(CQN_EP_##s)

/*
 * The moves within a run, by the state they leave. Staying is a move
 * (a client that fails to connect again stays connecting), except in
 * error: the first error of a run wins.
 */
static const u8 cqn_ep_moves[CQN_EP_STATE_COUNT] = {
	[CQN_EP_IDLE] = CQN_EP_TO(IDLE),
	[CQN_EP_CONNECTING] = CQN_EP_TO(IDLE) | CQN_EP_TO(CONNECTING) | CQN_EP_TO(RUNNING) |
			      CQN_EP_TO(ERROR),
	[CQN_EP_RUNNING] = CQN_EP_TO(IDLE) | CQN_EP_TO(CONNECTING) | CQN_EP_TO(RUNNING) |
			   CQN_EP_TO(DONE) | CQN_EP_TO(ERROR),
	[CQN_EP_DONE] = CQN_EP_TO(IDLE) | CQN_EP_TO(DONE) | CQN_EP_TO(ERROR),
	[CQN_EP_ERROR] = CQN_EP_TO(IDLE),
};

/**
 * cqn_ep_state_change_ok() - may an endpoint move from @from to @to?
 * @from: its state
 * @to: the state it would move to
 * @new_run: the move starts a run (enable): from idle, or from the error a
 *	failed enable left, to connecting (a client) or running (a server)
 *
 * Within a run: connecting goes on to running, and a client that loses
 * its connection goes back to connecting; a client's run ends in done;
 * anything but idle can fail; only disabling leaves error or done.
 *
 * Context: any.
 * Return: true if the move is legal.
 */
bool cqn_ep_state_change_ok(enum cqn_ep_state from, enum cqn_ep_state to, bool new_run)
{
	if (from >= CQN_EP_STATE_COUNT || to >= CQN_EP_STATE_COUNT)
		return false;
	if (new_run)
		return (from == CQN_EP_IDLE || from == CQN_EP_ERROR) &&
		       (to == CQN_EP_CONNECTING || to == CQN_EP_RUNNING);
	return cqn_ep_moves[from] & BIT(to);
}
EXPORT_SYMBOL_GPL(cqn_ep_state_change_ok);

const char *const cqn_role_names[] = {
	[CQN_ROLE_SERVER] = "server",
	[CQN_ROLE_CLIENT] = "client",
};

const unsigned int cqn_role_count = ARRAY_SIZE(cqn_role_names);

const char *const cqn_cq_mode_names[] = {
	[CQN_CQ_EVENT] = "event",
	[CQN_CQ_POLL] = "poll",
	[CQN_CQ_ADAPTIVE] = "adaptive",
	[CQN_CQ_SOFTIRQ] = "softirq",
	[CQN_CQ_WORKQUEUE] = "workqueue",
	[CQN_CQ_IRQPOLL] = "irqpoll",
};
EXPORT_SYMBOL_GPL(cqn_cq_mode_names);

static_assert(ARRAY_SIZE(cqn_cq_mode_names) == CQN_CQ_MODE_COUNT);

const char *const cqn_workload_names[] = {
	[CQN_WL_PINGPONG] = "pingpong",
	[CQN_WL_STREAM] = "stream",
};

const unsigned int cqn_workload_count = ARRAY_SIZE(cqn_workload_names);

const char *const cqn_poll_priority_names[] = {
	[CQN_POLL_PRIO_LOW] = "low",
	[CQN_POLL_PRIO_NORMAL] = "normal",
};

static_assert(ARRAY_SIZE(cqn_poll_priority_names) == CQN_POLL_PRIO_COUNT);

const char *const cqn_cq_share_names[] = {
	[CQN_SHARE_CONN] = "conn",
	[CQN_SHARE_CPU] = "cpu",
	[CQN_SHARE_ENDPOINT] = "endpoint",
};
EXPORT_SYMBOL_GPL(cqn_cq_share_names);

static_assert(ARRAY_SIZE(cqn_cq_share_names) == CQN_SHARE_COUNT);

/**
 * cqn_config_defaults() - the values a new endpoint starts with
 * @cfg: filled in
 *
 * Context: any.
 */
void cqn_config_defaults(struct cqn_config *cfg)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&cfg->addr;

	memset(cfg, 0, sizeof(*cfg));
	cfg->role = CQN_ROLE_SERVER;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_ANY);
	cfg->port = CQN_DEFAULT_PORT;
	cfg->msg_size = 4096;
	cfg->send_depth = 64;
	cfg->recv_depth = 64;
	cfg->cq.cq_depth = 256;
	cfg->cq.cq_mode = CQN_CQ_EVENT;
	cfg->cq.poll_cpu = -1;
	cfg->cq.poll_window_max_us = CQN_POLL_WINDOW_DEFAULT_US;
	cfg->cq.poll_idle_us = CQN_POLL_IDLE_DEFAULT_US;
	cfg->cq.poll_priority = CQN_POLL_PRIO_LOW;
	cfg->max_conns = 16;
	cfg->connections = 1;
	cfg->srq_depth = CQN_SRQ_DEPTH_DEFAULT;
	cfg->workload = CQN_WL_PINGPONG;
	cfg->queue_depth = 16;
	cfg->iterations = 1000;
	cfg->verify = true;
}
EXPORT_SYMBOL_GPL(cqn_config_defaults);

/**
 * cqn_config_buf_bytes() - registered buffer bytes one connection needs
 * @cfg: the configuration
 *
 * Context: any.
 * Return: (send_depth + recv_depth) * msg_size.
 */
u64 cqn_config_buf_bytes(const struct cqn_config *cfg)
{
	return ((u64)cfg->send_depth + cfg->recv_depth) * cfg->msg_size;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_config_buf_bytes);

/**
 * cqn_srq_limit() - where an SRQ of @depth buffers arms its limit event
 * @depth: the SRQ's receive buffers
 *
 * IB_EVENT_SRQ_LIMIT_REACHED fires once fewer than a quarter of the
 * buffers are posted: the peers are about to meet RNR NAKs.
 *
 * Context: any.
 * Return: @depth / 4, at least 1.
 */
u32 cqn_srq_limit(u32 depth)
{
	return max_t(u32, depth / 4, 1);
}
EXPORT_SYMBOL_GPL(cqn_srq_limit);

/**
 * cqn_cq_mode_is_core() - is @mode one where the RDMA core polls the CQ?
 * @mode: enum cqn_cq_mode
 *
 * Context: any.
 * Return: true for softirq and workqueue.
 */
bool cqn_cq_mode_is_core(u32 mode)
{
	return mode == CQN_CQ_SOFTIRQ || mode == CQN_CQ_WORKQUEUE;
}
EXPORT_SYMBOL_GPL(cqn_cq_mode_is_core);

/**
 * cqn_cq_mode_switch_check() - can a running CQ change from @from to @to?
 * @from: the current mode
 * @to: the requested mode
 *
 * The module's own modes (event, poll, adaptive) share one CQ and switch in
 * place. The core's modes own their CQ from ib_alloc_cq() to ib_free_cq(),
 * and a QP cannot move to another CQ, so a switch into, out of or between
 * them needs new connections: disable, change, enable.
 *
 * Context: any.
 * Return: 0 or -EBUSY.
 */
int cqn_cq_mode_switch_check(u32 from, u32 to)
{
	if (from == to)
		return 0;
	if (cqn_cq_mode_is_core(from) || cqn_cq_mode_is_core(to))
		return -EBUSY;
	return 0;
}
EXPORT_SYMBOL_GPL(cqn_cq_mode_switch_check);

/**
 * cqn_config_check() - the rules between attributes, checked at enable
 * @cfg: the configuration
 * @why: on failure, a readable reason (also shown as last_error)
 * @len: size of @why
 *
 * The CQ must hold a completion for every send and receive that can be
 * outstanding plus the one drain request teardown posts, so it can never
 * overflow; a client cannot keep more messages in flight than it has send
 * buffers or receive buffers for their echoes; a client's iterations
 * (its total, divided over its connections) give each connection one
 * message at least.
 *
 * Context: any.
 * Return: 0, -EINVAL for an inconsistent configuration, -ERANGE when the
 * buffers of a connection (or of one SRQ, a server's with srq) would
 * exceed CQN_CONN_BUF_MAX.
 */
int cqn_config_check(const struct cqn_config *cfg, char *why, size_t len)
{
	u64 need = (u64)cfg->send_depth + cfg->recv_depth + 1;

	if (cfg->cq.cq_depth < need) {
		snprintf(why, len, "cq_depth %u < send_depth + recv_depth + 1 = %llu",
			 cfg->cq.cq_depth, need);
		return -EINVAL;
	}
	if (cqn_config_buf_bytes(cfg) > CQN_CONN_BUF_MAX) {
		snprintf(why, len,
			 "buffers (send_depth + recv_depth) * msg_size = %llu bytes exceed %u",
			 cqn_config_buf_bytes(cfg), CQN_CONN_BUF_MAX);
		return -ERANGE;
	}
	if (cfg->role == CQN_ROLE_SERVER && cfg->srq &&
	    (u64)cfg->srq_depth * cfg->msg_size > CQN_CONN_BUF_MAX) {
		snprintf(why, len, "SRQ buffers srq_depth * msg_size = %llu bytes exceed %u",
			 (u64)cfg->srq_depth * cfg->msg_size, CQN_CONN_BUF_MAX);
		return -ERANGE;
	}
	if (cfg->role == CQN_ROLE_CLIENT) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&cfg->addr;
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&cfg->addr;
		bool any;

		if (cfg->addr.ss_family == AF_INET6)
			any = !memchr_inv(&sin6->sin6_addr, 0, sizeof(sin6->sin6_addr));
		else
			any = sin->sin_addr.s_addr == htonl(INADDR_ANY);
		if (any) {
			snprintf(why, len, "a client needs the server's address in addr");
			return -EINVAL;
		}
		if (cfg->workload == CQN_WL_STREAM &&
		    (cfg->queue_depth > cfg->send_depth || cfg->queue_depth > cfg->recv_depth)) {
			snprintf(why, len, "queue_depth %u > send_depth %u or recv_depth %u",
				 cfg->queue_depth, cfg->send_depth, cfg->recv_depth);
			return -EINVAL;
		}
		/* configfs holds it to its range; a divisor is checked anyway. */
		if (!cfg->connections || cfg->connections > CQN_CONNECTIONS_MAX) {
			snprintf(why, len, "connections %u not in 1..%u", cfg->connections,
				 CQN_CONNECTIONS_MAX);
			return -ERANGE;
		}
		if (cfg->iterations && cfg->iterations < cfg->connections) {
			snprintf(why, len,
				 "iterations %u < connections %u: every connection needs a message",
				 cfg->iterations, cfg->connections);
			return -EINVAL;
		}
	}
	if (len)
		why[0] = '\0';
	return 0;
}
EXPORT_SYMBOL_GPL(cqn_config_check);

/**
 * cqn_reconnect_delay_ms() - backoff before a reconnect attempt
 * @attempt: 1 for the first attempt after a loss, 2 for the next ...
 *
 * Context: any.
 * Return: CQN_RECONNECT_BASE_MS doubled for each attempt after the first,
 * at most CQN_RECONNECT_MAX_MS.
 */
u32 cqn_reconnect_delay_ms(u32 attempt)
{
	u32 shift = attempt ? attempt - 1 : 0;

	if (shift >= 16)
		return CQN_RECONNECT_MAX_MS;
	return min_t(u32, CQN_RECONNECT_BASE_MS << shift, CQN_RECONNECT_MAX_MS);
}
EXPORT_SYMBOL_GPL(cqn_reconnect_delay_ms);

/**
 * cqn_config_is_live() - may the attribute at @offset change while enabled?
 * @offset: where the attribute is in struct cqn_config
 *
 * The live-tunable attributes are the members of struct cqn_cq_params
 * (cqn_config.cq): cq_depth, cq_mode, cq_count, cq_period,
 * adaptive_moderation, poll_cpu, poll_window_max_us, poll_idle_us,
 * poll_priority, solicited_only, watchdog_ms and max_events_per_ms. The
 * others need the endpoint disabled.
 *
 * Context: any.
 * Return: true for a member of cqn_config.cq.
 */
bool cqn_config_is_live(size_t offset)
{
	return offset >= offsetof(struct cqn_config, cq) &&
	       offset < offsetof(struct cqn_config, cq) + sizeof(struct cqn_cq_params);
}
EXPORT_SYMBOL_GPL(cqn_config_is_live);
