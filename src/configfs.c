// SPDX-License-Identifier: GPL-2.0
/*
 * configfs: /sys/kernel/config/cqnotify/endpoints/<name>/, where
 * administrators create, configure, enable and watch endpoints.
 *
 * "enable" is the commit point: while it is 1, writes to the other
 * attributes fail with -EBUSY, except the live-tunable ones (cq_mode,
 * cq_count, cq_period, adaptive_moderation, cq_depth, poll_cpu,
 * poll_window_max_us, solicited_only, watchdog_ms, max_events_per_ms),
 * which are checked against the whole configuration and applied to every
 * connection at once. Every store
 * parses strictly and changes nothing when it fails.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/cpumask.h>

#include "cqnotify.h"
#include "cqn_parse.h"

static inline struct cqn_endpoint *to_cqn_ep(struct config_item *item)
{
	return container_of(to_config_group(item), struct cqn_endpoint, group);
}

static const char *cqn_ep_name(struct cqn_endpoint *ep)
{
	return config_item_name(&ep->group.cg_item);
}

static int cqn_ep_bad_value(struct cqn_endpoint *ep, const char *attr, int err,
			    const char *expected)
{
	pr_info_ratelimited("%s: %s: %s value (expected %s)\n", cqn_ep_name(ep), attr,
			    err == -ERANGE ? "out-of-range" : "invalid", expected);
	return err;
}

/* Write a u32, s32 or bool field of @cfg; handlers may read it meanwhile. */
static void cqn_ep_write_field(struct cqn_config *cfg, size_t offset, const void *v,
			       size_t size)
{
	void *p = (char *)cfg + offset;

	if (size == sizeof(u32))
		WRITE_ONCE(*(u32 *)p, *(const u32 *)v);
	else
		WRITE_ONCE(*(bool *)p, *(const bool *)v);
}

/*
 * Store a parsed value into the configuration. Idle: it is simply stored
 * (rules between attributes are checked at enable). Enabled: only a @live
 * attribute may change; the configuration it makes must pass the enable
 * rules and the mode-switch rule, and it is applied to every connection;
 * if that fails, the old value comes back everywhere.
 */
static ssize_t cqn_ep_commit(struct cqn_endpoint *ep, const char *attr, bool live,
			     size_t offset, const void *v, size_t size, size_t count)
{
	struct cqn_config next;
	char why[CQN_ERR_LEN], old[sizeof(u32)];
	int ret = 0;

	mutex_lock(&ep->lock);
	if (!ep->enabled) {
		cqn_ep_write_field(&ep->cfg, offset, v, size);
		goto out;
	}
	if (!live) {
		pr_info_ratelimited("%s: %s cannot change while enabled\n", cqn_ep_name(ep), attr);
		ret = -EBUSY;
		goto out;
	}
	next = ep->cfg;
	cqn_ep_write_field(&next, offset, v, size);
	ret = cqn_config_check(&next, why, sizeof(why));
	if (ret) {
		pr_info_ratelimited("%s: %s: refused while enabled: %s\n",
				    cqn_ep_name(ep), attr, why);
		goto out;
	}
	ret = cqn_cq_mode_switch_check(ep->cfg.cq_mode, next.cq_mode);
	if (ret) {
		pr_info_ratelimited("%s: cq_mode %s -> %s needs new CQs: disable, change, enable\n",
				    cqn_ep_name(ep), cqn_cq_mode_names[ep->cfg.cq_mode],
				    cqn_cq_mode_names[next.cq_mode]);
		goto out;
	}
	memcpy(old, (char *)&ep->cfg + offset, size);
	cqn_ep_write_field(&ep->cfg, offset, v, size);
	ret = cqn_ep_retune(ep);
	if (ret) {
		pr_info_ratelimited("%s: %s: live change failed (%pe); the old value stays\n",
				    cqn_ep_name(ep), attr, ERR_PTR(ret));
		cqn_ep_write_field(&ep->cfg, offset, old, size);
		if (cqn_ep_retune(ep))
			pr_warn_ratelimited("%s: %s: restoring the old value failed on some connection\n",
					    cqn_ep_name(ep), attr);
	}
out:
	mutex_unlock(&ep->lock);
	return ret ?: count;
}

