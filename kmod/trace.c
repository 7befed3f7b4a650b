// SPDX-License-Identifier: GPL-2.0
/* The one place that instantiates the aiodev tracepoints. */
#define CREATE_TRACE_POINTS
#include "aiodev_trace.h"
