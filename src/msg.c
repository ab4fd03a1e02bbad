// SPDX-License-Identifier: GPL-2.0
/*
 * Client messages: build them and verify their echoes. Pure functions, tested
 * by the KUnit suite cqnotify_msg (every single-bit corruption is caught).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "cqn_compat.h"
#include "cqn_msg.h"

/* Everything in the header after the magic and before the csum is covered. */
#define CQN_MSG_CSUM_SEED	0xffffffff

static u8 cqn_msg_pattern_byte(u32 i)
{
	return (u8)(i * 7 + 1);
}

/* Byte i of a message too short for a header, as a function of its seq. */
static u8 cqn_msg_short_byte(u64 seq, u32 i)
{
	return (u8)(seq >> (8 * (i % 8))) ^ (u8)(i / 8);
}

static u32 cqn_msg_csum(const struct cqn_msg_hdr *hdr, u32 len)
{
	u32 crc;

	crc = crc32_le(CQN_MSG_CSUM_SEED, (const u8 *)&hdr->len,
		       offsetof(struct cqn_msg_hdr, csum) -
		       offsetof(struct cqn_msg_hdr, len));
	crc = crc32_le(crc, (const u8 *)&hdr->reserved, sizeof(hdr->reserved));
	return crc32_le(crc, (const u8 *)(hdr + 1), len - CQN_MSG_HDR_LEN);
}

/**
 * cqn_msg_init_payload() - write the fixed payload pattern into a send buffer
 * @buf: the buffer
 * @len: message length
 *
 * Done once per buffer: cqn_msg_stamp() then only rewrites the header.
 *
 * Context: any.
 */
void cqn_msg_init_payload(void *buf, u32 len)
{
	u8 *p = buf;
	u32 i;

	for (i = CQN_MSG_HDR_LEN; i < len; i++)
		p[i] = cqn_msg_pattern_byte(i);
}
EXPORT_SYMBOL_IF_KUNIT(cqn_msg_init_payload);

/**
 * cqn_msg_stamp() - make a buffer holding the payload pattern message @seq
 * @buf: the buffer, prepared by cqn_msg_init_payload()
 * @len: message length
 * @seq: sequence number
 * @send_ns: send time
 * @csum: compute the checksum (the cost of verification on the send side)
 *
 * Context: any.
 */
void cqn_msg_stamp(void *buf, u32 len, u64 seq, u64 send_ns, bool csum)
{
	struct cqn_msg_hdr *hdr = buf;
	u8 *p = buf;
	u32 i;

	if (len < CQN_MSG_HDR_LEN) {
		for (i = 0; i < len; i++)
			p[i] = cqn_msg_short_byte(seq, i);
		return;
	}
	hdr->magic = cpu_to_be32(CQN_MSG_MAGIC);
	hdr->len = cpu_to_be32(len);
	hdr->seq = cpu_to_be64(seq);
	hdr->send_ns = cpu_to_be64(send_ns);
	hdr->reserved = 0;
	hdr->csum = csum ? cpu_to_be32(cqn_msg_csum(hdr, len)) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_msg_stamp);

/**
 * cqn_msg_verify() - check an echo against what the client expects next
 * @buf: the received message
 * @len: bytes received
 * @expected_len: bytes sent
 * @expected_seq: the sequence number the next echo must carry
 * @seq: the sequence number found (meaningful for OK, LOST, STALE)
 * @send_ns: the send time found in the header, 0 for short messages
 *
 * Context: any.
 * Return: the verdict.
 */
enum cqn_msg_verdict cqn_msg_verify(const void *buf, u32 len, u32 expected_len,
				    u64 expected_seq, u64 *seq, u64 *send_ns)
{
	const struct cqn_msg_hdr *hdr = buf;
	const u8 *p = buf;
	u64 s;
	u32 i;

	*seq = expected_seq;
	*send_ns = 0;
	if (len != expected_len)
		return CQN_MSG_BAD_LEN;
	if (len < CQN_MSG_HDR_LEN) {
		for (i = 0; i < len; i++)
			if (p[i] != cqn_msg_short_byte(expected_seq, i))
				return CQN_MSG_CORRUPT;
		return CQN_MSG_OK;
	}
	if (be32_to_cpu(hdr->magic) != CQN_MSG_MAGIC)
		return CQN_MSG_BAD_MAGIC;
	if (be32_to_cpu(hdr->csum) != cqn_msg_csum(hdr, len) ||
	    be32_to_cpu(hdr->len) != len)
		return CQN_MSG_CORRUPT;
	s = be64_to_cpu(hdr->seq);
	*seq = s;
	*send_ns = be64_to_cpu(hdr->send_ns);
	if (s > expected_seq)
		return CQN_MSG_LOST;
	if (s < expected_seq)
		return CQN_MSG_STALE;
	return CQN_MSG_OK;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_msg_verify);

/**
 * cqn_msg_verdict_name() - readable name of a verdict, for logs and last_error
 * @v: the verdict
 *
 * Context: any.
 * Return: a static string.
 */
const char *cqn_msg_verdict_name(enum cqn_msg_verdict v)
{
	switch (v) {
	case CQN_MSG_OK:
		return "ok";
	case CQN_MSG_BAD_LEN:
		return "wrong length";
	case CQN_MSG_BAD_MAGIC:
		return "bad magic";
	case CQN_MSG_CORRUPT:
		return "corrupted";
	case CQN_MSG_LOST:
		return "lost messages before it";
	case CQN_MSG_STALE:
		return "duplicate or reordered";
	}
	return "unknown";
}
EXPORT_SYMBOL_IF_KUNIT(cqn_msg_verdict_name);

/**
 * cqn_msg_malformed() - is a received message one no cqnotify client sends?
 * @buf: the message as received
 * @len: bytes received
 * @claimed: set to the length its header claims (@len when it has none)
 *
 * The server's check of what a peer sent. A cqnotify client never sends an
 * empty message (msg_size is at least 1), and a message that starts with
 * CQN_MSG_MAGIC carries exactly the length its header states. A message
 * without the magic is some other peer's data (rdma_client's, say) and is
 * not judged: the server echoes anything verbatim.
 *
 * Context: any.
 * Return: true for an empty message, or a header whose len is not @len.
 */
bool cqn_msg_malformed(const void *buf, u32 len, u32 *claimed)
{
	const struct cqn_msg_hdr *hdr = buf;

	*claimed = len;
	if (!len)
		return true;
	if (len < CQN_MSG_HDR_LEN || be32_to_cpu(hdr->magic) != CQN_MSG_MAGIC)
		return false;
	*claimed = be32_to_cpu(hdr->len);
	return *claimed != len;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_msg_malformed);
