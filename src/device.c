// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA devices cqnotify can use: an ib_client that tracks every device
 * the RDMA core registers or removes (rxe0, siw0, mlx5_0 ...).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/slab.h>

#include "cqnotify.h"
#include "cqn_caps.h"

/* protects cqn_devices and every cqn_device on it */
static DEFINE_MUTEX(cqn_devices_lock);
static LIST_HEAD(cqn_devices);

static struct ib_client cqn_ib_client;

static int cqn_device_add(struct ib_device *ibdev)
{
	struct cqn_device *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;

	mutex_lock(&cqn_devices_lock);
	list_add_tail(&dev->node, &cqn_devices);
	mutex_unlock(&cqn_devices_lock);

	ib_set_client_data(ibdev, &cqn_ib_client, dev);
	pr_info("device %s added\n", dev_name(&ibdev->dev));
	return 0;
}

static void cqn_device_remove(struct ib_device *ibdev, void *client_data)
{
	struct cqn_device *dev = client_data;

	/* Stop everything on the device before the RDMA core frees it. */
	cqn_endpoints_device_removed(ibdev);

	mutex_lock(&cqn_devices_lock);
	list_del(&dev->node);
	mutex_unlock(&cqn_devices_lock);

	pr_info("device %s removed\n", dev_name(&ibdev->dev));
	kfree(dev);
}

static struct ib_client cqn_ib_client = {
	.name = "cqnotify",
	.add = cqn_device_add,
	.remove = cqn_device_remove,
};

/**
 * cqn_devices_show() - print one capability line per known device
 * @m: the seq_file of debugfs "devices"
 *
 * Context: process context; takes cqn_devices_lock.
 */
void cqn_devices_show(struct seq_file *m)
{
	struct cqn_dev_caps caps;
	struct cqn_device *dev;
	char line[256];

	mutex_lock(&cqn_devices_lock);
	list_for_each_entry(dev, &cqn_devices, node) {
		cqn_caps_read(dev->ibdev, &caps);
		if (cqn_caps_format(&caps, line, sizeof(line)) < 0)
			pr_warn_ratelimited("device line for %s truncated\n", caps.name);
		seq_puts(m, line);
	}
	mutex_unlock(&cqn_devices_lock);
}

/**
 * cqn_device_count() - number of RDMA devices currently known
 *
 * Context: process context; takes cqn_devices_lock.
 * Return: the count.
 */
unsigned int cqn_device_count(void)
{
	struct cqn_device *dev;
	unsigned int n = 0;

	mutex_lock(&cqn_devices_lock);
	list_for_each_entry(dev, &cqn_devices, node)
		n++;
	mutex_unlock(&cqn_devices_lock);
	return n;
}

/**
 * cqn_devices_check() - ask @check of every known device
 * @check: returns 0 or -errno for a device; called with cqn_devices_lock
 *	held, so it takes no lock above it
 * @arg: passed to @check
 *
 * Context: process context; takes cqn_devices_lock.
 * Return: 0, or the first -errno of @check (the devices after it are not
 * asked).
 */
int cqn_devices_check(int (*check)(struct ib_device *ibdev, void *arg), void *arg)
{
	struct cqn_device *dev;
	int ret = 0;

	mutex_lock(&cqn_devices_lock);
	list_for_each_entry(dev, &cqn_devices, node) {
		ret = check(dev->ibdev, arg);
		if (ret)
			break;
	}
	mutex_unlock(&cqn_devices_lock);
	return ret;
}

/**
 * cqn_device_init() - register the ib_client
 *
 * The RDMA core calls cqn_device_add() for every device already present
 * before this returns.
 *
 * Context: process context.
 * Return: 0 or -errno.
 */
int cqn_device_init(void)
{
	return ib_register_client(&cqn_ib_client);
}

/**
 * cqn_device_exit() - unregister the ib_client
 *
 * The RDMA core calls cqn_device_remove() for every device first, so the
 * list is empty afterwards.
 *
 * Context: process context.
 */
void cqn_device_exit(void)
{
	ib_unregister_client(&cqn_ib_client);
	WARN_ON(!list_empty(&cqn_devices));
}
