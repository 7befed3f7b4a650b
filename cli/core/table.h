/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table.h - per-group rows for the dashboard (aioscope core).
 *
 * htop's shape: an id map of rows plus an ordered vector of the visible rows
 * (filtered, sorted). iotop's diffing: each row keeps monotonic cumulative
 * counters; at the end of every interval the row's delta is current minus
 * previous (wrap-safe), and the previous becomes the current.
 *
 * Fed by events: aio_table_complete() per finished request. The table keeps
 * the cumulative counters and the interval latency histogram itself, and
 * marks the row as seen in the current interval. At aio_table_end_interval()
 * rows not seen for more than opts.linger intervals and with nothing in
 * flight are swept (mark and sweep).
 *
 * Cycle per interval:
 *   aio_table_complete()... ; aio_table_end_interval(t, ...);
 *   read rows via aio_table_row(); (after all tables: aio_inflight_interval_reset)
 *
 * Not thread-safe. Row pointers are valid until the next call that changes t.
 */
#ifndef AIOSCOPE_CORE_TABLE_H
#define AIOSCOPE_CORE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "hist.h"
#include "inflight.h"
#include "stages.h"

/* Monotonic counters of one group. */
struct aio_counters {
	__u64 reads;		/* finished read requests (incl. errors) */
	__u64 writes;		/* finished write requests (incl. errors) */
	__u64 read_bytes;	/* bytes transferred by reads (res > 0) */
	__u64 write_bytes;	/* bytes transferred by writes (res > 0) */
	__u64 errors;		/* finished with res < 0, not cancelled */
	__u64 cancelled;	/* finished by cancellation */
};

/* Who a row is about: copied from the latest request of the group. */
struct aio_ident {
	__u32 pid;		/* tgid (latest submitter for non-pid groups) */
	__u32 dev;		/* dev_t, new encoding; 0 unknown */
	__u64 ctx;		/* aio context user id */
	__u64 ino;		/* inode */
	char comm[AIO_COMM_LEN];	/* NUL-terminated */
};

struct aio_row {
	__u64 id;		/* group key (see enum aio_group) */
	struct aio_ident ident;
	/* values of the last finished interval */
	struct aio_counters delta;	/* counts in the interval */
	double reads_s;		/* reads per second */
	double writes_s;	/* writes per second */
	double bytes_s;		/* (read + write) bytes per second */
	__u32 inflight;		/* requests in flight at the interval end */
	__u32 max_inflight;	/* maximum in flight during the interval */
	__u32 stuck;		/* in flight for >= opts.stuck_ns */
	__u64 lat_count;	/* latency samples in the interval; 0: the */
	__u64 avg_ns;		/*   three latency fields below are 0 and */
	__u64 p99_ns;		/*   mean "no data" (print "-" / null) */
	__u64 max_ns;
	/*
	 * Where the interval's requests spent their time (aio_table_stages): each
	 * stage's time summed over them; the stage with the most (-1: none fed) and
	 * its share of all their stages' time.
	 */
	__u64 stage_ns[AIO_STAGE_NR];
	int top_stage;
	double top_stage_share;
	/* bookkeeping (read-only for callers) */
	struct aio_counters total;	/* cumulative as fed */
	struct aio_counters prev;	/* cumulative at the previous end */
	struct aio_hist *lat;		/* interval latency (owned, lazy) */
	__u64 stage_acc[AIO_STAGE_NR];	/* the current interval's stage_ns */
	__u32 unseen;		/* consecutive intervals not fed */
	bool seen;		/* fed in the current interval */
	bool fresh;		/* created in the current interval */
};

/* Sort columns (the dashboard's PID COMM DEV R/s W/s MB/s ... STUCK). */
enum aio_col {
	AIO_COL_ID = 0,		/* group key */
	AIO_COL_PID,
	AIO_COL_COMM,
	AIO_COL_DEV,
	AIO_COL_RPS,		/* reads/s */
	AIO_COL_WPS,		/* writes/s */
	AIO_COL_BPS,		/* bytes/s (MB/s column) */
	AIO_COL_INFLIGHT,
	AIO_COL_QDMAX,		/* max_inflight */
	AIO_COL_AVG,
	AIO_COL_P99,
	AIO_COL_MAX,
	AIO_COL_ERR,
	AIO_COL_CNCL,
	AIO_COL_STUCK,
	AIO_COL_STAGE,		/* top_stage_share */
	AIO_COL_NR,
};

