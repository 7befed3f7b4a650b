// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - per-group rows: id map + ordered vector (htop Table), interval
 * deltas of cumulative counters (iotop-c create_diff), mark and sweep per
 * interval.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oatable.h"
#include "table.h"

#define FILTER_MAX	63
#define MAP_MIN_CAP	64

struct aio_table {
	enum aio_group kind;
	struct aio_table_opts o;

	struct oat_table map;	/* struct rslot: id -> row */

	struct aio_row **vis;	/* visible rows in sort order */
	size_t nvis;
	size_t viscap;

	enum aio_col col;
	bool desc;

	char filter[FILTER_MAX + 1];
	bool filter_is_num;
	__u64 filter_num;

	struct aio_hist tot_lat;	/* merged interval latency */
};

static const struct {
	const char *label;
	const char *alias;
} col_names[AIO_COL_NR] = {
	[AIO_COL_ID] = { "ID", "id" },
	[AIO_COL_PID] = { "PID", "pid" },
	[AIO_COL_COMM] = { "COMM", "comm" },
	[AIO_COL_DEV] = { "DEV", "dev" },
	[AIO_COL_RPS] = { "R/s", "rps" },
	[AIO_COL_WPS] = { "W/s", "wps" },
	[AIO_COL_BPS] = { "MB/s", "mbps" },
	[AIO_COL_INFLIGHT] = { "INFLIGHT", "inflight" },
	[AIO_COL_QDMAX] = { "QD-MAX", "qdmax" },
	[AIO_COL_AVG] = { "AVG", "avg" },
	[AIO_COL_P99] = { "P99", "p99" },
	[AIO_COL_MAX] = { "MAX", "max" },
	[AIO_COL_ERR] = { "ERR", "errors" },
	[AIO_COL_CNCL] = { "CNCL", "cancelled" },
	[AIO_COL_STUCK] = { "STUCK", "stuck" },
	[AIO_COL_STAGE] = { "STAGE", "stage" },
};

const char *aio_col_name(enum aio_col c)
{
	if ((unsigned int)c >= AIO_COL_NR)
		return NULL;
	return col_names[c].label;
}

int aio_col_parse(const char *name)
{
	int c;

	if (!name)
		return -EINVAL;
	for (c = 0; c < AIO_COL_NR; c++) {
		if (!strcasecmp(name, col_names[c].label) ||
		    !strcasecmp(name, col_names[c].alias))
			return c;
	}
	return -EINVAL;
}

/* ---- id map ---- */

/* the id map's entry: a row by group key */
struct rslot {
	__u64 key;
	struct aio_row *row;	/* NULL: free slot */
};

static const struct oat_type rslot_type =
	OAT_U64_TYPE(struct rslot, row, MAP_MIN_CAP, 75);

static void row_free(struct aio_row *r)
{
	free(r->lat);
	free(r);
}

/* find or create the row of key; NULL on ENOMEM */
static struct aio_row *row_get(struct aio_table *t, __u64 key)
{
	struct rslot *s;
	struct aio_row *r;
	bool found;

	s = oat_get(&t->map, &rslot_type, &key, &found);
	if (!s)
		return NULL;
	if (found)
		return s->row;
	r = calloc(1, sizeof(*r));
	if (!r) {
		oat_del(&t->map, &rslot_type, s);	/* give the slot back */
		return NULL;
	}
	r->id = key;
	r->fresh = true;
	r->top_stage = -1;
	s->key = key;
	s->row = r;
	return r;
}

/* the next row of the id map: start with *pos = 0; NULL at the end */
static struct aio_row *row_next(const struct aio_table *t, size_t *pos)
{
	struct rslot *s = oat_next(&t->map, &rslot_type, pos);

	return s ? s->row : NULL;
}

static int row_lat(struct aio_row *r)
{
	if (!r->lat) {
		r->lat = calloc(1, sizeof(*r->lat));
		if (!r->lat)
			return -ENOMEM;
	}
	return 0;
}

/* ---- life cycle ---- */

struct aio_table *aio_table_new(enum aio_group kind,
				const struct aio_table_opts *opts)
{
	struct aio_table *t;

	if ((unsigned int)kind >= AIO_GROUP_NR) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->kind = kind;
	if (opts) {
		t->o = *opts;
	} else {
		t->o.linger = 2;
		t->o.stuck_ns = 1000000000ULL;
	}
	if (oat_resize(&t->map, &rslot_type, MAP_MIN_CAP)) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->col = AIO_COL_ID;
	t->desc = true;
	return t;
}

