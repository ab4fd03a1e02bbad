/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the configfs front end (cqnotify_configfs.ko) share:
 * configfs.c has the module, the subsystem, the endpoint directories and
 * the service's registration; attrs.c has every attribute of a directory
 * and the table that describes them; describe.c writes that table out as
 * the "attributes" file.
 */
#ifndef _CQN_FRONT_END_H
#define _CQN_FRONT_END_H

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

/**
 * enum cqn_attr_kind - what an endpoint attribute holds, for "attributes"
 * @CQN_ATTR_U32: a number in @min..@max of struct cqn_attr_info
 * @CQN_ATTR_BOOL: 0 or 1
 * @CQN_ATTR_CHOICE: one of the names of struct cqn_attr_info
 * @CQN_ATTR_CPU: -1 or an online CPU
 * @CQN_ATTR_ADDR: an IPv4 or IPv6 address
 * @CQN_ATTR_RO: read-only
 * @CQN_ATTR_WO: write-only action, takes 1
 */
enum cqn_attr_kind {
	CQN_ATTR_U32,
	CQN_ATTR_BOOL,
	CQN_ATTR_CHOICE,
	CQN_ATTR_CPU,
	CQN_ATTR_ADDR,
	CQN_ATTR_RO,
	CQN_ATTR_WO,
};

/**
 * struct cqn_attr_info - an endpoint attribute as "attributes" describes it
 * @name: the attribute
 * @kind: enum cqn_attr_kind
 * @min: CQN_ATTR_U32: smallest value (the store checks it)
 * @max: CQN_ATTR_U32: largest value (the store checks it)
 * @names: CQN_ATTR_CHOICE: the values
 * @n: CQN_ATTR_CHOICE: how many of them
 * @offset: where the value is in struct cqn_config
 * @in_cfg: @offset is valid; the default comes from cqn_config_defaults()
 *	(and whether it is live from cqn_config_is_live())
 */
struct cqn_attr_info {
	const char *name;
	enum cqn_attr_kind kind;
	u32 min;
	u32 max;
	const char *const *const *names;
	const unsigned int *n;
	size_t offset;
	bool in_cfg;
};

extern const struct cqn_attr_info *const cqn_ep_infos[];
extern const unsigned int cqn_ep_ninfos;

int cqn_configfs_describe(char *page, size_t len);

#endif /* _CQN_FRONT_END_H */
