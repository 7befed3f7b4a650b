// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope top (aiotop): live dashboard of asynchronous I/O.
 *
 * Three layers (htop style):
 *   collect  tracer events -> core group tables (one per grouping, so switching
 *            the grouping shows history at once); at each interval end the
 *            in-flight picture (tracer in-flight table + aiodev debugfs
 *            listing), the kernel's queue-depth counters and the stuck list
 *   map      the current table's visible rows (core: filter, stable sort)
 *            -> struct top_frame
 *   draw     a view: curses (top_ui.c) or batch (plain text or JSON lines)
 * Keys return reactions (top_ui.c); this loop decides what to recollect,
 * remap or redraw.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/format.h"
#include "core/hist.h"
#include "core/inflight.h"
#include "core/json.h"
#include "core/table.h"
#include "collect/stuck_src.h"
#include "top_ui.h"
#include "collect/tracer.h"

#include "commands.h"
#include "recording.h"
#include "stuck_view.h"

#define SLICE_NS	100000000ULL	/* drain the ring buffer at least every 100 ms */

static struct top_env {
	double interval_s;
	long count;
	bool batch, json, verbose;
	bool stages;		/* --stages: each row's dominant stage */
	uint64_t stuck_ms;
	uint64_t stuck_rows;	/* --batch lists the oldest N stuck requests */
	int pid;
	enum aio_group group;
	enum top_col sort;
	bool ascending;
	enum tracer_mode mode;
	bool replay;		/* report FILE top: a recording, not the tracer */
} env;

/* a pending request's op and api go into the core's __u8 fields as they are */
_Static_assert(AIOS_OP_OTHER <= UINT8_MAX && AIOS_API_OTHER <= UINT8_MAX,
	       "enum aios_op / aios_api fit struct aio_req");


/* ------------------------------ collect ------------------------------ */

/*
 * The in-flight picture is the list of pending requests itself, sampled every
 * slice (100 ms): the tracer's in-flight table (requests submitted after it
 * attached, any file) plus aiodev's debugfs listing (every pending aiodev
 * request, also those from before). It is kept in one core table, synced at
 * each sample, so INFLIGHT is the count at the interval's end and QD-MAX the
 * largest count sampled during the interval, for every grouping alike. One scan
 * a sample: the interval end's also gives the stuck list.
 *
 * The BPF object's queue-depth counters (the qd map) are not read instead: they
 * exist only with the tracer's want_qd, which puts four hash-map updates on every
 * submit and completion and turns off the direct-to-slot submit; they have no
 * per-file kind and do not count requests pending from before the tracer attached
 * (the listing gives those); and the rows' INFLIGHT and STUCK need the pending
 * requests themselves at each interval end anyway.
 */
struct top_collect {
	struct tracer *tr;
	struct aio_table *tab[AIO_GROUP_NR];
	struct aio_inflight *inf;	/* pending now (synced every sample) */
	struct aio_inflight *fresh;	/* scratch: this sample's listing */
	struct aiodev_listing listing;	/* the debugfs listing, kept between reads */
	struct stuck_list stuck;	/* stuck requests at the interval end */
	bool stuck_due;			/* this sample ends an interval: fill stuck */
	bool pre_attach;		/* the last listing held requests pending from
					 * before the tracer attached */
	bool by_user_iocb;		/* the tracer's ids are user iocb pointers */
	uint64_t stuck_ns;		/* the age that makes a request stuck */
	uint64_t now;			/* this sample's time (tracer clock) */
	uint64_t *gone;			/* scratch: ids to remove */
	size_t ngone, gonecap;
	uint64_t tot_now, tot_max;	/* total in flight: end, interval max */
	int lat_stage;			/* the latency fed: -1 whole, else a stage's */
	struct tracer_drops drops, drops_prev;
	uint64_t start_ns, last_end_ns;	/* tracer clock */
	uint64_t spark[TOP_SPARK_LEN];	/* per-second maximum of total depth */
	uint64_t spark_sec;		/* second (since start) of spark[last] */
	size_t nspark;
	uint64_t events;
	/* pending requests a sample could not hold (its table full): this sample's
	 * and the most of any sample in the interval, reported as lost */
	uint64_t sample_full, sample_full_max;
	int err;
	struct top_replay *rp;		/* report FILE top: the recording's clock */
	const char *mode;		/* the attach mode, for the header */
};

/*
 * report FILE top: the collector fed from a recording, on its clock. A recorded
 * request is in flight from its submit to its completion, the requests still pending
 * at the end (format 1.1) until then: a sample at recorded time T sees those
 * submitted by T and not completed by T, as a live sample at T would have.
 */
struct top_replay {
	const struct recording *rec;
	size_t *by_done;		/* the requests by completion time */
	size_t *by_submit;		/* requests then pending ones (nev + j), by submit */
	size_t nsub, next_done, next_sub;
	size_t *open;			/* submitted by now, not completed (by_submit's) */
	size_t nopen;
	size_t next_lost;
	uint64_t now, end;		/* recorded clock: now, the last record's time */
	char mode[128];			/* the recorded attach mode, escaped for a terminal */
	bool changed;			/* a submit or completion since the last sample */
	bool active;			/* ... since the last frame */
};

static uint64_t collect_now(const struct top_collect *c)
{
	return c->rp ? c->rp->now : tracer_now_ns();
}

static int on_event(void *ctx, const struct tracer_event *e)
{
	struct top_collect *c = ctx;
	struct aio_stages st;
	uint64_t lat = e->lat_ns;
	struct aio_req r = {
		.id = e->id ? e->id : 1,
		.ts_ns = e->submit_ns,
		.ctx = e->ctx,
		.ino = e->ino,
		.offset = e->offset,
		.len = e->bytes,
		.pid = (uint32_t)e->pid,
		.tid = (uint32_t)e->tid,
		.dev = e->dev,
		.op = (uint8_t)e->op,		/* enum aios_op is enum aios_op */
		.api = (uint8_t)e->api,
	};

	if (e->api == AIOS_API_SYNC || (env.pid && e->pid != env.pid))
		return 0;	/* the dashboard is about asynchronous requests */
	memcpy(r.comm, e->comm, sizeof(r.comm));
	r.comm[sizeof(r.comm) - 1] = '\0';
	if (env.stages) {
		tracer_event_stages(e, &st);
		/* the latency columns show one stage: requests without it count, unmeasured */
		if (c->lat_stage >= 0)
			lat = aio_stage_known(&st, c->lat_stage) ? st.ns[c->lat_stage] : AIO_LAT_NONE;
	}
	for (int g = 0; g < AIO_GROUP_NR; g++) {
		int rc = aio_table_complete(c->tab[g], &r, e->res > 0 ? (uint64_t)e->res : 0,
					    e->res, lat, e->state == AIOS_CANCELLED);

		if (!rc && env.stages)
			rc = aio_table_stages(c->tab[g], &r, &st);
		if (rc) {
			c->err = rc;
			return rc;
		}
	}
	c->events++;
	return 0;
}

