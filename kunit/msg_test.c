// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite cqnotify_msg: message stamping and echo verification. Every
 * single-bit corruption, every wrong length and every out-of-order echo must
 * be caught.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "cqn_msg.h"

static u8 *cqn_msg_test_make(struct kunit *test, u32 len, u64 seq)
{
	u8 *buf = kunit_kzalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	cqn_msg_init_payload(buf, len);
	cqn_msg_stamp(buf, len, seq, 123456789, true);
	return buf;
}

static void cqn_msg_test_roundtrip(struct kunit *test)
{
	static const u32 lens[] = { 1, 7, 31, 32, 33, 64, 4095, 4096, 65536 };
	u64 seq, ns;
	int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		u8 *buf = cqn_msg_test_make(test, lens[i], 42);

		KUNIT_EXPECT_EQ_MSG(test, cqn_msg_verify(buf, lens[i], lens[i], 42, &seq, &ns),
				    CQN_MSG_OK, "len %u", lens[i]);
		KUNIT_EXPECT_EQ(test, seq, 42ULL);
		if (lens[i] >= CQN_MSG_HDR_LEN)
			KUNIT_EXPECT_EQ(test, ns, 123456789ULL);
	}
}

/* Flip each bit of a message in turn: every flip must be reported. */
static void cqn_msg_test_every_bit_flip(struct kunit *test)
{
	static const u32 lens[] = { 1, 5, 16, 32, 64, 200 };
	u64 seq, ns;
	int i;
	u32 bit;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		u32 len = lens[i];
		u8 *buf = cqn_msg_test_make(test, len, 1000 + i);
		u32 missed = 0;

		for (bit = 0; bit < len * 8; bit++) {
			buf[bit / 8] ^= 1 << (bit % 8);
			if (cqn_msg_verify(buf, len, len, 1000 + i, &seq, &ns) == CQN_MSG_OK)
				missed++;
			buf[bit / 8] ^= 1 << (bit % 8);
		}
		KUNIT_EXPECT_EQ_MSG(test, missed, 0U, "len %u: %u flips not caught", len, missed);
		KUNIT_EXPECT_EQ(test, cqn_msg_verify(buf, len, len, 1000 + i, &seq, &ns),
				CQN_MSG_OK);
	}
}

static void cqn_msg_test_verdicts(struct kunit *test)
{
	u8 *buf = cqn_msg_test_make(test, 128, 10);
	u64 seq, ns;

	KUNIT_EXPECT_EQ(test, cqn_msg_verify(buf, 127, 128, 10, &seq, &ns), CQN_MSG_BAD_LEN);
	KUNIT_EXPECT_EQ(test, cqn_msg_verify(buf, 128, 127, 10, &seq, &ns), CQN_MSG_BAD_LEN);
	KUNIT_EXPECT_EQ(test, cqn_msg_verify(buf, 128, 128, 9, &seq, &ns), CQN_MSG_LOST);
	KUNIT_EXPECT_EQ(test, seq, 10ULL);
	KUNIT_EXPECT_EQ(test, cqn_msg_verify(buf, 128, 128, 11, &seq, &ns), CQN_MSG_STALE);
	KUNIT_EXPECT_EQ(test, seq, 10ULL);
	buf[0] ^= 0x80;
	KUNIT_EXPECT_EQ(test, cqn_msg_verify(buf, 128, 128, 10, &seq, &ns), CQN_MSG_BAD_MAGIC);
	buf[0] ^= 0x80;
	buf[100] ^= 0x01;
	KUNIT_EXPECT_EQ(test, cqn_msg_verify(buf, 128, 128, 10, &seq, &ns), CQN_MSG_CORRUPT);
}

