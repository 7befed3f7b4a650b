/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist_view.h - how hist prints one interval's histograms, live (hist.c) or from a
 * recording (report.c): a text summary line and a log2 histogram per group, or one
 * JSON object per group.
 */
#ifndef AIOSCOPE_HIST_VIEW_H
#define AIOSCOPE_HIST_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <linux/types.h>

#include "aioscope.h"
#include "core/hist.h"
#include "core/json.h"

struct hist_view {
	bool json;
	enum aios_group by;		/* the grouping of the latency kinds */
	const char *mode;		/* the attach mode, as the tracer names it */
	const char *const *missing;	/* hooks the tracer could not attach (JSON) */
	size_t nmissing;
	struct aio_json j;		/* the JSON writer on stdout */
	unsigned int sample;		/* hist --sample N: 1 request in N counted */
	double coverage;		/* and the share counted so far, measured */
};

/* One group's histogram of one kind, over one interval. */
struct hist_view_group {
	enum aios_hist_kind kind;
	uint64_t group;
	const struct aio_hist *h;
};

/* Opens the view on stdout. */
void hist_view_init(struct hist_view *v, bool json, enum aios_group by, const char *mode);

/*
 * Prints interval @idx, ending at wall-clock time @rt: the groups with a count, in
 * the order given (kind, then group); "(no requests)" in text when none has one.
 */
void hist_view_interval(struct hist_view *v, uint64_t idx, const struct timespec *rt,
			const struct hist_view_group *g, size_t n);

/* A latency group's name as hist prints it ("read", "254:0", "1-1" ...) */
const char *hist_view_group_label(enum aios_group by, uint64_t g, char *buf, size_t len);

/* Orders groups as hist prints them: by kind, then by group. For qsort(). */
int hist_view_group_cmp(const void *a, const void *b);

#endif
