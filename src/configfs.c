// SPDX-License-Identifier: GPL-2.0
/*
 * configfs: /sys/kernel/config/cqnotify/, where administrators create and
 * configure endpoints. The subsystem holds one default group, endpoints/.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>

#include "cqnotify.h"

static const struct config_item_type cqn_endpoints_type = {
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
 * Context: process context.
 */
void cqn_configfs_exit(void)
{
	configfs_unregister_subsystem(&cqn_subsys);
}
