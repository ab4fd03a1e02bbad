// SPDX-License-Identifier: GPL-2.0
/*
 * CQ sharing, the pure part: where a connection's QP goes (its group:
 * the connection itself, a CPU, or the endpoint), on which completion
 * vector, and how many QPs a new CQ of a group is sized for. The engines
 * themselves are src/ep_cqs.c's.
 */
#include <linux/kernel.h>
#include <linux/math.h>

#include "cqn_compat.h"
#include "cqn_share.h"

/**
 * cqn_share_group() - the group of CQ engines a connection's QP joins
 * @share: enum cqn_cq_share
 * @conn_id: the connection's number on its endpoint (0, 1, ...)
 * @ncpus: CPUs online
 *
 * Connections are spread over the CPUs round robin, as over the vectors
 * without sharing.
 *
 * Context: any.
 * Return: conn: the connection's own number (no other joins it); cpu:
 * @conn_id modulo @ncpus; endpoint: 0.
 */
u32 cqn_share_group(u32 share, u32 conn_id, u32 ncpus)
{
	switch (share) {
	case CQN_SHARE_CPU:
		return conn_id % max(ncpus, 1U);
	case CQN_SHARE_ENDPOINT:
		return 0;
	default:
		return conn_id;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cqn_share_group);

/**
 * cqn_share_vector() - the completion vector of a group's CQs
 * @share: enum cqn_cq_share
 * @group: cqn_share_group()'s answer
 * @conn_id: the connection's number
 * @nvec: the device's completion vectors
 *
 * Context: any.
 * Return: conn: @conn_id modulo @nvec (each connection on the next
 * vector); cpu: the CPU's number modulo @nvec; endpoint: 0.
 */
u32 cqn_share_vector(u32 share, u32 group, u32 conn_id, u32 nvec)
{
	nvec = max(nvec, 1U);
	switch (share) {
	case CQN_SHARE_CPU:
		return group % nvec;
	case CQN_SHARE_ENDPOINT:
		return 0;
	default:
		return conn_id % nvec;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cqn_share_vector);

/**
 * cqn_share_slots() - how many QPs a new CQ of a group is sized for
 * @share: enum cqn_cq_share
 * @per_qp: CQ entries one QP reserves (cq_depth, which the sizing rule
 *	checked against the QP's queues)
 * @expected: QPs the endpoint expects at most (a client's connections,
 *	a server's max_conns)
 * @ncpus: CPUs online (the groups of cq_share=cpu)
 * @max_cqe: the largest CQ the device creates
 *
 * A CQ of @slots QPs has @slots * @per_qp entries: the sizing rule summed
 * over the QPs it serves, so it cannot overflow however they fill it. A
 * group expecting more QPs than one CQ of the device can hold gets more
 * CQs, each as large as the device allows.
 *
 * Context: any.
 * Return: 1 for cq_share=conn; otherwise the expected QPs of one group
 * (the endpoint's, or its share of one CPU, rounded up), at most
 * @max_cqe / @per_qp and at least 1.
 */
u32 cqn_share_slots(u32 share, u32 per_qp, u32 expected, u32 ncpus, u32 max_cqe)
{
	u32 want, fit;

	if (share == CQN_SHARE_CONN || !per_qp)
		return 1;
	want = share == CQN_SHARE_CPU ? DIV_ROUND_UP(expected, max(ncpus, 1U)) : expected;
	fit = max_cqe / per_qp;
	return max(min(want, fit), 1U);
}
EXPORT_SYMBOL_IF_KUNIT(cqn_share_slots);

/**
 * cqn_share_joinable() - may a new QP join this CQ?
 * @nqps: QPs it serves now
 * @slots: QPs it was sized for
 * @retired: it takes no new QP (a CQ error took it down)
 *
 * Context: any.
 * Return: true when it has a free slot and is not retired.
 */
bool cqn_share_joinable(u32 nqps, u32 slots, bool retired)
{
	return !retired && nqps < slots;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_share_joinable);

/**
 * cqn_share_busy() - is a shared engine busy, after a wakeup?
 * @busy: what it was
 * @done: completions the wakeup handed over
 * @from_event: an event started the wakeup (not the one before it)
 *
 * A busy engine of cq_share=cpu takes its next wakeups on its group's CPU;
 * an idle one where its event was taken (cqn_cq_queue_work()). Busy from
 * CQN_SHARE_BUSY completions a wakeup; idle again when a wakeup that an
 * event started finds fewer than CQN_SHARE_IDLE. In between, and after
 * the short wakeup that ends a burst (what is left after a long one), it
 * stays what it was, so an engine with a backlog is not sent back and
 * forth.
 *
 * Context: any.
 * Return: whether it is busy now.
 */
bool cqn_share_busy(bool busy, u32 done, bool from_event)
{
	if (done >= CQN_SHARE_BUSY)
		return true;
	if (from_event && done < CQN_SHARE_IDLE)
		return false;
	return busy;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_share_busy);
