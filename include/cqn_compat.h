/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, all in one place.
 *
 * cqnotify is built and tested on Linux 6.1 (Debian 12's kernel, and a debug
 * build) and 6.12 (Debian 12's security archive); 6.1 is also the oldest
 * kernel it supports (kunit/visibility.h; before that, 5.10 brought
 * rdma_connect_locked() and sysfs_emit()). The renames since 6.1 that touch
 * this code are mapped below, so the rest of the tree calls one name; each
 * says which kernel here compiles which branch. Differences at run time
 * (6.12's rxe calls comp_handler with the CQ's lock held) are handled where
 * they bite, in src/cq.c. Documentation/admin-guide.rst ("Kernel versions")
 * lists them all.
 */
#ifndef _CQN_COMPAT_H
#define _CQN_COMPAT_H

#include <kunit/visibility.h>
#include <linux/dim.h>
#include <linux/hrtimer.h>
#include <linux/version.h>
#include <rdma/ib_verbs.h>

#include "cqn_moder.h"

/*
 * The kernel's major.minor, what every branch below depends on. Built from
 * LINUX_VERSION_MAJOR and _PATCHLEVEL (5.14 on; undefined before, which
 * reads as 0 and fails the check below): the sublevel plays no part, and
 * LINUX_VERSION_CODE clamps it at 255 on long-lived stable trees anyway.
 */
#define CQN_KVER	KERNEL_VERSION(LINUX_VERSION_MAJOR, LINUX_VERSION_PATCHLEVEL, 0)

#if KERNEL_VERSION(6, 1, 0) > CQN_KVER
#error "cqnotify needs Linux 6.1 or later"
#endif

/*
 * 6.10 dropped __assign_str()'s source argument: the source is the one
 * given to __string() in TP_STRUCT__entry. 6.1 compiles the old branch,
 * 6.12 the new one.
 */
#if KERNEL_VERSION(6, 10, 0) <= CQN_KVER
#define cqn_assign_str(dst, src)	__assign_str(dst)
#else
#define cqn_assign_str(dst, src)	__assign_str(dst, src)
#endif

/*
 * 6.13 added hrtimer_setup(), which sets the callback with the clock and
 * mode; hrtimer_init() and writing ->function directly went away after it.
 * 6.1 and 6.12 compile the old branch; no kernel here compiles the new one.
 */
static inline void cqn_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#if KERNEL_VERSION(6, 13, 0) <= CQN_KVER
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * 6.13 made symbol namespaces string literals. Only the 6.1 debug kernel
 * has KUnit here, so only the old branch is compiled.
 */
#if KERNEL_VERSION(6, 13, 0) <= CQN_KVER
#define CQN_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define CQN_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif

/*
 * The RDMA core's DIM. With "rdma dev set DEV adaptive-moderation on"
 * (ib_device->use_cq_dim) on a device that has modify_cq, ib_alloc_cq()
 * gives the CQs the core polls itself (cqnotify's softirq and workqueue
 * modes) a struct dim in ib_cq->dim, and the core's poll handlers feed it
 * (lib/dim's rdma_dim()); a change of level programs the device with that
 * level's comps and usec from rdma_dim_prof[], which is static in
 * drivers/infiniband/core/cq.c. The field, use_cq_dim, the table and the
 * algorithm are the same in 6.1 and 6.12 (both sources compared), so there
 * is one branch. cqn_dim_profile() (src/moder.c) has a copy of that table:
 * the values cqnotify reports for a level of the core's DIM and applies for
 * a level of its own (adaptive_moderation, also lib/dim's rdma_dim());
 * moder_hw's core_dim_levels test compares them with what the core programs
 * (the rdma_core:cq_modify tracepoint) on the running kernel, and the
 * assert below catches a table that grew.
 */
static_assert(RDMA_DIM_PARAMS_NUM_PROFILES == CQN_DIM_LEVELS);

/**
 * cqn_core_dim() - the core's DIM of a CQ the core polls, if it runs one
 * @cq: the CQ
 *
 * Return: the struct dim, or NULL (no modify_cq, adaptive-moderation off
 * when the CQ was created, or a CQ the core does not poll).
 */
static inline struct dim *cqn_core_dim(struct ib_cq *cq)
{
	return cq->dim;
}

#endif /* _CQN_COMPAT_H */
