// SPDX-License-Identifier: GPL-2.0
/*
 * The attributes of an endpoint directory of cqnotify_configfs.ko: strict
 * parsing, the commit of a value (stored while idle; while enabled only a
 * live one, checked against the whole configuration and applied by the
 * service), the actions (enable, reset) and the read-only views, and the
 * "attributes" file that describes them all.
 */
#define pr_fmt(fmt) "cqnotify: " fmt

#include <linux/cpumask.h>
#include <linux/sysfs.h>

#include "front_end.h"
#include "cqn_parse.h"

static int cqn_dir_bad_value(struct cqn_ep_dir *dir, const char *attr, int err,
			     const char *expected)
{
	pr_info_ratelimited("%s: %s: %s value (expected %s)\n", cqn_dir_name(dir), attr,
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
 * (rules between attributes are checked at enable). Enabled: only a live
 * attribute (cqn_config_is_live()) may change; the configuration it makes
 * must pass the enable rules and the mode-switch rule, and the service
 * applies it to every connection; if that fails, the old value comes back
 * everywhere.
 */
static ssize_t cqn_dir_commit(struct cqn_ep_dir *dir, const char *attr, size_t offset,
			      const void *v, size_t size, size_t count)
{
	struct cqn_config next;
	char why[CQN_ERR_LEN], old[sizeof(u32)];
	int ret = 0;

	down_read(&cqn_service_sem);
	mutex_lock(&dir->lock);
	if (!dir->enabled) {
		cqn_ep_write_field(&dir->cfg, offset, v, size);
		goto out;
	}
	if (!cqn_config_is_live(offset)) {
		pr_info_ratelimited("%s: %s cannot change while enabled\n",
				    cqn_dir_name(dir), attr);
		ret = -EBUSY;
		goto out;
	}
	next = dir->cfg;
	cqn_ep_write_field(&next, offset, v, size);
	ret = cqn_config_check(&next, why, sizeof(why));
	if (ret) {
		pr_info_ratelimited("%s: %s: refused while enabled: %s\n",
				    cqn_dir_name(dir), attr, why);
		goto out;
	}
	ret = cqn_cq_mode_switch_check(dir->cfg.cq.cq_mode, next.cq.cq_mode);
	if (ret) {
		pr_info_ratelimited("%s: cq_mode %s -> %s needs new CQs: disable, change, enable\n",
				    cqn_dir_name(dir), cqn_cq_mode_names[dir->cfg.cq.cq_mode],
				    cqn_cq_mode_names[next.cq.cq_mode]);
		goto out;
	}
	memcpy(old, (char *)&dir->cfg + offset, size);
	cqn_ep_write_field(&dir->cfg, offset, v, size);
	/* enabled implies a service endpoint: both end together */
	ret = cqn_service->retune(dir->ep, &dir->cfg);
	if (ret) {
		pr_info_ratelimited("%s: %s: live change failed (%pe); the old value stays\n",
				    cqn_dir_name(dir), attr, ERR_PTR(ret));
		cqn_ep_write_field(&dir->cfg, offset, old, size);
		if (cqn_service->retune(dir->ep, &dir->cfg))
			pr_warn_ratelimited("%s: %s: restoring the old value failed on some connection\n",
					    cqn_dir_name(dir), attr);
	}
out:
	mutex_unlock(&dir->lock);
	up_read(&cqn_service_sem);
	return ret ?: count;
}

static ssize_t cqn_ep_store_u32(struct config_item *item, const char *attr, size_t offset,
				const char *page, size_t count, u32 min, u32 max)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	char expected[32];
	u32 v;
	int ret;

	ret = cqn_parse_u32(page, count, min, max, &v);
	if (ret) {
		snprintf(expected, sizeof(expected), "%u..%u", min, max);
		return cqn_dir_bad_value(dir, attr, ret, expected);
	}
	return cqn_dir_commit(dir, attr, offset, &v, sizeof(v), count);
}

static ssize_t cqn_ep_show_u32(struct config_item *item, size_t offset, char *page)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	u32 v;

	mutex_lock(&dir->lock);
	v = *(u32 *)((char *)&dir->cfg + offset);
	mutex_unlock(&dir->lock);
	return sysfs_emit(page, "%u\n", v);
}

