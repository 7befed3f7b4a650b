// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope report FILE VIEW: a recording (aioscope record, docs/record-format.md)
 * shown by a live command's view. VIEW snoop: the lines live snoop prints, by
 * snoop's own line writer, with the recording's clock. VIEW hist: the histograms
 * live hist prints (hist_view.c), aggregated from the recorded requests. VIEW stuck:
 * the requests pending when the recording ended or a flight recorder's dump was
 * written, as stuck lists them (stuck_view.c).
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/stuck_src.h"
#include "commands.h"
#include "core/format.h"
#include "core/json.h"
#include "core/oatable.h"
#include "hist_view.h"
#include "recording.h"
#include "request/recfile.h"
#include "snoop_line.h"
#include "stuck_view.h"

/* The filters a view applies to the recorded requests, as the live commands do. */
struct rec_filter {
	int pid;
	bool have_dev;
	uint32_t dev;
	const char *comm;
	uint64_t min_lat_ns;
};

struct report_env {
	const char *file;
	bool json;
	struct rec_filter f;
	/* hist */
	enum aios_group by;
	bool reap;
	double interval;
	uint64_t count;
	/* stuck */
	uint64_t older_than_ms;
};

enum { OPT_R_BY = OPT_CMD_BASE, OPT_R_REAP };

#define FILTER_OPTIONS							\
	{ "pid", 'p', "PID", 0, "Only requests submitted by this process", 0 },	\
	{ "dev", OPT_FILTER_DEV, "DEV", 0,					\
	  "Only requests to this device (a device node or MAJ:MIN)", 0 },	\
	{ "comm", OPT_FILTER_COMM, "NAME", 0,				\
	  "Only requests submitted by tasks named NAME", 0 },		\
	{ "min-lat-us", OPT_FILTER_MINLAT, "N", 0,				\
	  "Only requests with lat >= N microseconds", 0 }

static const struct argp_option report_snoop_options[] = {
	{ "json", 'j', NULL, 0, "One JSON object per line, as snoop --json", 0 },
	FILTER_OPTIONS,
	{ 0 },
};

