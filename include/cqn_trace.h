/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the CQ engine, under events/cqnotify/ in tracefs:
 *
 *   cq_event		a completion event (comp_handler) arrived
 *   cq_poll		one wakeup's processing: completions handed over
 *   cq_arm		the CQ was armed; missed > 0 means completions were
 *			already there and are polled at once
 *   cq_moderation	moderation changed (off, hw or sw, count, period)
 *   cq_mode_switch	a live cq_mode change
 *
 * Every event carries the CQ's name, "<endpoint>.<connection>".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cqnotify

#if !defined(_CQN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CQN_TRACE_H

#include <linux/tracepoint.h>

#include "cqn_compat.h"

TRACE_EVENT(cq_event,
	    TP_PROTO(const char *name),
	    TP_ARGS(name),
	    TP_STRUCT__entry(__string(name, name)),
	    TP_fast_assign(cqn_assign_str(name, name);),
	    TP_printk("cq=%s", __get_str(name))
);

TRACE_EVENT(cq_poll,
	    TP_PROTO(const char *name, u32 completions, u32 budget, bool from_event),
	    TP_ARGS(name, completions, budget, from_event),
	    TP_STRUCT__entry(__string(name, name)
			     __field(u32, completions)
			     __field(u32, budget)
			     __field(bool, from_event)),
	    TP_fast_assign(cqn_assign_str(name, name);
			   __entry->completions = completions;
			   __entry->budget = budget;
			   __entry->from_event = from_event;),
	    TP_printk("cq=%s completions=%u budget=%u from_event=%d", __get_str(name),
		      __entry->completions, __entry->budget, __entry->from_event)
);

TRACE_EVENT(cq_arm,
	    TP_PROTO(const char *name, bool solicited, int missed),
	    TP_ARGS(name, solicited, missed),
	    TP_STRUCT__entry(__string(name, name)
			     __field(bool, solicited)
			     __field(int, missed)),
	    TP_fast_assign(cqn_assign_str(name, name);
			   __entry->solicited = solicited;
			   __entry->missed = missed;),
	    TP_printk("cq=%s flags=%s missed=%d", __get_str(name),
		      __entry->solicited ? "solicited" : "next_comp", __entry->missed)
);

TRACE_EVENT(cq_moderation,
	    TP_PROTO(const char *name, const char *kind, u32 count, u32 period_us),
	    TP_ARGS(name, kind, count, period_us),
	    TP_STRUCT__entry(__string(name, name)
			     __string(kind, kind)
			     __field(u32, count)
			     __field(u32, period_us)),
	    TP_fast_assign(cqn_assign_str(name, name);
			   cqn_assign_str(kind, kind);
			   __entry->count = count;
			   __entry->period_us = period_us;),
	    TP_printk("cq=%s moderation=%s count=%u period_us=%u", __get_str(name),
		      __get_str(kind), __entry->count, __entry->period_us)
);

TRACE_EVENT(cq_mode_switch,
	    TP_PROTO(const char *name, const char *from, const char *to),
	    TP_ARGS(name, from, to),
	    TP_STRUCT__entry(__string(name, name)
			     __string(from, from)
			     __string(to, to)),
	    TP_fast_assign(cqn_assign_str(name, name);
			   cqn_assign_str(from, from);
			   cqn_assign_str(to, to);),
	    TP_printk("cq=%s from=%s to=%s", __get_str(name), __get_str(from), __get_str(to))
);

#endif /* _CQN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cqn_trace
#include <trace/define_trace.h>