static ssize_t cqn_ep_store_bool(struct config_item *item, const char *attr, size_t offset,
				 const char *page, size_t count)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	bool v;
	int ret;

	ret = cqn_parse_bool(page, count, &v);
	if (ret)
		return cqn_dir_bad_value(dir, attr, ret, "0 or 1");
	return cqn_dir_commit(dir, attr, offset, &v, sizeof(v), count);
}

static ssize_t cqn_ep_show_bool(struct config_item *item, size_t offset, char *page)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	bool v;

	mutex_lock(&dir->lock);
	v = *(bool *)((char *)&dir->cfg + offset);
	mutex_unlock(&dir->lock);
	return sysfs_emit(page, "%d\n", v);
}

static ssize_t cqn_ep_store_choice(struct config_item *item, const char *attr, size_t offset,
				   const char *const *names, unsigned int n,
				   const char *page, size_t count)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	unsigned int v;
	u32 val;
	int ret;

	ret = cqn_parse_choice(page, count, names, n, &v);
	if (ret)
		return cqn_dir_bad_value(dir, attr, ret, "one of the documented names");
	val = v;
	return cqn_dir_commit(dir, attr, offset, &val, sizeof(val), count);
}

static ssize_t cqn_ep_show_choice(struct config_item *item, size_t offset,
				  const char *const *names, char *page)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	u32 v;

	mutex_lock(&dir->lock);
	v = *(u32 *)((char *)&dir->cfg + offset);
	mutex_unlock(&dir->lock);
	return sysfs_emit(page, "%s\n", names[v]);
}

/* show/store for a u32 field of struct cqn_config, range-checked */
#define CQN_EP_U32_ATTR(name, field, _min, _max)				\
static const struct cqn_attr_info cqn_ep_##name##_info = {			\
	#name, CQN_ATTR_U32, _min, _max, NULL, NULL,				\
	offsetof(struct cqn_config, field), true };				\
static ssize_t cqn_ep_##name##_show(struct config_item *item, char *page)	\
{										\
	return cqn_ep_show_u32(item, cqn_ep_##name##_info.offset, page);	\
}										\
static ssize_t cqn_ep_##name##_store(struct config_item *item,			\
				     const char *page, size_t count)		\
{										\
	const struct cqn_attr_info *i = &cqn_ep_##name##_info;			\
										\
	return cqn_ep_store_u32(item, #name, i->offset, page, count,		\
				i->min, i->max);				\
}

/* show/store for a bool field of struct cqn_config: 0 or 1 */
#define CQN_EP_BOOL_ATTR(name, field)						\
static const struct cqn_attr_info cqn_ep_##name##_info = {			\
	#name, CQN_ATTR_BOOL, 0, 1, NULL, NULL,					\
	offsetof(struct cqn_config, field), true };				\
static ssize_t cqn_ep_##name##_show(struct config_item *item, char *page)	\
{										\
	return cqn_ep_show_bool(item, cqn_ep_##name##_info.offset, page);	\
}										\
static ssize_t cqn_ep_##name##_store(struct config_item *item,			\
				     const char *page, size_t count)		\
{										\
	return cqn_ep_store_bool(item, #name, cqn_ep_##name##_info.offset,	\
				 page, count);					\
}

/* show/store for a field of struct cqn_config holding one of cqn_ep_<name>_names */
#define CQN_EP_CHOICE_ATTR(name, field, _n)					\
static const struct cqn_attr_info cqn_ep_##name##_info = {			\
	#name, CQN_ATTR_CHOICE, 0, 0, &cqn_ep_##name##_names, &(_n),		\
	offsetof(struct cqn_config, field), true };				\
static ssize_t cqn_ep_##name##_show(struct config_item *item, char *page)	\
{										\
	return cqn_ep_show_choice(item, cqn_ep_##name##_info.offset,		\
				  cqn_ep_##name##_names, page);			\
}										\
static ssize_t cqn_ep_##name##_store(struct config_item *item,			\
				     const char *page, size_t count)		\
{										\
	return cqn_ep_store_choice(item, #name, cqn_ep_##name##_info.offset,	\
				   cqn_ep_##name##_names, *cqn_ep_##name##_info.n,	\
				   page, count);					\
}

