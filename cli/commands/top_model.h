/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dashboard's model: what top's collector (top.c) hands its views (top_ui.c's
 * curses view, top.c's batch and JSON views) once per interval.
 *
 * Layers, htop style:
 *   collect  tracer events and in-flight scans -> core group tables (top.c)
 *   map      group tables -> struct top_frame (rows sorted and filtered) (top.c)
 *   draw     struct top_frame -> screen or text or JSON (top_ui.c, top.c)
 * The views know nothing about the tracer; the collector knows nothing about curses.
 */
#ifndef AIOSCOPE_TOP_MODEL_H
#define AIOSCOPE_TOP_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "collect/stuck_src.h"
#include "core/inflight.h"

/* top groups its rows by the core's enum aio_group (process, device, context, file). */

/* Columns, in display order; also the sort keys (core's enum aio_col is COL + 1). */
enum top_col {
	COL_PID, COL_COMM, COL_DEV, COL_RS, COL_WS, COL_MBS, COL_INFLIGHT,
	COL_QDMAX, COL_AVG, COL_P99, COL_MAX, COL_ERR, COL_CNCL, COL_STUCK,
	COL_STAGE,	/* top --stages only */
	TOP_NR_COLS,
};

struct top_row {
	uint64_t key;		/* group identity: pid, dev, ctx or file */
	int32_t pid;		/* -1 when the row is not a process */
	char comm[17];
	char dev[64];		/* device (or file/context) label */
	uint64_t reads, writes;	/* completed in the interval */
	uint64_t read_bytes, write_bytes;
	uint64_t inflight, max_inflight;
	uint64_t avg_ns, p99_ns, max_ns;
	uint64_t errors, cancelled;
	uint64_t stuck;
	double r_s, w_s, mb_s;
	int stage;		/* enum aio_stage with the most time (-1: none seen) */
	double stage_share;	/* its share of the interval's stage time */
};

struct top_totals {
	uint64_t reads, writes, read_bytes, write_bytes;
	uint64_t inflight, max_inflight;
	uint64_t avg_ns, p50_ns, p99_ns, max_ns;
	uint64_t errors, cancelled, lost, stuck;
	uint64_t reconciled;	/* pending requests settled at their reap this interval */
	double r_s, w_s, mb_s;
	int stage;		/* as in struct top_row, over every row */
	double stage_share;
	double interval_s;
};

#define TOP_SPARK_LEN 60

struct top_frame {
	uint64_t ts_ns;		/* CLOCK_REALTIME of the snapshot */
	double elapsed_s;	/* tracing duration */
	const char *mode;	/* attach mode */
	bool stages;		/* top --stages: the STAGE column */
	enum aio_group group;
	struct top_totals tot;
	struct top_row *rows;
	size_t nrows;		/* after filtering */
	size_t nrows_all;	/* before filtering */
	size_t nrows_cap;	/* rows allocated */
	struct stuck_list stuck;
	uint64_t spark[TOP_SPARK_LEN]; /* total queue depth per sample, oldest first */
	size_t nspark;
};


/* Reactions returned by key handlers; the loop decides what to redo. */
enum top_reaction {
	TOP_R_NONE = 0,
	TOP_R_REDRAW = 1 << 0,		/* draw the same frame again */
	TOP_R_REMAP = 1 << 1,		/* re-sort / re-filter / regroup rows */
	TOP_R_RETIME = 1 << 2,		/* interval changed */
	TOP_R_QUIT = 1 << 3,
};

struct top_view_state {
	enum top_col sort_col;
	bool ascending;
	bool paused;
	bool show_help;
	bool filter_editing;
	char filter[64];
	uint64_t selected_key;	/* selection kept by identity */
	bool have_selection;
	size_t scroll;
	double interval_s;
	enum aio_group group;
	bool show_stuck;
	bool stages;		/* the STAGE column is shown (top --stages) */
	int lat_stage;		/* the latency columns: -1 the whole latency, else
				 * one enum aio_stage's time (--stages, key l) */
};

#endif
