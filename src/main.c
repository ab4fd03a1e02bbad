// SPDX-License-Identifier: GPL-2.0
/*
 * cqnotify module entry: brings up debugfs and the ib_client, then offers
 * the service to the configfs front end (cqnotify_configfs.ko), and takes
 * them down in the reverse order: unloading stops every endpoint first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "cqnotify.h"

static int __init cqn_init(void)
{
	int ret;

	ret = cqn_endpoint_init();
	if (ret)
		return ret;
	ret = cqn_debugfs_init();
	if (ret)
		goto err_endpoint;
	ret = cqn_device_init();
	if (ret)
		goto err_debugfs;
	ret = cqn_service_register();
	if (ret)
		goto err_device;
	pr_info("loaded, %u RDMA device(s)\n", cqn_device_count());
	return 0;

err_device:
	cqn_device_exit();
err_debugfs:
	cqn_debugfs_exit();
err_endpoint:
	cqn_endpoint_exit();
	return ret;
}

static void __exit cqn_exit(void)
{
	cqn_service_unregister();
	cqn_device_exit();
	cqn_debugfs_exit();
	cqn_endpoint_exit();
	pr_info("unloaded\n");
}

module_init(cqn_init);
module_exit(cqn_exit);

MODULE_DESCRIPTION("cqnotify: RDMA RC send/recv service for studying CQ polling, events and moderation");
MODULE_AUTHOR("The cqnotify developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(CQN_VERSION);
