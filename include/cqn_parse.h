/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strict parsers for values written to configfs attributes. They take the
 * raw (buffer, count) a store handler receives and accept exactly one token,
 * optionally followed by a single newline; anything else is refused.
 */
#ifndef _CQN_PARSE_H
#define _CQN_PARSE_H

#include <linux/socket.h>
#include <linux/types.h>

/* Longest token any attribute accepts: an IPv6 address with a scope is 45. */
#define CQN_PARSE_MAX_TOKEN	63

int cqn_parse_token(const char *buf, size_t count, char *tok, size_t toklen);
int cqn_parse_u32(const char *buf, size_t count, u32 min, u32 max, u32 *out);
int cqn_parse_s32(const char *buf, size_t count, s32 min, s32 max, s32 *out);
int cqn_parse_bool(const char *buf, size_t count, bool *out);
int cqn_parse_choice(const char *buf, size_t count, const char *const *names,
		     unsigned int n, unsigned int *out);
int cqn_parse_addr(const char *buf, size_t count, struct sockaddr_storage *ss);
int cqn_format_addr(const struct sockaddr_storage *ss, char *buf, size_t len);

#endif /* _CQN_PARSE_H */