static const struct argp_option report_hist_options[] = {
	{ "by", OPT_R_BY, "GROUP", 0, "Group by op, pid, dev, ctx or qd (default: one group)", 0 },
	{ "interval", 'i', "SEC", 0,
	  "An interval every SEC seconds of the recording (default: the whole of it)", 0 },
	{ "count", 'n', "COUNT", 0, "Stop after COUNT intervals (of 1 s unless -i)", 0 },
	{ "reap", OPT_R_REAP, NULL, 0, "Also the reap latency (complete -> io_getevents)", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per group per interval, as hist --json", 0 },
	FILTER_OPTIONS,
	{ 0 },
};

static bool rec_wanted(const struct rec_filter *f, const struct tracer_event *e)
{
	if (f->pid && e->pid != f->pid)
		return false;
	if (f->have_dev && e->dev != f->dev)
		return false;
	if (f->comm && strcmp(e->comm, f->comm))
		return false;
	return e->lat_ns >= f->min_lat_ns;
}

/* The filter options of every view; ARGP_ERR_UNKNOWN for the others. */
static error_t filter_parse(int key, char *arg, struct argp_state *state, struct rec_filter *f)
{
	switch (key) {
	case 'p':
		f->pid = opt_pid(state, arg);
		break;
	case OPT_FILTER_DEV:
		if (parse_dev_t(arg, &f->dev))
			opt_invalid(state, "--dev", arg, "a device node or MAJ:MIN");
		f->have_dev = true;
		break;
	case OPT_FILTER_COMM:
		f->comm = opt_comm(state, arg);
		break;
	case OPT_FILTER_MINLAT:
		f->min_lat_ns = opt_min_lat(state, arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const char report_snoop_doc[] =
	"Print the requests of a recording as snoop prints them live: one line per\n"
	"request (TIME is seconds since the recording started), or with --json the\n"
	"JSON lines (ts_ns is wall-clock time). A summary (events, lost events) ends the\n"
	"output on stderr. A truncated or corrupted recording: every request before the\n"
	"damage is printed, then a one-line error with its byte offset, exit status 1.\n"
	"\v"
	"Examples:\n"
	"  aioscope report io.rec snoop\n"
	"  aioscope report io.rec snoop --json | jq .lat_ns\n";

static error_t report_snoop_parse(int key, char *arg, struct argp_state *state)
{
	struct report_env *env = state->input;

	switch (key) {
	case 'j':
		env->json = true;
		break;
	case ARGP_KEY_ARG:
		opt_unexpected(state, arg);
		break;
	default:
		return filter_parse(key, arg, state, &env->f);
	}
	return 0;
}

/* The closing line on stderr; with @json_object also a "summary" line on stdout. */
static void summary(const struct recfile_reader *r, uint64_t events, const struct recfile_lost *l,
		    bool json_object)
{
	char host[RECFILE_STR * 4], kernel[RECFILE_STR * 4], mode[sizeof(r->hdr.mode) * 4];

	/* the file's words, not ours: no control byte reaches the terminal */
	aio_fmt_term(host, sizeof(host), r->hdr.host);
	aio_fmt_term(kernel, sizeof(kernel), r->hdr.kernel);
	aio_fmt_term(mode, sizeof(mode), r->hdr.mode);
	if (r->hdr.trigger[0]) {
		char trig[RECFILE_STR * 4];

		aio_fmt_term(trig, sizeof(trig), r->hdr.trigger);
		fprintf(stderr, "a flight recorder's dump; trigger %s\n", trig);
	}
	fprintf(stderr, "%llu events, %llu lost events (ring buffer %llu, in-flight map full %llu, "
		"join %llu, program misses %llu, reaps unread %llu); mode %s; recorded on %s "
		"(%s)%s\n",
		(unsigned long long)events, (unsigned long long)recfile_lost_total(l),
		(unsigned long long)l->ringbuf, (unsigned long long)l->inflight_full,
		(unsigned long long)l->join, (unsigned long long)l->prog_misses,
		(unsigned long long)l->reap_unread, mode, host, kernel,
		r->complete ? "" : "; the recording is incomplete");
	if (json_object) {
		struct aio_json j;

		aio_json_init(&j, stdout, false);
		aio_json_start_object(&j);
		aio_json_name(&j, "summary");
		aio_json_start_object(&j);
		aio_json_string_field(&j, "mode", r->hdr.mode);
		aio_json_u64_field(&j, "events", events);
		aio_json_u64_field(&j, "lost", recfile_lost_total(l));
		aio_json_u64_field(&j, "ringbuf_lost", l->ringbuf);
		aio_json_u64_field(&j, "inflight_full", l->inflight_full);
		aio_json_u64_field(&j, "join_lost", l->join);
		aio_json_u64_field(&j, "prog_misses", l->prog_misses);
		aio_json_u64_field(&j, "reap_unread", l->reap_unread);
		aio_json_bool_field(&j, "complete", r->complete);
		aio_json_end_object(&j);
		aio_json_end_object(&j);
	}
}

static int report_snoop(const char *file, int argc, char **argv)
{
	static const struct argp argp = { report_snoop_options, report_snoop_parse, NULL,
					  report_snoop_doc, NULL, NULL, NULL };
	struct report_env env = { .file = file };
	struct recfile_reader r;
	struct recfile_lost lost = { 0 };
	struct recfile_rec rec;
	uint64_t events = 0, mono_to_real;
	FILE *f;
	int rc;

	if (argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	f = recording_open(file, &r);
	if (!f)
		return EXIT_RUNTIME;
	out_stream();
	mono_to_real = r.hdr.start_real_ns - r.hdr.start_mono_ns;
	if (!env.json)
		snoop_header(stdout);
	while ((rc = recfile_next(&r, &rec)) == 1) {
		char line[SNOOP_LINE_MAX];
		size_t n;

		if (rec.type == RECFILE_LOST) {
			lost = rec.lost;
		} else if (rec.type == RECFILE_EVENT && rec_wanted(&env.f, &rec.ev)) {
			n = snoop_line(line, sizeof(line), &rec.ev, env.json, mono_to_real,
				       r.hdr.start_mono_ns);
			fwrite(line, 1, n, stdout);
			events++;
		}
	}
	fflush(stdout);
	summary(&r, events, &lost, env.json);
	if (rc < 0)
		p_err("%s: %s", file, r.err);
	recfile_close(&r);
	fclose(f);
	return rc < 0 ? EXIT_RUNTIME : EXIT_OK;
}

/* ---- hist ---- */

static const char report_hist_doc[] =
	"Print the latency histograms of a recording as hist prints them live: count,\n"
	"p50, p90, p99, p99.9 and max per group, the latency of each request from\n"
	"submit to completion (lat), aiodev's own time where the recording has it\n"
	"(driver) and with --reap the reap latency; one interval for the whole\n"
	"recording, or with -i one per SEC seconds of it (by each request's completion\n"
	"time; the time shown is the interval's end, on the recording's clock; an\n"
	"interval without requests is not printed). The\n"
	"syscall batches of hist --syscalls are not recorded. A damaged recording: the\n"
	"requests before the damage are counted, then a one-line error, exit status 1.\n"
	"\v"
	"Examples:\n"
	"  aioscope report io.rec hist --by op\n"
	"  aioscope report io.rec hist -i 1 --json | jq .p99_ns\n";

static error_t report_hist_parse(int key, char *arg, struct argp_state *state)
{
	struct report_env *env = state->input;

	switch (key) {
	case OPT_R_BY:
		env->by = opt_group(state, arg);
		if (env->by == AIOS_BY_STAGE)
			opt_invalid(state, "--by", arg, "recordings do not keep stages; live: "
				    "aioscope hist --by stage");
		break;
	case 'i':
		env->interval = opt_seconds(state, "interval", arg, 0.001, 1e6);
		break;
	case 'n':
		env->count = (uint64_t)opt_count(state, arg);
		break;
	case OPT_R_REAP:
		env->reap = true;
		break;
	case 'j':
		env->json = true;
		break;
	case ARGP_KEY_ARG:
		opt_unexpected(state, arg);
		break;
	default:
		return filter_parse(key, arg, state, &env->f);
	}
	return 0;
}

/*
 * The groups of one interval: a histogram per (kind, group), as live hist keeps, and
 * an index from (kind, group) to it, so that a recording of a million processes
 * costs a hash lookup per request, not a walk of the groups.
 */
struct rhist {
	struct hist_view_group *vg;
	struct aio_hist *h;
	size_t n, cap;
	struct oat_table index;
};

struct rhist_key {
	uint64_t group;
	uint32_t kind;
	uint32_t slot;		/* index into vg/h, + 1: 0 marks a free entry */
};

static __u64 rhist_hash(const void *key)
{
	const struct rhist_key *k = key;

	return oat_hash_u64(k->group * 8 + k->kind + 1);
}

static bool rhist_eq(const void *entry, const void *key)
{
	const struct rhist_key *e = entry, *k = key;

	return e->group == k->group && e->kind == k->kind;
}

static const struct oat_type rhist_type = {
	.size = sizeof(struct rhist_key),
	.hash = rhist_hash,
	.eq = rhist_eq,
	OAT_MARK(struct rhist_key, slot),
	.min_cap = 16,
	.load_pct = 70,
};

static struct aio_hist *rhist_of(struct rhist *rh, enum aios_hist_kind kind, uint64_t group)
{
	struct rhist_key key = { .group = group, .kind = kind }, *e;
	bool found;

	e = oat_get(&rh->index, &rhist_type, &key, &found);
	if (!e)
		return NULL;
	if (found)
		return &rh->h[e->slot - 1];
	if (rh->n == rh->cap) {
		size_t nc = rh->cap ? rh->cap * 2 : 8;
		struct hist_view_group *vg = realloc(rh->vg, nc * sizeof(*vg));
		struct aio_hist *h;

		if (!vg)
			goto nomem;
		rh->vg = vg;
		h = realloc(rh->h, nc * sizeof(*h));
		if (!h)
			goto nomem;
		rh->h = h;
		rh->cap = nc;
	}
	*e = key;
	e->slot = (uint32_t)rh->n + 1;
	rh->vg[rh->n] = (struct hist_view_group){ .kind = kind, .group = group };
	aio_hist_reset(&rh->h[rh->n]);
	return &rh->h[rh->n++];
nomem:
	oat_del_at(&rh->index, &rhist_type, oat_index(&rh->index, &rhist_type, e));
	return NULL;
}

/* Empties the groups for the next interval (keeping the memory). */
static void rhist_clear(struct rhist *rh)
{
	rh->n = 0;
	oat_free(&rh->index);
}

static void rhist_free(struct rhist *rh)
{
	free(rh->vg);
	free(rh->h);
	oat_free(&rh->index);
}

/* The group of a request in live hist's terms (bpf/hist.bpf.h, group_of). */
static uint64_t rec_group(enum aios_group by, const struct tracer_event *e)
{
	switch (by) {
	case AIOS_BY_OP:
		return e->op;
	case AIOS_BY_PID:
		return (uint32_t)e->pid;
	case AIOS_BY_DEV:
		return e->dev;
	case AIOS_BY_CTX:
		return e->ctx;
	case AIOS_BY_QD:
		return aio_log2(e->qd ? e->qd : 1);
	default:
		return 0;
	}
}

static int rhist_add(struct rhist *rh, const struct report_env *env, const struct tracer_event *e)
{
	uint64_t g = rec_group(env->by, e);
	struct aio_hist *h = rhist_of(rh, AIOS_H_LAT, g);

	if (!h)
		return -ENOMEM;
	aio_hist_add(h, e->lat_ns);
	if (e->driver_ns != TRACER_DRIVER_NONE) {
		h = rhist_of(rh, AIOS_H_DRIVER, g);
		if (!h)
			return -ENOMEM;
		aio_hist_add(h, e->driver_ns);
	}
	if (env->reap && e->reap_ns != TRACER_REAP_NONE) {
		h = rhist_of(rh, AIOS_H_REAP, g);
		if (!h)
			return -ENOMEM;
		aio_hist_add(h, e->reap_ns);
	}
	return 0;
}

/* Prints the interval ending at @end_mono (recording clock) and empties the groups. */
static void rhist_print(struct rhist *rh, struct hist_view *v, uint64_t idx, uint64_t end_mono,
			const struct recfile_reader *r)
{
	uint64_t wall = r->hdr.start_real_ns + (end_mono - r->hdr.start_mono_ns);
	struct timespec rt = { .tv_sec = (time_t)(wall / 1000000000ULL),
			       .tv_nsec = (long)(wall % 1000000000ULL) };

	for (size_t i = 0; i < rh->n; i++)
		rh->vg[i].h = &rh->h[i];
	if (rh->n)
		qsort(rh->vg, rh->n, sizeof(*rh->vg), hist_view_group_cmp);
	hist_view_interval(v, idx, &rt, rh->vg, rh->n);
	rhist_clear(rh);
}

static int report_hist(const char *file, int argc, char **argv)
{
	static const struct argp argp = { report_hist_options, report_hist_parse, NULL,
					  report_hist_doc, NULL, NULL, NULL };
	struct report_env env = { .file = file };
	struct recfile_lost lost = { 0 };
	struct recfile_reader r;
	struct recfile_rec rec;
	struct rhist rh = { 0 };
	struct hist_view v;
	uint64_t events = 0, printed = 0, step, cur = 0, last_ts = 0, start;
	char mode[sizeof(r.hdr.mode) * 4];
	int rc, ret = EXIT_OK;
	FILE *f;

	if (argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	if (env.count && !env.interval)
		env.interval = 1;	/* -n alone: COUNT one-second intervals, as hist */
	f = recording_open(file, &r);
	if (!f)
		return EXIT_RUNTIME;
	aio_fmt_term(mode, sizeof(mode), r.hdr.mode);	/* the file's words, not ours */
	hist_view_init(&v, env.json, env.by, mode);
	step = env.interval > 0 ? (uint64_t)(env.interval * 1e9) : 0;
	start = r.hdr.start_mono_ns;
	while ((rc = recfile_next(&r, &rec)) == 1) {
		uint64_t k;

		if (rec.type == RECFILE_LOST)
			lost = rec.lost;
		if (rec.type != RECFILE_EVENT || !rec_wanted(&env.f, &rec.ev))
			continue;
		/*
		 * Intervals by completion time, numbered from the start; one without requests
		 * is not printed (a recording may span any time). A record delivered late
		 * counts in the interval being read.
		 */
		k = step && rec.ev.ts_ns > start ? (rec.ev.ts_ns - start) / step : 0;
		if (k > cur) {
			if (rh.n) {
				rhist_print(&rh, &v, cur + 1, start + (cur + 1) * step, &r);
				if (env.count && ++printed >= env.count)
					break;
			}
			cur = k;
		}
		if (rhist_add(&rh, &env, &rec.ev)) {
			p_err("out of memory after %llu requests", (unsigned long long)events);
			ret = EXIT_RUNTIME;
			break;
		}
		events++;
		if (rec.ev.ts_ns > last_ts)
			last_ts = rec.ev.ts_ns;
	}
	if (!ret && !(env.count && printed >= env.count) && (rh.n || !step))
		rhist_print(&rh, &v, cur + 1, step ? start + (cur + 1) * step :
			    (last_ts ? last_ts : start), &r);
	summary(&r, events, &lost, false);	/* hist --json prints groups only */
	if (rc < 0) {
		p_err("%s: %s", file, r.err);
		ret = EXIT_RUNTIME;
	}
	rhist_free(&rh);
	recfile_close(&r);
	fclose(f);
	return ret;
}

/* ---- --compare ---- */

static const char report_compare_doc[] =
	"Put two recordings side by side: per group, the requests, their rate over each\n"
	"recording's span (first submit to last completion), and p50, p90, p99 and max\n"
	"of the latency (lat) and of aiodev's own time (driver) where recorded, each with\n"
	"its change from FILE to OTHER. Percentiles as hist computes them (within 1.6 %\n"
	"above the exact value). The filters apply to both recordings.\n"
	"\v"
	"Examples:\n"
	"  aioscope report before.rec --compare after.rec\n"
	"  aioscope report before.rec --compare after.rec --by op --json\n";

static const struct argp_option report_compare_options[] = {
	{ "by", OPT_R_BY, "GROUP", 0, "Group by op, pid, dev, ctx or qd (default: one group)", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per group", 0 },
	FILTER_OPTIONS,
	{ 0 },
};

struct compare_env {
	struct report_env r;
	const char *other;
};

static error_t report_compare_parse(int key, char *arg, struct argp_state *state)
{
	struct compare_env *env = state->input;

	switch (key) {
	case OPT_R_BY:
		env->r.by = opt_group(state, arg);
		if (env->r.by == AIOS_BY_STAGE)
			opt_invalid(state, "--by", arg, "recordings do not keep stages");
		break;
	case 'j':
		env->r.json = true;
		break;
	case ARGP_KEY_ARG:
		if (env->other)
			opt_unexpected(state, arg);
		env->other = arg;
		break;
	case ARGP_KEY_END:
		if (!env->other)
			argp_error(state, "a second recording is needed");
		break;
	default:
		return filter_parse(key, arg, state, &env->r.f);
	}
	return 0;
}

/* One recording's side: its groups and its span. */
struct side {
	const char *file;
	struct rhist rh;
	uint64_t first, last;		/* first submit, last completion */
};

static int side_load(struct side *sd, const struct report_env *env)
{
	struct recfile_reader r;
	struct recfile_rec rec;
	int rc, ret = EXIT_OK;
	FILE *f = recording_open(sd->file, &r);

	if (!f)
		return EXIT_RUNTIME;
	sd->first = UINT64_MAX;
	while ((rc = recfile_next(&r, &rec)) == 1) {
		if (rec.type != RECFILE_EVENT || !rec_wanted(&env->f, &rec.ev))
			continue;
		if (rhist_add(&sd->rh, env, &rec.ev)) {
			p_err("out of memory reading %s", sd->file);
			ret = EXIT_RUNTIME;
			break;
		}
		sd->first = rec.ev.submit_ns < sd->first ? rec.ev.submit_ns : sd->first;
		sd->last = rec.ev.ts_ns > sd->last ? rec.ev.ts_ns : sd->last;
	}
	if (rc < 0) {
		p_err("%s: %s", sd->file, r.err);
		ret = EXIT_RUNTIME;
	}
	recfile_close(&r);
	fclose(f);
	return ret;
}

static const struct aio_hist *side_hist(const struct side *sd, enum aios_hist_kind kind,
					uint64_t group)
{
	struct rhist_key key = { .group = group, .kind = kind };
	const struct rhist_key *e = oat_find(&sd->rh.index, &rhist_type, &key);

	return e ? &sd->rh.h[e->slot - 1] : NULL;
}

/* requests per second over the side's span */
static double side_rate(const struct side *sd, const struct aio_hist *h)
{
	if (!h || !h->count)
		return 0;
	if (sd->last <= sd->first)
		return 0;
	return (double)h->count / ((double)(sd->last - sd->first) / 1e9);
}

enum row_fmt { ROW_COUNT, ROW_RATE, ROW_NS };

/* One row: a metric of both sides and the change from A to B. */
static void compare_row(struct aio_json *j, bool json, const char *name, double a, double b,
			bool have_a, bool have_b, enum row_fmt fmt)
{
	char sa[24], sb[24], sc[24];

	if (json) {
		aio_json_name(j, name);
		aio_json_start_object(j);
		if (have_a)
			aio_json_double_field(j, "a", a);
		else
			aio_json_null_field(j, "a");
		if (have_b)
			aio_json_double_field(j, "b", b);
		else
			aio_json_null_field(j, "b");
		if (have_a && have_b && a > 0)
			aio_json_double_field(j, "change", (b - a) / a);
		else
			aio_json_null_field(j, "change");
		aio_json_end_object(j);
		return;
	}
	if (fmt == ROW_NS) {
		aio_fmt_ns(sa, sizeof(sa), (uint64_t)a);
		aio_fmt_ns(sb, sizeof(sb), (uint64_t)b);
	} else {
		snprintf(sa, sizeof(sa), "%.*f", fmt == ROW_RATE, a);
		snprintf(sb, sizeof(sb), "%.*f", fmt == ROW_RATE, b);
	}
	if (have_a && have_b && a > 0)
		snprintf(sc, sizeof(sc), "%+.1f %%", (b - a) / a * 100);
	else
		snprintf(sc, sizeof(sc), "-");
	printf("  %-18s %14s %14s %12s\n", name, have_a ? sa : "-", have_b ? sb : "-", sc);
}

static void compare_kind(struct aio_json *j, bool json, const char *kind,
			 const struct aio_hist *a, const struct aio_hist *b)
{
	static const struct { const char *name; double p; } pct[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "max", 100 },
	};
	char name[32];

	for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++) {
		__u64 va = 0, vb = 0;
		bool ha = a && a->count && !aio_hist_percentile(a, pct[k].p, &va);
		bool hb = b && b->count && !aio_hist_percentile(b, pct[k].p, &vb);

		if (pct[k].p == 100) {
			va = ha ? a->max : 0;
			vb = hb ? b->max : 0;
		}
		snprintf(name, sizeof(name), json ? "%s_%s_ns" : "%s %s", kind, pct[k].name);
		compare_row(j, json, name, (double)va, (double)vb, ha, hb, ROW_NS);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The groups of either side, each once, in order. */
static size_t compare_groups(const struct side *s, uint64_t *g)
{
	size_t n = 0, u = 0;

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < s[k].rh.n; i++)
			if (s[k].rh.vg[i].kind == AIOS_H_LAT)
				g[n++] = s[k].rh.vg[i].group;
	qsort(g, n, sizeof(*g), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!u || g[u - 1] != g[i])
			g[u++] = g[i];
	return u;
}

static int report_compare(const char *file, int argc, char **argv)
{
	static const struct argp argp = { report_compare_options, report_compare_parse, "OTHER",
					  report_compare_doc, NULL, NULL, NULL };
	struct compare_env env = { .r.file = file };
	struct side s[2] = { { .file = file } };
	struct aio_json j;
	uint64_t *groups = NULL;
	size_t ng;
	int ret;

	if (argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	s[1].file = env.other;
	ret = side_load(&s[0], &env.r);
	if (!ret)
		ret = side_load(&s[1], &env.r);
	if (ret)
		goto out;
	groups = malloc((s[0].rh.n + s[1].rh.n + 1) * sizeof(*groups));
	if (!groups) {
		p_err("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	ng = compare_groups(s, groups);
	aio_json_init(&j, stdout, false);
	if (!env.r.json)
		printf("%-20s %14s %14s %12s\n", "", "A", "B", "change");
	for (size_t i = 0; i < ng; i++) {
		const struct aio_hist *la = side_hist(&s[0], AIOS_H_LAT, groups[i]);
		const struct aio_hist *lb = side_hist(&s[1], AIOS_H_LAT, groups[i]);
		const struct aio_hist *da = side_hist(&s[0], AIOS_H_DRIVER, groups[i]);
		const struct aio_hist *db = side_hist(&s[1], AIOS_H_DRIVER, groups[i]);
		char lab[48];
		const char *label = hist_view_group_label(env.r.by, groups[i], lab, sizeof(lab));

		if (env.r.json) {
			aio_json_start_object(&j);
			aio_json_string_field(&j, "a", s[0].file);
			aio_json_string_field(&j, "b", s[1].file);
			aio_json_string_field(&j, "by", tracer_group_name(env.r.by));
			aio_json_string_field(&j, "group", label);
		} else {
			if (env.r.by == AIOS_BY_NONE)
				printf("%sall requests\n", i ? "\n" : "");
			else
				printf("%s%s %s\n", i ? "\n" : "", tracer_group_name(env.r.by), label);
		}
		compare_row(&j, env.r.json, "requests", la ? (double)la->count : 0,
			    lb ? (double)lb->count : 0, true, true, ROW_COUNT);
		compare_row(&j, env.r.json, env.r.json ? "rate_per_s" : "rate (per s)",
			    side_rate(&s[0], la), side_rate(&s[1], lb), true, true, ROW_RATE);
		compare_kind(&j, env.r.json, "lat", la, lb);
		if (da || db)
			compare_kind(&j, env.r.json, "driver", da, db);
		if (env.r.json)
			aio_json_end_object(&j);
	}
	if (!env.r.json)
		printf("\nA: %s\nB: %s\n", s[0].file, s[1].file);
	fflush(stdout);
out:
	free(groups);
	for (int k = 0; k < 2; k++)
		rhist_free(&s[k].rh);
	return ret;
}


/* ---------------- report FILE stuck ---------------- */

static const struct argp_option report_stuck_options[] = {
	{ "older-than", 'o', "MS", 0, "Threshold age in milliseconds (default 1000)", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per snapshot, as stuck --json", 0 },
	{ "pid", 'p', "PID", 0, "Only requests submitted by this process", 0 },
	{ 0 },
};

static const char report_stuck_doc[] =
	"List the requests of a recording that were pending longer than a threshold when\n"
	"the recording ended (aioscope record) or when a flight recorder's dump was\n"
	"written (record --ring), as aioscope stuck lists them live: AGE is the age at\n"
	"that moment. DEVICE/FILE is the device's MAJ:MIN and the file's inode. One\n"
	"snapshot for each moment the recording holds pending requests; none: \"nothing\n"
	"pending\". Exit status: 0 nothing stuck, 3 something stuck, 1 the file cannot be\n"
	"read, 2 usage error.\n"
	"\v"
	"Examples:\n"
	"  aioscope report dumps/20261205-101500.250-stuck.rec stuck --older-than 100\n"
	"  aioscope report io.rec stuck --json\n";

static error_t report_stuck_parse(int key, char *arg, struct argp_state *state)
{
	struct report_env *env = state->input;

	switch (key) {
	case 'o':
		env->older_than_ms = opt_u64(state, "--older-than", arg, 0, 1000ULL * 86400 * 365,
					     "milliseconds");
		break;
	case 'j':
		env->json = true;
		break;
	case 'p':
		env->f.pid = opt_pid(state, arg);
		break;
	case ARGP_KEY_ARG:
		opt_unexpected(state, arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* one snapshot's list, filtered, sorted and printed; the number listed */
static size_t stuck_snapshot(const struct report_env *env, const struct recfile_reader *r,
			     struct stuck_list *l, uint64_t ts_mono, struct aio_json *j)
{
	uint64_t min_age = env->older_than_ms * 1000000ULL;
	uint64_t real = ts_mono + (r->hdr.start_real_ns - r->hdr.start_mono_ns);

	stuck_list_filter_age(l, min_age);
	if (env->f.pid)
		stuck_list_filter_pid(l, env->f.pid);
	stuck_list_sort(l);
	if (env->json) {
		aio_json_start_object(j);
		aio_json_u64_field(j, "ts_ns", real);
		aio_json_u64_field(j, "older_than_ms", env->older_than_ms);
		aio_json_u64_field(j, "count", l->n);
		aio_json_name(j, "sources");
		aio_json_start_object(j);
		aio_json_string_field(j, "recording", env->file);
		aio_json_string_field(j, "tracer", r->hdr.mode);
		aio_json_string_field(j, "trigger", r->hdr.trigger[0] ? r->hdr.trigger : NULL);
		aio_json_end_object(j);
		aio_json_name(j, "stuck");
		aio_json_start_array(j);
		for (size_t i = 0; i < l->n; i++)
			stuck_json_req(j, &l->v[i], false);
		aio_json_end_array(j);
		aio_json_end_object(j);
	} else {
		time_t sec = (time_t)(real / 1000000000ULL);
		struct tm tm;
		char ts[32];

		localtime_r(&sec, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", &tm);
		printf("%s.%03llu  %zu pending longer than %llu ms\n", ts,
		       (unsigned long long)(real / 1000000 % 1000), l->n,
		       (unsigned long long)env->older_than_ms);
		if (l->n)
			stuck_print_plain(stdout, l, false);
		printf("\n");
	}
	return l->n;
}

static int report_stuck(const char *file, int argc, char **argv)
{
	static const struct argp argp = { report_stuck_options, report_stuck_parse, NULL,
					  report_stuck_doc, NULL, NULL, NULL };
	struct report_env env = { .file = file, .older_than_ms = 1000 };
	struct recfile_reader r;
	struct recfile_lost lost = { 0 };
	struct recfile_rec rec;
	struct stuck_list l = { 0 };
	struct aio_json j;
	uint64_t events = 0, snap_ts = 0, last_ts = 0, listed = 0, snapshots = 0;
	FILE *f;
	int rc;

	if (argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	f = recording_open(file, &r);
	if (!f)
		return EXIT_RUNTIME;
	aio_json_init(&j, stdout, false);
	while ((rc = recfile_next(&r, &rec)) == 1) {
		uint64_t ts = recfile_rec_time(&rec);

		if (ts > last_ts)
			last_ts = ts;
		if (rec.type == RECFILE_LOST)
			lost = rec.lost;
		events += rec.type == RECFILE_EVENT;
		if (rec.type != RECFILE_PENDING)
			continue;
		/* the pending requests of one moment are written together */
		if (l.n && rec.pend.ts_ns != snap_ts) {
			listed += stuck_snapshot(&env, &r, &l, snap_ts, &j);
			snapshots++;
			stuck_list_reset(&l);
		}
		snap_ts = rec.pend.ts_ns;
		if (stuck_add_recorded(&l, &rec.pend.req, rec.pend.ts_ns > rec.pend.req.submit_ns ?
				       rec.pend.ts_ns - rec.pend.req.submit_ns : 0)) {
			p_err("out of memory");
			rc = -1;
			break;
		}
	}
	if (l.n || !snapshots)
		listed += stuck_snapshot(&env, &r, &l, l.n ? snap_ts : last_ts, &j);
	stuck_list_free(&l);
	fflush(stdout);
	summary(&r, events, &lost, false);
	if (r.hdr.minor < 1 && r.hdr.major == 1)
		fprintf(stderr, "recording format %u.%u holds no pending requests (1.1 and later "
			"do)\n", r.hdr.major, r.hdr.minor);
	if (rc < 0)
		p_err("%s: %s", file, r.err);
	recfile_close(&r);
	fclose(f);
	if (rc < 0 || ferror(stdout))
		return EXIT_RUNTIME;
	return listed ? EXIT_STUCK : EXIT_OK;
}

static const struct {
	const char *name;
	int (*fn)(const char *file, int argc, char **argv);
} views[] = {
	{ "snoop", report_snoop },
	{ "hist", report_hist },
	{ "stuck", report_stuck },
	{ "top", cmd_report_top },
	{ "--compare", report_compare },
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "Usage: %s FILE VIEW [OPTION...]\n"
		"Show a recording of aioscope record (FILE) by a view of a live command.\n\n"
		"Views:\n"
		"  snoop    one line per request, as aioscope snoop ('%s FILE snoop --help')\n"
		"  hist     latency histograms, as aioscope hist ('%s FILE hist --help')\n"
		"  stuck    requests pending when the recording ended or its dump was written,\n"
		"           as aioscope stuck ('%s FILE stuck --help')\n"
		"  top      the dashboard's batch view, interval by interval of the recording,\n"
		"           as aioscope top --batch ('%s FILE top --help')\n"
		"  --compare OTHER\n"
		"           two recordings side by side: counts, rates, percentiles per group,\n"
		"           with the change ('%s FILE --compare OTHER --help')\n\n"
		"Exit status: 0 ok, 1 the file cannot be read (truncated, corrupted, not a\n"
		"recording, a newer format: the error names the byte), 2 usage error;\n"
		"stuck: 3 something stuck.\n\n"
		"Examples:\n"
		"  %s io.rec snoop --json\n"
		"  %s io.rec hist --by op\n"
		"  %s io.rec top --batch -g device -i 2\n"
		"  %s before.rec --compare after.rec --by op\n", prog, prog, prog, prog, prog, prog,
		prog, prog, prog, prog);
}

int cmd_report(int argc, char **argv)
{
	char prog[96];

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-?") ||
			  !strcmp(argv[1], "--usage"))) {
		usage(stdout, argv[0]);
		return EXIT_OK;
	}
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("aioscope %s\n", AIOSCOPE_VERSION);
		return EXIT_OK;
	}
	if (argc < 3) {
		p_err("%s: a recording and a view are needed (try '%s --help')",
		      argv[0], argv[0]);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		if (strcmp(argv[2], views[i].name))
			continue;
		/* argp messages read "aioscope report snoop: ..." */
		snprintf(prog, sizeof(prog), "%s %s", argv[0], views[i].name);
		argv[2] = prog;
		return views[i].fn(argv[1], argc - 2, argv + 2);
	}
	p_err("%s: unknown view '%s' (one of: snoop, hist, stuck, top, --compare OTHER)", argv[0], argv[2]);
	return EXIT_USAGE;
}
