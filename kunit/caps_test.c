// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite cqnotify_caps: the "devices" line built from device capabilities.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "cqn_caps.h"

static const struct cqn_dev_caps cqn_test_rxe_caps = {
	.name = "rxe0",
	.node_type = RDMA_NODE_IB_CA,
	.num_comp_vectors = 1,
	.max_cqe = 32767,
	.max_qp_wr = 16384,
	.has_modify_cq = false,
	.has_resize_cq = true,
};

static void cqn_caps_test_rxe_line(struct kunit *test)
{
	char buf[256];
	int n;

	n = cqn_caps_format(&cqn_test_rxe_caps, buf, sizeof(buf));
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_EXPECT_STREQ(test, buf,
			   "rxe0 node_type=ib_ca comp_vectors=1 max_cqe=32767 max_qp_wr=16384 modify_cq=no resize_cq=yes moder_max_count=0 moder_max_period_us=0\n");
	KUNIT_EXPECT_EQ(test, n, (int)strlen(buf));
}

static void cqn_caps_test_moderation_line(struct kunit *test)
{
	struct cqn_dev_caps caps = cqn_test_rxe_caps;
	char buf[256];

	strscpy(caps.name, "mlx5_0", sizeof(caps.name));
	caps.has_modify_cq = true;
	caps.max_moder_count = 65535;
	caps.max_moder_period = 4095;
	KUNIT_ASSERT_GT(test, cqn_caps_format(&caps, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " modify_cq=yes "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " moder_max_count=65535 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " moder_max_period_us=4095\n"));
	KUNIT_EXPECT_EQ(test, strncmp(buf, "mlx5_0 ", 7), 0);
}

static void cqn_caps_test_truncation(struct kunit *test)
{
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	KUNIT_EXPECT_EQ(test, cqn_caps_format(&cqn_test_rxe_caps, buf, sizeof(buf)),
			-EOVERFLOW);
	/* Truncated output is still a terminated string. */
	KUNIT_EXPECT_EQ(test, buf[sizeof(buf) - 1], '\0');
}

static void cqn_caps_test_node_types(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, cqn_node_type_name(RDMA_NODE_IB_CA), "ib_ca");
	KUNIT_EXPECT_STREQ(test, cqn_node_type_name(RDMA_NODE_RNIC), "rnic");
	KUNIT_EXPECT_STREQ(test, cqn_node_type_name(RDMA_NODE_USNIC_UDP), "usnic_udp");
	KUNIT_EXPECT_STREQ(test, cqn_node_type_name(RDMA_NODE_UNSPECIFIED), "unspecified");
	KUNIT_EXPECT_STREQ(test, cqn_node_type_name(1000), "unknown");
}

static struct kunit_case cqn_caps_test_cases[] = {
	KUNIT_CASE(cqn_caps_test_rxe_line),
	KUNIT_CASE(cqn_caps_test_moderation_line),
	KUNIT_CASE(cqn_caps_test_truncation),
	KUNIT_CASE(cqn_caps_test_node_types),
	{}
};

static struct kunit_suite cqn_caps_test_suite = {
	.name = "cqnotify_caps",
	.test_cases = cqn_caps_test_cases,
};

kunit_test_suite(cqn_caps_test_suite);
