// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite cqnotify_parse: strict parsing of configfs attribute values.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/string.h>

#include "cqn_compat.h"
#include "cqn_parse.h"

CQN_IMPORT_KUNIT_NS();

/**
 * struct cqn_u32_case - one input to cqn_parse_u32() and what it must give
 * @in: bytes written by userspace
 * @len: how many of them (lets a case hold an embedded NUL)
 * @ret: expected return value
 * @val: expected value when @ret is 0
 */
struct cqn_u32_case {
	const char *in;
	size_t len;
	int ret;
	u32 val;
};

#define CQN_U32(s, r, v) { .in = s, .len = sizeof(s) - 1, .ret = r, .val = v }

/* Range [1, 4096] throughout. */
static const struct cqn_u32_case cqn_u32_cases[] = {
	CQN_U32("1", 0, 1),
	CQN_U32("4096", 0, 4096),
	CQN_U32("4096\n", 0, 4096),
	CQN_U32("64\n", 0, 64),
	CQN_U32("0", -ERANGE, 0),
	CQN_U32("4097", -ERANGE, 0),
	CQN_U32("4294967295", -ERANGE, 0),
	CQN_U32("4294967296", -ERANGE, 0),
	CQN_U32("99999999999999999999999", -ERANGE, 0),
	CQN_U32("", -EINVAL, 0),
	CQN_U32("\n", -EINVAL, 0),
	CQN_U32("-1", -EINVAL, 0),
	CQN_U32("+5", -EINVAL, 0),
	CQN_U32("0x10", -EINVAL, 0),
	CQN_U32("010", -EINVAL, 0),
	CQN_U32(" 5", -EINVAL, 0),
	CQN_U32("5 ", -EINVAL, 0),
	CQN_U32("5\n\n", -EINVAL, 0),
	CQN_U32("5\t", -EINVAL, 0),
	CQN_U32("5\0007", -EINVAL, 0),
	CQN_U32("12abc", -EINVAL, 0),
	CQN_U32("\xc3\xa9", -EINVAL, 0),
	CQN_U32("1.5", -EINVAL, 0),
};

static void cqn_u32_case_desc(const struct cqn_u32_case *c, char *desc)
{
	size_t i, o = 0;

	for (i = 0; i < c->len && o < KUNIT_PARAM_DESC_SIZE - 5; i++) {
		unsigned char ch = c->in[i];

		if (ch >= ' ' && ch < 0x7f)
			desc[o++] = ch;
		else
			o += scnprintf(desc + o, KUNIT_PARAM_DESC_SIZE - o, "\\x%02x", ch);
	}
	desc[o] = '\0';
}

KUNIT_ARRAY_PARAM(cqn_u32, cqn_u32_cases, cqn_u32_case_desc);

static void cqn_parse_test_u32(struct kunit *test)
{
	const struct cqn_u32_case *c = test->param_value;
	u32 v = 0xdeadbeef;

	KUNIT_EXPECT_EQ(test, cqn_parse_u32(c->in, c->len, 1, 4096, &v), c->ret);
	/* A refused value must leave the destination untouched. */
	KUNIT_EXPECT_EQ(test, v, c->ret ? 0xdeadbeef : c->val);
}

