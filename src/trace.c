// SPDX-License-Identifier: GPL-2.0
/*
 * The one place the CQ engine's tracepoints (include/cqn_trace.h) are
 * instantiated.
 */
/* The events read the engine's fields: its private header comes first. */
#include "cq.h"

#define CREATE_TRACE_POINTS
#include "cqn_trace.h"