/* Short messages carry no header: order is still checked through the bytes. */
static void cqn_msg_test_short_order(struct kunit *test)
{
	u8 *buf = cqn_msg_test_make(test, 4, 300);
	u64 seq, ns;

	KUNIT_EXPECT_EQ(test, cqn_msg_verify(buf, 4, 4, 300, &seq, &ns), CQN_MSG_OK);
	KUNIT_EXPECT_NE(test, cqn_msg_verify(buf, 4, 4, 299, &seq, &ns), CQN_MSG_OK);
	KUNIT_EXPECT_NE(test, cqn_msg_verify(buf, 4, 4, 301, &seq, &ns), CQN_MSG_OK);
	KUNIT_EXPECT_EQ(test, cqn_msg_verify(buf, 3, 4, 300, &seq, &ns), CQN_MSG_BAD_LEN);
}

/* Swapping two whole messages (a reorder) is seen even with valid checksums. */
static void cqn_msg_test_swapped(struct kunit *test)
{
	u8 *a = cqn_msg_test_make(test, 64, 5);
	u8 *b = cqn_msg_test_make(test, 64, 6);
	u64 seq, ns;

	KUNIT_EXPECT_EQ(test, cqn_msg_verify(b, 64, 64, 5, &seq, &ns), CQN_MSG_LOST);
	KUNIT_EXPECT_EQ(test, cqn_msg_verify(a, 64, 64, 6, &seq, &ns), CQN_MSG_STALE);
}

static void cqn_msg_test_no_csum(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	u64 seq, ns;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	cqn_msg_init_payload(buf, 64);
	cqn_msg_stamp(buf, 64, 1, 2, false);
	/* Without a checksum the echo cannot pass verification by accident. */
	KUNIT_EXPECT_EQ(test, cqn_msg_verify(buf, 64, 64, 1, &seq, &ns), CQN_MSG_CORRUPT);
}

/* What the server calls malformed: empty, or a header that lies about len. */
static void cqn_msg_test_malformed(struct kunit *test)
{
	u8 *buf = cqn_msg_test_make(test, 64, 7);
	struct cqn_msg_hdr *hdr = (struct cqn_msg_hdr *)buf;
	u32 claimed;

	KUNIT_EXPECT_FALSE(test, cqn_msg_malformed(buf, 64, &claimed));
	KUNIT_EXPECT_EQ(test, claimed, 64U);
	KUNIT_EXPECT_TRUE(test, cqn_msg_malformed(buf, 0, &claimed));
	KUNIT_EXPECT_EQ(test, claimed, 0U);
	/* Cut short: the header now claims more than arrived. */
	KUNIT_EXPECT_TRUE(test, cqn_msg_malformed(buf, 40, &claimed));
	KUNIT_EXPECT_EQ(test, claimed, 64U);
	hdr->len = cpu_to_be32(0xffffffff);
	KUNIT_EXPECT_TRUE(test, cqn_msg_malformed(buf, 64, &claimed));
	KUNIT_EXPECT_EQ(test, claimed, 0xffffffffU);
	/* No magic, or too short for a header: another peer's data, not judged. */
	buf[0] ^= 0x80;
	KUNIT_EXPECT_FALSE(test, cqn_msg_malformed(buf, 64, &claimed));
	KUNIT_EXPECT_FALSE(test, cqn_msg_malformed(cqn_msg_test_make(test, 31, 7), 31, &claimed));
	KUNIT_EXPECT_FALSE(test, cqn_msg_malformed(cqn_msg_test_make(test, 1, 7), 1, &claimed));
}

static struct kunit_case cqn_msg_test_cases[] = {
	KUNIT_CASE(cqn_msg_test_roundtrip),
	KUNIT_CASE(cqn_msg_test_every_bit_flip),
	KUNIT_CASE(cqn_msg_test_verdicts),
	KUNIT_CASE(cqn_msg_test_short_order),
	KUNIT_CASE(cqn_msg_test_swapped),
	KUNIT_CASE(cqn_msg_test_no_csum),
	KUNIT_CASE(cqn_msg_test_malformed),
	{}
};

static struct kunit_suite cqn_msg_test_suite = {
	.name = "cqnotify_msg",
	.test_cases = cqn_msg_test_cases,
};

kunit_test_suite(cqn_msg_test_suite);
