/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CQ sharing: which of an endpoint's CQ engines a new QP joins, and how
 * many QPs a new shared CQ is sized for. Pure decisions, no device.
 */
#ifndef _CQN_SHARE_H
#define _CQN_SHARE_H

#include <linux/types.h>

/**
 * enum cqn_cq_share - how an endpoint's connections share CQ engines
 * @CQN_SHARE_CONN: one CQ and engine per connection
 * @CQN_SHARE_CPU: one engine per CPU (on completion vector cpu %
 *	num_comp_vectors), shared by the connections placed on that CPU, as
 *	the core's CQ pool (ib_cq_pool_get()) does per vector
 * @CQN_SHARE_ENDPOINT: one engine for all the endpoint's connections
 * @CQN_SHARE_COUNT: number of choices
 *
 * A shared engine that is full does not grow: another CQ is added to its
 * group (cqn_share_slots()).
 */
enum cqn_cq_share {
	CQN_SHARE_CONN,
	CQN_SHARE_CPU,
	CQN_SHARE_ENDPOINT,
	CQN_SHARE_COUNT,
};

/*
 * A shared engine goes to its group's CPU once a wakeup hands over
 * CQN_SHARE_BUSY completions (a quarter of an event-mode wakeup's budget),
 * and stays where its events come once a wakeup an event started hands
 * over fewer than CQN_SHARE_IDLE (cqn_share_busy()).
 */
#define CQN_SHARE_BUSY	64
#define CQN_SHARE_IDLE	8

extern const char *const cqn_cq_share_names[];

u32 cqn_share_group(u32 share, u32 conn_id, u32 ncpus);
u32 cqn_share_vector(u32 share, u32 group, u32 conn_id, u32 nvec);
u32 cqn_share_slots(u32 share, u32 per_qp, u32 expected, u32 ncpus, u32 max_cqe);
bool cqn_share_joinable(u32 nqps, u32 slots, bool retired);
bool cqn_share_busy(bool busy, u32 done, bool from_event);

#endif /* _CQN_SHARE_H */
