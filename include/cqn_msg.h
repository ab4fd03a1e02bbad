/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The message a cqnotify client sends and expects back verbatim, and the
 * pure functions that build and verify it.
 *
 * A message of at least CQN_MSG_HDR_LEN bytes starts with struct cqn_msg_hdr
 * followed by a fixed byte pattern. A shorter message cannot hold the
 * header: its bytes are derived from the sequence number alone, so loss,
 * duplication and reordering are still seen (modulo 2^(8 * length)), and any
 * change to a byte is.
 */
#ifndef _CQN_MSG_H
#define _CQN_MSG_H

#include <linux/types.h>

/* "CQN1": tells a cqnotify message from anything else a peer might send. */
#define CQN_MSG_MAGIC		0x43514e31

/**
 * struct cqn_msg_hdr - header of a client message, big-endian on the wire
 * @magic: CQN_MSG_MAGIC
 * @len: length of the whole message, header included
 * @seq: sequence number, from 0, one per message on a connection
 * @send_ns: sender's ktime_get_ns() when the message was posted
 * @csum: crc32_le over @len, @seq, @send_ns, @reserved and the payload
 *	(0 when the sender does not verify)
 * @reserved: zero
 */
struct cqn_msg_hdr {
	__be32 magic;
	__be32 len;
	__be64 seq;
	__be64 send_ns;
	__be32 csum;
	__be32 reserved;
} __packed;

#define CQN_MSG_HDR_LEN		sizeof(struct cqn_msg_hdr)

/**
 * enum cqn_msg_verdict - what cqn_msg_verify() found
 * @CQN_MSG_OK: the expected message, intact
 * @CQN_MSG_BAD_LEN: the received length is not the length sent
 * @CQN_MSG_BAD_MAGIC: the header does not start with CQN_MSG_MAGIC
 * @CQN_MSG_CORRUPT: checksum (or, for short messages, pattern) mismatch
 * @CQN_MSG_LOST: intact, but later than expected: messages were lost
 * @CQN_MSG_STALE: intact, but earlier than expected: duplicate or reordered
 */
enum cqn_msg_verdict {
	CQN_MSG_OK,
	CQN_MSG_BAD_LEN,
	CQN_MSG_BAD_MAGIC,
	CQN_MSG_CORRUPT,
	CQN_MSG_LOST,
	CQN_MSG_STALE,
};

void cqn_msg_init_payload(void *buf, u32 len);
void cqn_msg_stamp(void *buf, u32 len, u64 seq, u64 send_ns, bool csum);
enum cqn_msg_verdict cqn_msg_verify(const void *buf, u32 len, u32 expected_len,
				    u64 expected_seq, u64 *seq, u64 *send_ns);
const char *cqn_msg_verdict_name(enum cqn_msg_verdict v);
bool cqn_msg_malformed(const void *buf, u32 len, u32 *claimed);

#endif /* _CQN_MSG_H */
