// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cli/core/table.[ch]. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/core/table.h"
#include "unit.h"

#define SEC 1000000000ULL

static struct aio_req req(__u64 id, __u32 pid, const char *comm, __u8 op,
			  __u64 ts)
{
	struct aio_req r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.pid = pid;
	r.tid = pid;
	r.dev = 0x800010 + pid % 2;
	r.ctx = 0x7f0000 + pid;
	r.ino = 100 + pid;
	r.op = op;
	r.len = 4096;
	r.ts_ns = ts;
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	return r;
}

static void complete(struct aio_table *t, __u32 pid, const char *comm,
		     __u8 op, __u64 bytes, __s64 res, __u64 lat, bool cncl)
{
	struct aio_req r = req(1, pid, comm, op, 0);

	aio_table_complete(t, &r, bytes, res, lat, cncl);
}

/* the visible row of id; where the tests look rows up no filter is set */
static const struct aio_row *find(const struct aio_table *t, __u64 id)
{
	size_t i;

	for (i = 0; i < aio_table_visible(t); i++) {
		if (aio_table_row(t, i)->id == id)
			return aio_table_row(t, i);
	}
	return NULL;
}

static void test_table_invalid_arguments(void)
{
	struct aio_table *t;
	struct aio_row tot;

	errno = 0;
	UASSERT(aio_table_new(AIO_GROUP_NR, NULL) == NULL && errno == EINVAL,
		"bad kind accepted");
	t = aio_table_new(AIO_GROUP_PID, NULL);
	UASSERT(t, "new failed");
	UASSERT(aio_table_end_interval(t, 0, 0, NULL) == -EINVAL,
		"interval 0 accepted");
	UASSERT(aio_table_complete(t, NULL, 0, 0, 0, false) == -EINVAL,
		"NULL request accepted");
	UASSERT(aio_table_sort(t, AIO_COL_NR, true) == -EINVAL,
		"bad column accepted");
	UASSERT(aio_table_totals(t, NULL, NULL) == -EINVAL, "NULL totals");
	UASSERT(aio_table_totals(NULL, &tot, NULL) == -EINVAL,
		"NULL table totals");
	UASSERT(aio_table_set_filter(t,
		"0123456789012345678901234567890123456789012345678901234567890123")
			== -EINVAL, "64-char filter accepted");
	UASSERT(aio_table_row(t, 0) == NULL, "row of an empty table");
	aio_table_free(t);
	aio_table_free(NULL);
}

static void test_table_column_names(void)
{
	UASSERT(!strcmp(aio_col_name(AIO_COL_RPS), "R/s"), "R/s label");
	UASSERT(!strcmp(aio_col_name(AIO_COL_QDMAX), "QD-MAX"), "QD-MAX");
	UASSERT(aio_col_name(AIO_COL_NR) == NULL, "label past the end");
	UASSERT(aio_col_parse("p99") == AIO_COL_P99, "parse p99");
	UASSERT(aio_col_parse("MB/s") == AIO_COL_BPS, "parse MB/s");
	UASSERT(aio_col_parse("stuck") == AIO_COL_STUCK, "parse stuck");
	UASSERT(aio_col_parse("nope") == -EINVAL, "parse unknown");
	UASSERT(aio_col_parse(NULL) == -EINVAL, "parse NULL");
}

