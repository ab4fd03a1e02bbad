// SPDX-License-Identifier: GPL-2.0
/*
 * cqnotify module entry: creates the workqueues, brings up debugfs and the
 * ib_client, then offers the service to the configfs front end
 * (cqnotify_configfs.ko), and takes them down in the reverse order:
 * unloading stops every endpoint first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/workqueue.h>

#include "cqnotify.h"

/*
 * CQ processing (event-mode drains). Not WQ_HIGHPRI: a drain copies and
 * checksums whole messages, and at nice -20 a busy CQ starved the rdma_cm
 * and IB CM work on the same CPU (the workqueue watchdog saw it on the
 * debug kernel).
 */
struct workqueue_struct *cqn_wq;
/* Connection teardown: sleeps while QPs drain, so it lives apart. */
struct workqueue_struct *cqn_reap_wq;

static bool unbound_wq;
module_param(unbound_wq, bool, 0444);
MODULE_PARM_DESC(unbound_wq,
		 "run event-mode CQ processing on an unbound workqueue (any CPU) instead of the CPU that took the event (default: 0)");

static int __init cqn_init(void)
{
	int ret;

	cqn_wq = alloc_workqueue("cqnotify", unbound_wq ? WQ_UNBOUND : 0, 0);
	if (!cqn_wq)
		return -ENOMEM;
	cqn_reap_wq = alloc_workqueue("cqnotify_reap", 0, 0);
	if (!cqn_reap_wq) {
		ret = -ENOMEM;
		goto err_wq;
	}
	ret = cqn_debugfs_init();
	if (ret)
		goto err_reap_wq;
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
err_reap_wq:
	destroy_workqueue(cqn_reap_wq);
err_wq:
	destroy_workqueue(cqn_wq);
	return ret;
}

static void __exit cqn_exit(void)
{
	cqn_service_unregister();
	cqn_device_exit();
	cqn_debugfs_exit();
	cqn_endpoint_exit();
	destroy_workqueue(cqn_reap_wq);
	destroy_workqueue(cqn_wq);
	pr_info("unloaded\n");
}

module_init(cqn_init);
module_exit(cqn_exit);

MODULE_DESCRIPTION("cqnotify: RDMA RC send/recv service for studying CQ polling, events and moderation");
MODULE_AUTHOR("The cqnotify developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(CQN_VERSION);