static ssize_t cqn_ep_store_u32(struct config_item *item, const char *attr, size_t offset,
				const char *page, size_t count, u32 min, u32 max, bool live)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	char expected[32];
	u32 v;
	int ret;

	ret = cqn_parse_u32(page, count, min, max, &v);
	if (ret) {
		snprintf(expected, sizeof(expected), "%u..%u", min, max);
		return cqn_ep_bad_value(ep, attr, ret, expected);
	}
	return cqn_ep_commit(ep, attr, live, offset, &v, sizeof(v), count);
}

static ssize_t cqn_ep_show_u32(struct config_item *item, size_t offset, char *page)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	u32 v;

	mutex_lock(&ep->lock);
	v = *(u32 *)((char *)&ep->cfg + offset);
	mutex_unlock(&ep->lock);
	return sysfs_emit(page, "%u\n", v);
}

static ssize_t cqn_ep_store_bool(struct config_item *item, const char *attr, size_t offset,
				 const char *page, size_t count, bool live)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	bool v;
	int ret;

	ret = cqn_parse_bool(page, count, &v);
	if (ret)
		return cqn_ep_bad_value(ep, attr, ret, "0 or 1");
	return cqn_ep_commit(ep, attr, live, offset, &v, sizeof(v), count);
}

static ssize_t cqn_ep_show_bool(struct config_item *item, size_t offset, char *page)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	bool v;

	mutex_lock(&ep->lock);
	v = *(bool *)((char *)&ep->cfg + offset);
	mutex_unlock(&ep->lock);
	return sysfs_emit(page, "%d\n", v);
}

static ssize_t cqn_ep_store_choice(struct config_item *item, const char *attr, size_t offset,
				   const char *const *names, unsigned int n,
				   const char *page, size_t count, bool live)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	unsigned int v;
	u32 val;
	int ret;

	ret = cqn_parse_choice(page, count, names, n, &v);
	if (ret)
		return cqn_ep_bad_value(ep, attr, ret, "one of the documented names");
	val = v;
	return cqn_ep_commit(ep, attr, live, offset, &val, sizeof(val), count);
}

static ssize_t cqn_ep_show_choice(struct config_item *item, size_t offset,
				  const char *const *names, char *page)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	u32 v;

	mutex_lock(&ep->lock);
	v = *(u32 *)((char *)&ep->cfg + offset);
	mutex_unlock(&ep->lock);
	return sysfs_emit(page, "%s\n", names[v]);
}

/* show/store for a u32 field of struct cqn_config, range-checked */
#define CQN_EP_U32_ATTR(name, min, max, live)					\
static const size_t cqn_ep_##name##_offset = offsetof(struct cqn_config, name);	\
static ssize_t cqn_ep_##name##_show(struct config_item *item, char *page)	\
{										\
	return cqn_ep_show_u32(item, cqn_ep_##name##_offset, page);		\
}										\
static ssize_t cqn_ep_##name##_store(struct config_item *item,			\
				     const char *page, size_t count)		\
{										\
	return cqn_ep_store_u32(item, #name, cqn_ep_##name##_offset,		\
				page, count, min, max, live);			\
}

/* show/store for a bool field of struct cqn_config: 0 or 1 */
#define CQN_EP_BOOL_ATTR(name, live)						\
static const size_t cqn_ep_##name##_offset = offsetof(struct cqn_config, name);	\
static ssize_t cqn_ep_##name##_show(struct config_item *item, char *page)	\
{										\
	return cqn_ep_show_bool(item, cqn_ep_##name##_offset, page);		\
}										\
static ssize_t cqn_ep_##name##_store(struct config_item *item,			\
				     const char *page, size_t count)		\
{										\
	return cqn_ep_store_bool(item, #name, cqn_ep_##name##_offset,		\
				 page, count, live);				\
}

