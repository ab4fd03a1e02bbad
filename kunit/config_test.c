// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite cqnotify_config: defaults, the sizing rules checked at enable,
 * and the endpoint state moves the service may make.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "cqn_config.h"
#include "cqn_service.h"

static void cqn_config_test_defaults_valid(struct kunit *test)
{
	struct cqn_config cfg;
	char why[128];

	cqn_config_defaults(&cfg);
	KUNIT_EXPECT_EQ(test, cfg.port, 7471U);
	KUNIT_EXPECT_EQ(test, cfg.role, (u32)CQN_ROLE_SERVER);
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), 0);
	KUNIT_EXPECT_STREQ(test, why, "");
}

static void cqn_config_test_cq_depth_rule(struct kunit *test)
{
	struct cqn_config cfg;
	char why[128];

	cqn_config_defaults(&cfg);
	cfg.send_depth = 100;
	cfg.recv_depth = 27;
	cfg.cq.cq_depth = 128;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), 0);
	cfg.cq.cq_depth = 127;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "cq_depth 127"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "= 128"));
}

/*
 * The rule leaves no room for an overflow at the largest depths either,
 * and a CQ that satisfies it can always be asked for.
 */
static void cqn_config_test_cq_depth_rule_at_max(struct kunit *test)
{
	struct cqn_config cfg;
	char why[128];

	cqn_config_defaults(&cfg);
	cfg.msg_size = 1;
	cfg.send_depth = CQN_DEPTH_MAX;
	cfg.recv_depth = CQN_DEPTH_MAX;
	cfg.cq.cq_depth = 2 * CQN_DEPTH_MAX + 1;
	KUNIT_EXPECT_LE(test, cfg.cq.cq_depth, (u32)CQN_CQ_DEPTH_MAX);
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), 0);
	cfg.cq.cq_depth = 2 * CQN_DEPTH_MAX;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), -EINVAL);
}

static void cqn_config_test_buffer_limit(struct kunit *test)
{
	struct cqn_config cfg;
	char why[128];

	cqn_config_defaults(&cfg);
	cfg.msg_size = CQN_MSG_SIZE_MAX;
	cfg.send_depth = 32;
	cfg.recv_depth = 32;
	KUNIT_EXPECT_EQ(test, cqn_config_buf_bytes(&cfg), 64ULL << 20);
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), 0);
	cfg.recv_depth = 33;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), -ERANGE);
	/* The largest depths with the largest message cannot overflow u64 maths. */
	cfg.send_depth = CQN_DEPTH_MAX;
	cfg.recv_depth = CQN_DEPTH_MAX;
	cfg.cq.cq_depth = CQN_CQ_DEPTH_MAX;
	KUNIT_EXPECT_EQ(test, cqn_config_buf_bytes(&cfg), 2ULL * CQN_DEPTH_MAX * CQN_MSG_SIZE_MAX);
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), -ERANGE);
}

/* One SRQ's buffers have the same bound as one connection's, with srq=1 only. */
static void cqn_config_test_srq_rules(struct kunit *test)
{
	struct cqn_config cfg;
	char why[128];

	cqn_config_defaults(&cfg);
	KUNIT_EXPECT_FALSE(test, cfg.srq);
	KUNIT_EXPECT_EQ(test, cfg.srq_depth, CQN_SRQ_DEPTH_DEFAULT);
	cfg.srq_depth = CQN_SRQ_DEPTH_MAX;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), 0);
	cfg.srq = true;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), -ERANGE);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "srq_depth * msg_size"));
	cfg.srq_depth = CQN_CONN_BUF_MAX / cfg.msg_size;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), 0);
	/* A client has no SRQ: its srq is ignored. */
	cfg.srq_depth = CQN_SRQ_DEPTH_MAX;
	cfg.role = CQN_ROLE_CLIENT;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "server's address"));
	/* The limit event at a quarter, never 0 (0 would disarm it). */
	KUNIT_EXPECT_EQ(test, cqn_srq_limit(CQN_SRQ_DEPTH_MIN), 4U);
	KUNIT_EXPECT_EQ(test, cqn_srq_limit(CQN_SRQ_DEPTH_DEFAULT), 1024U);
	KUNIT_EXPECT_EQ(test, cqn_srq_limit(3), 1U);
}