void aio_table_free(struct aio_table *t)
{
	struct aio_row *r;
	size_t pos = 0;

	if (!t)
		return;
	while ((r = row_next(t, &pos)) != NULL)
		row_free(r);
	oat_free(&t->map);
	free(t->vis);
	free(t);
}

/* ---- feeding ---- */

static void ident_from_req(struct aio_ident *id, const struct aio_req *r)
{
	id->pid = r->pid;
	id->dev = r->dev;
	id->ctx = r->ctx;
	id->ino = r->ino;
	memcpy(id->comm, r->comm, AIO_COMM_LEN);
	id->comm[AIO_COMM_LEN - 1] = '\0';
}

int aio_table_complete(struct aio_table *t, const struct aio_req *r,
		       __u64 bytes, __s64 res, __u64 lat_ns, bool cancelled)
{
	struct aio_row *row;

	if (!t || !r)
		return -EINVAL;
	row = row_get(t, aio_group_key(r, t->kind));
	if (!row)
		return -ENOMEM;
	ident_from_req(&row->ident, r);
	row->seen = true;
	if (cancelled) {
		row->total.cancelled++;
		return 0;
	}
	if (r->op == AIOS_OP_READ) {
		row->total.reads++;
		if (res >= 0)
			row->total.read_bytes += bytes;
	} else if (r->op == AIOS_OP_WRITE) {
		row->total.writes++;
		if (res >= 0)
			row->total.write_bytes += bytes;
	}
	if (res < 0)
		row->total.errors++;
	if (lat_ns == AIO_LAT_NONE)
		return 0;
	if (!row->lat && row_lat(row))
		return -ENOMEM;
	aio_hist_add(row->lat, lat_ns);
	return 0;
}

int aio_table_stages(struct aio_table *t, const struct aio_req *r,
		     const struct aio_stages *st)
{
	struct aio_row *row;

	if (!t || !r || !st)
		return -EINVAL;
	row = row_get(t, aio_group_key(r, t->kind));
	if (!row)
		return -ENOMEM;
	for (int s = 0; s < AIO_STAGE_NR; s++)
		if (aio_stage_known(st, s))
			row->stage_acc[s] += st->ns[s];
	return 0;
}

/* The stage of @r's stage_ns with the most time, and its share. */
static void stage_top(struct aio_row *r)
{
	__u64 sum = 0;

	r->top_stage = -1;
	r->top_stage_share = 0;
	for (int s = 0; s < AIO_STAGE_NR; s++) {
		sum += r->stage_ns[s];
		if (r->stage_ns[s] && (r->top_stage < 0 || r->stage_ns[s] > r->stage_ns[r->top_stage]))
			r->top_stage = s;
	}
	if (r->top_stage >= 0)
		r->top_stage_share = (double)r->stage_ns[r->top_stage] / (double)sum;
}

/* The interval's stage times of @r, and the stage with the most. */
static void stage_close(struct aio_row *r)
{
	memcpy(r->stage_ns, r->stage_acc, sizeof(r->stage_ns));
	memset(r->stage_acc, 0, sizeof(r->stage_acc));
	stage_top(r);
}

/* ---- sorting and the visible vector ---- */

#define SPACESHIP(a, b) (((a) > (b)) - ((a) < (b)))

static int col_cmp(const struct aio_row *a, const struct aio_row *b,
		   enum aio_col c)
{
	switch (c) {
	case AIO_COL_PID:
		return SPACESHIP(a->ident.pid, b->ident.pid);
	case AIO_COL_COMM:
		return strcmp(a->ident.comm, b->ident.comm);
	case AIO_COL_DEV:
		return SPACESHIP(a->ident.dev, b->ident.dev);
	case AIO_COL_RPS:
		return SPACESHIP(a->reads_s, b->reads_s);
	case AIO_COL_WPS:
		return SPACESHIP(a->writes_s, b->writes_s);
	case AIO_COL_BPS:
		return SPACESHIP(a->bytes_s, b->bytes_s);
	case AIO_COL_INFLIGHT:
		return SPACESHIP(a->inflight, b->inflight);
	case AIO_COL_QDMAX:
		return SPACESHIP(a->max_inflight, b->max_inflight);
	case AIO_COL_AVG:
		return SPACESHIP(a->avg_ns, b->avg_ns);
	case AIO_COL_P99:
		return SPACESHIP(a->p99_ns, b->p99_ns);
	case AIO_COL_MAX:
		return SPACESHIP(a->max_ns, b->max_ns);
	case AIO_COL_ERR:
		return SPACESHIP(a->delta.errors, b->delta.errors);
	case AIO_COL_CNCL:
		return SPACESHIP(a->delta.cancelled, b->delta.cancelled);
	case AIO_COL_STUCK:
		return SPACESHIP(a->stuck, b->stuck);
	case AIO_COL_STAGE:
		return SPACESHIP(a->top_stage_share, b->top_stage_share);
	case AIO_COL_ID:
	default:
		return SPACESHIP(a->id, b->id);
	}
}

