// SPDX-License-Identifier: GPL-2.0
/*
 * cqnotify_configfs.ko: /sys/kernel/config/cqnotify/endpoints/<name>/,
 * where administrators create, configure, enable and watch endpoints.
 *
 * The directories and the configuration they hold live in this small
 * module; the service (cqnotify.ko) registers itself here and runs what
 * they say (include/cqn_service.h). configfs pins this module while a
 * directory exists, not the service: "rmmod cqnotify" stops and detaches
 * every endpoint, the directories stay with their configuration, and
 * loading cqnotify again attaches them (idle).
 *
 * "enable" is the commit point: while it is 1, writes to the other
 * attributes fail with -EBUSY, except the live-tunable ones (the members
 * of struct cqn_cq_params, include/cqn_config.h), which are checked
 * against the whole configuration and applied to every connection at once
 * (src/configfs/attrs.c). Every store parses strictly and changes nothing when
 * it fails. "reset" zeroes the endpoint's counters (a home for it where
 * lockdown denies debugfs writes); /sys/kernel/config/cqnotify/attributes
 * describes every attribute: its values, default and whether it is live.
 */
#define pr_fmt(fmt) "cqnotify: " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "front_end.h"

/*
 * Held for reading around every call into the service, for writing while
 * the service registers or unregisters: it protects cqn_service and the
 * directories' ep pointers. Outside every other lock here.
 */
DECLARE_RWSEM(cqn_service_sem);
const struct cqn_service_ops *cqn_service;
/* protects cqn_ep_dirs; taken under cqn_service_sem */
static DEFINE_MUTEX(cqn_ep_dirs_lock);
static LIST_HEAD(cqn_ep_dirs);

/*
 * Names an endpoint cannot have: its debugfs directory would be a file the
 * service already has in /sys/kernel/debug/cqnotify/.
 */
static const char *const cqn_reserved_names[] = { "devices" };

static void cqn_ep_release(struct config_item *item)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);

	mutex_destroy(&dir->lock);
	kfree(dir);
}

static struct configfs_item_operations cqn_ep_item_ops = {
	.release = cqn_ep_release,
};

static const struct config_item_type cqn_ep_type = {
	.ct_item_ops = &cqn_ep_item_ops,
	.ct_attrs = cqn_ep_attrs,
	.ct_owner = THIS_MODULE,
};

/* Give @dir a service endpoint; cqn_service_sem held, the service registered. */
static int cqn_dir_attach(struct cqn_ep_dir *dir)
{
	struct cqn_endpoint *ep;

	ep = cqn_service->attach(cqn_dir_name(dir));
	if (IS_ERR(ep))
		return PTR_ERR(ep);
	dir->ep = ep;
	dir->note[0] = '\0';
	return 0;
}

/*
 * Stop and free @dir's service endpoint; last_error then says @why if it
 * was enabled, that the service is not loaded if not.
 */
static void cqn_dir_detach(struct cqn_ep_dir *dir, const char *why)
{
	mutex_lock(&dir->lock);
	if (dir->ep) {
		if (dir->enabled)
			cqn_service->disable(dir->ep);
		cqn_service->detach(dir->ep);
		dir->ep = NULL;
	}
	strscpy(dir->note, dir->enabled ? why : CQN_NOT_LOADED, sizeof(dir->note));
	dir->enabled = false;
	mutex_unlock(&dir->lock);
}

static struct config_group *cqn_endpoints_make_group(struct config_group *group,
						     const char *name)
{
	struct cqn_ep_dir *dir;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(cqn_reserved_names); i++) {
		if (!strcmp(name, cqn_reserved_names[i])) {
			pr_info_ratelimited("endpoint name '%s' refused: /sys/kernel/debug/cqnotify/%s is a file of the service\n",
					    name, name);
			return ERR_PTR(-EINVAL);
		}
	}
	dir = kzalloc(sizeof(*dir), GFP_KERNEL);
	if (!dir)
		return ERR_PTR(-ENOMEM);
	mutex_init(&dir->lock);
	cqn_config_defaults(&dir->cfg);
	strscpy(dir->note, CQN_NOT_LOADED, sizeof(dir->note));
	config_group_init_type_name(&dir->group, name, &cqn_ep_type);

	down_read(&cqn_service_sem);
	if (cqn_service)
		ret = cqn_dir_attach(dir);
	if (!ret) {
		mutex_lock(&cqn_ep_dirs_lock);
		list_add_tail(&dir->node, &cqn_ep_dirs);
		mutex_unlock(&cqn_ep_dirs_lock);
	}
	up_read(&cqn_service_sem);
	if (ret) {
		config_item_put(&dir->group.cg_item);
		return ERR_PTR(ret);
	}
	return &dir->group;
}