/* show/store for a field of struct cqn_config holding one of cqn_ep_<name>_names */
#define CQN_EP_CHOICE_ATTR(name, n, live)					\
static const size_t cqn_ep_##name##_offset = offsetof(struct cqn_config, name);	\
static ssize_t cqn_ep_##name##_show(struct config_item *item, char *page)	\
{										\
	return cqn_ep_show_choice(item, cqn_ep_##name##_offset,		\
				  cqn_ep_##name##_names, page);			\
}										\
static ssize_t cqn_ep_##name##_store(struct config_item *item,			\
				     const char *page, size_t count)		\
{										\
	return cqn_ep_store_choice(item, #name, cqn_ep_##name##_offset,	\
				   cqn_ep_##name##_names, n, page, count, live);	\
}

static const char *const *const cqn_ep_role_names = cqn_role_names;
static const char *const *const cqn_ep_cq_mode_names = cqn_cq_mode_names;
static const char *const *const cqn_ep_workload_names = cqn_workload_names;

CQN_EP_CHOICE_ATTR(role, cqn_role_count, false)
CONFIGFS_ATTR(cqn_ep_, role);
CQN_EP_CHOICE_ATTR(cq_mode, CQN_CQ_MODE_COUNT, true)
CONFIGFS_ATTR(cqn_ep_, cq_mode);
CQN_EP_CHOICE_ATTR(workload, cqn_workload_count, false)
CONFIGFS_ATTR(cqn_ep_, workload);
CQN_EP_U32_ATTR(port, 1, 65535, false)
CONFIGFS_ATTR(cqn_ep_, port);
CQN_EP_U32_ATTR(msg_size, 1, CQN_MSG_SIZE_MAX, false)
CONFIGFS_ATTR(cqn_ep_, msg_size);
CQN_EP_U32_ATTR(send_depth, 1, CQN_DEPTH_MAX, false)
CONFIGFS_ATTR(cqn_ep_, send_depth);
CQN_EP_U32_ATTR(recv_depth, 1, CQN_DEPTH_MAX, false)
CONFIGFS_ATTR(cqn_ep_, recv_depth);
CQN_EP_U32_ATTR(cq_depth, 1, CQN_CQ_DEPTH_MAX, true)
CONFIGFS_ATTR(cqn_ep_, cq_depth);
CQN_EP_U32_ATTR(cq_count, 0, U16_MAX, true)
CONFIGFS_ATTR(cqn_ep_, cq_count);
CQN_EP_U32_ATTR(cq_period, 0, U16_MAX, true)
CONFIGFS_ATTR(cqn_ep_, cq_period);
CQN_EP_BOOL_ATTR(adaptive_moderation, true)
CONFIGFS_ATTR(cqn_ep_, adaptive_moderation);
CQN_EP_U32_ATTR(poll_window_max_us, 0, CQN_POLL_WINDOW_MAX_US, true)
CONFIGFS_ATTR(cqn_ep_, poll_window_max_us);
CQN_EP_BOOL_ATTR(solicited_only, true)
CONFIGFS_ATTR(cqn_ep_, solicited_only);
CQN_EP_U32_ATTR(watchdog_ms, 0, CQN_WATCHDOG_MS_MAX, true)
CONFIGFS_ATTR(cqn_ep_, watchdog_ms);
CQN_EP_U32_ATTR(max_events_per_ms, 0, CQN_EVENTS_PER_MS_MAX, true)
CONFIGFS_ATTR(cqn_ep_, max_events_per_ms);
CQN_EP_U32_ATTR(max_conns, 1, CQN_MAX_CONNS_MAX, false)
CONFIGFS_ATTR(cqn_ep_, max_conns);
CQN_EP_U32_ATTR(queue_depth, 1, CQN_DEPTH_MAX, false)
CONFIGFS_ATTR(cqn_ep_, queue_depth);
CQN_EP_U32_ATTR(iterations, 0, U32_MAX, false)
CONFIGFS_ATTR(cqn_ep_, iterations);
CQN_EP_U32_ATTR(duration_ms, 0, CQN_DURATION_MS_MAX, false)
CONFIGFS_ATTR(cqn_ep_, duration_ms);
CQN_EP_BOOL_ATTR(verify, false)
CONFIGFS_ATTR(cqn_ep_, verify);

static ssize_t cqn_ep_poll_cpu_show(struct config_item *item, char *page)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	s32 v;

	mutex_lock(&ep->lock);
	v = ep->cfg.poll_cpu;
	mutex_unlock(&ep->lock);
	return sysfs_emit(page, "%d\n", v);
}