static void test_table_event_interval_counters(void)
{
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, NULL);
	const struct aio_row *a, *b;
	int i;

	UASSERT(t, "new failed");
	for (i = 0; i < 10; i++)
		complete(t, 100, "fio", 0, 4096, 4096, 1000000 + i, false);
	for (i = 0; i < 4; i++)
		complete(t, 100, "fio", 1, 8192, 8192, 2000000, false);
	complete(t, 100, "fio", 1, 0, -5, 3000000, false);
	complete(t, 200, "db", 0, 0, -125, 500, true);
	UASSERT(aio_table_end_interval(t, 10 * SEC, 2 * SEC, NULL) == 0,
		"end_interval");
	a = find(t, 100);
	b = find(t, 200);
	UASSERT(a && b, "rows missing");
	UASSERT(a->delta.reads == 10 && a->delta.writes == 5,
		"reads %llu writes %llu", (unsigned long long)a->delta.reads,
		(unsigned long long)a->delta.writes);
	UASSERT(a->delta.read_bytes == 40960 &&
			a->delta.write_bytes == 32768,
		"bytes %llu/%llu", (unsigned long long)a->delta.read_bytes,
		(unsigned long long)a->delta.write_bytes);
	UASSERT(a->delta.errors == 1 && a->delta.cancelled == 0,
		"errors %llu", (unsigned long long)a->delta.errors);
	UASSERT(a->reads_s == 5.0 && a->writes_s == 2.5,
		"rates %f %f", a->reads_s, a->writes_s);
	UASSERT(a->bytes_s == (40960.0 + 32768.0) / 2, "bytes/s %f",
		a->bytes_s);
	UASSERT(a->lat_count == 15 && a->max_ns == 3000000,
		"latency count %llu max %llu",
		(unsigned long long)a->lat_count,
		(unsigned long long)a->max_ns);
	UASSERT(a->p99_ns == 3000000, "p99 %llu",
		(unsigned long long)a->p99_ns);
	UASSERT(b->delta.cancelled == 1 && b->delta.errors == 0 &&
			b->delta.reads == 0 && b->lat_count == 0,
		"cancelled row: cncl %llu err %llu reads %llu lat %llu",
		(unsigned long long)b->delta.cancelled,
		(unsigned long long)b->delta.errors,
		(unsigned long long)b->delta.reads,
		(unsigned long long)b->lat_count);
	UASSERT(!strcmp(a->ident.comm, "fio") && a->ident.pid == 100,
		"identity %s/%u", a->ident.comm, a->ident.pid);
	/* second interval: nothing happened */
	complete(t, 200, "db", 0, 4096, 4096, 700, false);
	aio_table_end_interval(t, 11 * SEC, SEC, NULL);
	a = find(t, 100);
	UASSERT(a && a->delta.reads == 0 && a->reads_s == 0 &&
			a->lat_count == 0 && a->p99_ns == 0,
		"idle interval kept old values");
	UASSERT(a->total.reads == 10, "cumulative reads %llu",
		(unsigned long long)a->total.reads);
	aio_table_free(t);
}

static void test_table_sweep_after_linger(void)
{
	struct aio_table_opts o = { .linger = 2, .stuck_ns = SEC };
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, &o);
	int k;

	UASSERT(t, "new failed");
	complete(t, 1, "a", 0, 1, 1, 1, false);
	complete(t, 2, "b", 0, 1, 1, 1, false);
	aio_table_end_interval(t, SEC, SEC, NULL);
	UASSERT(aio_table_size(t) == 2, "size %zu", aio_table_size(t));
	for (k = 1; k <= 2; k++) {
		complete(t, 2, "b", 0, 1, 1, 1, false);
		aio_table_end_interval(t, SEC, SEC, NULL);
		UASSERT(find(t, 1) != NULL,
			"row swept after only %d idle intervals", k);
	}
	aio_table_end_interval(t, SEC, SEC, NULL);
	UASSERT(find(t, 1) == NULL, "row 1 not swept after 3");
	UASSERT(find(t, 2) != NULL, "row 2 swept too early");
	UASSERT(aio_table_size(t) == 1 && aio_table_visible(t) == 1,
		"size %zu visible %zu", aio_table_size(t),
		aio_table_visible(t));
	/* it comes back from zero */
	complete(t, 1, "a", 0, 1, 1, 1, false);
	aio_table_end_interval(t, SEC, SEC, NULL);
	UASSERT(find(t, 1) &&
			find(t, 1)->delta.reads == 1,
		"returning row not counted from zero");
	aio_table_free(t);
}

static void test_table_sweep_many_rows(void)
{
	struct aio_table_opts o = { .linger = 0, .stuck_ns = SEC };
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, &o);
	__u32 pid;

	UASSERT(t, "new failed");
	for (pid = 1; pid <= 3000; pid++)
		complete(t, pid, "x", 0, 1, 1, 1, false);
	aio_table_end_interval(t, SEC, SEC, NULL);
	UASSERT(aio_table_size(t) == 3000, "size %zu", aio_table_size(t));
	for (pid = 1; pid <= 3000; pid += 3)
		complete(t, pid, "x", 0, 1, 1, 1, false);
	aio_table_end_interval(t, SEC, SEC, NULL);
	UASSERT(aio_table_size(t) == 1000, "after sweep: %zu rows",
		aio_table_size(t));
	for (pid = 1; pid <= 3000; pid++)
		UASSERT((find(t, pid) != NULL) == (pid % 3 == 1),
			"pid %u wrongly %s", pid,
			find(t, pid) ? "kept" : "swept");
	aio_table_free(t);
}