static void cqn_config_test_client_rules(struct kunit *test)
{
	struct cqn_config cfg;
	struct sockaddr_in *sin = (struct sockaddr_in *)&cfg.addr;
	char why[128];

	cqn_config_defaults(&cfg);
	cfg.role = CQN_ROLE_CLIENT;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "addr"));
	sin->sin_addr.s_addr = htonl(0x0a4d0001);
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), 0);

	cfg.workload = CQN_WL_STREAM;
	cfg.queue_depth = cfg.send_depth;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), 0);
	cfg.queue_depth = cfg.send_depth + 1;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), -EINVAL);
	cfg.queue_depth = 8;
	cfg.recv_depth = 4;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "queue_depth 8"));
	/* Pingpong keeps one message in flight whatever queue_depth says. */
	cfg.workload = CQN_WL_PINGPONG;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), 0);

	/* iterations are divided over the connections: one each at least. */
	KUNIT_EXPECT_EQ(test, cfg.connections, 1U);
	cfg.connections = 8;
	cfg.iterations = 8;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), 0);
	cfg.iterations = 7;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "iterations 7 < connections 8"));
	cfg.iterations = 0;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), 0);
}

static void cqn_config_test_ipv6_any_client(struct kunit *test)
{
	struct cqn_config cfg;
	char why[128];

	cqn_config_defaults(&cfg);
	cfg.role = CQN_ROLE_CLIENT;
	memset(&cfg.addr, 0, sizeof(cfg.addr));
	cfg.addr.ss_family = AF_INET6;
	KUNIT_EXPECT_EQ(test, cqn_config_check(&cfg, why, sizeof(why)), -EINVAL);
}

/* Backoff doubles from the base, never exceeds the cap, never wraps. */
static void cqn_config_test_reconnect_delay(struct kunit *test)
{
	u32 a, prev = 0;

	KUNIT_EXPECT_EQ(test, cqn_reconnect_delay_ms(1), CQN_RECONNECT_BASE_MS);
	KUNIT_EXPECT_EQ(test, cqn_reconnect_delay_ms(2), 2 * CQN_RECONNECT_BASE_MS);
	KUNIT_EXPECT_EQ(test, cqn_reconnect_delay_ms(0), CQN_RECONNECT_BASE_MS);
	for (a = 1; a <= 64; a++) {
		u32 d = cqn_reconnect_delay_ms(a);

		KUNIT_EXPECT_GE(test, d, prev);
		KUNIT_EXPECT_LE(test, d, CQN_RECONNECT_MAX_MS);
		prev = d;
	}
	KUNIT_EXPECT_EQ(test, cqn_reconnect_delay_ms(U32_MAX), CQN_RECONNECT_MAX_MS);
	KUNIT_EXPECT_EQ(test, cqn_reconnect_delay_ms(CQN_RECONNECT_ATTEMPTS), CQN_RECONNECT_MAX_MS);
}

/* The live set is struct cqn_cq_params: each member live, nothing else. */
static void cqn_config_test_live_set(struct kunit *test)
{
	static const size_t live[] = {
		offsetof(struct cqn_config, cq.cq_depth),
		offsetof(struct cqn_config, cq.cq_mode),
		offsetof(struct cqn_config, cq.cq_count),
		offsetof(struct cqn_config, cq.cq_period),
		offsetof(struct cqn_config, cq.adaptive_moderation),
		offsetof(struct cqn_config, cq.poll_cpu),
		offsetof(struct cqn_config, cq.poll_window_max_us),
		offsetof(struct cqn_config, cq.poll_idle_us),
		offsetof(struct cqn_config, cq.poll_priority),
		offsetof(struct cqn_config, cq.solicited_only),
		offsetof(struct cqn_config, cq.watchdog_ms),
		offsetof(struct cqn_config, cq.max_events_per_ms),
	};
	static const size_t fixed[] = {
		offsetof(struct cqn_config, role),
		offsetof(struct cqn_config, addr),
		offsetof(struct cqn_config, port),
		offsetof(struct cqn_config, msg_size),
		offsetof(struct cqn_config, send_depth),
		offsetof(struct cqn_config, recv_depth),
		offsetof(struct cqn_config, max_conns),
		offsetof(struct cqn_config, connections),
		offsetof(struct cqn_config, workload),
		offsetof(struct cqn_config, queue_depth),
		offsetof(struct cqn_config, iterations),
		offsetof(struct cqn_config, duration_ms),
		offsetof(struct cqn_config, verify),
		offsetof(struct cqn_config, rate),
		offsetof(struct cqn_config, reconnect),
	};
	struct cqn_config a, b;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(live); i++)
		KUNIT_EXPECT_TRUE_MSG(test, cqn_config_is_live(live[i]), "live[%u]", i);
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		KUNIT_EXPECT_FALSE_MSG(test, cqn_config_is_live(fixed[i]), "fixed[%u]", i);
	/* One assignment carries the whole live set and nothing else. */
	cqn_config_defaults(&a);
	cqn_config_defaults(&b);
	b.cq.cq_count = 16;
	b.cq.watchdog_ms = 7;
	b.max_conns = 3;
	a.cq = b.cq;
	KUNIT_EXPECT_EQ(test, a.cq.cq_count, 16U);
	KUNIT_EXPECT_EQ(test, a.cq.watchdog_ms, 7U);
	KUNIT_EXPECT_NE(test, a.max_conns, 3U);
}