static void cqn_endpoints_drop_item(struct config_group *group, struct config_item *item)
{
	struct cqn_ep_dir *dir = to_cqn_ep_dir(item);

	down_read(&cqn_service_sem);
	mutex_lock(&cqn_ep_dirs_lock);
	list_del(&dir->node);
	mutex_unlock(&cqn_ep_dirs_lock);
	cqn_dir_detach(dir, "removed");
	up_read(&cqn_service_sem);
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

static ssize_t cqn_subsys_attributes_show(struct config_item *item, char *page)
{
	return cqn_configfs_describe(page, PAGE_SIZE);
}
CONFIGFS_ATTR_RO(cqn_subsys_, attributes);

static struct configfs_attribute *cqn_subsys_attrs[] = {
	&cqn_subsys_attr_attributes,
	NULL,
};

static const struct config_item_type cqn_subsys_type = {
	.ct_attrs = cqn_subsys_attrs,
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem cqn_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "cqnotify",
			.ci_type = &cqn_subsys_type,
		},
	},
};

/**
 * cqn_configfs_register_service() - the service arrives: every directory
 * gets a service endpoint, idle
 * @ops: the service's operations; they stay valid until
 *	cqn_configfs_unregister_service()
 *
 * A directory whose endpoint cannot be created stays without one (enable
 * then fails with -ENODEV); the others are attached.
 *
 * Context: process context (the service's module init).
 * Return: 0, or -EBUSY if a service is already registered.
 */
int cqn_configfs_register_service(const struct cqn_service_ops *ops)
{
	struct cqn_ep_dir *dir;
	int ret;

	down_write(&cqn_service_sem);
	if (cqn_service) {
		up_write(&cqn_service_sem);
		return -EBUSY;
	}
	cqn_service = ops;
	mutex_lock(&cqn_ep_dirs_lock);
	list_for_each_entry(dir, &cqn_ep_dirs, node) {
		ret = cqn_dir_attach(dir);
		if (ret)
			pr_err("%s: cannot attach the endpoint: %pe\n", cqn_dir_name(dir),
			       ERR_PTR(ret));
	}
	mutex_unlock(&cqn_ep_dirs_lock);
	up_write(&cqn_service_sem);
	return 0;
}
EXPORT_SYMBOL_GPL(cqn_configfs_register_service);

/**
 * cqn_configfs_unregister_service() - the service leaves: every endpoint
 * is stopped (connections drained and destroyed) and detached
 *
 * The directories stay, idle, with their configuration; an endpoint that
 * was enabled says why in last_error.
 *
 * Context: process context (the service's module exit).
 */
void cqn_configfs_unregister_service(void)
{
	struct cqn_ep_dir *dir;

	down_write(&cqn_service_sem);
	mutex_lock(&cqn_ep_dirs_lock);
	list_for_each_entry(dir, &cqn_ep_dirs, node)
		cqn_dir_detach(dir, "stopped: the cqnotify service module was unloaded");
	mutex_unlock(&cqn_ep_dirs_lock);
	cqn_service = NULL;
	up_write(&cqn_service_sem);
}
EXPORT_SYMBOL_GPL(cqn_configfs_unregister_service);

static int __init cqn_configfs_init(void)
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

/* configfs holds a reference on this module for every directory: none is left. */
static void __exit cqn_configfs_exit(void)
{
	configfs_unregister_subsystem(&cqn_subsys);
}

module_init(cqn_configfs_init);
module_exit(cqn_configfs_exit);

MODULE_DESCRIPTION("cqnotify configfs front end: the endpoint directories and their configuration");
MODULE_AUTHOR("The cqnotify developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(CQN_VERSION);