static void test_table_inflight_depth_and_stuck(void)
{
	struct aio_inflight *inf = aio_inflight_new(0);
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, NULL);
	const struct aio_row *r;
	struct aio_req q;
	int i;

	UASSERT(inf && t, "new failed");
	for (i = 0; i < 5; i++) {
		q = req(0x100 + i * 64, 42, "stuckapp", 0, (__u64)i * SEC);
		aio_inflight_insert(inf, &q);
	}
	aio_inflight_remove(inf, 0x100 + 4 * 64, &q);
	aio_table_complete(t, &q, 4096, 4096, 1000, false);
	/* now 10 s: ages 10, 9, 8, 7 s; threshold 1 s default */
	aio_table_end_interval(t, 10 * SEC, SEC, inf);
	r = find(t, 42);
	UASSERT(r, "row missing");
	UASSERT(r->inflight == 4 && r->max_inflight == 5 && r->stuck == 4,
		"inflight %u max %u stuck %u", r->inflight, r->max_inflight,
		r->stuck);
	aio_inflight_interval_reset(inf);
	/* a group with only pending requests gets a row, never swept */
	q = req(0x900, 77, "hung", 1, 9 * SEC + 500000000ULL);
	aio_inflight_insert(inf, &q);
	for (i = 0; i < 5; i++)
		aio_table_end_interval(t, 10 * SEC, SEC, inf);
	r = find(t, 77);
	UASSERT(r && r->inflight == 1 && r->stuck == 0 &&
			!strcmp(r->ident.comm, "hung"),
		"pending-only row: %p", (const void *)r);
	aio_table_end_interval(t, 11 * SEC, SEC, inf);
	r = find(t, 77);
	UASSERT(r && r->stuck == 1, "age 1.5 s should be stuck");
	aio_table_free(t);
	aio_inflight_free(inf);
}

static void sort_order(struct aio_table *t, enum aio_col c, bool desc,
		       __u64 order[5])
{
	size_t i;

	aio_table_sort(t, c, desc);
	for (i = 0; i < 5; i++)
		order[i] = aio_table_row(t, i)->id;
}

/* values 2^32 apart and ties: a comparator casting a difference to int fails */
static void test_table_sort_large_values_and_ties(void)
{
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, NULL);
	/* five rows: reads 5, 7, 1, 5 (tie), 0; bytes 5, 2^32 + 1, 1, 5, 0 */
	static const __u64 reads[5] = { 5, 7, 1, 5, 0 };
	static const __u64 bytes[5] = { 5, 0x100000001ULL, 1, 5, 0 };
	static const __u32 pids[5] = { 30, 10, 20, 25, 40 };
	static const enum aio_col cols[2] = { AIO_COL_RPS, AIO_COL_BPS };
	__u64 order[5];
	size_t i, k;

	UASSERT(t, "new failed");
	for (i = 0; i < 5; i++) {
		char comm[8];

		snprintf(comm, sizeof(comm), "c%zu", i);
		for (k = 0; k < reads[i]; k++)
			complete(t, pids[i], comm, 0, k ? 0 : bytes[i], 1, 1, false);
		if (!reads[i])	/* a row with nothing read */
			complete(t, pids[i], comm, 0, 0, 0, 1, true);
	}
	aio_table_end_interval(t, SEC, SEC, NULL);
	UASSERT(aio_table_sort(t, AIO_COL_RPS, true) == 0, "sort");
	for (k = 0; k < 2; k++) {
		const char *name = aio_col_name(cols[k]);

		sort_order(t, cols[k], true, order);
		UASSERT(order[0] == 10 && order[1] == 25 && order[2] == 30 &&
				order[3] == 20 && order[4] == 40,
			"%s desc order %llu %llu %llu %llu %llu (ties by id asc)",
			name, (unsigned long long)order[0],
			(unsigned long long)order[1], (unsigned long long)order[2],
			(unsigned long long)order[3], (unsigned long long)order[4]);
		sort_order(t, cols[k], false, order);
		UASSERT(order[0] == 40 && order[1] == 20 && order[2] == 25 &&
				order[3] == 30 && order[4] == 10,
			"%s asc order %llu %llu %llu %llu %llu", name,
			(unsigned long long)order[0], (unsigned long long)order[1],
			(unsigned long long)order[2], (unsigned long long)order[3],
			(unsigned long long)order[4]);
	}
	aio_table_sort(t, AIO_COL_PID, true);
	UASSERT(aio_table_row(t, 0)->id == 40 && aio_table_row(t, 4)->id == 10,
		"PID desc");
	aio_table_sort(t, AIO_COL_COMM, false);
	UASSERT(!strcmp(aio_table_row(t, 0)->ident.comm, "c0") &&
			!strcmp(aio_table_row(t, 4)->ident.comm, "c4"),
		"COMM asc");
	aio_table_free(t);
}