static ssize_t cqn_ep_poll_cpu_store(struct config_item *item, const char *page, size_t count)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	char expected[48];
	s32 v;
	int ret;

	snprintf(expected, sizeof(expected), "-1 or an online CPU 0..%u", nr_cpu_ids - 1);
	ret = cqn_parse_s32(page, count, -1, nr_cpu_ids - 1, &v);
	if (!ret && v >= 0 && !cpu_online(v))
		ret = -EINVAL;
	if (ret)
		return cqn_ep_bad_value(ep, "poll_cpu", ret, expected);
	return cqn_ep_commit(ep, "poll_cpu", true, offsetof(struct cqn_config, poll_cpu),
			     &v, sizeof(v), count);
}
CONFIGFS_ATTR(cqn_ep_, poll_cpu);

static ssize_t cqn_ep_addr_show(struct config_item *item, char *page)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	char buf[64];

	mutex_lock(&ep->lock);
	cqn_format_addr(&ep->cfg.addr, buf, sizeof(buf));
	mutex_unlock(&ep->lock);
	return sysfs_emit(page, "%s\n", buf);
}

static ssize_t cqn_ep_addr_store(struct config_item *item, const char *page, size_t count)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	struct sockaddr_storage ss;
	int ret;

	ret = cqn_parse_addr(page, count, &ss);
	if (ret)
		return cqn_ep_bad_value(ep, "addr", ret, "an IPv4 or IPv6 address");
	mutex_lock(&ep->lock);
	if (ep->enabled) {
		pr_info_ratelimited("%s: addr cannot change while enabled\n", cqn_ep_name(ep));
		ret = -EBUSY;
	} else {
		ep->cfg.addr = ss;
	}
	mutex_unlock(&ep->lock);
	return ret ?: count;
}
CONFIGFS_ATTR(cqn_ep_, addr);

static ssize_t cqn_ep_enable_show(struct config_item *item, char *page)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	bool v;

	mutex_lock(&ep->lock);
	v = ep->enabled;
	mutex_unlock(&ep->lock);
	return sysfs_emit(page, "%d\n", v);
}

static ssize_t cqn_ep_enable_store(struct config_item *item, const char *page, size_t count)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	bool v;
	int ret = 0;

	ret = cqn_parse_bool(page, count, &v);
	if (ret)
		return cqn_ep_bad_value(ep, "enable", ret, "0 or 1");
	mutex_lock(&ep->lock);
	if (v) {
		ret = cqn_ep_enable(ep);
		if (ret == -EBUSY)
			pr_info_ratelimited("%s: already enabled\n",
					    config_item_name(&ep->group.cg_item));
	} else if (ep->enabled) {
		cqn_ep_disable(ep);
	}
	mutex_unlock(&ep->lock);
	return ret ?: count;
}
CONFIGFS_ATTR(cqn_ep_, enable);

static ssize_t cqn_ep_state_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", cqn_ep_state_names[cqn_ep_state(to_cqn_ep(item))]);
}
CONFIGFS_ATTR_RO(cqn_ep_, state);

static ssize_t cqn_ep_last_error_show(struct config_item *item, char *page)
{
	struct cqn_endpoint *ep = to_cqn_ep(item);
	char buf[CQN_ERR_LEN];

	spin_lock_irq(&ep->state_lock);
	strscpy(buf, ep->last_error, sizeof(buf));
	spin_unlock_irq(&ep->state_lock);
	return sysfs_emit(page, "%s\n", buf);
}
CONFIGFS_ATTR_RO(cqn_ep_, last_error);

static ssize_t cqn_ep_cq_depth_actual_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(to_cqn_ep(item)->cq_depth_actual));
}
CONFIGFS_ATTR_RO(cqn_ep_, cq_depth_actual);

