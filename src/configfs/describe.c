// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/config/cqnotify/attributes: one line per endpoint attribute
 * (name, kind, values, default, live or -), from the table in
 * src/configfs/attrs.c, so that tools and people need not read the source.
 */
#define pr_fmt(fmt) "cqnotify: " fmt

#include <linux/cpumask.h>

#include "front_end.h"
#include "cqn_parse.h"

/* One line of "attributes": name, kind, values, default, live or -. */
static int cqn_attr_describe(const struct cqn_attr_info *a, const struct cqn_config *def,
			     char *buf, size_t len)
{
	static const char *const kinds[] = {
		[CQN_ATTR_U32] = "u32", [CQN_ATTR_BOOL] = "bool", [CQN_ATTR_CHOICE] = "choice",
		[CQN_ATTR_CPU] = "cpu", [CQN_ATTR_ADDR] = "address", [CQN_ATTR_RO] = "read-only",
		[CQN_ATTR_WO] = "write-only",
	};
	const void *field = (const char *)def + a->offset;
	char dflt[64] = "-";
	unsigned int i;
	bool live;
	int n;

	n = scnprintf(buf, len, "%s %s ", a->name, kinds[a->kind]);
	switch (a->kind) {
	case CQN_ATTR_U32:
	case CQN_ATTR_BOOL:
		n += scnprintf(buf + n, len - n, "%u..%u", a->min, a->max);
		if (!a->in_cfg)
			strscpy(dflt, "0", sizeof(dflt));	/* enable */
		else if (a->kind == CQN_ATTR_BOOL)
			snprintf(dflt, sizeof(dflt), "%u", *(const bool *)field);
		else
			snprintf(dflt, sizeof(dflt), "%u", *(const u32 *)field);
		break;
	case CQN_ATTR_CPU:
		n += scnprintf(buf + n, len - n, "-1..%u", nr_cpu_ids - 1);
		snprintf(dflt, sizeof(dflt), "%d", *(const s32 *)field);
		break;
	case CQN_ATTR_ADDR:
		n += scnprintf(buf + n, len - n, "ipv4|ipv6");
		cqn_format_addr(&def->addr, dflt, sizeof(dflt));
		break;
	case CQN_ATTR_WO:
		n += scnprintf(buf + n, len - n, "%u", a->min);
		break;
	case CQN_ATTR_CHOICE:
	case CQN_ATTR_RO:
		if (!a->names) {
			n += scnprintf(buf + n, len - n, "-");
			break;
		}
		for (i = 0; i < *a->n; i++)
			n += scnprintf(buf + n, len - n, "%s%s", i ? "|" : "", (*a->names)[i]);
		if (a->kind == CQN_ATTR_CHOICE)
			strscpy(dflt, (*a->names)[*(const u32 *)field], sizeof(dflt));
		break;
	}
	live = a->in_cfg && cqn_config_is_live(a->offset);
	n += scnprintf(buf + n, len - n, " %s %s\n", dflt, live ? "live" : "-");
	return n;
}

/**
 * cqn_configfs_describe() - the "attributes" file: one line per attribute
 * @page: output
 * @len: its size
 *
 * Name, kind, values, default, and "live" or "-", in the order of
 * cqn_ep_attrs.
 *
 * Context: process context.
 * Return: the length written.
 */
int cqn_configfs_describe(char *page, size_t len)
{
	struct cqn_config def;
	unsigned int i;
	int n = 0;

	cqn_config_defaults(&def);
	for (i = 0; i < cqn_ep_ninfos; i++)
		n += cqn_attr_describe(cqn_ep_infos[i], &def, page + n, len - n);
	return n;
}