static void test_table_sort_u64_difference(void)
{
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, NULL);
	static const __u64 want[3] = { 2, 1, 3 };
	int i;

	UASSERT(t, "new failed");
	/* latencies whose difference is 2^32: (int)(a - b) would be 0 */
	complete(t, 1, "a", 0, 1, 1, 1ULL << 33, false);
	complete(t, 2, "b", 0, 1, 1, (1ULL << 33) + (1ULL << 32), false);
	complete(t, 3, "c", 0, 1, 1, 1000, false);
	aio_table_end_interval(t, SEC, SEC, NULL);
	aio_table_sort(t, AIO_COL_MAX, true);
	for (i = 0; i < 3; i++)
		UASSERT(aio_table_row(t, (size_t)i)->id == want[i],
			"MAX desc position %d has id %llu", i,
			(unsigned long long)aio_table_row(t, (size_t)i)->id);
	aio_table_free(t);
}

static void test_table_filter(void)
{
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, NULL);

	UASSERT(t, "new failed");
	complete(t, 100, "fio", 0, 1, 1, 1, false);
	complete(t, 200, "postgres", 0, 1, 1, 1, false);
	complete(t, 1234, "FIOwriter", 0, 1, 1, 1, false);
	complete(t, 300, "x1234y", 0, 1, 1, 1, false);
	aio_table_end_interval(t, SEC, SEC, NULL);
	UASSERT(aio_table_visible(t) == 4, "all visible");
	aio_table_set_filter(t, "fio");
	UASSERT(aio_table_visible(t) == 2, "comm 'fio' (case-insensitive): %zu",
		aio_table_visible(t));
	aio_table_set_filter(t, "1234");
	UASSERT(aio_table_visible(t) == 2,
		"'1234' should match pid 1234 and comm x1234y: %zu",
		aio_table_visible(t));
	aio_table_set_filter(t, "200");
	UASSERT(aio_table_visible(t) == 1 && aio_table_row(t, 0)->id == 200,
		"pid 200");
	aio_table_set_filter(t, "zzz");
	UASSERT(aio_table_visible(t) == 0, "no match");
	aio_table_set_filter(t, NULL);
	UASSERT(aio_table_visible(t) == 4, "filter cleared");
	UASSERT(aio_table_size(t) == 4, "filter must not drop rows");
	aio_table_free(t);
}

static void test_table_totals(void)
{
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, NULL);
	struct aio_row tot;
	struct aio_hist *h = malloc(sizeof(*h));
	int i;

	UASSERT(t && h, "new failed");
	for (i = 0; i < 99; i++)
		complete(t, 1, "a", 0, 100, 100, 1000, false);
	complete(t, 2, "b", 1, 200, 200, 5000000, false);
	complete(t, 2, "b", 1, 0, -5, 1000, false);
	aio_table_end_interval(t, SEC, SEC, NULL);
	aio_table_set_filter(t, "a");
	UASSERT(aio_table_totals(t, &tot, h) == 0, "totals");
	UASSERT(tot.delta.reads == 99 && tot.delta.writes == 2 &&
			tot.delta.errors == 1,
		"sums %llu %llu %llu (filter must be ignored)",
		(unsigned long long)tot.delta.reads,
		(unsigned long long)tot.delta.writes,
		(unsigned long long)tot.delta.errors);
	UASSERT(tot.delta.read_bytes == 9900 && tot.delta.write_bytes == 200,
		"bytes");
	UASSERT(tot.lat_count == 101 && h->count == 101 &&
			tot.max_ns == 5000000,
		"merged latency count %llu max %llu",
		(unsigned long long)tot.lat_count,
		(unsigned long long)tot.max_ns);
	UASSERT(tot.p99_ns == aio_bucket_upper(aio_bucket(1000)),
		"p99 of 101 with one slow: %llu",
		(unsigned long long)tot.p99_ns);
	free(h);
	aio_table_free(t);
}

