// SPDX-License-Identifier: GPL-2.0
/*
 * The one place the CQ engine's tracepoints (include/cqn_trace.h) are
 * instantiated.
 */
#define CREATE_TRACE_POINTS
#include "cqn_trace.h"
