// SPDX-License-Identifier: GPL-2.0
/*
 * Device capabilities: read what a provider offers for CQ handling and
 * format it as one "key=value" line for debugfs "devices".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/string.h>

#include "cqn_compat.h"
#include "cqn_caps.h"

/**
 * cqn_caps_read() - snapshot the CQ-related capabilities of a device
 * @ibdev: the device; must stay registered for the duration of the call
 * @caps: filled in
 *
 * Context: any; does not sleep.
 */
void cqn_caps_read(struct ib_device *ibdev, struct cqn_dev_caps *caps)
{
	const struct ib_device_attr *attr = &ibdev->attrs;

	memset(caps, 0, sizeof(*caps));
	strscpy(caps->name, dev_name(&ibdev->dev), sizeof(caps->name));
	caps->node_type = ibdev->node_type;
	caps->num_comp_vectors = ibdev->num_comp_vectors;
	caps->max_cqe = attr->max_cqe;
	caps->max_qp_wr = attr->max_qp_wr;
	caps->has_modify_cq = ibdev->ops.modify_cq;
	caps->has_resize_cq = ibdev->ops.resize_cq;
	caps->max_moder_count = attr->cq_caps.max_cq_moderation_count;
	caps->max_moder_period = attr->cq_caps.max_cq_moderation_period;
}

/**
 * cqn_node_type_name() - short stable name of an RDMA node type
 * @node_type: an enum rdma_node_type value
 *
 * Context: any.
 * Return: a static string; "unknown" for values this module does not know.
 */
const char *cqn_node_type_name(unsigned int node_type)
{
	switch (node_type) {
	case RDMA_NODE_IB_CA:
		return "ib_ca";
	case RDMA_NODE_IB_SWITCH:
		return "ib_switch";
	case RDMA_NODE_IB_ROUTER:
		return "ib_router";
	case RDMA_NODE_RNIC:
		return "rnic";
	case RDMA_NODE_USNIC:
		return "usnic";
	case RDMA_NODE_USNIC_UDP:
		return "usnic_udp";
	case RDMA_NODE_UNSPECIFIED:
		return "unspecified";
	}
	return "unknown";
}
EXPORT_SYMBOL_IF_KUNIT(cqn_node_type_name);

/**
 * cqn_caps_format() - format capabilities as one line
 * @caps: what cqn_caps_read() returned
 * @buf: output, always NUL-terminated when @len > 0
 * @len: size of @buf
 *
 * The line is the device name followed by space-separated key=value pairs
 * and a newline; Documentation/admin-guide.rst lists the keys.
 *
 * Context: any.
 * Return: the length written, or -EOVERFLOW if @buf was too small (the
 * line is then truncated).
 */
int cqn_caps_format(const struct cqn_dev_caps *caps, char *buf, size_t len)
{
	int n;

	n = snprintf(buf, len,
		     "%s node_type=%s comp_vectors=%d max_cqe=%d max_qp_wr=%d modify_cq=%s resize_cq=%s moder_max_count=%u moder_max_period_us=%u\n",
		     caps->name, cqn_node_type_name(caps->node_type),
		     caps->num_comp_vectors, caps->max_cqe, caps->max_qp_wr,
		     caps->has_modify_cq ? "yes" : "no",
		     caps->has_resize_cq ? "yes" : "no",
		     caps->max_moder_count, caps->max_moder_period);
	if (n < 0 || (size_t)n >= len)
		return -EOVERFLOW;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_caps_format);