/* where a row's requests spent their time: the stage with the most, its share */
static void test_table_stages(void)
{
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, NULL);
	struct aio_stages dev_bound = { .ns = { [AIO_STAGE_SUBMIT] = 10, [AIO_STAGE_QUEUE] = 20,
						[AIO_STAGE_DEVICE] = 900, [AIO_STAGE_COMPLETE] = 70 },
					.known = 1U << AIO_STAGE_SUBMIT | 1U << AIO_STAGE_QUEUE |
						 1U << AIO_STAGE_DEVICE | 1U << AIO_STAGE_COMPLETE };
	struct aio_stages reap_bound = { .ns = { [AIO_STAGE_DEVICE] = 100, [AIO_STAGE_REAP] = 300 },
					 .known = 1U << AIO_STAGE_DEVICE | 1U << AIO_STAGE_REAP };
	struct aio_stages none = { .known = 0 };
	struct aio_req a = req(1, 100, "db", 0, 0), b = req(2, 200, "app", 0, 0);
	struct aio_row tot;
	const struct aio_row *ra, *rb;

	UASSERT(t, "new failed");
	for (int i = 0; i < 3; i++) {
		aio_table_complete(t, &a, 4096, 4096, 1000, false);
		UASSERT(aio_table_stages(t, &a, &dev_bound) == 0, "stages");
	}
	aio_table_complete(t, &b, 4096, 4096, 400, false);
	aio_table_stages(t, &b, &reap_bound);
	aio_table_stages(t, &b, &none);
	UASSERT(aio_table_stages(NULL, &a, &none) == -EINVAL, "NULL table");
	UASSERT(aio_table_end_interval(t, 10 * SEC, SEC, NULL) == 0, "end_interval");
	ra = find(t, 100);
	rb = find(t, 200);
	UASSERT(ra && rb, "rows");
	UASSERT(ra->top_stage == AIO_STAGE_DEVICE && ra->top_stage_share == 0.9 &&
		ra->stage_ns[AIO_STAGE_DEVICE] == 2700, "db: %d %f", ra->top_stage,
		ra->top_stage_share);
	UASSERT(rb->top_stage == AIO_STAGE_REAP && rb->top_stage_share == 0.75,
		"app: %d %f", rb->top_stage, rb->top_stage_share);
	UASSERT(aio_table_totals(t, &tot, NULL) == 0 && tot.top_stage == AIO_STAGE_DEVICE &&
		tot.stage_ns[AIO_STAGE_DEVICE] == 2800 && tot.stage_ns[AIO_STAGE_REAP] == 300,
		"totals: %d", tot.top_stage);
	/* an interval without requests: no stage */
	UASSERT(aio_table_end_interval(t, 11 * SEC, SEC, NULL) == 0, "end_interval");
	ra = find(t, 100);
	UASSERT(!ra || (ra->top_stage == -1 && ra->top_stage_share == 0), "idle row: %d",
		ra->top_stage);
	aio_table_free(t);
}

int main(void)
{
	RUN(test_table_invalid_arguments);
	RUN(test_table_column_names);
	RUN(test_table_event_interval_counters);
	RUN(test_table_sweep_after_linger);
	RUN(test_table_sweep_many_rows);
	RUN(test_table_inflight_depth_and_stuck);
	RUN(test_table_sort_large_values_and_ties);
	RUN(test_table_sort_u64_difference);
	RUN(test_table_filter);
	RUN(test_table_totals);
	RUN(test_table_stages);
	return unit_done("table");
}