static const char *const *const cqn_ep_role_names = cqn_role_names;
static const char *const *const cqn_ep_cq_mode_names = cqn_cq_mode_names;
static const char *const *const cqn_ep_workload_names = cqn_workload_names;
static const unsigned int cqn_ep_cq_mode_count = CQN_CQ_MODE_COUNT;
static const char *const *const cqn_ep_cq_share_names = cqn_cq_share_names;
static const unsigned int cqn_ep_cq_share_count = CQN_SHARE_COUNT;
static const char *const *const cqn_ep_poll_priority_names = cqn_poll_priority_names;
static const unsigned int cqn_ep_poll_priority_count = CQN_POLL_PRIO_COUNT;

CQN_EP_CHOICE_ATTR(role, role, cqn_role_count)
CONFIGFS_ATTR(cqn_ep_, role);
CQN_EP_CHOICE_ATTR(cq_mode, cq.cq_mode, cqn_ep_cq_mode_count)
CONFIGFS_ATTR(cqn_ep_, cq_mode);
CQN_EP_CHOICE_ATTR(cq_share, cq_share, cqn_ep_cq_share_count)
CONFIGFS_ATTR(cqn_ep_, cq_share);
CQN_EP_CHOICE_ATTR(workload, workload, cqn_workload_count)
CONFIGFS_ATTR(cqn_ep_, workload);
CQN_EP_U32_ATTR(port, port, 1, 65535)
CONFIGFS_ATTR(cqn_ep_, port);
CQN_EP_U32_ATTR(msg_size, msg_size, 1, CQN_MSG_SIZE_MAX)
CONFIGFS_ATTR(cqn_ep_, msg_size);
CQN_EP_U32_ATTR(send_depth, send_depth, 1, CQN_DEPTH_MAX)
CONFIGFS_ATTR(cqn_ep_, send_depth);
CQN_EP_U32_ATTR(recv_depth, recv_depth, 1, CQN_DEPTH_MAX)
CONFIGFS_ATTR(cqn_ep_, recv_depth);
CQN_EP_U32_ATTR(cq_depth, cq.cq_depth, 1, CQN_CQ_DEPTH_MAX)
CONFIGFS_ATTR(cqn_ep_, cq_depth);
CQN_EP_U32_ATTR(cq_count, cq.cq_count, 0, U16_MAX)
CONFIGFS_ATTR(cqn_ep_, cq_count);
CQN_EP_U32_ATTR(cq_period, cq.cq_period, 0, U16_MAX)
CONFIGFS_ATTR(cqn_ep_, cq_period);
CQN_EP_BOOL_ATTR(adaptive_moderation, cq.adaptive_moderation)
CONFIGFS_ATTR(cqn_ep_, adaptive_moderation);
CQN_EP_U32_ATTR(poll_window_max_us, cq.poll_window_max_us, 0, CQN_POLL_WINDOW_MAX_US)
CONFIGFS_ATTR(cqn_ep_, poll_window_max_us);
CQN_EP_U32_ATTR(poll_idle_us, cq.poll_idle_us, 0, CQN_POLL_IDLE_MAX_US)
CONFIGFS_ATTR(cqn_ep_, poll_idle_us);
CQN_EP_CHOICE_ATTR(poll_priority, cq.poll_priority, cqn_ep_poll_priority_count)
CONFIGFS_ATTR(cqn_ep_, poll_priority);
CQN_EP_BOOL_ATTR(solicited_only, cq.solicited_only)
CONFIGFS_ATTR(cqn_ep_, solicited_only);
CQN_EP_U32_ATTR(watchdog_ms, cq.watchdog_ms, 0, CQN_WATCHDOG_MS_MAX)
CONFIGFS_ATTR(cqn_ep_, watchdog_ms);
CQN_EP_U32_ATTR(max_events_per_ms, cq.max_events_per_ms, 0, CQN_EVENTS_PER_MS_MAX)
CONFIGFS_ATTR(cqn_ep_, max_events_per_ms);
CQN_EP_U32_ATTR(max_conns, max_conns, 1, CQN_MAX_CONNS_MAX)
CONFIGFS_ATTR(cqn_ep_, max_conns);
CQN_EP_U32_ATTR(connections, connections, 1, CQN_CONNECTIONS_MAX)
CONFIGFS_ATTR(cqn_ep_, connections);
CQN_EP_BOOL_ATTR(srq, srq)
CONFIGFS_ATTR(cqn_ep_, srq);
CQN_EP_U32_ATTR(srq_depth, srq_depth, CQN_SRQ_DEPTH_MIN, CQN_SRQ_DEPTH_MAX)
CONFIGFS_ATTR(cqn_ep_, srq_depth);
CQN_EP_U32_ATTR(queue_depth, queue_depth, 1, CQN_DEPTH_MAX)
CONFIGFS_ATTR(cqn_ep_, queue_depth);
CQN_EP_U32_ATTR(iterations, iterations, 0, U32_MAX)
CONFIGFS_ATTR(cqn_ep_, iterations);
CQN_EP_U32_ATTR(duration_ms, duration_ms, 0, CQN_DURATION_MS_MAX)
CONFIGFS_ATTR(cqn_ep_, duration_ms);
CQN_EP_BOOL_ATTR(verify, verify)
CONFIGFS_ATTR(cqn_ep_, verify);
CQN_EP_U32_ATTR(rate, rate, 0, CQN_RATE_MAX)
CONFIGFS_ATTR(cqn_ep_, rate);
CQN_EP_BOOL_ATTR(reconnect, reconnect)
CONFIGFS_ATTR(cqn_ep_, reconnect);

