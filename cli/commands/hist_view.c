// SPDX-License-Identifier: GPL-2.0
/*
 * hist_view.c - hist's output (hist_view.h): the text summary line and log2
 * histogram of each group, or its JSON object.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hist_view.h"
#include "core/format.h"
#include "core/stages.h"
#include "collect/tracer.h"

/* hist --by stage: the kernel's stage groups are the core's stages, then the total */
_Static_assert((int)AIOS_SG_SUBMIT == (int)AIO_STAGE_SUBMIT && (int)AIOS_SG_IOWQ == (int)AIO_STAGE_IOWQ &&
	       (int)AIOS_SG_QUEUE == (int)AIO_STAGE_QUEUE && (int)AIOS_SG_DEVICE == (int)AIO_STAGE_DEVICE &&
	       (int)AIOS_SG_COMPLETE == (int)AIO_STAGE_COMPLETE && (int)AIOS_SG_REAP == (int)AIO_STAGE_REAP &&
	       (int)AIOS_SG_TOTAL == (int)AIO_STAGE_NR, "stage groups and stages differ");

static const char *kind_name(enum aios_hist_kind k)
{
	static const char *const n[] = { "lat", "reap", "driver", "submit_batch", "reap_batch",
					 "bytes" };

	return (unsigned int)k < AIOS_H_NR ? n[k] : "?";
}

/* Batch sizes (requests per io_submit, events per reap) are counts, never grouped. */
static bool is_batch_kind(enum aios_hist_kind kind)
{
	return kind == AIOS_H_SUBMIT_BATCH || kind == AIOS_H_REAP_BATCH;
}

static const char *group_label(const struct hist_view *v, enum aios_hist_kind kind,
			       uint64_t g, char *buf, size_t len)
{
	if (is_batch_kind(kind))
		return "all";
	switch (v->by) {
	case AIOS_BY_OP:
		return tracer_op_name((enum aios_op)g);
	case AIOS_BY_PID:
		snprintf(buf, len, "%llu", (unsigned long long)g);
		return buf;
	case AIOS_BY_DEV:
		return tracer_dev_str((uint32_t)g, buf, len);
	case AIOS_BY_CTX:
		snprintf(buf, len, "0x%llx", (unsigned long long)g);
		return buf;
	case AIOS_BY_STAGE:
		return g == AIOS_SG_TOTAL ? "total" : aio_stage_name((enum aio_stage)g) ?: "?";
	case AIOS_BY_QD:
		if (g == 0)
			snprintf(buf, len, "1");
		else
			snprintf(buf, len, "%llu-%llu", 1ULL << g, (2ULL << g) - 1);
		return buf;
	default:
		return "all";
	}
}

/* A histogram of small counts (requests per call): one row per bucket in use. */
static void print_counts(const struct aio_hist *h)
{
	__u64 peak = 0;

	for (unsigned int b = 0; b < AIO_HIST_BUCKETS; b++)
		if (h->buckets[b] > peak)
			peak = h->buckets[b];
	printf("     %-19s : %-8s distribution\n", "per call", "calls");
	for (unsigned int b = 0; b < AIO_HIST_BUCKETS; b++) {
		unsigned long long lo = aio_bucket_lower(b), hi = aio_bucket_upper(b);
		char range[48], bar[41];
		int w;

		if (!h->buckets[b])
			continue;
		if (lo == hi)
			snprintf(range, sizeof(range), "%llu", lo);
		else
			snprintf(range, sizeof(range), "%llu -> %llu", lo, hi);
		w = (int)(h->buckets[b] * 40 / peak);
		memset(bar, '*', (size_t)w);
		bar[w] = 0;
		printf("%24s : %-8llu |%-40s|\n", range, (unsigned long long)h->buckets[b], bar);
	}
}

