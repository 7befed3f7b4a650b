/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by `aioscope top` (top.c: collect + map, top_ui.c: curses view)
 * and `aioscope stuck` (stuck.c: pending-request sources).
 *
 * Layers, htop style:
 *   collect  tracer events and in-flight scans -> core group tables (top.c)
 *   map      group tables -> struct top_frame (rows sorted and filtered) (top.c)
 *   draw     struct top_frame -> screen or text or JSON (top_ui.c, top.c)
 * The views know nothing about the tracer; the collector knows nothing about curses.
 */
#ifndef AIOSCOPE_TOP_H
#define AIOSCOPE_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* ---- pending ("stuck") requests, from the aiodev debugfs listing or the tracer ---- */

enum stuck_source {
	STUCK_SRC_DEBUGFS,	/* /sys/kernel/debug/aiodev/aiodevN/pending */
	STUCK_SRC_TRACER,	/* the tracer's in-flight table (submitted after start) */
};

#define STUCK_PATH_LEN	128
#define STUCK_STACK_MAX	32

struct stuck_req {
	uint64_t id;		/* request id: kiocb address (or tracer id) */
	uint64_t age_ns;	/* now - submit time */
	uint64_t offset;	/* bytes */
	uint64_t bytes;		/* bytes requested */
	uint64_t ctx;		/* aio context user id, 0 if none */
	uint64_t obj;		/* user iocb pointer, 0 if none */
	int32_t pid;		/* submitter tgid */
	int32_t tid;		/* submitter thread id */
	int stalled;		/* 1 stalled by stall_every, 0 not, -1 unknown */
	enum stuck_source src;
	char comm[17];
	char api[8];		/* aio, uring, sync, other */
	char op[8];		/* read, write, fsync, ... */
	char path[STUCK_PATH_LEN]; /* device or file path */
	int nr_ustack, nr_kstack;  /* -1: not captured */
	uint64_t ustack[STUCK_STACK_MAX];
	uint64_t kstack[STUCK_STACK_MAX];
};

struct stuck_list {
	struct stuck_req *v;
	size_t n, cap;
	unsigned int devices;	/* aiodev devices whose listing was read */
	int debugfs_err;	/* 0, or errno when no listing could be read */
};

void stuck_list_reset(struct stuck_list *l);
void stuck_list_free(struct stuck_list *l);
struct stuck_req *stuck_list_add(struct stuck_list *l);
/* Oldest first, ties by id: the order of every stuck listing. */
void stuck_list_sort(struct stuck_list *l);
/* Drop entries younger than @older_than_ns. */
void stuck_list_filter_age(struct stuck_list *l, uint64_t older_than_ns);
/* True when the list already holds request @id (sources overlap for aiodev). */
bool stuck_list_has(const struct stuck_list *l, uint64_t id);

/*
 * Parse one line of an aiodev pending listing into @r (path set by the caller).
 * Returns 0, or -1 when the line is malformed.
 */
int aiodev_pending_parse_line(const char *line, struct stuck_req *r);
/*
 * Read every /sys/kernel/debug/aiodev/aiodevN/pending under @root (NULL: the
 * default debugfs path) and append all entries to @l.
 * Returns the number of devices read, or -errno when none could be read.
 */
int aiodev_pending_read(const char *root, struct stuck_list *l);

void stuck_print_plain(FILE *f, const struct stuck_list *l, bool stacks);
struct aio_json;
/* One request as a JSON object (fields documented in docs/usage.md). */
void stuck_json_req(struct aio_json *j, const struct stuck_req *r, bool stacks);

struct tracer;
/*
 * Append the tracer's pending requests older than @older_than_ns that the list
 * does not hold yet (aiodev requests come from debugfs). Returns 0 or -errno.
 */
int stuck_from_tracer(struct tracer *t, struct stuck_list *l, uint64_t older_than_ns);
/*
 * The one rule that says a debugfs entry and a tracer in-flight entry are the same
 * aiodev request: the tracer's id is the kiocb address, or in syscalls mode
 * (@by_user_iocb) the user iocb pointer, which the listing gives as obj; and the
 * same submitter.
 */