static ssize_t cqn_ep_poll_cpu_show(struct config_item *item, char *page)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	s32 v;

	mutex_lock(&dir->lock);
	v = dir->cfg.cq.poll_cpu;
	mutex_unlock(&dir->lock);
	return sysfs_emit(page, "%d\n", v);
}

static ssize_t cqn_ep_poll_cpu_store(struct config_item *item, const char *page, size_t count)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	char expected[48];
	s32 v;
	int ret;

	snprintf(expected, sizeof(expected), "-1 or an online CPU 0..%u", nr_cpu_ids - 1);
	ret = cqn_parse_s32(page, count, -1, nr_cpu_ids - 1, &v);
	if (!ret && v >= 0 && !cpu_online(v))
		ret = -EINVAL;
	if (ret)
		return cqn_dir_bad_value(dir, "poll_cpu", ret, expected);
	return cqn_dir_commit(dir, "poll_cpu", offsetof(struct cqn_config, cq.poll_cpu), &v,
			      sizeof(v), count);
}
CONFIGFS_ATTR(cqn_ep_, poll_cpu);

static ssize_t cqn_ep_addr_show(struct config_item *item, char *page)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	char buf[64];

	mutex_lock(&dir->lock);
	cqn_format_addr(&dir->cfg.addr, buf, sizeof(buf));
	mutex_unlock(&dir->lock);
	return sysfs_emit(page, "%s\n", buf);
}

static ssize_t cqn_ep_addr_store(struct config_item *item, const char *page, size_t count)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	struct sockaddr_storage ss;
	int ret;

	ret = cqn_parse_addr(page, count, &ss);
	if (ret)
		return cqn_dir_bad_value(dir, "addr", ret, "an IPv4 or IPv6 address");
	mutex_lock(&dir->lock);
	if (dir->enabled) {
		pr_info_ratelimited("%s: addr cannot change while enabled\n", cqn_dir_name(dir));
		ret = -EBUSY;
	} else {
		dir->cfg.addr = ss;
	}
	mutex_unlock(&dir->lock);
	return ret ?: count;
}
CONFIGFS_ATTR(cqn_ep_, addr);

static ssize_t cqn_ep_enable_show(struct config_item *item, char *page)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	bool v;

	mutex_lock(&dir->lock);
	v = dir->enabled;
	mutex_unlock(&dir->lock);
	return sysfs_emit(page, "%d\n", v);
}