static int on_inflight(void *ctx, const struct pending_req *q)
{
	struct top_collect *c = ctx;
	struct aio_req r = {
		.id = q->id ? q->id : 1,
		.ts_ns = q->submit_ns,
		.ctx = q->ctx,
		.ino = q->ino,
		.offset = q->offset,
		.len = q->bytes,
		.pid = (uint32_t)q->pid,
		.tid = (uint32_t)q->tid,
		.dev = q->dev,
		.op = (uint8_t)q->op,
		.api = (uint8_t)q->api,
	};
	uint64_t age;
	int rc;

	if (env.pid && q->pid != env.pid)
		return 0;
	memcpy(r.comm, q->comm, sizeof(r.comm));
	r.comm[sizeof(r.comm) - 1] = '\0';
	rc = aio_inflight_insert(c->fresh, &r);
	if (rc == -ENOSPC)
		c->sample_full++;
	else if (rc < 0)
		return rc;
	age = c->now > q->submit_ns ? c->now - q->submit_ns : 0;
	if (c->stuck_due && age >= c->stuck_ns)
		return c->rp ? stuck_add_recorded(&c->stuck, q, age) :
		       stuck_add_tracer(&c->stuck, c->tr, q, age, c->by_user_iocb);
	return 0;
}

static int replay_inflight_foreach(struct top_collect *c);

/* The kernel dev_t (major << 20 | minor) and inode of /dev/aiodevN, cached. */
static void aiodev_node(const char *path, struct aio_req *r)
{
	static struct { char path[32]; uint32_t dev; uint64_t ino; } cache[16];
	struct stat st;
	size_t i;

	for (i = 0; i < 16 && cache[i].path[0]; i++) {
		if (!strcmp(cache[i].path, path)) {
			r->dev = cache[i].dev;
			r->ino = cache[i].ino;
			return;
		}
	}
	r->dev = 0;
	r->ino = 0;
	if (stat(path, &st))
		return;
	r->dev = (major(st.st_rdev) << 20) | minor(st.st_rdev);
	r->ino = st.st_ino;
	if (i < 16 && strlen(path) < sizeof(cache[i].path)) {
		snprintf(cache[i].path, sizeof(cache[i].path), "%s", path);
		cache[i].dev = r->dev;
		cache[i].ino = r->ino;
	}
}

/*
 * aiodev requests the tracer cannot know: pending from before it attached. The
 * listing is read before the tracer's table, so a request submitted since it
 * attached and completed between the two reads would be counted with the requests
 * that replaced it (3 in flight at iodepth 2): those are left to the tracer.
 */
static void fresh_add_debugfs(struct top_collect *c)
{
	bool by_user_iocb = c->by_user_iocb;
	uint64_t attached = tracer_attached_ns(c->tr);

	c->pre_attach = false;

	for (size_t i = 0; i < c->listing.l.n; i++) {
		const struct stuck_req *s = &c->listing.l.v[i];
		const struct pending_req *q = &s->req;
		struct aio_req r = {
			.id = q->id ? q->id : 1,
			.ts_ns = q->submit_ns,
			.offset = q->offset,
			.len = q->bytes,
			.pid = (uint32_t)q->pid,
			.tid = (uint32_t)q->tid,
			.op = (__u8)q->op,
			.api = (__u8)(s->has_api ? q->api : AIOS_API_AIO),
			.flags = s->stalled == 1 ? 1 : 0,
		};

		const struct aio_req *t;

		if (env.pid && q->pid != env.pid)
			continue;
		if (r.ts_ns > attached)
			continue;	/* submitted since the tracer attached: its own */
		c->pre_attach = true;
		t = aio_inflight_lookup(c->fresh, by_user_iocb ? q->obj : q->id);
		if (t && stuck_same_request(s, t->id, (int32_t)t->pid, by_user_iocb))
			continue;	/* the tracer has it, with its context */
		aiodev_node(s->path, &r);
		memcpy(r.comm, q->comm, sizeof(r.comm) - 1);
		if (aio_inflight_insert(c->fresh, &r) == -ENOSPC)
			c->sample_full++;
	}
}