static inline bool stuck_same_request(const struct stuck_req *d, uint64_t tracer_id,
				      int32_t tracer_pid, bool by_user_iocb)
{
	return (by_user_iocb ? d->obj : d->id) == tracer_id && d->pid == tracer_pid;
}

/* Names: "aiodev0" (or "M:m") for a kernel dev_t; a file's path via /proc/PID/fd. */
const char *top_dev_name(uint32_t kdev, char *buf, size_t len);
const char *top_file_name(int32_t pid, uint32_t kdev, uint64_t ino, char *buf, size_t len);

/* ---- the dashboard's model ---- */

enum top_group {
	TOP_BY_PROCESS,
	TOP_BY_DEVICE,
	TOP_BY_CONTEXT,
	TOP_BY_FILE,
	TOP_NR_GROUPS,
};

/* Columns, in display order; also the sort keys (core's enum aio_col is COL + 1). */
enum top_col {
	COL_PID, COL_COMM, COL_DEV, COL_RS, COL_WS, COL_MBS, COL_INFLIGHT,
	COL_QDMAX, COL_AVG, COL_P99, COL_MAX, COL_ERR, COL_CNCL, COL_STUCK,
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
};

struct top_totals {
	uint64_t reads, writes, read_bytes, write_bytes;
	uint64_t inflight, max_inflight;
	uint64_t avg_ns, p50_ns, p99_ns, max_ns;
	uint64_t errors, cancelled, lost, stuck;
	uint64_t reconciled;	/* pending requests settled at their reap this interval */
	double r_s, w_s, mb_s;
	double interval_s;
};

#define TOP_SPARK_LEN 60

struct top_frame {
	uint64_t ts_ns;		/* CLOCK_REALTIME of the snapshot */
	double elapsed_s;	/* tracing duration */
	const char *mode;	/* attach mode */
	enum top_group group;
	struct top_totals tot;
	struct top_row *rows;
	size_t nrows;		/* after filtering */
	size_t nrows_all;	/* before filtering */
	size_t nrows_cap;	/* rows allocated */
	struct stuck_list stuck;
	uint64_t spark[TOP_SPARK_LEN]; /* total queue depth per sample, oldest first */
	size_t nspark;
};

const char *top_group_name(enum top_group g);
const char *top_col_name(enum top_col c);


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
	enum top_group group;
	bool show_stuck;
};

/* ---- views: curses (top_ui.c) and batch (top.c), iotop-c style ---- */

#include <signal.h>

extern volatile sig_atomic_t top_exiting;

struct top_view {
	const char *name;
	int (*init)(struct top_view_state *st);
	void (*draw)(struct top_view_state *st, const struct top_frame *fr);
	/* Wait for input until @deadline_ns (CLOCK_MONOTONIC); returns reactions. */
	int (*wait)(struct top_view_state *st, const struct top_frame *fr, uint64_t deadline_ns);
	void (*fini)(void);
};

extern const struct top_view top_curses_view;
/*
 * Put the terminal back as it was before the curses view started, from a
 * signal handler (async-signal-safe; nothing when the view is not up).
 */
void top_ui_restore_now(void);

int top_handle_key(struct top_view_state *st, const struct top_frame *fr, int ch);
double top_interval_step(double cur, int dir);
int top_col_for_key(int ch);
int top_col_key(enum top_col c);

void top_fmt_ns(char *buf, size_t sz, uint64_t ns);
void top_fmt_rate(char *buf, size_t sz, double v);
void top_fmt_count(char *buf, size_t sz, uint64_t v);
void top_fmt_age(char *buf, size_t sz, uint64_t ns);
void top_fmt_duration(char *buf, size_t sz, double s);
void top_fmt_cell(char *buf, size_t sz, const struct top_row *r, enum top_col c);
/* Column widths (0: hidden); NULL everywhere means the full 127-column table. */
struct top_layout {
	int width[TOP_NR_COLS];
};
void top_layout_fit(struct top_layout *l, int avail);
int top_layout_width(const struct top_layout *l);
void top_fmt_header(char *buf, size_t sz, const struct top_layout *l);
void top_fmt_row(char *buf, size_t sz, const struct top_row *r, const struct top_layout *l);
void top_fmt_spark(char *buf, size_t sz, const uint64_t *v, size_t n, bool utf8);

#endif
