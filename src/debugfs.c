// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/cqnotify/, the module's read-out surface:
 * "devices", and per endpoint "stats", "latency", "cq" (the CQ engine's
 * histograms, for people), "histograms" (all of them raw, for programs),
 * "slots" (a client's connection slots), "reset", the fault_* knobs and
 * conns/<id>/ ("stats", "histograms", "fault_qp_error").
 * Failures here are never fatal: the module works without debugfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "cqnotify.h"
#include "cqn_parse.h"

static struct dentry *cqn_debugfs_root;

static int cqn_devices_seq_show(struct seq_file *m, void *v)
{
	cqn_devices_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqn_devices_seq);

/* The derived lines that follow the counters in every "stats" file. */
static void cqn_debugfs_print_rates(struct seq_file *m, const struct cqn_stats_sum *sum,
				    u64 run_ns)
{
	u64 msgs = sum->cnt[CQN_STAT_msgs_received];

	seq_printf(m, "run_ms %llu\n", div_u64(run_ns, NSEC_PER_MSEC));
	seq_printf(m, "msgs_per_sec %llu\n", run_ns ? div64_u64(msgs * NSEC_PER_SEC, run_ns) : 0);
	seq_printf(m, "cq_events_per_kmsg %llu\n",
		   msgs ? div64_u64(sum->cnt[CQN_STAT_cq_events] * 1000, msgs) : 0);
	seq_printf(m, "cq_wakeups_per_kmsg %llu\n",
		   msgs ? div64_u64(sum->cnt[CQN_STAT_cq_wakeups] * 1000, msgs) : 0);
	seq_printf(m, "cpu_ns_per_msg %llu\n",
		   msgs ? div64_u64(sum->cnt[CQN_STAT_cpu_ns], msgs) : 0);
}

/* Sum an endpoint's counters into a heap buffer (too big for the stack) and print them. */
static int cqn_ep_print_sum(struct seq_file *m,
			    void (*print)(struct seq_file *m, struct cqn_endpoint *ep,
					  const struct cqn_stats_sum *sum))
{
	struct cqn_endpoint *ep = m->private;
	struct cqn_stats_sum *sum;

	sum = kzalloc(sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	cqn_ep_stats_sum(ep, sum);
	print(m, ep, sum);
	kfree(sum);
	return 0;
}

/**
 * struct cqn_conn_ids - what names a connection's resources in the RDMA core
 * @device: the RDMA device
 * @ib_port: its port ("link DEVICE/PORT" in ``rdma res show qp``)
 * @lqpn: the QP number ("lqpn")
 * @cqn: the CQ's restrack id ("cqn" in ``rdma res show cq``, "cq_id" in
 *	the rdma_core and cqnotify tracepoints)
 * @comp_vector: the completion vector the CQ was created on
 */
struct cqn_conn_ids {
	char device[IB_DEVICE_NAME_MAX];
	u32 ib_port;
	u32 lqpn;
	u32 cqn;
	int comp_vector;
};

/* Copy them: a client's connection may close once ep->state_lock is dropped. */
static void cqn_conn_get_ids(struct cqn_conn *conn, struct cqn_conn_ids *ids)
{
	strscpy(ids->device, dev_name(&conn->cm_id->device->dev), sizeof(ids->device));
	ids->ib_port = conn->cm_id->port_num;
	ids->lqpn = conn->qp->qp_num;
	ids->cqn = cqn_cq_ib(conn->cq)->res.id;
	ids->comp_vector = cqn_cq_comp_vector(conn->cq);
}

static void cqn_debugfs_print_ids(struct seq_file *m, const struct cqn_conn_ids *ids)
{
	seq_printf(m, "device %s\n", ids->device);
	seq_printf(m, "ib_port %u\n", ids->ib_port);
	seq_printf(m, "lqpn %u\n", ids->lqpn);
	seq_printf(m, "cqn %u\n", ids->cqn);
	seq_printf(m, "comp_vector %d\n", ids->comp_vector);
}

/*
 * The one live connection of an endpoint that has one at a time (a
 * client of connections=1), named as the RDMA core names it; nothing
 * while it has none. (Every connection's are in conns/<id>/stats.)
 */
static void cqn_ep_print_client_ids(struct seq_file *m, struct cqn_endpoint *ep)
{
	const struct cqn_role_ops *role = READ_ONCE(ep->role);
	struct cqn_conn_ids ids;
	struct cqn_conn *conn;
	bool found = false;

	if (!role || !role->one_conn || !role->one_conn(ep))
		return;
	spin_lock_irq(&ep->state_lock);
	conn = list_first_entry_or_null(&ep->conns, struct cqn_conn, node);
	if (conn) {
		cqn_conn_get_ids(conn, &ids);
		found = true;
	}
	spin_unlock_irq(&ep->state_lock);
	if (found)
		cqn_debugfs_print_ids(m, &ids);
}

static void cqn_ep_print_stats(struct seq_file *m, struct cqn_endpoint *ep,
			       const struct cqn_stats_sum *sum)
{
	cqn_stats_print(m, sum);
	seq_printf(m, "conns_active %u\n", READ_ONCE(ep->nconns));
	seq_printf(m, "conns_closing %u\n", cqn_ep_conns_closing(ep));
	cqn_srq_show(m, ep);
	cqn_ep_print_client_ids(m, ep);
	cqn_debugfs_print_rates(m, sum, cqn_ep_run_ns(ep));
}

static int cqn_ep_stats_show(struct seq_file *m, void *v)
{
	return cqn_ep_print_sum(m, cqn_ep_print_stats);
}
DEFINE_SHOW_ATTRIBUTE(cqn_ep_stats);

static void cqn_ep_print_latency(struct seq_file *m, struct cqn_endpoint *ep,
				 const struct cqn_stats_sum *sum)
{
	cqn_stats_print_latency(m, sum);
}

static int cqn_ep_latency_show(struct seq_file *m, void *v)
{
	return cqn_ep_print_sum(m, cqn_ep_print_latency);
}
DEFINE_SHOW_ATTRIBUTE(cqn_ep_latency);

static void cqn_ep_print_cq(struct seq_file *m, struct cqn_endpoint *ep,
			    const struct cqn_stats_sum *sum)
{
	cqn_stats_print_cq(m, sum);
}

static int cqn_ep_cq_show(struct seq_file *m, void *v)
{
	return cqn_ep_print_sum(m, cqn_ep_print_cq);
}
DEFINE_SHOW_ATTRIBUTE(cqn_ep_cq);

/* "cqs": the CQ engines and the QPs each serves (cq_share). */
static int cqn_ep_cqs_seq_show(struct seq_file *m, void *v)
{
	cqn_ep_cqs_show(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqn_ep_cqs_seq);

static void cqn_ep_print_hist_raw(struct seq_file *m, struct cqn_endpoint *ep,
				  const struct cqn_stats_sum *sum)
{
	cqn_stats_print_hist_raw(m, sum);
}

static int cqn_ep_histograms_show(struct seq_file *m, void *v)
{
	return cqn_ep_print_sum(m, cqn_ep_print_hist_raw);
}
DEFINE_SHOW_ATTRIBUTE(cqn_ep_histograms);

static int cqn_ep_slots_show(struct seq_file *m, void *v)
{
	cqn_client_slots_show(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqn_ep_slots);

/* A control file's value from user space: a number in @min..@max. */
static int cqn_debugfs_get_u32(const char __user *ubuf, size_t count, u32 min, u32 max,
			       u32 *v)
{
	char buf[16];

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	return cqn_parse_u32(buf, count, min, max, v) ? -EINVAL : 0;
}

/* A control file's value for user space. */
static ssize_t cqn_debugfs_put_u32(char __user *ubuf, size_t count, loff_t *ppos, u32 v)
{
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%u\n", v);

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static int cqn_knob_reset_set(struct cqn_endpoint *ep, u32 v)
{
	cqn_ep_stats_reset(ep);
	return 0;
}

static int cqn_knob_arm_delay_set(struct cqn_endpoint *ep, u32 us)
{
	cqn_ep_fault_arm_delay(ep, us);
	return 0;
}

static int cqn_knob_drop_events_set(struct cqn_endpoint *ep, u32 n)
{
	cqn_ep_fault_drop_events(ep, n);
	return 0;
}

static int cqn_knob_qp_error_set(struct cqn_endpoint *ep, u32 v)
{
	int ret = cqn_ep_fault_qp_error(ep);

	return ret < 0 ? ret : 0;
}

static u32 cqn_knob_cq_undersize_get(struct cqn_endpoint *ep)
{
	return atomic_read(&ep->fault_cq_undersize);
}

static int cqn_knob_cq_undersize_set(struct cqn_endpoint *ep, u32 n)
{
	atomic_set(&ep->fault_cq_undersize, n);
	return 0;
}

static u32 cqn_knob_drain_short_get(struct cqn_endpoint *ep)
{
	return READ_ONCE(ep->fault_drain_short);
}

static int cqn_knob_drain_short_set(struct cqn_endpoint *ep, u32 n)
{
	WRITE_ONCE(ep->fault_drain_short, n);
	return 0;
}

static u32 cqn_knob_stop_replenish_get(struct cqn_endpoint *ep)
{
	return READ_ONCE(ep->fault_stop_replenish);
}

/* Off again: what the SRQs kept back goes back to them (a ring's does not). */
static int cqn_knob_stop_replenish_set(struct cqn_endpoint *ep, u32 n)
{
	WRITE_ONCE(ep->fault_stop_replenish, n);
	if (!n)
		cqn_srq_release(ep);
	return 0;
}

/* Shown and written as the count itself; held as count + 1 (0: default). */
static u32 cqn_knob_rnr_retry_get(struct cqn_endpoint *ep)
{
	u32 v = READ_ONCE(ep->fault_rnr_retry);

	return v ? v - 1 : CQN_RNR_RETRY_INFINITE;
}

static int cqn_knob_rnr_retry_set(struct cqn_endpoint *ep, u32 n)
{
	WRITE_ONCE(ep->fault_rnr_retry, n == CQN_RNR_RETRY_INFINITE ? 0 : n + 1);
	return 0;
}

/**
 * struct cqn_ep_knob - one control file of an endpoint: "reset" and the
 * fault_* knobs (Documentation/admin-guide.rst)
 * @name: file name
 * @min: smallest value a write may give
 * @max: largest
 * @get: the value a read shows; NULL for a write-only file
 * @set: act on a written value; 0 or -errno
 */
struct cqn_ep_knob {
	const char *name;
	u32 min;
	u32 max;
	u32 (*get)(struct cqn_endpoint *ep);
	int (*set)(struct cqn_endpoint *ep, u32 v);
};

/* debugfs control files of an endpoint: reset and the fault_* knobs. */
#define CQN_EP_NR_KNOBS		9

/**
 * struct cqn_ep_knob_file - what a debugfs control file of an endpoint acts on
 * @ep: the endpoint
 * @idx: the control, an index into cqn_ep_knobs
 */
struct cqn_ep_knob_file {
	struct cqn_endpoint *ep;
	u32 idx;
};

/**
 * struct cqn_ep_debugfs - an endpoint's debugfs directory
 * @dir: <endpoint>/
 * @conns: <endpoint>/conns/, the connections' directories
 * @knobs: what each control file acts on
 */
struct cqn_ep_debugfs {
	struct dentry *dir;
	struct dentry *conns;
	struct cqn_ep_knob_file knobs[CQN_EP_NR_KNOBS];
};

static const struct cqn_ep_knob cqn_ep_knobs[CQN_EP_NR_KNOBS] = {
	{ "reset", 1, 1, NULL, cqn_knob_reset_set },
	{ "fault_drop_events", 0, 1000000, NULL, cqn_knob_drop_events_set },
	{ "fault_spurious_events", 1, CQN_SPURIOUS_EVENTS_MAX, NULL,
	  cqn_ep_fault_spurious_events },
	{ "fault_qp_error", 1, 1, NULL, cqn_knob_qp_error_set },
	{ "fault_arm_delay_us", 0, CQN_ARM_DELAY_US_MAX, NULL, cqn_knob_arm_delay_set },
	{ "fault_cq_undersize", 0, CQN_CQ_DEPTH_MAX, cqn_knob_cq_undersize_get,
	  cqn_knob_cq_undersize_set },
	{ "fault_stop_replenish", 0, 1, cqn_knob_stop_replenish_get,
	  cqn_knob_stop_replenish_set },
	{ "fault_rnr_retry", 0, CQN_RNR_RETRY_INFINITE, cqn_knob_rnr_retry_get,
	  cqn_knob_rnr_retry_set },
	{ "fault_drain_short", 0, 1, cqn_knob_drain_short_get, cqn_knob_drain_short_set },
};

static ssize_t cqn_ep_knob_read(struct file *file, char __user *ubuf, size_t count,
				loff_t *ppos)
{
	struct cqn_ep_knob_file *kf = file->private_data;

	return cqn_debugfs_put_u32(ubuf, count, ppos, cqn_ep_knobs[kf->idx].get(kf->ep));
}

static ssize_t cqn_ep_knob_write(struct file *file, const char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	struct cqn_ep_knob_file *kf = file->private_data;
	const struct cqn_ep_knob *knob = &cqn_ep_knobs[kf->idx];
	u32 v;
	int ret;

	ret = cqn_debugfs_get_u32(ubuf, count, knob->min, knob->max, &v);
	if (!ret)
		ret = knob->set(kf->ep, v);
	return ret ? ret : count;
}

static const struct file_operations cqn_ep_knob_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = cqn_ep_knob_read,
	.write = cqn_ep_knob_write,
	.llseek = default_llseek,
};

/* No .read: root, whom the 0200 mode does not stop, gets -EINVAL. */
static const struct file_operations cqn_ep_knob_wo_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = cqn_ep_knob_write,
	.llseek = noop_llseek,
};

static int cqn_conn_stats_show(struct seq_file *m, void *v)
{
	struct cqn_conn *conn = m->private;
	struct cqn_stats_sum *sum;
	struct cqn_conn_ids ids;
	char moder[80];

	sum = kzalloc(sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	cqn_stats_add_to(&conn->stats, sum);
	seq_printf(m, "peer %s\n", conn->peer);
	cqn_conn_get_ids(conn, &ids);
	cqn_debugfs_print_ids(m, &ids);
	seq_printf(m, "cq_depth_actual %d\n", cqn_cq_ib(conn->cq)->cqe);
	seq_printf(m, "cq_mode %s\n", cqn_cq_mode_names[cqn_cq_mode(conn->cq)]);
	cqn_cq_moderation_show(conn->cq, moder, sizeof(moder));
	seq_printf(m, "moderation_effective %s\n", moder);
	sum->poll_window_us = cqn_cq_window_us(conn->cq);
	sum->poll_window_trial_pct = cqn_cq_window_trial_pct(conn->cq);
	sum->poll_spin_us = cqn_cq_spin_us(conn->cq);
	sum->poll_host_missed_pct = cqn_cq_host_missed_pct(conn->cq);
	cqn_stats_print(m, sum);
	kfree(sum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqn_conn_stats);

static int cqn_conn_histograms_show(struct seq_file *m, void *v)
{
	struct cqn_conn *conn = m->private;
	struct cqn_stats_sum *sum;

	sum = kzalloc(sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	cqn_stats_add_to(&conn->stats, sum);
	cqn_stats_print_hist_raw(m, sum);
	kfree(sum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqn_conn_histograms);

/*
 * conns/<id>/fault_qp_error: this connection's QP alone goes to the error
 * state. Removing the file waits for a write in progress, and the QP is
 * destroyed only after that (cqn_conn_destroy()).
 */
static ssize_t cqn_conn_qp_error_write(struct file *file, const char __user *ubuf,
				       size_t count, loff_t *ppos)
{
	struct cqn_conn *conn = file->private_data;
	u32 v;
	int ret;

	ret = cqn_debugfs_get_u32(ubuf, count, 1, 1, &v);
	if (ret)
		return ret;
	mutex_lock(&conn->ep->tune_lock);
	ret = cqn_conn_fault_qp_error(conn);
	mutex_unlock(&conn->ep->tune_lock);
	return ret ? ret : count;
}

static const struct file_operations cqn_conn_qp_error_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = cqn_conn_qp_error_write,
	.llseek = noop_llseek,
};

/**
 * cqn_debugfs_ep_create() - create an endpoint's debugfs directory
 * @ep: the endpoint
 *
 * Context: process context.
 */
void cqn_debugfs_ep_create(struct cqn_endpoint *ep)
{
	struct cqn_ep_debugfs *d;
	u32 i;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return;
	d->dir = debugfs_create_dir(ep->name, cqn_debugfs_root);
	debugfs_create_file("stats", 0400, d->dir, ep, &cqn_ep_stats_fops);
	debugfs_create_file("latency", 0400, d->dir, ep, &cqn_ep_latency_fops);
	debugfs_create_file("cq", 0400, d->dir, ep, &cqn_ep_cq_fops);
	debugfs_create_file("cqs", 0400, d->dir, ep, &cqn_ep_cqs_seq_fops);
	debugfs_create_file("histograms", 0400, d->dir, ep, &cqn_ep_histograms_fops);
	debugfs_create_file("slots", 0400, d->dir, ep, &cqn_ep_slots_fops);
	for (i = 0; i < CQN_EP_NR_KNOBS; i++) {
		d->knobs[i].ep = ep;
		d->knobs[i].idx = i;
		if (cqn_ep_knobs[i].get)
			debugfs_create_file(cqn_ep_knobs[i].name, 0600, d->dir, &d->knobs[i],
					    &cqn_ep_knob_fops);
		else
			debugfs_create_file(cqn_ep_knobs[i].name, 0200, d->dir, &d->knobs[i],
					    &cqn_ep_knob_wo_fops);
	}
	d->conns = debugfs_create_dir("conns", d->dir);
	ep->dbg = d;
}

/**
 * cqn_debugfs_ep_destroy() - remove an endpoint's debugfs directory
 * @ep: the endpoint
 *
 * Waits for readers of its files to finish.
 *
 * Context: process context.
 */
void cqn_debugfs_ep_destroy(struct cqn_endpoint *ep)
{
	if (!ep->dbg)
		return;
	debugfs_remove_recursive(ep->dbg->dir);
	kfree(ep->dbg);
	ep->dbg = NULL;
}

/**
 * cqn_debugfs_conn_create() - create conns/<id>/ for a connection
 * @conn: the connection
 *
 * Context: process context.
 */
void cqn_debugfs_conn_create(struct cqn_conn *conn)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", conn->id);
	if (!conn->ep->dbg)
		return;
	conn->dbg_dir = debugfs_create_dir(name, conn->ep->dbg->conns);
	debugfs_create_file("stats", 0400, conn->dbg_dir, conn, &cqn_conn_stats_fops);
	debugfs_create_file("histograms", 0400, conn->dbg_dir, conn,
			    &cqn_conn_histograms_fops);
	debugfs_create_file("fault_qp_error", 0200, conn->dbg_dir, conn,
			    &cqn_conn_qp_error_fops);
}

/**
 * cqn_debugfs_conn_destroy() - remove a connection's directory
 * @conn: the connection
 *
 * Context: process context.
 */
void cqn_debugfs_conn_destroy(struct cqn_conn *conn)
{
	debugfs_remove_recursive(conn->dbg_dir);
	conn->dbg_dir = NULL;
}

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
