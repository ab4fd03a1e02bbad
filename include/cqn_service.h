/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between the two modules.
 *
 * cqnotify_configfs.ko owns /sys/kernel/config/cqnotify/: the endpoint
 * directories and the configuration each one holds. cqnotify.ko is the
 * service: it registers itself here when it loads, and from then on each
 * directory has a service endpoint that runs what the configuration says.
 *
 * configfs pins the module that owns a directory for as long as the
 * directory exists. Keeping the directories in their own small module is
 * what lets "rmmod cqnotify" work while endpoints exist (and run): the
 * service stops every endpoint and detaches it, the directories and their
 * configuration stay, and loading cqnotify again attaches them anew.
 */
#ifndef _CQN_SERVICE_H
#define _CQN_SERVICE_H

#include <linux/types.h>

#include "cqn_config.h"

/* Longest last_error text. */
#define CQN_ERR_LEN	128

/**
 * enum cqn_ep_state - the life of an endpoint, as shown in "state"
 * @CQN_EP_IDLE: not enabled
 * @CQN_EP_CONNECTING: client: resolving and connecting
 * @CQN_EP_RUNNING: server: listening; client: running its workload
 * @CQN_EP_DONE: client: workload finished, connection closed
 * @CQN_EP_ERROR: stopped by an error; last_error says which
 * @CQN_EP_STATE_COUNT: number of states
 */
enum cqn_ep_state {
	CQN_EP_IDLE,
	CQN_EP_CONNECTING,
	CQN_EP_RUNNING,
	CQN_EP_DONE,
	CQN_EP_ERROR,
	CQN_EP_STATE_COUNT,
};

extern const char *const cqn_ep_state_names[];
bool cqn_ep_state_change_ok(enum cqn_ep_state from, enum cqn_ep_state to, bool new_run);

struct cqn_endpoint;

/**
 * struct cqn_service_ops - what the configfs front end asks of the service
 *
 * The front end calls these with its registration lock held for reading,
 * so the service cannot unregister (and its code cannot go away) during a
 * call, and one endpoint's calls never run concurrently.
 *
 * @attach: create the service endpoint of a directory named @name;
 *	returns it or an ERR_PTR()
 * @detach: stop the endpoint if it runs and free it
 * @enable: start the endpoint with a copy of @cfg (already checked by
 *	cqn_config_check()); 0 or -errno, last_error says why
 * @disable: stop the endpoint; every connection is drained and destroyed
 * @retune: an enabled endpoint takes the live-tunable attributes of @cfg
 *	and applies them to every connection; 0 or -errno
 * @state: enum cqn_ep_state
 * @last_error: copy the reason of the last error into @buf
 * @cq_depth_actual: CQ entries the provider gave the newest connection
 * @moderation_show: the moderation the newest connection's CQ runs with
 * @reset_stats: zero every counter of the endpoint (the "reset" attribute)
 */
struct cqn_service_ops {
	struct cqn_endpoint *(*attach)(const char *name);
	void (*detach)(struct cqn_endpoint *ep);
	int (*enable)(struct cqn_endpoint *ep, const struct cqn_config *cfg);
	void (*disable)(struct cqn_endpoint *ep);
	int (*retune)(struct cqn_endpoint *ep, const struct cqn_config *cfg);
	u32 (*state)(struct cqn_endpoint *ep);
	void (*last_error)(struct cqn_endpoint *ep, char *buf, size_t len);
	int (*cq_depth_actual)(struct cqn_endpoint *ep);
	int (*moderation_show)(struct cqn_endpoint *ep, char *buf, size_t len);
	void (*reset_stats)(struct cqn_endpoint *ep);
};

/* src/configfs/configfs.c (cqnotify_configfs.ko) */
int cqn_configfs_register_service(const struct cqn_service_ops *ops);
void cqn_configfs_unregister_service(void);

#endif /* _CQN_SERVICE_H */