/* One group's interval as a JSON line: its percentiles and non-empty buckets. */
static void group_json(struct hist_view *v, uint64_t idx, const struct timespec *rt,
		       enum aios_hist_kind kind, const char *label, const struct aio_hist *d,
		       const __u64 p[5])
{
	bool counts = is_batch_kind(kind);
	struct aio_json *j = &v->j;

	aio_json_start_object(j);
	aio_json_u64_field(j, "ts_ns", (uint64_t)rt->tv_sec * 1000000000ULL + rt->tv_nsec);
	aio_json_u64_field(j, "interval", idx);
	aio_json_string_field(j, "mode", v->mode);
	aio_json_name(j, "missing_hooks");
	aio_json_start_array(j);
	for (size_t m = 0; m < v->nmissing; m++)
		aio_json_string(j, v->missing[m]);
	aio_json_end_array(j);
	aio_json_string_field(j, "hist", kind_name(kind));
	aio_json_string_field(j, "by", counts ? "all" : tracer_group_name(v->by));
	aio_json_string_field(j, "group", label);
	if (v->sample > 1) {
		aio_json_u64_field(j, "sample", v->sample);
		aio_json_double_field(j, "coverage", v->coverage);
	}
	aio_json_u64_field(j, "count", d->count);
	aio_json_u64_field(j, "p50_ns", p[0]);
	aio_json_u64_field(j, "p90_ns", p[1]);
	aio_json_u64_field(j, "p99_ns", p[2]);
	aio_json_u64_field(j, "p999_ns", p[3]);
	aio_json_u64_field(j, "max_ns", p[4]);
	aio_json_name(j, "buckets");
	aio_json_start_array(j);
	for (unsigned int b = 0; b < AIO_HIST_BUCKETS; b++) {
		if (!d->buckets[b])
			continue;
		aio_json_start_array(j);
		aio_json_u64(j, aio_bucket_lower(b));
		aio_json_u64(j, aio_bucket_upper(b));
		aio_json_u64(j, d->buckets[b]);
		aio_json_end_array(j);
	}
	aio_json_end_array(j);
	aio_json_end_object(j);
}

/* One group's interval as text: a summary line, then the histogram. */
static void group_text(const struct hist_view *v, enum aios_hist_kind kind, const char *label,
		       const struct aio_hist *d, const __u64 p[5])
{
	char s[5][16], what[80];

	if (is_batch_kind(kind)) {
		printf("\n%s (%s per call): count %llu  p50 %llu  p90 %llu  p99 %llu  "
		       "max %llu\n", kind_name(kind),
		       kind == AIOS_H_SUBMIT_BATCH ? "requests" : "events",
		       (unsigned long long)d->count, (unsigned long long)p[0],
		       (unsigned long long)p[1], (unsigned long long)p[2],
		       (unsigned long long)p[4]);
		print_counts(d);
		return;
	}
	for (int k = 0; k < 5; k++)
		aio_fmt_ns(s[k], sizeof(s[k]), p[k]);
	if (v->by == AIOS_BY_NONE)
		snprintf(what, sizeof(what), "%s", kind_name(kind));
	else
		snprintf(what, sizeof(what), "%s, %s %s", kind_name(kind),
			 tracer_group_name(v->by), label);
	printf("\n%s: count %llu  p50 <=%s  p90 <=%s  p99 <=%s  "
	       "p99.9 <=%s  max %s\n", what,
	       (unsigned long long)d->count, s[0], s[1], s[2], s[3], s[4]);
	aio_hist_print_log2(d, stdout, NULL);
}

const char *hist_view_group_label(enum aios_group by, uint64_t g, char *buf, size_t len)
{
	struct hist_view v = { .by = by };

	return group_label(&v, AIOS_H_LAT, g, buf, len);
}

void hist_view_init(struct hist_view *v, bool json, enum aios_group by, const char *mode)
{
	memset(v, 0, sizeof(*v));
	v->json = json;
	v->by = by;
	v->mode = mode;
	aio_json_init(&v->j, stdout, false);
}

int hist_view_group_cmp(const void *a, const void *b)
{
	const struct hist_view_group *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->group < y->group ? -1 : x->group > y->group;
}

void hist_view_interval(struct hist_view *v, uint64_t idx, const struct timespec *rt,
			const struct hist_view_group *g, size_t n)
{
	static const double pct[5] = { 50, 90, 99, 99.9, 100 };
	char tbuf[32], lbuf[48];
	bool any = false;

	if (!v->json) {
		struct tm tm;

		localtime_r(&rt->tv_sec, &tm);
		strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
		printf("\n[%s] mode %s", tbuf, v->mode);
		if (v->sample > 1)
			printf(", sampled 1 in %u (coverage %.2f%%)", v->sample,
			       100.0 * v->coverage);
		putchar('\n');
	}
	for (size_t i = 0; i < n; i++) {
		const struct aio_hist *d = g[i].h;
		const char *label = group_label(v, g[i].kind, g[i].group, lbuf, sizeof(lbuf));
		__u64 p[5] = { 0 };

		if (!d->count)
			continue;
		any = true;
		for (int k = 0; k < 5; k++)
			aio_hist_percentile(d, pct[k], &p[k]);
		p[4] = d->max;
		if (v->json)
			group_json(v, idx, rt, g[i].kind, label, d, p);
		else
			group_text(v, g[i].kind, label, d, p);
	}
	if (!v->json && !any)
		printf("(no requests)\n");
	fflush(stdout);
}
