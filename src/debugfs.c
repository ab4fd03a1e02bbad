// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/cqnotify/, the module's read-out surface.
 * Failures here are never fatal: the module works without debugfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>

#include "cqnotify.h"

static struct dentry *cqn_debugfs_root;

static int cqn_devices_seq_show(struct seq_file *m, void *v)
{
	cqn_devices_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqn_devices_seq);

/**
 * cqn_debugfs_init() - create /sys/kernel/debug/cqnotify and its files
 *
 * Context: process context.
 * Return: 0; debugfs errors are not propagated.
 */
int cqn_debugfs_init(void)
{
	cqn_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("devices", 0400, cqn_debugfs_root, NULL,
			    &cqn_devices_seq_fops);
	return 0;
}

/**
 * cqn_debugfs_exit() - remove everything cqn_debugfs_init() created
 *
 * Context: process context.
 */
void cqn_debugfs_exit(void)
{
	debugfs_remove_recursive(cqn_debugfs_root);
	cqn_debugfs_root = NULL;
}