/* aio_col_name - header label of column c ("PID", "R/s", ...), or NULL. */
const char *aio_col_name(enum aio_col c);

/* aio_col_parse - column from its label or lower-case name; -EINVAL. */
int aio_col_parse(const char *name);

struct aio_table_opts {
	__u32 linger;		/* intervals an unfed idle row survives (2) */
	__u64 stuck_ns;		/* age for the stuck count (1 s) */
};

struct aio_table;	/* opaque */

/*
 * aio_table_new - empty table grouping by kind (AIO_GROUP_*), options from
 * *opts or defaults (NULL). Sorted by AIO_COL_ID descending, no filter.
 * Returns a table freed with aio_table_free(), or NULL (errno EINVAL/ENOMEM).
 */
struct aio_table *aio_table_new(enum aio_group kind,
				const struct aio_table_opts *opts);

/* aio_table_free - free t and all rows (NULL allowed). */
void aio_table_free(struct aio_table *t);

/*
 * aio_table_complete - account one finished request r (the entry removed from
 * the in-flight table: gives group, identity, op). bytes: transferred
 * (counted when res >= 0); res: the result (< 0 error); lat_ns: latency;
 * cancelled: finished by cancel (counted in cancelled only: not in reads,
 * writes, errors or latency). op 0 counts as a read, op 1 as a write, other
 * ops (fsync) only in errors and latency.
 * Returns 0, -EINVAL, -ENOMEM.
 */
int aio_table_complete(struct aio_table *t, const struct aio_req *r,
		       __u64 bytes, __s64 res, __u64 lat_ns, bool cancelled);
/* lat_ns of aio_table_complete for a request counted without a latency */
#define AIO_LAT_NONE	((__u64)-1)

/*
 * aio_table_stages - add the stages of finished request r (after
 * aio_table_complete for it) to its row's stage times. Returns 0, -EINVAL, -ENOMEM.
 */
int aio_table_stages(struct aio_table *t, const struct aio_req *r,
		     const struct aio_stages *st);

/*
 * aio_table_end_interval - close the interval of length interval_ns ending at
 * now_ns: compute every row's delta, rates and latency stats; take inflight,
 * max_inflight and stuck from inf (may be NULL; rows of groups with requests
 * in flight are created from those requests); sweep; rebuild the visible
 * vector (filter + sort).
 * Returns 0, -EINVAL (NULL t or interval_ns 0), -ENOMEM.
 */
int aio_table_end_interval(struct aio_table *t, __u64 now_ns,
			   __u64 interval_ns, const struct aio_inflight *inf);

/*
 * aio_table_totals - sum of the last interval over all rows (filter ignored)
 * into *out (ident zeroed, id 0, latency stats from the merged histograms).
 * out->max_inflight is the sum of the rows' maxima, an upper bound of the
 * true maximum: for that use aio_inflight_total_depth().
 * If lat is not NULL it receives the merged interval latency histogram.
 * Returns 0 or -EINVAL.
 */
int aio_table_totals(const struct aio_table *t, struct aio_row *out,
		     struct aio_hist *lat);

/* aio_table_size - number of rows (filter ignored). */
size_t aio_table_size(const struct aio_table *t);

/*
 * aio_table_sort - order the visible rows by column c, descending if desc;
 * ties by id ascending. Re-applied at every interval end.
 * Returns 0 or -EINVAL.
 */
int aio_table_sort(struct aio_table *t, enum aio_col c, bool desc);

/*
 * aio_table_set_filter - show only rows whose comm contains text (case
 * insensitive) or, if text is a decimal number, whose pid equals it.
 * NULL or "" shows all. The text is copied. Returns 0, -EINVAL (> 63 chars).
 */
int aio_table_set_filter(struct aio_table *t, const char *text);

/* aio_table_visible - number of visible rows. */
size_t aio_table_visible(const struct aio_table *t);

/* aio_table_row - i-th visible row in sort order, or NULL if i is too big. */
const struct aio_row *aio_table_row(const struct aio_table *t, size_t i);

#endif /* AIOSCOPE_CORE_TABLE_H */
