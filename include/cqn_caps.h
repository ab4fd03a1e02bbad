/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device capabilities that matter to CQ handling, read once from an
 * ib_device and formatted without touching the device again.
 */
#ifndef _CQN_CAPS_H
#define _CQN_CAPS_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

/**
 * struct cqn_dev_caps - what a provider offers for CQ handling
 * @name: device name at the time it was read
 * @node_type: the device's node type (enum rdma_node_type)
 * @num_comp_vectors: completion vectors (interrupt lines) the device has
 * @max_cqe: largest CQ the device can create
 * @max_qp_wr: largest send or receive queue the device can create
 * @has_modify_cq: the provider implements modify_cq (interrupt moderation)
 * @has_resize_cq: the provider implements resize_cq
 * @max_moder_count: largest cq_count rdma_set_cq_moderation() accepts
 * @max_moder_period: largest cq_period (microseconds) it accepts
 */
struct cqn_dev_caps {
	char name[IB_DEVICE_NAME_MAX];
	unsigned int node_type;
	int num_comp_vectors;
	int max_cqe;
	int max_qp_wr;
	bool has_modify_cq;
	bool has_resize_cq;
	u16 max_moder_count;
	u16 max_moder_period;
};

void cqn_caps_read(struct ib_device *ibdev, struct cqn_dev_caps *caps);
const char *cqn_node_type_name(unsigned int node_type);
int cqn_caps_format(const struct cqn_dev_caps *caps, char *buf, size_t len);

#endif /* _CQN_CAPS_H */