static ssize_t cqn_ep_moderation_effective_show(struct config_item *item, char *page)
{
	char buf[80];

	cqn_ep_moderation_show(to_cqn_ep(item), buf, sizeof(buf));
	return sysfs_emit(page, "%s\n", buf);
}
CONFIGFS_ATTR_RO(cqn_ep_, moderation_effective);

static struct configfs_attribute *cqn_ep_attrs[] = {
	&cqn_ep_attr_role,
	&cqn_ep_attr_addr,
	&cqn_ep_attr_port,
	&cqn_ep_attr_msg_size,
	&cqn_ep_attr_send_depth,
	&cqn_ep_attr_recv_depth,
	&cqn_ep_attr_cq_depth,
	&cqn_ep_attr_cq_depth_actual,
	&cqn_ep_attr_cq_mode,
	&cqn_ep_attr_cq_count,
	&cqn_ep_attr_cq_period,
	&cqn_ep_attr_adaptive_moderation,
	&cqn_ep_attr_moderation_effective,
	&cqn_ep_attr_poll_cpu,
	&cqn_ep_attr_poll_window_max_us,
	&cqn_ep_attr_solicited_only,
	&cqn_ep_attr_watchdog_ms,
	&cqn_ep_attr_max_events_per_ms,
	&cqn_ep_attr_max_conns,
	&cqn_ep_attr_workload,
	&cqn_ep_attr_queue_depth,
	&cqn_ep_attr_iterations,
	&cqn_ep_attr_duration_ms,
	&cqn_ep_attr_verify,
	&cqn_ep_attr_enable,
	&cqn_ep_attr_state,
	&cqn_ep_attr_last_error,
	NULL,
};

static void cqn_ep_release(struct config_item *item)
{
	cqn_ep_destroy(to_cqn_ep(item));
}

static struct configfs_item_operations cqn_ep_item_ops = {
	.release = cqn_ep_release,
};

static const struct config_item_type cqn_ep_type = {
	.ct_item_ops = &cqn_ep_item_ops,
	.ct_attrs = cqn_ep_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group *cqn_endpoints_make_group(struct config_group *group,
						     const char *name)
{
	struct cqn_endpoint *ep;

	ep = cqn_ep_create(name);
	if (IS_ERR(ep))
		return ERR_CAST(ep);
	config_group_init_type_name(&ep->group, name, &cqn_ep_type);
	cqn_ep_register(ep);
	return &ep->group;
}

static void cqn_endpoints_drop_item(struct config_group *group, struct config_item *item)
{
	cqn_ep_unregister(to_cqn_ep(item));
	config_item_put(item);
}

static struct configfs_group_operations cqn_endpoints_group_ops = {
	.make_group = cqn_endpoints_make_group,
	.drop_item = cqn_endpoints_drop_item,
};

static const struct config_item_type cqn_endpoints_type = {
	.ct_group_ops = &cqn_endpoints_group_ops,
	.ct_owner = THIS_MODULE,
};

static struct config_group cqn_endpoints_group;

static const struct config_item_type cqn_subsys_type = {
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem cqn_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = KBUILD_MODNAME,
			.ci_type = &cqn_subsys_type,
		},
	},
};

/**
 * cqn_configfs_init() - register the configfs subsystem
 *
 * Context: process context.
 * Return: 0 or -errno.
 */
int cqn_configfs_init(void)
{
	int ret;

	config_group_init(&cqn_subsys.su_group);
	mutex_init(&cqn_subsys.su_mutex);

	config_group_init_type_name(&cqn_endpoints_group, "endpoints",
				    &cqn_endpoints_type);
	configfs_add_default_group(&cqn_endpoints_group, &cqn_subsys.su_group);

	ret = configfs_register_subsystem(&cqn_subsys);
	if (ret)
		pr_err("configfs registration failed: %d\n", ret);
	return ret;
}

/**
 * cqn_configfs_exit() - unregister the configfs subsystem
 *
 * configfs holds a module reference for every endpoint directory, so no
 * endpoint is left when this runs.
 *
 * Context: process context.
 */
void cqn_configfs_exit(void)
{
	configfs_unregister_subsystem(&cqn_subsys);
}