static void cqn_parse_test_s32(struct kunit *test)
{
	s32 v = 7;

	KUNIT_EXPECT_EQ(test, cqn_parse_s32("-1\n", 3, -1, 255, &v), 0);
	KUNIT_EXPECT_EQ(test, v, -1);
	KUNIT_EXPECT_EQ(test, cqn_parse_s32("255", 3, -1, 255, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 255);
	KUNIT_EXPECT_EQ(test, cqn_parse_s32("-2", 2, -1, 255, &v), -ERANGE);
	KUNIT_EXPECT_EQ(test, cqn_parse_s32("256", 3, -1, 255, &v), -ERANGE);
	KUNIT_EXPECT_EQ(test, cqn_parse_s32("-", 1, -1, 255, &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_s32("-01", 3, -1, 255, &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_s32("--1", 3, -1, 255, &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, v, 255);
}

static void cqn_parse_test_bool(struct kunit *test)
{
	bool b = false;

	KUNIT_EXPECT_EQ(test, cqn_parse_bool("1\n", 2, &b), 0);
	KUNIT_EXPECT_TRUE(test, b);
	KUNIT_EXPECT_EQ(test, cqn_parse_bool("0", 1, &b), 0);
	KUNIT_EXPECT_FALSE(test, b);
	KUNIT_EXPECT_EQ(test, cqn_parse_bool("2", 1, &b), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_bool("y", 1, &b), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_bool("true", 4, &b), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_bool("", 0, &b), -EINVAL);
	KUNIT_EXPECT_FALSE(test, b);
}

static const char *const cqn_test_modes[] = { "event", "poll", NULL, "adaptive" };

static void cqn_parse_test_choice(struct kunit *test)
{
	unsigned int idx = 99;
	const unsigned int n = ARRAY_SIZE(cqn_test_modes);

	KUNIT_EXPECT_EQ(test, cqn_parse_choice("poll\n", 5, cqn_test_modes, n, &idx), 0);
	KUNIT_EXPECT_EQ(test, idx, 1U);
	KUNIT_EXPECT_EQ(test, cqn_parse_choice("adaptive", 8, cqn_test_modes, n, &idx), 0);
	KUNIT_EXPECT_EQ(test, idx, 3U);
	KUNIT_EXPECT_EQ(test, cqn_parse_choice("Poll", 4, cqn_test_modes, n, &idx), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_choice("pol", 3, cqn_test_modes, n, &idx), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_choice("polling", 7, cqn_test_modes, n, &idx), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_choice("poll x", 6, cqn_test_modes, n, &idx), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_choice("", 0, cqn_test_modes, n, &idx), -EINVAL);
	KUNIT_EXPECT_EQ(test, idx, 3U);
}

static void cqn_parse_test_addr(struct kunit *test)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	char out[64];

	KUNIT_ASSERT_EQ(test, cqn_parse_addr("10.77.0.1\n", 10, &ss), 0);
	KUNIT_EXPECT_EQ(test, ss.ss_family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(sin->sin_addr.s_addr), 0x0a4d0001U);
	cqn_format_addr(&ss, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, "10.77.0.1");

	KUNIT_ASSERT_EQ(test, cqn_parse_addr("fe80::1", 7, &ss), 0);
	KUNIT_EXPECT_EQ(test, ss.ss_family, AF_INET6);
	cqn_format_addr(&ss, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, "fe80::1");

	KUNIT_ASSERT_EQ(test, cqn_parse_addr("::", 2, &ss), 0);
	KUNIT_EXPECT_EQ(test, ss.ss_family, AF_INET6);

	KUNIT_EXPECT_EQ(test, cqn_parse_addr("10.77.0.256", 11, &ss), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_addr("10.77.0", 7, &ss), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_addr("10.77.0.1x", 10, &ss), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_addr("localhost", 9, &ss), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_addr("fe80:::1", 8, &ss), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqn_parse_addr("", 0, &ss), -EINVAL);
	/* Still the last good value. */
	KUNIT_EXPECT_EQ(test, ss.ss_family, AF_INET6);
}

static void cqn_parse_test_token_length(struct kunit *test)
{
	char big[CQN_PARSE_MAX_TOKEN + 2];
	char tok[CQN_PARSE_MAX_TOKEN + 1];

	memset(big, '7', sizeof(big));
	KUNIT_EXPECT_EQ(test, cqn_parse_token(big, CQN_PARSE_MAX_TOKEN, tok, sizeof(tok)),
			CQN_PARSE_MAX_TOKEN);
	KUNIT_EXPECT_EQ(test, cqn_parse_token(big, CQN_PARSE_MAX_TOKEN + 1, tok, sizeof(tok)),
			-EINVAL);
	big[CQN_PARSE_MAX_TOKEN] = '\n';
	KUNIT_EXPECT_EQ(test, cqn_parse_token(big, CQN_PARSE_MAX_TOKEN + 1, tok, sizeof(tok)),
			CQN_PARSE_MAX_TOKEN);
}

static struct kunit_case cqn_parse_test_cases[] = {
	KUNIT_CASE_PARAM(cqn_parse_test_u32, cqn_u32_gen_params),
	KUNIT_CASE(cqn_parse_test_s32),
	KUNIT_CASE(cqn_parse_test_bool),
	KUNIT_CASE(cqn_parse_test_choice),
	KUNIT_CASE(cqn_parse_test_addr),
	KUNIT_CASE(cqn_parse_test_token_length),
	{}
};

static struct kunit_suite cqn_parse_test_suite = {
	.name = "cqnotify_parse",
	.test_cases = cqn_parse_test_cases,
};

kunit_test_suite(cqn_parse_test_suite);

MODULE_DESCRIPTION("KUnit suites for cqnotify");
MODULE_LICENSE("GPL");
