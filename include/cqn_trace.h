/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints, under events/cqnotify/ in tracefs. Every name starts with
 * cqn_: a raw tracepoint (bpftrace rawtracepoint:, BPF tp_btf/raw_tp) is
 * found by its name alone, so ours must not repeat the RDMA core's
 * (rdma_core:cq_poll and its kin).
 *
 * The CQ engine's, each naming its CQ as "<endpoint>.<connection>" (cq=)
 * and by the RDMA core's resource id (cq_id=, the "cqn" of rdma res show
 * cq and the cq_id of the rdma_core tracepoints):
 *
 *   cqn_cq_event	a completion event (comp_handler) arrived
 *   cqn_cq_poll	one wakeup's processing: completions handed over
 *   cqn_cq_arm		the CQ was armed; missed > 0 means completions were
 *			already there and are polled at once
 *   cqn_cq_moderation	moderation changed (off, hw or sw, count, period)
 *   cqn_cq_mode_switch	a live cq_mode change
 *   cqn_cq_fallback	timer polling entered or left (the silent-CQ
 *			watchdog, or the event-storm guard)
 *
 * A connection's, naming it as "<endpoint>.<connection>" (conn=), by its
 * QP number (qpn=, the "lqpn" of rdma res show qp) and by its CQ's cq_id:
 *
 *   cqn_rtt		client: an echo verified, its round trip
 *   cqn_wc_error	a work completion with an error status (flushes too)
 *   cqn_conn_state	connecting -> established -> closing -> closed
 *
 * And an endpoint's:
 *
 *   cqn_ep_state	idle, connecting, running, done, error: from -> to
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cqnotify

#if !defined(_CQN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CQN_TRACE_H

#include <linux/tracepoint.h>

#include "cqnotify.h"

TRACE_EVENT(cqn_cq_event,
	    TP_PROTO(const struct cqn_cq *c),
	    TP_ARGS(c),
	    TP_STRUCT__entry(__string(name, c->name)
			     __field(u32, cq_id)),
	    TP_fast_assign(cqn_assign_str(name, c->name);
			   __entry->cq_id = c->cq->res.id;),
	    TP_printk("cq=%s cq_id=%u", __get_str(name), __entry->cq_id)
);

TRACE_EVENT(cqn_cq_poll,
	    TP_PROTO(const struct cqn_cq *c, u32 completions, u32 budget, bool from_event),
	    TP_ARGS(c, completions, budget, from_event),
	    TP_STRUCT__entry(__string(name, c->name)
			     __field(u32, cq_id)
			     __field(u32, completions)
			     __field(u32, budget)
			     __field(bool, from_event)),
	    TP_fast_assign(cqn_assign_str(name, c->name);
			   __entry->cq_id = c->cq->res.id;
			   __entry->completions = completions;
			   __entry->budget = budget;
			   __entry->from_event = from_event;),
	    TP_printk("cq=%s cq_id=%u completions=%u budget=%u from_event=%d", __get_str(name),
		      __entry->cq_id, __entry->completions, __entry->budget, __entry->from_event)
);

TRACE_EVENT(cqn_cq_arm,
	    TP_PROTO(const struct cqn_cq *c, bool solicited, int missed),
	    TP_ARGS(c, solicited, missed),
	    TP_STRUCT__entry(__string(name, c->name)
			     __field(u32, cq_id)
			     __field(bool, solicited)
			     __field(int, missed)),
	    TP_fast_assign(cqn_assign_str(name, c->name);
			   __entry->cq_id = c->cq->res.id;
			   __entry->solicited = solicited;
			   __entry->missed = missed;),
	    TP_printk("cq=%s cq_id=%u flags=%s missed=%d", __get_str(name), __entry->cq_id,
		      __entry->solicited ? "solicited" : "next_comp", __entry->missed)
);

TRACE_EVENT(cqn_cq_moderation,
	    TP_PROTO(const struct cqn_cq *c, const char *kind, u32 count, u32 period_us),
	    TP_ARGS(c, kind, count, period_us),
	    TP_STRUCT__entry(__string(name, c->name)
			     __field(u32, cq_id)
			     __string(kind, kind)
			     __field(u32, count)
			     __field(u32, period_us)),
	    TP_fast_assign(cqn_assign_str(name, c->name);
			   __entry->cq_id = c->cq->res.id;
			   cqn_assign_str(kind, kind);
			   __entry->count = count;
			   __entry->period_us = period_us;),
	    TP_printk("cq=%s cq_id=%u moderation=%s count=%u period_us=%u", __get_str(name),
		      __entry->cq_id, __get_str(kind), __entry->count, __entry->period_us)
);

TRACE_EVENT(cqn_cq_mode_switch,
	    TP_PROTO(const struct cqn_cq *c, const char *from, const char *to),
	    TP_ARGS(c, from, to),
	    TP_STRUCT__entry(__string(name, c->name)
			     __field(u32, cq_id)
			     __string(from, from)
			     __string(to, to)),
	    TP_fast_assign(cqn_assign_str(name, c->name);
			   __entry->cq_id = c->cq->res.id;
			   cqn_assign_str(from, from);
			   cqn_assign_str(to, to);),
	    TP_printk("cq=%s cq_id=%u from=%s to=%s", __get_str(name), __entry->cq_id,
		      __get_str(from), __get_str(to))
);

