// SPDX-License-Identifier: GPL-2.0
/*
 * The service side of the contract with cqnotify_configfs.ko
 * (include/cqn_service.h): each operation the front end asks for maps onto
 * an endpoint call, under the endpoint's lock where it changes the run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/string.h>

#include "cqnotify.h"

static struct cqn_endpoint *cqn_service_attach(const char *name)
{
	struct cqn_endpoint *ep;

	ep = cqn_ep_create(name);
	if (!IS_ERR(ep))
		cqn_ep_register(ep);
	return ep;
}

static void cqn_service_detach(struct cqn_endpoint *ep)
{
	cqn_ep_unregister(ep);
	cqn_ep_destroy(ep);
}

static int cqn_service_enable(struct cqn_endpoint *ep, const struct cqn_config *cfg)
{
	int ret;

	mutex_lock(&ep->lock);
	ret = cqn_ep_enable(ep, cfg);
	mutex_unlock(&ep->lock);
	return ret;
}

static void cqn_service_disable(struct cqn_endpoint *ep)
{
	mutex_lock(&ep->lock);
	if (ep->enabled)
		cqn_ep_disable(ep);
	mutex_unlock(&ep->lock);
}

static int cqn_service_retune(struct cqn_endpoint *ep, const struct cqn_config *cfg)
{
	int ret = 0;

	mutex_lock(&ep->lock);
	/* New connections take their snapshot of it under tune_lock. */
	mutex_lock(&ep->tune_lock);
	ep->cfg.cq = cfg->cq;
	mutex_unlock(&ep->tune_lock);
	if (ep->enabled)
		ret = cqn_ep_retune(ep);
	mutex_unlock(&ep->lock);
	return ret;
}

static void cqn_service_last_error(struct cqn_endpoint *ep, char *buf, size_t len)
{
	spin_lock_irq(&ep->state_lock);
	strscpy(buf, ep->last_error, len);
	spin_unlock_irq(&ep->state_lock);
}

static int cqn_service_cq_depth_actual(struct cqn_endpoint *ep)
{
	return READ_ONCE(ep->cq_depth_actual);
}

static const struct cqn_service_ops cqn_service_ops = {
	.attach = cqn_service_attach,
	.detach = cqn_service_detach,
	.enable = cqn_service_enable,
	.disable = cqn_service_disable,
	.retune = cqn_service_retune,
	.state = cqn_ep_state,
	.last_error = cqn_service_last_error,
	.cq_depth_actual = cqn_service_cq_depth_actual,
	.moderation_show = cqn_ep_moderation_show,
	.reset_stats = cqn_ep_stats_reset,
};

/**
 * cqn_service_register() - offer the service to the configfs front end
 *
 * Every endpoint directory that exists gets a service endpoint (idle).
 *
 * Context: process context (module init).
 * Return: 0 or -errno.
 */
int cqn_service_register(void)
{
	return cqn_configfs_register_service(&cqn_service_ops);
}

/**
 * cqn_service_unregister() - stop and detach every endpoint
 *
 * Running endpoints are disabled (connections disconnected, drained and
 * destroyed); their directories stay, idle, with their configuration.
 *
 * Context: process context (module exit).
 */
void cqn_service_unregister(void)
{
	cqn_configfs_unregister_service();
}
