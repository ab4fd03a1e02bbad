/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, all in one place.
 *
 * cqnotify is written against Linux 6.1 (Debian 12) and tested there only,
 * which is also the oldest kernel it supports (kunit/visibility.h; before
 * that, 5.10 brought rdma_connect_locked() and sysfs_emit()). The renames
 * since 6.1 that touch this
 * code are mapped below, so the rest of the tree calls one name; they are
 * taken from the kernel's history, not tested (no newer kernel is built
 * here). Documentation/admin-guide.rst ("Kernel versions") lists them.
 */
#ifndef _CQN_COMPAT_H
#define _CQN_COMPAT_H

#include <kunit/visibility.h>
#include <linux/hrtimer.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "cqnotify needs Linux 6.1 or later"
#endif

/*
 * 6.10 dropped __assign_str()'s source argument: the source is the one
 * given to __string() in TP_STRUCT__entry.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define cqn_assign_str(dst, src)	__assign_str(dst)
#else
#define cqn_assign_str(dst, src)	__assign_str(dst, src)
#endif

/*
 * 6.13 added hrtimer_setup(), which sets the callback with the clock and
 * mode; hrtimer_init() and writing ->function directly went away after it.
 */
static inline void cqn_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/* 6.13 made symbol namespaces string literals. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define CQN_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define CQN_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif

#endif /* _CQN_COMPAT_H */
