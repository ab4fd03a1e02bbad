// SPDX-License-Identifier: GPL-2.0
/*
 * cqn_splat: make the kernel complain on purpose, so the harness can prove
 * that scripts/vm-run's gate catches a WARN and a kmemleak report.
 *
 *   insmod cqn_splat.ko kind=warn   WARN_ON(1) at load
 *   insmod cqn_splat.ko kind=leak   leak 256 bytes of kmalloc at load
 *   insmod cqn_splat.ko kind=none   do nothing (the clean control run)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *kind = "none";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "what to do at load: warn, leak or none");

/*
 * WRITE_ONCE() is a volatile store, so the compiler must keep the allocation;
 * overwriting the pointer leaves no reference for kmemleak to find.
 */
static void *cqn_splat_sink;

static noinline void cqn_splat_leak(void)
{
	WRITE_ONCE(cqn_splat_sink, kmalloc(256, GFP_KERNEL));
	pr_info("leaking 256 bytes at %p\n", READ_ONCE(cqn_splat_sink));
	WRITE_ONCE(cqn_splat_sink, NULL);
}

static int __init cqn_splat_init(void)
{
	if (!strcmp(kind, "warn"))
		WARN_ON(1);
	else if (!strcmp(kind, "leak"))
		cqn_splat_leak();
	else if (strcmp(kind, "none"))
		return -EINVAL;
	pr_info("loaded, kind=%s\n", kind);
	return 0;
}

static void __exit cqn_splat_exit(void)
{
	pr_info("unloaded\n");
}

module_init(cqn_splat_init);
module_exit(cqn_splat_exit);
MODULE_DESCRIPTION("cqnotify harness self-test: WARN or leak on purpose");
MODULE_LICENSE("GPL");