TRACE_EVENT(cqn_cq_fallback,
	    TP_PROTO(const struct cqn_cq *c, const char *cause, bool entered, u64 lasted_us),
	    TP_ARGS(c, cause, entered, lasted_us),
	    TP_STRUCT__entry(__string(name, c->name)
			     __field(u32, cq_id)
			     __string(cause, cause)
			     __field(bool, entered)
			     __field(u64, lasted_us)),
	    TP_fast_assign(cqn_assign_str(name, c->name);
			   __entry->cq_id = c->cq->res.id;
			   cqn_assign_str(cause, cause);
			   __entry->entered = entered;
			   __entry->lasted_us = lasted_us;),
	    TP_printk("cq=%s cq_id=%u cause=%s %s lasted_us=%llu", __get_str(name),
		      __entry->cq_id, __get_str(cause), __entry->entered ? "entered" : "left",
		      __entry->lasted_us)
);

TRACE_EVENT(cqn_rtt,
	    TP_PROTO(const struct cqn_conn *conn, u64 seq, u64 rtt_ns),
	    TP_ARGS(conn, seq, rtt_ns),
	    TP_STRUCT__entry(__string(name, conn->cq->name)
			     __field(u32, qpn)
			     __field(u32, cq_id)
			     __field(u64, seq)
			     __field(u64, rtt_ns)),
	    TP_fast_assign(cqn_assign_str(name, conn->cq->name);
			   __entry->qpn = conn->qpn;
			   __entry->cq_id = conn->cq->cq->res.id;
			   __entry->seq = seq;
			   __entry->rtt_ns = rtt_ns;),
	    TP_printk("conn=%s qpn=%u cq_id=%u seq=%llu rtt_ns=%llu", __get_str(name),
		      __entry->qpn, __entry->cq_id, __entry->seq, __entry->rtt_ns)
);

TRACE_EVENT(cqn_wc_error,
	    TP_PROTO(const struct cqn_conn *conn, const struct ib_wc *wc, const char *what),
	    TP_ARGS(conn, wc, what),
	    TP_STRUCT__entry(__string(name, conn->cq->name)
			     __field(u32, qpn)
			     __field(u32, cq_id)
			     __string(what, what)
			     __field(int, status)
			     __string(status_name, ib_wc_status_msg(wc->status))
			     __field(u32, vendor_err)),
	    TP_fast_assign(cqn_assign_str(name, conn->cq->name);
			   __entry->qpn = conn->qpn;
			   __entry->cq_id = conn->cq->cq->res.id;
			   cqn_assign_str(what, what);
			   __entry->status = wc->status;
			   cqn_assign_str(status_name, ib_wc_status_msg(wc->status));
			   __entry->vendor_err = wc->vendor_err;),
	    TP_printk("conn=%s qpn=%u cq_id=%u wr=%s status=%d (%s) vendor_err=0x%x",
		      __get_str(name), __entry->qpn, __entry->cq_id, __get_str(what),
		      __entry->status, __get_str(status_name), __entry->vendor_err)
);

TRACE_EVENT(cqn_conn_state,
	    TP_PROTO(const struct cqn_conn *conn, const char *from, const char *to,
		     const char *reason),
	    TP_ARGS(conn, from, to, reason),
	    TP_STRUCT__entry(__string(name, conn->cq->name)
			     __field(u32, qpn)
			     __field(u32, cq_id)
			     __string(from, from)
			     __string(to, to)
			     __string(reason, reason)),
	    TP_fast_assign(cqn_assign_str(name, conn->cq->name);
			   __entry->qpn = conn->qpn;
			   __entry->cq_id = conn->cq->cq->res.id;
			   cqn_assign_str(from, from);
			   cqn_assign_str(to, to);
			   cqn_assign_str(reason, reason);),
	    TP_printk("conn=%s qpn=%u cq_id=%u from=%s to=%s reason=%s", __get_str(name),
		      __entry->qpn, __entry->cq_id, __get_str(from), __get_str(to),
		      __get_str(reason))
);

TRACE_EVENT(cqn_ep_state,
	    TP_PROTO(const char *ep, const char *from, const char *to, const char *reason),
	    TP_ARGS(ep, from, to, reason),
	    TP_STRUCT__entry(__string(ep, ep)
			     __string(from, from)
			     __string(to, to)
			     __string(reason, reason)),
	    TP_fast_assign(cqn_assign_str(ep, ep);
			   cqn_assign_str(from, from);
			   cqn_assign_str(to, to);
			   cqn_assign_str(reason, reason);),
	    TP_printk("ep=%s from=%s to=%s reason=%s", __get_str(ep), __get_str(from),
		      __get_str(to), __get_str(reason))
);

#endif /* _CQN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cqn_trace
#include <trace/define_trace.h>