/* Within a run: the moves the service makes, and the ones it must refuse. */
static void cqn_config_test_state_moves(struct kunit *test)
{
	static const struct {
		enum cqn_ep_state from, to;
		bool ok;
	} moves[] = {
		{ CQN_EP_CONNECTING, CQN_EP_RUNNING, true },	/* established */
		{ CQN_EP_CONNECTING, CQN_EP_CONNECTING, true },	/* failed again, retrying */
		{ CQN_EP_RUNNING, CQN_EP_CONNECTING, true },	/* lost, reconnecting */
		{ CQN_EP_RUNNING, CQN_EP_DONE, true },
		{ CQN_EP_RUNNING, CQN_EP_ERROR, true },
		{ CQN_EP_CONNECTING, CQN_EP_ERROR, true },
		{ CQN_EP_DONE, CQN_EP_ERROR, true },		/* device removed */
		{ CQN_EP_DONE, CQN_EP_IDLE, true },		/* disabled */
		{ CQN_EP_ERROR, CQN_EP_IDLE, true },
		{ CQN_EP_ERROR, CQN_EP_ERROR, false },		/* the first error wins */
		{ CQN_EP_ERROR, CQN_EP_RUNNING, false },	/* a late ESTABLISHED */
		{ CQN_EP_ERROR, CQN_EP_CONNECTING, false },
		{ CQN_EP_ERROR, CQN_EP_DONE, false },
		{ CQN_EP_DONE, CQN_EP_CONNECTING, false },	/* a run that is over */
		{ CQN_EP_DONE, CQN_EP_RUNNING, false },
		{ CQN_EP_CONNECTING, CQN_EP_DONE, false },
		{ CQN_EP_IDLE, CQN_EP_ERROR, false },		/* nothing runs to fail */
		{ CQN_EP_IDLE, CQN_EP_RUNNING, false },		/* only enable starts a run */
		{ CQN_EP_IDLE, CQN_EP_DONE, false },
		{ CQN_EP_STATE_COUNT, CQN_EP_IDLE, false },
		{ CQN_EP_IDLE, CQN_EP_STATE_COUNT, false },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(moves); i++)
		KUNIT_EXPECT_EQ_MSG(test, cqn_ep_state_change_ok(moves[i].from, moves[i].to, false),
				    moves[i].ok, "%s -> %s",
				    moves[i].from < CQN_EP_STATE_COUNT ?
				    cqn_ep_state_names[moves[i].from] : "?",
				    moves[i].to < CQN_EP_STATE_COUNT ?
				    cqn_ep_state_names[moves[i].to] : "?");
}

/* A run starts from idle, or from the error a failed enable left, and nowhere else. */
static void cqn_config_test_state_new_run(struct kunit *test)
{
	enum cqn_ep_state from, to;

	for (from = 0; from < CQN_EP_STATE_COUNT; from++)
		for (to = 0; to < CQN_EP_STATE_COUNT; to++)
			KUNIT_EXPECT_EQ_MSG(test, cqn_ep_state_change_ok(from, to, true),
					    (from == CQN_EP_IDLE || from == CQN_EP_ERROR) &&
					    (to == CQN_EP_CONNECTING || to == CQN_EP_RUNNING),
					    "%s -> %s", cqn_ep_state_names[from],
					    cqn_ep_state_names[to]);
}

static struct kunit_case cqn_config_test_cases[] = {
	KUNIT_CASE(cqn_config_test_defaults_valid),
	KUNIT_CASE(cqn_config_test_cq_depth_rule),
	KUNIT_CASE(cqn_config_test_cq_depth_rule_at_max),
	KUNIT_CASE(cqn_config_test_buffer_limit),
	KUNIT_CASE(cqn_config_test_srq_rules),
	KUNIT_CASE(cqn_config_test_client_rules),
	KUNIT_CASE(cqn_config_test_ipv6_any_client),
	KUNIT_CASE(cqn_config_test_reconnect_delay),
	KUNIT_CASE(cqn_config_test_live_set),
	KUNIT_CASE(cqn_config_test_state_moves),
	KUNIT_CASE(cqn_config_test_state_new_run),
	{}
};

static struct kunit_suite cqn_config_test_suite = {
	.name = "cqnotify_config",
	.test_cases = cqn_config_test_cases,
};

kunit_test_suite(cqn_config_test_suite);