static ssize_t cqn_ep_enable_store(struct config_item *item, const char *page, size_t count)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	bool v;
	int ret = 0;

	ret = cqn_parse_bool(page, count, &v);
	if (ret)
		return cqn_dir_bad_value(dir, "enable", ret, "0 or 1");
	down_read(&cqn_service_sem);
	mutex_lock(&dir->lock);
	if (v && dir->enabled) {
		pr_info_ratelimited("%s: already enabled\n", cqn_dir_name(dir));
		ret = -EBUSY;
	} else if (v && !dir->ep) {
		pr_info_ratelimited("%s: cannot enable: %s (modprobe cqnotify)\n",
				    cqn_dir_name(dir), CQN_NOT_LOADED);
		ret = -ENODEV;
	} else if (v) {
		ret = cqn_service->enable(dir->ep, &dir->cfg);
		dir->enabled = !ret;
	} else if (dir->enabled) {
		cqn_service->disable(dir->ep);
		dir->enabled = false;
	}
	mutex_unlock(&dir->lock);
	up_read(&cqn_service_sem);
	return ret ?: count;
}
CONFIGFS_ATTR(cqn_ep_, enable);

static ssize_t cqn_ep_state_show(struct config_item *item, char *page)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	u32 state = CQN_EP_IDLE;

	down_read(&cqn_service_sem);
	if (dir->ep)
		state = cqn_service->state(dir->ep);
	up_read(&cqn_service_sem);
	return sysfs_emit(page, "%s\n", cqn_ep_state_names[min_t(u32, state, CQN_EP_ERROR)]);
}
CONFIGFS_ATTR_RO(cqn_ep_, state);

static ssize_t cqn_ep_last_error_show(struct config_item *item, char *page)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	char buf[CQN_ERR_LEN];

	down_read(&cqn_service_sem);
	if (dir->ep) {
		cqn_service->last_error(dir->ep, buf, sizeof(buf));
	} else {
		mutex_lock(&dir->lock);
		strscpy(buf, dir->note, sizeof(buf));
		mutex_unlock(&dir->lock);
	}
	up_read(&cqn_service_sem);
	return sysfs_emit(page, "%s\n", buf);
}
CONFIGFS_ATTR_RO(cqn_ep_, last_error);

static ssize_t cqn_ep_cq_depth_actual_show(struct config_item *item, char *page)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	int v = 0;

	down_read(&cqn_service_sem);
	if (dir->ep)
		v = cqn_service->cq_depth_actual(dir->ep);
	up_read(&cqn_service_sem);
	return sysfs_emit(page, "%d\n", v);
}
CONFIGFS_ATTR_RO(cqn_ep_, cq_depth_actual);

static ssize_t cqn_ep_moderation_effective_show(struct config_item *item, char *page)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	char buf[80] = "off";

	down_read(&cqn_service_sem);
	if (dir->ep)
		cqn_service->moderation_show(dir->ep, buf, sizeof(buf));
	up_read(&cqn_service_sem);
	return sysfs_emit(page, "%s\n", buf);
}
CONFIGFS_ATTR_RO(cqn_ep_, moderation_effective);

static ssize_t cqn_ep_reset_store(struct config_item *item, const char *page, size_t count)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);
	u32 v;
	int ret;

	ret = cqn_parse_u32(page, count, 1, 1, &v);
	if (ret)
		return cqn_dir_bad_value(dir, "reset", ret, "1");
	down_read(&cqn_service_sem);
	if (dir->ep) {
		cqn_service->reset_stats(dir->ep);
	} else {
		pr_info_ratelimited("%s: cannot reset: %s\n", cqn_dir_name(dir), CQN_NOT_LOADED);
		ret = -ENODEV;
	}
	up_read(&cqn_service_sem);
	return ret ?: count;
}
CONFIGFS_ATTR_WO(cqn_ep_, reset);

/* The attributes not made by the CQN_EP_*_ATTR macros, for "attributes". */
static const char *const *const cqn_ep_states = cqn_ep_state_names;
static const unsigned int cqn_ep_state_count = CQN_EP_STATE_COUNT;
static const struct cqn_attr_info cqn_ep_addr_info = {
	"addr", CQN_ATTR_ADDR, .offset = offsetof(struct cqn_config, addr), .in_cfg = true };
