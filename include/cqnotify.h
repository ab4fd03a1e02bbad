/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqnotify core: the objects every part of the module shares, and the lock order.
 *
 * Lock order (take the outer lock first, never the reverse):
 *
 *   cqn_devices_lock (src/device.c)	the list of RDMA devices the ib_client sees
 *
 * No lock is held across a call into the RDMA core that can sleep for a
 * long time (address resolution, connection setup); those run from process
 * context with only the object they work on pinned.
 */
#ifndef _CQNOTIFY_H
#define _CQNOTIFY_H

#include <linux/list.h>
#include <linux/seq_file.h>
#include <rdma/ib_verbs.h>

/**
 * struct cqn_device - an RDMA device as seen by the cqnotify ib_client
 * @node: entry on the device list, protected by cqn_devices_lock
 * @ibdev: the device; valid from the client's add() until its remove()
 */
struct cqn_device {
	struct list_head node;
	struct ib_device *ibdev;
};

int cqn_device_init(void);
void cqn_device_exit(void);
void cqn_devices_show(struct seq_file *m);
unsigned int cqn_device_count(void);

int cqn_configfs_init(void);
void cqn_configfs_exit(void);

int cqn_debugfs_init(void);
void cqn_debugfs_exit(void);

#endif /* _CQNOTIFY_H */
