// SPDX-License-Identifier: GPL-2.0
/*
 * Strict parsing of configfs attribute values. Pure functions: no device,
 * no locks, so the KUnit suite cqnotify_parse covers every rule.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/export.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "cqn_compat.h"
#include "cqn_parse.h"

/**
 * cqn_parse_token() - extract the single token a store handler received
 * @buf: what userspace wrote (not necessarily NUL-terminated at @count)
 * @count: bytes written
 * @tok: output, NUL-terminated
 * @toklen: size of @tok
 *
 * One trailing newline (as echo writes) is dropped. Empty input, embedded
 * NUL bytes, whitespace, control or non-ASCII characters, and tokens longer
 * than @toklen - 1 are refused.
 *
 * Context: any.
 * Return: the token length, or -EINVAL.
 */
int cqn_parse_token(const char *buf, size_t count, char *tok, size_t toklen)
{
	size_t i;

	if (count && buf[count - 1] == '\n')
		count--;
	if (!count || count >= toklen)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		unsigned char c = buf[i];

		if (c <= ' ' || c >= 0x7f)
			return -EINVAL;
		tok[i] = c;
	}
	tok[count] = '\0';
	return count;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_parse_token);

/**
 * cqn_parse_u32() - parse a decimal unsigned value within [@min, @max]
 * @buf: what userspace wrote
 * @count: bytes written
 * @min: smallest accepted value
 * @max: largest accepted value
 * @out: the value, written only on success
 *
 * Context: any.
 * Return: 0, -EINVAL if not a decimal number, -ERANGE if outside the range.
 */
int cqn_parse_u32(const char *buf, size_t count, u32 min, u32 max, u32 *out)
{
	char tok[CQN_PARSE_MAX_TOKEN + 1];
	u32 v;
	int ret;

	ret = cqn_parse_token(buf, count, tok, sizeof(tok));
	if (ret < 0)
		return ret;
	/* Decimal only: "0x10" or "010" in a depth would surprise a reader. */
	if (!isdigit(tok[0]) || (tok[0] == '0' && tok[1]))
		return -EINVAL;
	ret = kstrtou32(tok, 10, &v);
	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}
EXPORT_SYMBOL_GPL(cqn_parse_u32);

/**
 * cqn_parse_s32() - parse a decimal signed value within [@min, @max]
 * @buf: what userspace wrote
 * @count: bytes written
 * @min: smallest accepted value
 * @max: largest accepted value
 * @out: the value, written only on success
 *
 * Context: any.
 * Return: 0, -EINVAL if not a decimal number, -ERANGE if outside the range.
 */
int cqn_parse_s32(const char *buf, size_t count, s32 min, s32 max, s32 *out)
{
	char tok[CQN_PARSE_MAX_TOKEN + 1];
	const char *digits;
	s32 v;
	int ret;

	ret = cqn_parse_token(buf, count, tok, sizeof(tok));
	if (ret < 0)
		return ret;
	digits = tok[0] == '-' ? tok + 1 : tok;
	if (!isdigit(digits[0]) || (digits[0] == '0' && digits[1]))
		return -EINVAL;
	ret = kstrtos32(tok, 10, &v);
	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_parse_s32);

/**
 * cqn_parse_bool() - parse "0" or "1"
 * @buf: what userspace wrote
 * @count: bytes written
 * @out: the value, written only on success
 *
 * Context: any.
 * Return: 0, -EINVAL for anything but 0 or 1.
 */
int cqn_parse_bool(const char *buf, size_t count, bool *out)
{
	u32 v;
	int ret;

	ret = cqn_parse_u32(buf, count, 0, 1, &v);
	if (ret)
		return -EINVAL;
	*out = v;
	return 0;
}
EXPORT_SYMBOL_GPL(cqn_parse_bool);

/**
 * cqn_parse_choice() - parse one of a fixed set of names
 * @buf: what userspace wrote
 * @count: bytes written
 * @names: the accepted names; NULL entries are skipped
 * @n: number of entries in @names
 * @out: index of the matching name, written only on success
 *
 * Context: any.
 * Return: 0, -EINVAL if the value is none of @names.
 */
int cqn_parse_choice(const char *buf, size_t count, const char *const *names,
		     unsigned int n, unsigned int *out)
{
	char tok[CQN_PARSE_MAX_TOKEN + 1];
	unsigned int i;
	int ret;

	ret = cqn_parse_token(buf, count, tok, sizeof(tok));
	if (ret < 0)
		return ret;
	for (i = 0; i < n; i++) {
		if (names[i] && !strcmp(tok, names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_parse_choice);

/**
 * cqn_parse_addr() - parse a numeric IPv4 or IPv6 address
 * @buf: what userspace wrote
 * @count: bytes written
 * @ss: the address with port 0, written only on success
 *
 * Host names are not resolved: the kernel has no resolver.
 *
 * Context: any.
 * Return: 0, -EINVAL if the value is not an IPv4 or IPv6 address.
 */
int cqn_parse_addr(const char *buf, size_t count, struct sockaddr_storage *ss)
{
	char tok[CQN_PARSE_MAX_TOKEN + 1];
	struct sockaddr_storage tmp = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&tmp;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&tmp;
	const char *end;
	int len;

	len = cqn_parse_token(buf, count, tok, sizeof(tok));
	if (len < 0)
		return len;
	if (in4_pton(tok, len, (u8 *)&sin->sin_addr, -1, &end) &&
	    end == tok + len) {
		sin->sin_family = AF_INET;
	} else if (in6_pton(tok, len, (u8 *)&sin6->sin6_addr, -1, &end) &&
		   end == tok + len) {
		sin6->sin6_family = AF_INET6;
	} else {
		return -EINVAL;
	}
	*ss = tmp;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cqn_parse_addr);

/**
 * cqn_format_addr() - format an address the way cqn_parse_addr() reads it
 * @ss: an AF_INET or AF_INET6 address
 * @buf: output
 * @len: size of @buf
 *
 * Context: any.
 * Return: the length written.
 */
int cqn_format_addr(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET6)
		return scnprintf(buf, len, "%pI6c", &sin6->sin6_addr);
	return scnprintf(buf, len, "%pI4", &sin->sin_addr);
}
EXPORT_SYMBOL_IF_KUNIT(cqn_format_addr);
