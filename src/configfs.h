/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two files of the configfs front end (cqnotify_configfs.ko)
 * share: src/configfs.c has the module, the subsystem, the endpoint
 * directories and the service's registration; src/configfs_attr.c has
 * every attribute of a directory and the "attributes" description.
 */
#ifndef _CQN_CONFIGFS_H
#define _CQN_CONFIGFS_H

#include <linux/configfs.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>

#include "cqn_config.h"
#include "cqn_service.h"

/* Why a directory cannot do what needs the service. */
#define CQN_NOT_LOADED	"the cqnotify service module is not loaded"

/**
 * struct cqn_ep_dir - an endpoint directory
 * @group: the configfs group
 * @node: on cqn_ep_dirs, protected by cqn_ep_dirs_lock
 * @lock: serialises the directory's stores; protects @cfg and @enabled
 * @cfg: the configuration
 * @enabled: the "enable" attribute
 * @ep: the service endpoint running it; NULL while the service is not
 *	loaded. Set and cleared with cqn_service_sem held for writing, or by
 *	mkdir and rmdir, which no attribute call of the directory overlaps
 * @note: last_error while there is no service endpoint
 */
struct cqn_ep_dir {
	struct config_group group;
	struct list_head node;
	/* the directory's stores, cfg and enabled */
	struct mutex lock;
	struct cqn_config cfg;
	bool enabled;
	struct cqn_endpoint *ep;
	char note[CQN_ERR_LEN];
};

extern struct rw_semaphore cqn_service_sem;
extern const struct cqn_service_ops *cqn_service;
extern struct configfs_attribute *cqn_ep_attrs[];

static inline struct cqn_ep_dir *to_cqn_ep_dir(struct config_item *item)
{
	return container_of(to_config_group(item), struct cqn_ep_dir, group);
}

static inline const char *cqn_dir_name(struct cqn_ep_dir *dir)
{
	return config_item_name(&dir->group.cg_item);
}

int cqn_configfs_describe(char *page, size_t len);

#endif /* _CQN_CONFIGFS_H */