static const struct cqn_attr_info cqn_ep_poll_cpu_info = {
	"poll_cpu", CQN_ATTR_CPU, .offset = offsetof(struct cqn_config, cq.poll_cpu),
	.in_cfg = true };
static const struct cqn_attr_info cqn_ep_enable_info = { "enable", CQN_ATTR_BOOL, 0, 1 };
static const struct cqn_attr_info cqn_ep_state_info = {
	"state", CQN_ATTR_RO, .names = &cqn_ep_states, .n = &cqn_ep_state_count };
static const struct cqn_attr_info cqn_ep_last_error_info = { "last_error", CQN_ATTR_RO };
static const struct cqn_attr_info cqn_ep_cq_depth_actual_info = { "cq_depth_actual", CQN_ATTR_RO };
static const struct cqn_attr_info cqn_ep_moderation_effective_info = {
	"moderation_effective", CQN_ATTR_RO };
static const struct cqn_attr_info cqn_ep_reset_info = { "reset", CQN_ATTR_WO, 1, 1 };

struct configfs_attribute *cqn_ep_attrs[] = {
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
	&cqn_ep_attr_poll_idle_us,
	&cqn_ep_attr_poll_priority,
	&cqn_ep_attr_solicited_only,
	&cqn_ep_attr_watchdog_ms,
	&cqn_ep_attr_max_events_per_ms,
	&cqn_ep_attr_max_conns,
	&cqn_ep_attr_cq_share,
	&cqn_ep_attr_connections,
	&cqn_ep_attr_srq,
	&cqn_ep_attr_srq_depth,
	&cqn_ep_attr_workload,
	&cqn_ep_attr_queue_depth,
	&cqn_ep_attr_iterations,
	&cqn_ep_attr_duration_ms,
	&cqn_ep_attr_verify,
	&cqn_ep_attr_rate,
	&cqn_ep_attr_reconnect,
	&cqn_ep_attr_enable,
	&cqn_ep_attr_state,
	&cqn_ep_attr_last_error,
	&cqn_ep_attr_reset,
	NULL,
};

/* What "attributes" describes: every entry of cqn_ep_attrs, in its order. */
const struct cqn_attr_info *const cqn_ep_infos[] = {
	&cqn_ep_role_info,
	&cqn_ep_addr_info,
	&cqn_ep_port_info,
	&cqn_ep_msg_size_info,
	&cqn_ep_send_depth_info,
	&cqn_ep_recv_depth_info,
	&cqn_ep_cq_depth_info,
	&cqn_ep_cq_depth_actual_info,
	&cqn_ep_cq_mode_info,
	&cqn_ep_cq_count_info,
	&cqn_ep_cq_period_info,
	&cqn_ep_adaptive_moderation_info,
	&cqn_ep_moderation_effective_info,
	&cqn_ep_poll_cpu_info,
	&cqn_ep_poll_window_max_us_info,
	&cqn_ep_poll_idle_us_info,
	&cqn_ep_poll_priority_info,
	&cqn_ep_solicited_only_info,
	&cqn_ep_watchdog_ms_info,
	&cqn_ep_max_events_per_ms_info,
	&cqn_ep_max_conns_info,
	&cqn_ep_cq_share_info,
	&cqn_ep_connections_info,
	&cqn_ep_srq_info,
	&cqn_ep_srq_depth_info,
	&cqn_ep_workload_info,
	&cqn_ep_queue_depth_info,
	&cqn_ep_iterations_info,
	&cqn_ep_duration_ms_info,
	&cqn_ep_verify_info,
	&cqn_ep_rate_info,
	&cqn_ep_reconnect_info,
	&cqn_ep_enable_info,
	&cqn_ep_state_info,
	&cqn_ep_last_error_info,
	&cqn_ep_reset_info,
};

static_assert(ARRAY_SIZE(cqn_ep_infos) == ARRAY_SIZE(cqn_ep_attrs) - 1);
const unsigned int cqn_ep_ninfos = ARRAY_SIZE(cqn_ep_infos);