static int gone_add(struct top_collect *c, uint64_t id)
{
	if (c->ngone == c->gonecap) {
		size_t cap = c->gonecap ? c->gonecap * 2 : 256;
		uint64_t *v = realloc(c->gone, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->gone = v;
		c->gonecap = cap;
	}
	c->gone[c->ngone++] = id;
	return 0;
}

/* Same request? (debugfs ages give a submit time a few µs off each sample) */
static bool same_req(const struct aio_req *a, const struct aio_req *b)
{
	uint64_t d = a->ts_ns > b->ts_ns ? a->ts_ns - b->ts_ns : b->ts_ns - a->ts_ns;

	return d < 1000000;
}

/* An interval's stuck list starts as the sample's debugfs listing. */
static int stuck_start(struct top_collect *c)
{
	stuck_list_reset(&c->stuck);
	if (stuck_list_add_listing(&c->stuck, &c->listing))
		return -ENOMEM;
	stuck_list_index(&c->stuck, c->by_user_iocb);
	return 0;
}

/*
 * The one scan of a sample: the debugfs listing, then the tracer's in-flight table,
 * into c->fresh; at an interval end (c->stuck_due) the same scan fills c->stuck.
 * Between interval ends the listing is looked at only while it holds requests from
 * before the tracer attached: the tracer has every later one, and no earlier one
 * can appear again (an interval end looks at it in any case). It is read again only
 * when a device's pending_gen moved since the last read (aiodev_listing_refresh).
 */
static int sample_scan(struct top_collect *c)
{
	bool listed;
	int rc;

	if (c->fresh)
		aio_inflight_clear(c->fresh);
	else
		c->fresh = aio_inflight_new(0);
	if (!c->fresh)
		return -ENOMEM;
	listed = !c->rp && (c->stuck_due || c->pre_attach);
	c->now = collect_now(c);
	if (listed)	/* absent without aiodev: fine */
		aiodev_listing_refresh(&c->listing, c->now);
	c->sample_full = 0;
	if (c->stuck_due) {
		rc = stuck_start(c);
		if (rc)
			return rc;
	}
	rc = c->rp ? replay_inflight_foreach(c) : tracer_inflight_foreach(c->tr, on_inflight, c);
	if (rc < 0)
		return rc;
	if (listed)
		fresh_add_debugfs(c);
	if (c->sample_full > c->sample_full_max)
		c->sample_full_max = c->sample_full;
	return 0;
}

/*
 * A walk over table @a that looks each entry up in table @b: b's slot for the
 * entry SYNC_AHEAD places further on is asked for early, so that with many
 * pending requests (tables past the caches) the lookups' misses overlap.
 */
#define SYNC_AHEAD 8

struct sync_walk {
	const struct aio_inflight *a, *b;
	size_t pos, ahead_pos, n, ahead_n;
};

static const struct aio_req *sync_next(struct sync_walk *w)
{
	const struct aio_req *p;

	while (w->ahead_n < w->n + SYNC_AHEAD && (p = aio_inflight_next(w->a, &w->ahead_pos))) {
		aio_inflight_prefetch(w->b, p->id);
		w->ahead_n++;
	}
	w->n++;
	return aio_inflight_next(w->a, &w->pos);
}

/* One sample: make c->inf hold exactly the requests pending now. */
static int inflight_sync(struct top_collect *c)
{
	const struct aio_req *r, *o;
	struct sync_walk w;
	int rc = sample_scan(c);

	if (rc)
		return rc;
	c->ngone = 0;
	w = (struct sync_walk){ .a = c->inf, .b = c->fresh };	/* fresh: this sample's */
	while ((r = sync_next(&w))) {
		o = aio_inflight_lookup(c->fresh, r->id);
		if (!o || !same_req(o, r)) {
			rc = gone_add(c, r->id);
			if (rc)
				return rc;
		}
	}
	for (size_t i = 0; i < c->ngone; i++)
		aio_inflight_remove(c->inf, c->gone[i], NULL);
	w = (struct sync_walk){ .a = c->fresh, .b = c->inf };
	while ((r = sync_next(&w))) {
		if (aio_inflight_lookup(c->inf, r->id))
			continue;
		rc = aio_inflight_insert(c->inf, r);
		if (rc < 0 && rc != -ENOSPC)
			return rc;
	}
	return 0;
}

/* Per-second maximum of the total in flight, for the sparkline. */
static void spark_sample(struct top_collect *c)
{
	uint64_t now = collect_now(c), sec = (now - c->start_ns) / 1000000000ULL;
	uint64_t v = aio_inflight_count(c->inf);

	if (!c->nspark) {
		c->nspark = 1;
		c->spark[0] = v;
		c->spark_sec = sec;
		return;
	}
	if (sec > c->spark_sec && sec - c->spark_sec >= TOP_SPARK_LEN) {
		/* idle longer than the line is long (a recording's gap) */
		memset(c->spark, 0, sizeof(c->spark));
		c->nspark = TOP_SPARK_LEN;
		c->spark_sec = sec;
	}
	while (c->spark_sec < sec) {
		if (c->nspark == TOP_SPARK_LEN)
			memmove(c->spark, c->spark + 1, (TOP_SPARK_LEN - 1) * sizeof(c->spark[0]));
		else
			c->nspark++;
		c->spark[c->nspark - 1] = 0;
		c->spark_sec++;
	}
	if (v > c->spark[c->nspark - 1])
		c->spark[c->nspark - 1] = v;
}

/* A sample between interval ends. */
static int collect_sample(struct top_collect *c)
{
	int rc = inflight_sync(c);

	if (!rc)
		spark_sample(c);
	return rc;
}

static void replay_drops(struct top_collect *c);

/* An interval end: a sample whose scan also gives the stuck list, then the tables. */
static int collect_end(struct top_collect *c)
{
	uint64_t now, interval;
	__u32 cur, max;
	int rc;

	c->stuck_due = true;
	rc = inflight_sync(c);
	c->stuck_due = false;
	if (rc)
		return rc;
	spark_sample(c);
	now = collect_now(c);
	interval = now - c->last_end_ns ? now - c->last_end_ns : 1;

	/* the debugfs entries are all there: those old enough, of -p's process */
	stuck_list_filter_age(&c->stuck, c->stuck_ns);
	if (env.pid)
		stuck_list_filter_pid(&c->stuck, env.pid);
	stuck_list_sort(&c->stuck);

	for (int g = 0; g < AIO_GROUP_NR; g++) {
		rc = aio_table_end_interval(c->tab[g], now, interval, c->inf);
		if (rc)
			return rc;
	}
	aio_inflight_total_depth(c->inf, &cur, &max);
	c->tot_now = cur;
	c->tot_max = max;
	aio_inflight_interval_reset(c->inf);
	c->drops_prev = c->drops;
	if (c->rp)
		replay_drops(c);
	else
		tracer_drops(c->tr, &c->drops);
	c->last_end_ns = now;
	return 0;
}

/* -------------------------------- map -------------------------------- */

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void row_label(const struct aio_row *a, enum aio_group g, char *buf, size_t len)
{
	switch (g) {
	case AIO_GROUP_CTX:
		if (a->id)
			snprintf(buf, len, "ctx 0x%" PRIx64, (uint64_t)a->id);
		else
			snprintf(buf, len, "(no context)");
		break;
	case AIO_GROUP_FILE:
		if (env.replay)	/* another machine's, maybe: the numbers it recorded */
			recorded_file_name(a->ident.dev, a->ident.ino, buf, len);
		else
			top_file_name((int32_t)a->ident.pid, a->ident.dev, a->ident.ino, buf,
				      len);
		break;
	default:
		if (a->ident.dev)
			top_dev_name(a->ident.dev, buf, len);
		else
			snprintf(buf, len, "-");
	}
}

static void map_row(const struct aio_row *a, enum aio_group g, struct top_row *r)
{
	memset(r, 0, sizeof(*r));
	r->key = a->id;
	r->pid = g == AIO_GROUP_DEV ? -1 : (int32_t)a->ident.pid;
	if (g != AIO_GROUP_DEV)
		snprintf(r->comm, sizeof(r->comm), "%s", a->ident.comm);
	row_label(a, g, r->dev, sizeof(r->dev));
	r->reads = a->delta.reads;
	r->writes = a->delta.writes;
	r->read_bytes = a->delta.read_bytes;
	r->write_bytes = a->delta.write_bytes;
	r->inflight = a->inflight;
	r->max_inflight = a->max_inflight;
	r->avg_ns = a->lat_count ? a->avg_ns : 0;
	r->p99_ns = a->lat_count ? a->p99_ns : 0;
	r->max_ns = a->lat_count ? a->max_ns : 0;
	r->errors = a->delta.errors;
	r->cancelled = a->delta.cancelled;
	r->stuck = a->stuck;
	r->r_s = a->reads_s;
	r->w_s = a->writes_s;
	r->mb_s = a->bytes_s / 1e6;
	r->stage = a->top_stage;
	r->stage_share = a->top_stage_share;
}

/* Apply the view's sort and filter to the current table and copy its rows. */
static int map_frame(struct top_collect *c, const struct top_view_state *st,
		     struct top_frame *fr)
{
	struct aio_table *t = c->tab[st->group];
	size_t n;

	aio_table_sort(t, (enum aio_col)(st->sort_col + 1), !st->ascending);
	if (aio_table_set_filter(t, st->filter))
		aio_table_set_filter(t, NULL);
	n = aio_table_visible(t);
	if (n > fr->nrows_cap) {
		struct top_row *v = realloc(fr->rows, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		fr->rows = v;
		fr->nrows_cap = n;
	}
	for (size_t i = 0; i < n; i++)
		map_row(aio_table_row(t, i), st->group, &fr->rows[i]);
	fr->nrows = n;
	fr->nrows_all = aio_table_size(t);
	fr->group = st->group;
	return 0;
}

/* Header totals and the stuck list: everything that is not per-row. */
static void map_totals(struct top_collect *c, struct top_frame *fr, uint64_t interval_ns)
{
	struct top_totals *t = &fr->tot;
	static struct aio_hist lat;	/* 16 KiB: not on the stack */
	struct aio_row sum;
	__u64 v;

	memset(t, 0, sizeof(*t));
	aio_table_totals(c->tab[AIO_GROUP_PID], &sum, &lat);
	t->interval_s = interval_ns / 1e9;
	t->reads = sum.delta.reads;
	t->writes = sum.delta.writes;
	t->read_bytes = sum.delta.read_bytes;
	t->write_bytes = sum.delta.write_bytes;
	t->errors = sum.delta.errors;
	t->cancelled = sum.delta.cancelled;
	t->r_s = t->interval_s > 0 ? t->reads / t->interval_s : 0;
	t->w_s = t->interval_s > 0 ? t->writes / t->interval_s : 0;
	t->mb_s = t->interval_s > 0 ? (t->read_bytes + t->write_bytes) / t->interval_s / 1e6 : 0;
	t->inflight = c->tot_now;
	t->max_inflight = c->tot_max;
	t->stage = sum.top_stage;
	t->stage_share = sum.top_stage_share;
	if (lat.count) {
		double mean;

		if (!aio_hist_mean(&lat, &mean))
			t->avg_ns = (uint64_t)mean;
		if (!aio_hist_percentile(&lat, 50, &v))
			t->p50_ns = v;
		if (!aio_hist_percentile(&lat, 99, &v))
			t->p99_ns = v;
		t->max_ns = lat.max;
	}
	t->lost = (c->drops.ringbuf_lost - c->drops_prev.ringbuf_lost) +
		  (c->drops.join_lost - c->drops_prev.join_lost) +
		  (c->drops.inflight_full - c->drops_prev.inflight_full) +
		  c->sample_full_max;
	c->sample_full_max = 0;
	t->reconciled = c->drops.reconciled - c->drops_prev.reconciled;
	t->stuck = c->stuck.n;

	fr->stuck = c->stuck;	/* shallow: owned by the collector */
	memcpy(fr->spark, c->spark, sizeof(fr->spark));
	fr->nspark = c->nspark;
	fr->elapsed_s = (c->last_end_ns - c->start_ns) / 1e9;
	fr->mode = c->mode;
	fr->stages = env.stages;
	fr->ts_ns = c->rp ? c->last_end_ns + (c->rp->rec->hdr.start_real_ns -
					       c->rp->rec->hdr.start_mono_ns) : realtime_ns();
}

/* ---------------------------- batch view ---------------------------- */

/* Latencies: null when the interval had no completion ("no data" is not 0). */
static void json_lat(struct aio_json *j, const char *name, uint64_t v)
{
	if (v)
		aio_json_u64_field(j, name, v);
	else
		aio_json_null_field(j, name);
}

/* "stage": the stage with the most time, "stage_share": its share; null if none */
static void json_stage(struct aio_json *j, int stage, double share)
{
	if (!env.stages)
		return;
	if (stage >= 0) {
		aio_json_string_field(j, "stage", aio_stage_name((enum aio_stage)stage));
		aio_json_double_field(j, "stage_share", share);
	} else {
		aio_json_null_field(j, "stage");
		aio_json_null_field(j, "stage_share");
	}
}

static void json_row(struct aio_json *j, const struct top_row *r, enum aio_group g)
{
	aio_json_start_object(j);
	if (r->pid >= 0)
		aio_json_s64_field(j, "pid", r->pid);
	else
		aio_json_null_field(j, "pid");
	aio_json_string_field(j, "comm", r->comm[0] ? r->comm : NULL);
	aio_json_string_field(j, "dev", r->dev);
	if (g == AIO_GROUP_CTX)
		aio_json_hex_field(j, "ctx", r->key);
	aio_json_u64_field(j, "reads", r->reads);
	aio_json_u64_field(j, "writes", r->writes);
	aio_json_u64_field(j, "read_bytes", r->read_bytes);
	aio_json_u64_field(j, "write_bytes", r->write_bytes);
	aio_json_u64_field(j, "inflight", r->inflight);
	aio_json_u64_field(j, "max_inflight", r->max_inflight);
	json_lat(j, "avg_ns", r->avg_ns);
	json_lat(j, "p99_ns", r->p99_ns);
	json_lat(j, "max_ns", r->max_ns);
	aio_json_u64_field(j, "errors", r->errors);
	aio_json_u64_field(j, "cancelled", r->cancelled);
	aio_json_u64_field(j, "stuck", r->stuck);
	json_stage(j, r->stage, r->stage_share);
	aio_json_end_object(j);
}

/*
 * How many of the frame's stuck requests a batch snapshot lists: the oldest
 * --stuck-rows. The count in the totals is always all of them; thousands of lines a
 * second are no summary (and a fifth of top's CPU at 10,000 stuck requests).
 */
static size_t batch_stuck_listed(const struct top_frame *fr)
{
	return fr->stuck.n < env.stuck_rows ? fr->stuck.n : (size_t)env.stuck_rows;
}

static void batch_json(const struct top_frame *fr)
{
	const struct top_totals *t = &fr->tot;
	size_t listed = batch_stuck_listed(fr);
	struct aio_json j;

	aio_json_init(&j, stdout, false);
	aio_json_start_object(&j);
	aio_json_u64_field(&j, "ts_ns", fr->ts_ns);
	aio_json_u64_field(&j, "interval_ns", (uint64_t)llround(t->interval_s * 1e9));
	aio_json_double_field(&j, "elapsed_s", fr->elapsed_s);
	aio_json_string_field(&j, "mode", fr->mode);
	aio_json_string_field(&j, "group", top_group_name(fr->group));
	aio_json_name(&j, "totals");
	aio_json_start_object(&j);
	aio_json_u64_field(&j, "reads", t->reads);
	aio_json_u64_field(&j, "writes", t->writes);
	aio_json_u64_field(&j, "read_bytes", t->read_bytes);
	aio_json_u64_field(&j, "write_bytes", t->write_bytes);
	aio_json_double_field(&j, "reads_per_s", t->r_s);
	aio_json_double_field(&j, "writes_per_s", t->w_s);
	aio_json_double_field(&j, "mb_per_s", t->mb_s);
	aio_json_u64_field(&j, "inflight", t->inflight);
	aio_json_u64_field(&j, "max_inflight", t->max_inflight);
	json_lat(&j, "avg_ns", t->avg_ns);
	json_lat(&j, "p50_ns", t->p50_ns);
	json_lat(&j, "p99_ns", t->p99_ns);
	json_lat(&j, "max_ns", t->max_ns);
	aio_json_u64_field(&j, "errors", t->errors);
	aio_json_u64_field(&j, "cancelled", t->cancelled);
	aio_json_u64_field(&j, "lost", t->lost);
	aio_json_u64_field(&j, "reconciled", t->reconciled);
	aio_json_u64_field(&j, "stuck", t->stuck);
	json_stage(&j, t->stage, t->stage_share);
	aio_json_end_object(&j);
	aio_json_name(&j, "rows");
	aio_json_start_array(&j);
	for (size_t i = 0; i < fr->nrows; i++)
		json_row(&j, &fr->rows[i], fr->group);
	aio_json_end_array(&j);
	aio_json_name(&j, "stuck");
	aio_json_start_array(&j);
	for (size_t i = 0; i < listed; i++)
		stuck_json_req(&j, &fr->stuck.v[i], false);
	aio_json_end_array(&j);
	aio_json_u64_field(&j, "stuck_more", fr->stuck.n - listed);
	aio_json_end_object(&j);
}

static void batch_plain(const struct top_view_state *st, const struct top_frame *fr)
{
	const struct top_totals *t = &fr->tot;
	char line[1024], a[32], b[32], c[32], d[32], e[32];
	struct top_layout layout;
	time_t now = (time_t)(fr->ts_ns / 1000000000ULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(a, sizeof(a), "%H:%M:%S", &tm);
	top_fmt_duration(b, sizeof(b), fr->elapsed_s);
	printf("%s  tracing %s  mode %s  interval %.2fs  by %s  sort %s %s\n", a, b,
	       fr->mode, t->interval_s, top_group_name(fr->group), top_col_name(st->sort_col),
	       st->ascending ? "asc" : "desc");
	top_fmt_rate(a, sizeof(a), t->r_s);
	top_fmt_rate(b, sizeof(b), t->w_s);
	printf("IOPS r %s w %s  MB/s %.2f  inflight %" PRIu64 " (max %" PRIu64 ")\n",
	       a, b, t->mb_s, t->inflight, t->max_inflight);
	top_fmt_ns(a, sizeof(a), t->avg_ns);
	top_fmt_ns(b, sizeof(b), t->p50_ns);
	top_fmt_ns(c, sizeof(c), t->p99_ns);
	top_fmt_ns(d, sizeof(d), t->max_ns);
	top_fmt_count(e, sizeof(e), t->stuck);
	printf("lat avg %s p50 %s p99 %s max %s  err %" PRIu64 "  cncl %" PRIu64
	       "  lost %" PRIu64 "  stuck %s", a, b, c, d, t->errors, t->cancelled,
	       t->lost, e);
	if (fr->stages && t->stage >= 0)
		printf("  stage %s %.0f%%", aio_stage_name((enum aio_stage)t->stage),
		       100 * t->stage_share);
	printf("\n");
	top_layout_full(&layout, fr->stages);
	top_fmt_header(line, sizeof(line), &layout);
	printf("%s\n", line);
	for (size_t i = 0; i < fr->nrows; i++) {
		top_fmt_row(line, sizeof(line), &fr->rows[i], &layout);
		printf("%s\n", line);
	}
	if (fr->stuck.n && env.stuck_rows) {
		struct stuck_list shown = fr->stuck;	/* shallow: the oldest first */

		shown.n = batch_stuck_listed(fr);
		printf("STUCK: %zu pending longer than %" PRIu64 " ms, oldest first\n",
		       fr->stuck.n, env.stuck_ms);
		stuck_print_plain(stdout, &shown, false);
		if (shown.n < fr->stuck.n)
			printf("... and %zu more (aioscope stuck --older-than %" PRIu64
			       " lists every one)\n", fr->stuck.n - shown.n, env.stuck_ms);
	}
	printf("\n");
	fflush(stdout);
}

static int batch_init(struct top_view_state *st)
{
	(void)st;
	out_stream();	/* each interval's print ends with a flush */
	return 0;
}

static void batch_draw(struct top_view_state *st, const struct top_frame *fr)
{
	if (env.json)
		batch_json(fr);
	else
		batch_plain(st, fr);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int batch_wait(struct top_view_state *st, const struct top_frame *fr, uint64_t deadline)
{
	uint64_t now = mono_ns();

	(void)st;
	(void)fr;
	if (now < deadline) {
		struct timespec ts = { (deadline - now) / 1000000000ULL,
				       (deadline - now) % 1000000000ULL };

		nanosleep(&ts, NULL);	/* EINTR: the loop checks top_exiting */
	}
	return top_exiting ? TOP_R_QUIT : TOP_R_NONE;
}

static void batch_fini(void)
{
}

static const struct top_view top_batch_view = {
	.name = "batch",
	.init = batch_init,
	.draw = batch_draw,
	.wait = batch_wait,
	.fini = batch_fini,
};

/* ------------------------------ options ------------------------------ */

static const char doc[] =
"Live dashboard of asynchronous I/O: libaio (and io_uring when traced) per\n"
"process, device, aio context or file, with the requests that are stuck.\n"
"\n"
"USAGE: aioscope top [-i SEC] [--stuck-ms MS] [-p PID] [-g GROUP] [-s COLUMN]\n"
"                    [--batch [-n COUNT] [--json] [--stuck-rows N]]\n"
"       aiotop ...   (the same)\n"
"\n"
"Keys: q quit, h help, space pause, +/- interval, g grouping, < > r sort,\n"
"P C D R W M I Q A L X E N S sort by column, / filter, t stuck panel.\n"
"\n"
"EXAMPLES:\n"
"    aiotop                              # full screen, 1 s interval\n"
"    aioscope top -i 0.5 -g device       # by device, twice a second\n"
"    aioscope top --batch -n 5           # 5 plain-text snapshots\n"
"    aioscope top --batch --json -n 10   # 10 JSON lines (ts_ns totals rows stuck)\n"
"\n"
"aioscope report FILE top [OPTION...] shows a recording (aioscope record) the same\n"
"way, frame by frame on the recording's clock (always --batch; no --mode).\n";

enum { OPT_STUCK_MS = 256, OPT_STUCK_ROWS, OPT_MODE, OPT_STAGES };

static const struct argp_option options[] = {
	{ "interval", 'i', "SEC", 0, "Refresh interval in seconds, fractional (default 1)", 0 },
	{ "count", 'n', "COUNT", 0, "Exit after COUNT snapshots", 0 },
	{ "batch", 'b', NULL, 0, "No screen: print one snapshot per interval", 0 },
	{ "json", 'j', NULL, 0, "With --batch: one JSON object per line (implies --batch)", 0 },
	{ "stuck-ms", OPT_STUCK_MS, "MS", 0, "Pending longer than MS counts as stuck (default 1000)", 0 },
	{ "stuck-rows", OPT_STUCK_ROWS, "N", 0, "With --batch: list the N oldest stuck requests "
	  "(default 20; the stuck count is always complete)", 0 },
	{ "pid", 'p', "PID", 0, "Trace only this process", 0 },
	{ "group", 'g', "GROUP", 0, "process (default), device, context or file", 0 },
	{ "sort", 's', "COLUMN", 0, "Sort column (default MB/s), e.g. r/s, inflight, p99", 0 },
	{ "mode", OPT_MODE, "MODE", 0, "Attach mode: auto (default), fentry, kprobe, syscalls", 0 },
	{ "stages", OPT_STAGES, NULL, 0, "A STAGE column: where each row's requests spent most "
	  "of their time (submit, iowq, queue, device, complete, reap) and its share", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf debug output", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	int i;

	switch (key) {
	case 'i':
		env.interval_s = opt_seconds(state, "interval", arg, 0.05, 3600);
		break;
	case 'n':
		env.count = opt_count(state, arg);
		break;
	case 'b':
		env.batch = true;
		break;
	case 'j':
		env.json = true;
		env.batch = true;
		break;
	case OPT_STUCK_MS:
		env.stuck_ms = opt_u64(state, "--stuck-ms", arg, 0, 1000ULL * 86400 * 365,
				       "milliseconds");
		break;
	case OPT_STUCK_ROWS:
		env.stuck_rows = opt_u64(state, "--stuck-rows", arg, 0, 10000000, "requests");
		break;
	case 'p':
		env.pid = opt_pid(state, arg);
		break;
	case 'g':
		for (i = 0; i < AIO_GROUP_NR; i++)
			if (!strcmp(arg, top_group_name(i)) ||
			    (i == AIO_GROUP_PID && !strcmp(arg, "pid")) ||
			    (i == AIO_GROUP_DEV && !strcmp(arg, "dev")) ||
			    (i == AIO_GROUP_CTX && !strcmp(arg, "ctx")))
				break;
		if (i == AIO_GROUP_NR)
			opt_invalid(state, "group", arg, "process, device, context, file");
		env.group = i;
		break;
	case 's':
		i = aio_col_parse(arg);
		if (i <= 0 || i > TOP_NR_COLS)
			opt_invalid(state, "sort column", arg, NULL);
		env.sort = (enum top_col)(i - 1);
		break;
	case OPT_MODE:
		opt_mode(state, arg, &env.mode);
		break;
	case OPT_STAGES:
		env.stages = true;
		break;
	case 'v':
		env.verbose = true;
		break;
	case ARGP_KEY_ARG:
		opt_unexpected(state, arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ------------------------------ the loop ------------------------------ */

/*
 * SIGINT, SIGTERM, SIGHUP: a clean exit through the loop (the view restores the
 * terminal). A second one before the loop noticed the first: restore the
 * terminal here and die of it. Other fatal signals: top_ui.c's handler.
 */
static void on_signal(int sig)
{
	if (top_exiting) {
		top_ui_restore_now();
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	top_exiting = 1;
}

static void collect_free(struct top_collect *c)
{
	for (int g = 0; g < AIO_GROUP_NR; g++)
		aio_table_free(c->tab[g]);
	aio_inflight_free(c->inf);
	aio_inflight_free(c->fresh);
	stuck_list_free(&c->stuck);
	aiodev_listing_free(&c->listing);
	free(c->gone);
	tracer_close(c->tr);
}

/* The group tables and the in-flight table, live or replayed. 0 or -ENOMEM. */
static int collect_tables(struct top_collect *c)
{
	struct aio_table_opts topts = { .linger = 2, .stuck_ns = env.stuck_ms * 1000000ULL };

	for (int g = 0; g < AIO_GROUP_NR; g++) {
		c->tab[g] = aio_table_new((enum aio_group)g, &topts);
		if (!c->tab[g])
			return -ENOMEM;
	}
	c->inf = aio_inflight_new(0);
	c->stuck_ns = topts.stuck_ns;
	return c->inf ? 0 : -ENOMEM;
}

/* The tracer and the tables. Returns 0, or the exit status with a message said. */
static int collect_open(struct top_collect *c)
{
	struct tracer_opts to = { .pid = env.pid, .events = true, .inflight = true,
				  .stages = env.stages, .mode = env.mode,
				  .verbose = env.verbose };
	char msg[256] = "";
	int err = tracer_open(&c->tr, &to, msg, sizeof(msg));

	if (err) {
		fprintf(stderr, "Error: %s\n", msg[0] ? msg : strerror(-err));
		return err == -EINVAL ? 2 : 1;
	}
	if (collect_tables(c)) {
		fprintf(stderr, "Error: cannot allocate the tables\n");
		return 1;
	}
	c->start_ns = c->last_end_ns = tracer_now_ns();
	c->lat_stage = -1;
	c->mode = tracer_mode_name(c->tr);
	c->by_user_iocb = stuck_by_user_iocb(c->tr);
	c->pre_attach = true;	/* until a listing says otherwise */
	return 0;
}

/* Options and defaults into env. Returns 0, or 2 for a usage error. */
static int top_parse(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };

	memset(&env, 0, sizeof(env));
	env.interval_s = 1;
	env.stuck_ms = 1000;
	env.stuck_rows = 20;
	env.sort = COL_MBS;
	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	if (!env.batch && !isatty(STDOUT_FILENO))
		env.batch = true;	/* iotop: not a terminal -> batch */
	return 0;
}

static void top_signals(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_signal;	/* no SA_RESTART: getch/nanosleep return */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* The view's first state, from the options. */
static void view_state_init(struct top_view_state *st)
{
	st->interval_s = env.interval_s;
	st->group = env.group;
	st->sort_col = env.sort;
	st->stages = env.stages;
	st->lat_stage = -1;
	st->ascending = env.ascending;
	st->show_stuck = true;
}

/* The loop's state: the collector, the view and its frame, the clock. */
struct top_run {
	struct top_collect c;
	const struct top_view *view;
	struct top_view_state st;
	struct top_frame fr;
	uint64_t interval_ns, next_end;	/* monotonic clock */
	long frames;
};

/*
 * An interval ends: collect, and map and draw unless paused. Returns 1 when the
 * frame was the last one asked for (-n), 0, or -errno.
 */
static int interval_end(struct top_run *t)
{
	uint64_t before = t->c.last_end_ns;
	int err = collect_end(&t->c);

	if (err)
		return err;
	t->next_end += t->interval_ns;
	if (t->next_end < mono_ns())
		t->next_end = mono_ns() + t->interval_ns;
	if (t->st.paused)
		return 0;	/* data keeps flowing; the screen stays */
	err = map_frame(&t->c, &t->st, &t->fr);
	if (err)
		return err;
	map_totals(&t->c, &t->fr, t->c.last_end_ns - before);
	t->view->draw(&t->st, &t->fr);
	t->frames++;
	return env.count && t->frames >= env.count;
}

/* What a key asked for: a new pace, a new mapping, a redraw. */
static int react(struct top_run *t, int r)
{
	t->c.lat_stage = t->st.lat_stage;	/* from the next request on */
	if (r & TOP_R_RETIME) {
		t->interval_ns = (uint64_t)(t->st.interval_s * 1e9);
		t->next_end = mono_ns() + t->interval_ns;
	}
	if (r & TOP_R_REMAP) {
		int err = map_frame(&t->c, &t->st, &t->fr);

		if (err)
			return err;
	}
	if (r & (TOP_R_REMAP | TOP_R_REDRAW))
		t->view->draw(&t->st, &t->fr);
	return 0;
}

/*
 * Slices of at most 100 ms: wait for keys (or sleep), drain the ring buffer, then
 * a sample, or at the interval's end a frame. Returns 0 or -errno.
 */
static int top_loop(struct top_run *t)
{
	int err;

	/* first frame at once (empty interval): the screen is never blank */
	if (!env.batch) {
		err = collect_end(&t->c);
		if (!err)
			err = map_frame(&t->c, &t->st, &t->fr);
		if (err)
			return err;
		map_totals(&t->c, &t->fr, 0);
		t->view->draw(&t->st, &t->fr);
	}
	t->interval_ns = (uint64_t)(t->st.interval_s * 1e9);
	t->next_end = mono_ns() + t->interval_ns;
	while (!top_exiting) {
		uint64_t now = mono_ns();
		uint64_t slice = now + SLICE_NS < t->next_end ? now + SLICE_NS : t->next_end;
		int r = t->view->wait(&t->st, &t->fr, slice);

		err = tracer_poll(t->c.tr, 0, on_event, &t->c);
		if (err < 0 || t->c.err)
			return t->c.err ? t->c.err : err;
		if (r & TOP_R_QUIT || top_exiting)
			break;
		err = react(t, r);
		if (!err)
			err = mono_ns() < t->next_end ? collect_sample(&t->c) : interval_end(t);
		if (err < 0)
			return err;
		if (err > 0)
			break;	/* the count of frames reached */
	}
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_run t = { 0 };
	int err, rc = top_parse(argc, argv);

	if (rc)
		return rc;
	t.view = env.batch ? &top_batch_view : &top_curses_view;
	rc = collect_open(&t.c);
	if (rc)
		goto out;
	view_state_init(&t.st);
	top_signals();
	if (t.view->init(&t.st)) {
		fprintf(stderr, "Error: cannot initialize the terminal\n");
		rc = 1;
		goto out;
	}
	err = top_loop(&t);
	t.view->fini();		/* the terminal is restored before any message */
	if (err) {
		fprintf(stderr, "Error: %s\n", strerror(err < 0 ? -err : err));
		rc = 1;
	}
out:
	collect_free(&t.c);
	free(t.fr.rows);
	return rc;
}

/* ------------------------------ replay ------------------------------ */

static uint64_t item_submit(const struct top_replay *rp, size_t k)
{
	const struct recording *r = rp->rec;

	return k < r->nev ? r->ev[k].submit_ns : r->pend[k - r->nev].req.submit_ns;
}

static uint64_t item_done(const struct top_replay *rp, size_t k)
{
	const struct recording *r = rp->rec;

	return k < r->nev ? r->ev[k].ts_ns : UINT64_MAX;	/* pending: never */
}

static const struct top_replay *sorting;	/* qsort's comparators' recording */

static int by_submit_cmp(const void *a, const void *b)
{
	uint64_t x = item_submit(sorting, *(const size_t *)a);
	uint64_t y = item_submit(sorting, *(const size_t *)b);

	return x < y ? -1 : x > y;
}

static int by_done_cmp(const void *a, const void *b)
{
	uint64_t x = item_done(sorting, *(const size_t *)a);
	uint64_t y = item_done(sorting, *(const size_t *)b);

	return x < y ? -1 : x > y;
}

/* A recorded request as the tracer's in-flight table would have handed it out. */
static void item_pending(const struct top_replay *rp, size_t k, struct pending_req *q)
{
	const struct recording *r = rp->rec;
	const struct tracer_event *e;

	if (k >= r->nev) {
		*q = r->pend[k - r->nev].req;
		return;
	}
	e = &r->ev[k];
	memset(q, 0, sizeof(*q));
	q->id = e->id;
	q->submit_ns = e->submit_ns;
	q->ctx = e->ctx;
	q->obj = e->obj;
	q->ino = e->ino;
	q->offset = e->offset;
	q->bytes = e->bytes;
	q->dev = e->dev;
	q->pid = e->pid;
	q->tid = e->tid;
	q->op = e->op;
	q->api = e->api;
	memcpy(q->comm, e->comm, sizeof(q->comm));
	q->kstack_id = q->ustack_id = -1;
}

/* The sample's pending requests: the open ones not completed by now. */
static int replay_inflight_foreach(struct top_collect *c)
{
	struct top_replay *rp = c->rp;
	size_t i = 0;

	while (i < rp->nopen) {
		struct pending_req q;
		size_t k = rp->open[i];
		int rc;

		if (item_done(rp, k) <= rp->now) {
			rp->open[i] = rp->open[--rp->nopen];
			continue;
		}
		item_pending(rp, k, &q);
		if (q.api == AIOS_API_SYNC) {	/* as on_event: asynchronous ones only */
			i++;
			continue;
		}
		rc = on_inflight(c, &q);
		if (rc < 0)
			return rc;
		i++;
	}
	return 0;
}

/* The lost counters as recorded by now (cumulative, as the tracer's). */
static void replay_drops(struct top_collect *c)
{
	const struct recording *r = c->rp->rec;

	while (c->rp->next_lost < r->nlost && r->lost[c->rp->next_lost].ts_ns <= c->rp->now) {
		const struct recfile_lost *l = &r->lost[c->rp->next_lost++];

		c->drops.ringbuf_lost = l->ringbuf;
		c->drops.inflight_full = l->inflight_full;
		c->drops.join_lost = l->join;
	}
}

/* Everything up to the recorded time @t: completions into the tables, submits open. */
static int replay_to(struct top_collect *c, uint64_t t)
{
	struct top_replay *rp = c->rp;
	const struct recording *r = rp->rec;

	rp->now = t;
	while (rp->next_done < r->nev && r->ev[rp->by_done[rp->next_done]].ts_ns <= t) {
		on_event(c, &r->ev[rp->by_done[rp->next_done++]]);
		if (c->err)
			return c->err;
		rp->changed = rp->active = true;
	}
	while (rp->next_sub < rp->nsub && item_submit(rp, rp->by_submit[rp->next_sub]) <= t) {
		rp->open[rp->nopen++] = rp->by_submit[rp->next_sub++];
		rp->changed = rp->active = true;
	}
	return 0;
}

/* the time of the next submit or completion, UINT64_MAX when none is left */
static uint64_t replay_next_change(const struct top_replay *rp)
{
	uint64_t s = rp->next_sub < rp->nsub ? item_submit(rp, rp->by_submit[rp->next_sub]) :
		     UINT64_MAX;
	uint64_t d = rp->next_done < rp->rec->nev ?
		     rp->rec->ev[rp->by_done[rp->next_done]].ts_ns : UINT64_MAX;

	return s < d ? s : d;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int replay_open(struct top_collect *c, struct top_replay *rp, const struct recording *r)
{
	rp->rec = r;
	rp->nsub = r->nev + r->npend;
	rp->by_done = malloc((r->nev ? r->nev : 1) * sizeof(size_t));
	rp->by_submit = malloc((rp->nsub ? rp->nsub : 1) * sizeof(size_t));
	rp->open = malloc((rp->nsub ? rp->nsub : 1) * sizeof(size_t));
	if (!rp->by_done || !rp->by_submit || !rp->open)
		return -ENOMEM;
	rp->end = r->hdr.start_mono_ns;
	for (size_t k = 0; k < rp->nsub; k++) {
		uint64_t t = k < r->nev ? r->ev[k].ts_ns : r->pend[k - r->nev].ts_ns;

		rp->by_submit[k] = k;
		if (k < r->nev)
			rp->by_done[k] = k;
		if (t > rp->end)
			rp->end = t;
	}
	for (size_t k = 0; k < r->nqd; k++)
		if (r->qd[k].ts_ns > rp->end)
			rp->end = r->qd[k].ts_ns;
	sorting = rp;
	qsort(rp->by_done, r->nev, sizeof(size_t), by_done_cmp);
	qsort(rp->by_submit, rp->nsub, sizeof(size_t), by_submit_cmp);
	rp->now = r->hdr.start_mono_ns;
	if (collect_tables(c))
		return -ENOMEM;
	c->rp = rp;
	aio_fmt_term(rp->mode, sizeof(rp->mode), r->hdr.mode);	/* the file's word */
	c->mode = rp->mode;
	c->start_ns = c->last_end_ns = rp->now;
	c->lat_stage = -1;
	c->by_user_iocb = !strcmp(r->hdr.mode, "syscalls");
	return 0;
}

/*
 * Slices of 100 ms of recorded time, as live: a sample each (when a request was
 * submitted or completed since the last one: else it would see the same), a frame
 * at each interval's end; the last interval ends with the recording. Intervals in
 * which no request was submitted or completed have no frame, as report hist prints
 * no empty interval: a recording with hours between its bursts, or with times a
 * century apart, is replayed in the time its requests take.
 */
static int replay_loop(struct top_run *t)
{
	struct top_collect *c = &t->c;
	struct top_replay *rp = c->rp;
	uint64_t next_end, events_before = 0;
	int err;

	t->interval_ns = (uint64_t)(t->st.interval_s * 1e9);
	next_end = sat_add(c->start_ns, t->interval_ns);
	while (!top_exiting) {
		uint64_t now = sat_add(rp->now, SLICE_NS), before, change;
		bool last = false;

		change = replay_next_change(rp);
		if (change > rp->end)
			change = rp->end;
		if (!rp->active && change >= next_end && next_end < rp->end) {
			/* idle to the interval that holds the next change (or the end) */
			uint64_t skip = (change - next_end) / t->interval_ns;

			next_end = skip > (UINT64_MAX - next_end) / t->interval_ns ? UINT64_MAX :
				   next_end + skip * t->interval_ns;
			c->last_end_ns = next_end;
			rp->now = next_end;
			next_end = sat_add(next_end, t->interval_ns);
			continue;
		}
		if (now > next_end)
			now = next_end;
		if (now >= rp->end) {
			now = rp->end > rp->now ? rp->end : rp->now;
			last = true;
		}
		err = replay_to(c, now);
		if (err)
			return err;
		if (now < next_end && !last) {
			if (rp->changed) {
				rp->changed = false;
				err = collect_sample(c);
				if (err)
					return err;
			}
			continue;
		}
		/* a last sliver of the recording with nothing finished in it: no frame */
		if (last && t->frames && c->events == events_before &&
		    now - c->last_end_ns < t->interval_ns / 10)
			break;
		events_before = c->events;
		before = c->last_end_ns;
		rp->changed = rp->active = false;
		err = collect_end(c);
		if (!err)
			err = map_frame(c, &t->st, &t->fr);
		if (err)
			return err;
		map_totals(c, &t->fr, c->last_end_ns - before);
		t->view->draw(&t->st, &t->fr);
		t->frames++;
		if (last || (env.count && t->frames >= env.count) || next_end == UINT64_MAX)
			break;
		next_end = sat_add(next_end, t->interval_ns);
	}
	return 0;
}

int cmd_report_top(const char *file, int argc, char **argv)
{
	struct top_replay rp = { 0 };
	struct recording rec;
	struct top_run t = { 0 };
	int err, rc = top_parse(argc, argv);

	if (rc)
		return rc;
	if (env.mode != TRACER_MODE_AUTO) {
		p_err("%s: --mode is for the live tracer, not a recording", argv[0]);
		return EXIT_USAGE;
	}
	env.batch = true;	/* no screen: the frames one after the other */
	env.replay = true;
	rc = recording_load(file, &rec);
	if (rc)
		return rc;
	t.view = &top_batch_view;
	err = replay_open(&t.c, &rp, &rec);
	if (!err) {
		view_state_init(&t.st);
		top_signals();
		t.view->init(&t.st);
		err = replay_loop(&t);
		t.view->fini();
	}
	if (err) {
		p_err("%s: %s", file, strerror(err < 0 ? -err : err));
		rc = EXIT_RUNTIME;
	}
	if (ferror(stdout))
		rc = EXIT_RUNTIME;
	collect_free(&t.c);
	free(t.fr.rows);
	free(rp.by_done);
	free(rp.by_submit);
	free(rp.open);
	recording_free(&rec);
	return rc;
}