static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct aio_row *a = *(struct aio_row *const *)pa;
	const struct aio_row *b = *(struct aio_row *const *)pb;
	const struct aio_table *t = arg;
	int c = col_cmp(a, b, t->col);

	if (c)
		return t->desc ? -c : c;
	return SPACESHIP(a->id, b->id);	/* ties: id ascending */
}

static bool row_visible(const struct aio_table *t, const struct aio_row *r)
{
	if (!t->filter[0])
		return true;
	if (t->filter_is_num && r->ident.pid == t->filter_num)
		return true;
	return strcasestr(r->ident.comm, t->filter) != NULL;
}

static int rebuild(struct aio_table *t)
{
	struct aio_row *r;
	size_t pos = 0;

	if (t->viscap < t->map.n) {
		size_t cap = t->map.n < 16 ? 16 : t->map.n * 2;
		struct aio_row **v = realloc(t->vis, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->vis = v;
		t->viscap = cap;
	}
	t->nvis = 0;
	while ((r = row_next(t, &pos)) != NULL) {
		if (row_visible(t, r))
			t->vis[t->nvis++] = r;
	}
	if (t->nvis > 1)
		qsort_r(t->vis, t->nvis, sizeof(*t->vis), row_cmp, t);
	return 0;
}

/* ---- interval ---- */

static void counters_delta(struct aio_counters *d,
			   const struct aio_counters *cur,
			   const struct aio_counters *prev)
{
	d->reads = aio_delta(cur->reads, prev->reads);
	d->writes = aio_delta(cur->writes, prev->writes);
	d->read_bytes = aio_delta(cur->read_bytes, prev->read_bytes);
	d->write_bytes = aio_delta(cur->write_bytes, prev->write_bytes);
	d->errors = aio_delta(cur->errors, prev->errors);
	d->cancelled = aio_delta(cur->cancelled, prev->cancelled);
}

static void lat_stats(struct aio_row *r, const struct aio_hist *h)
{
	r->lat_count = 0;
	r->avg_ns = r->p99_ns = r->max_ns = 0;
	if (!h || !h->count)
		return;
	r->lat_count = h->count;
	r->avg_ns = (__u64)((double)h->sum / (double)h->count + 0.5);
	aio_hist_percentile(h, 99.0, &r->p99_ns);
	r->max_ns = h->max;
}

/*
 * The rows' in-flight figures from inf (NULL: none): requests in flight and
 * stuck per row, rows created for groups with requests in flight.
 */
static int count_inflight(struct aio_table *t, __u64 now_ns,
			  const struct aio_inflight *inf)
{
	const struct aio_req *q;
	struct aio_row *r;
	size_t pos = 0;

	while ((r = row_next(t, &pos)) != NULL)
		r->inflight = r->max_inflight = r->stuck = 0;
	pos = 0;
	while (inf && (q = aio_inflight_next(inf, &pos)) != NULL) {
		r = row_get(t, aio_group_key(q, t->kind));
		if (!r)
			return -ENOMEM;
		if (r->fresh && !r->seen)
			ident_from_req(&r->ident, q);
		r->inflight++;
		if (now_ns >= q->ts_ns && now_ns - q->ts_ns >= t->o.stuck_ns)
			r->stuck++;
	}
	return 0;
}

/* close r's interval of secs seconds; its latency goes into t's total */
static void row_close(struct aio_table *t, struct aio_row *r, double secs,
		      const struct aio_inflight *inf)
{
	if (inf) {
		struct aio_depth d;

		aio_inflight_depth(inf, t->kind, r->id, &d);
		r->max_inflight = d.max > r->inflight ? d.max : r->inflight;
	}
	counters_delta(&r->delta, &r->total, &r->prev);
	r->prev = r->total;
	r->reads_s = (double)r->delta.reads / secs;
	r->writes_s = (double)r->delta.writes / secs;
	r->bytes_s = (double)(r->delta.read_bytes +
			      r->delta.write_bytes) / secs;
	lat_stats(r, r->lat);
	stage_close(r);
	if (r->lat && r->lat->count) {
		aio_hist_merge(&t->tot_lat, r->lat);
		aio_hist_reset(r->lat);
	}
}

/* mark and sweep: free the row of slot e if not fed for more than linger
 * intervals and idle (oat_sweep's drop; ctx: the table) */
static bool row_sweep(void *e, void *ctx)
{
	struct aio_row *r = ((struct rslot *)e)->row;
	const struct aio_table *t = ctx;
	bool drop = false;

	if (r->seen || r->inflight)
		r->unseen = 0;
	else if (++r->unseen > t->o.linger)
		drop = true;
	r->seen = false;
	r->fresh = false;
	if (drop)
		row_free(r);
	return drop;
}

int aio_table_end_interval(struct aio_table *t, __u64 now_ns,
			   __u64 interval_ns, const struct aio_inflight *inf)
{
	struct aio_row *r;
	size_t pos = 0;
	int err;

	if (!t || !interval_ns)
		return -EINVAL;
	err = count_inflight(t, now_ns, inf);
	if (err)
		return err;
	aio_hist_reset(&t->tot_lat);
	while ((r = row_next(t, &pos)) != NULL)
		row_close(t, r, (double)interval_ns / 1e9, inf);
	oat_sweep(&t->map, &rslot_type, row_sweep, t);
	return rebuild(t);
}

int aio_table_totals(const struct aio_table *t, struct aio_row *out,
		     struct aio_hist *lat)
{
	const struct aio_row *r;
	size_t pos = 0;

	if (!t || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	while ((r = row_next(t, &pos)) != NULL) {
		out->delta.reads += r->delta.reads;
		out->delta.writes += r->delta.writes;
		out->delta.read_bytes += r->delta.read_bytes;
		out->delta.write_bytes += r->delta.write_bytes;
		out->delta.errors += r->delta.errors;
		out->delta.cancelled += r->delta.cancelled;
		out->total.reads += r->total.reads;
		out->total.writes += r->total.writes;
		out->total.read_bytes += r->total.read_bytes;
		out->total.write_bytes += r->total.write_bytes;
		out->total.errors += r->total.errors;
		out->total.cancelled += r->total.cancelled;
		out->reads_s += r->reads_s;
		out->writes_s += r->writes_s;
		out->bytes_s += r->bytes_s;
		out->inflight += r->inflight;
		out->max_inflight += r->max_inflight;
		out->stuck += r->stuck;
		for (int s = 0; s < AIO_STAGE_NR; s++)
			out->stage_ns[s] += r->stage_ns[s];
	}
	stage_top(out);
	lat_stats(out, &t->tot_lat);
	if (lat)
		*lat = t->tot_lat;
	return 0;
}

/* ---- view ---- */

size_t aio_table_size(const struct aio_table *t)
{
	return t ? t->map.n : 0;
}

int aio_table_sort(struct aio_table *t, enum aio_col c, bool desc)
{
	if (!t || (unsigned int)c >= AIO_COL_NR)
		return -EINVAL;
	t->col = c;
	t->desc = desc;
	return rebuild(t);
}

int aio_table_set_filter(struct aio_table *t, const char *text)
{
	size_t len, i;

	if (!t)
		return -EINVAL;
	if (!text)
		text = "";
	len = strlen(text);
	if (len > FILTER_MAX)
		return -EINVAL;
	memcpy(t->filter, text, len + 1);
	t->filter_is_num = len > 0 && len <= 10;
	t->filter_num = 0;
	for (i = 0; i < len && t->filter_is_num; i++) {
		if (!isdigit((unsigned char)text[i]))
			t->filter_is_num = false;
		else
			t->filter_num = t->filter_num * 10 +
					(__u64)(text[i] - '0');
	}
	return rebuild(t);
}

size_t aio_table_visible(const struct aio_table *t)
{
	return t ? t->nvis : 0;
}

const struct aio_row *aio_table_row(const struct aio_table *t, size_t i)
{
	if (!t || i >= t->nvis)
		return NULL;
	return t->vis[i];
}
