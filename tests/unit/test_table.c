// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cli/core/table.[ch]. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
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
	UASSERT(aio_table_snapshot(t, NULL) == -EINVAL, "NULL snapshot");
	UASSERT(aio_table_sort(t, AIO_COL_NR, true) == -EINVAL,
		"bad column accepted");
	UASSERT(aio_table_totals(t, NULL, NULL) == -EINVAL, "NULL totals");
	UASSERT(aio_table_totals(NULL, &tot, NULL) == -EINVAL,
		"NULL table totals");
	UASSERT(aio_table_set_filter(t,
		"0123456789012345678901234567890123456789012345678901234567890123")
			== -EINVAL, "64-char filter accepted");
	UASSERT(aio_table_row(t, 0) == NULL, "row of an empty table");
	UASSERT(aio_table_selected(t, NULL) == -ENOENT, "selection on empty");
	UASSERT(aio_table_select_move(t, 1) == -ENOENT, "move on empty");
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
	a = aio_table_find(t, 100);
	b = aio_table_find(t, 200);
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
	a = aio_table_find(t, 100);
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
		UASSERT(aio_table_find(t, 1) != NULL,
			"row swept after only %d idle intervals", k);
	}
	aio_table_end_interval(t, SEC, SEC, NULL);
	UASSERT(aio_table_find(t, 1) == NULL, "row 1 not swept after 3");
	UASSERT(aio_table_find(t, 2) != NULL, "row 2 swept too early");
	UASSERT(aio_table_size(t) == 1 && aio_table_visible(t) == 1,
		"size %zu visible %zu", aio_table_size(t),
		aio_table_visible(t));
	/* it comes back from zero */
	complete(t, 1, "a", 0, 1, 1, 1, false);
	aio_table_end_interval(t, SEC, SEC, NULL);
	UASSERT(aio_table_find(t, 1) &&
			aio_table_find(t, 1)->delta.reads == 1,
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
		UASSERT((aio_table_find(t, pid) != NULL) == (pid % 3 == 1),
			"pid %u wrongly %s", pid,
			aio_table_find(t, pid) ? "kept" : "swept");
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
	r = aio_table_find(t, 42);
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
	r = aio_table_find(t, 77);
	UASSERT(r && r->inflight == 1 && r->stuck == 0 &&
			!strcmp(r->ident.comm, "hung"),
		"pending-only row: %p", (const void *)r);
	aio_table_end_interval(t, 11 * SEC, SEC, inf);
	r = aio_table_find(t, 77);
	UASSERT(r && r->stuck == 1, "age 1.5 s should be stuck");
	aio_table_free(t);
	aio_inflight_free(inf);
}

static void test_table_snapshot_new_id_from_zero(void)
{
	struct aio_table *t = aio_table_new(AIO_GROUP_DEV, NULL);
	struct aio_snap s;
	const struct aio_row *r;

	UASSERT(t, "new failed");
	memset(&s, 0, sizeof(s));
	s.id = 8;
	s.cum.reads = 1000;
	s.cum.read_bytes = 4096000;
	aio_table_snapshot(t, &s);
	aio_table_end_interval(t, SEC, SEC, NULL);
	r = aio_table_find(t, 8);
	UASSERT(r && r->delta.reads == 1000 && r->reads_s == 1000.0,
		"new id should count from zero: %llu",
		r ? (unsigned long long)r->delta.reads : 0ULL);
	s.cum.reads = 1500;
	aio_table_snapshot(t, &s);
	aio_table_end_interval(t, 2 * SEC, SEC, NULL);
	r = aio_table_find(t, 8);
	UASSERT(r->delta.reads == 500 && r->delta.read_bytes == 0,
		"second delta %llu", (unsigned long long)r->delta.reads);
	aio_table_free(t);
}

static void test_table_snapshot_new_id_rate_zero(void)
{
	struct aio_table_opts o = { .linger = 2, .new_rate_zero = true,
				    .stuck_ns = SEC };
	struct aio_table *t = aio_table_new(AIO_GROUP_DEV, &o);
	struct aio_snap s;
	const struct aio_row *r;

	UASSERT(t, "new failed");
	memset(&s, 0, sizeof(s));
	s.id = 8;
	s.cum.writes = 1000;
	aio_table_snapshot(t, &s);
	aio_table_end_interval(t, SEC, SEC, NULL);
	r = aio_table_find(t, 8);
	UASSERT(r && r->delta.writes == 0, "iotop mode: first delta %llu",
		r ? (unsigned long long)r->delta.writes : 0ULL);
	s.cum.writes = 1010;
	aio_table_snapshot(t, &s);
	aio_table_end_interval(t, 2 * SEC, SEC, NULL);
	UASSERT(aio_table_find(t, 8)->delta.writes == 10, "second delta");
	aio_table_free(t);
}

static void test_table_snapshot_wrap_and_reset(void)
{
	struct aio_table *t = aio_table_new(AIO_GROUP_CTX, NULL);
	struct aio_snap s;

	UASSERT(t, "new failed");
	memset(&s, 0, sizeof(s));
	s.id = 0xabc;
	s.cum.reads = ~0ULL - 2;
	s.cum.errors = 50;
	aio_table_snapshot(t, &s);
	aio_table_end_interval(t, SEC, SEC, NULL);
	s.cum.reads = 4;	/* wrapped: +7 */
	s.cum.errors = 10;	/* went backwards: reset, 0 */
	aio_table_snapshot(t, &s);
	aio_table_end_interval(t, 2 * SEC, SEC, NULL);
	UASSERT(aio_table_find(t, 0xabc)->delta.reads == 7,
		"wrapped delta %llu",
		(unsigned long long)aio_table_find(t, 0xabc)->delta.reads);
	UASSERT(aio_table_find(t, 0xabc)->delta.errors == 0,
		"reset counter gave %llu",
		(unsigned long long)aio_table_find(t, 0xabc)->delta.errors);
	aio_table_free(t);
}

static void test_table_snapshot_buckets_and_depth(void)
{
	static __u64 cum[AIO_HIST_BUCKETS];
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, NULL);
	struct aio_snap s;
	const struct aio_row *r;
	__u32 b1 = aio_bucket(100000), b2 = aio_bucket(8000000);

	UASSERT(t, "new failed");
	memset(cum, 0, sizeof(cum));
	memset(&s, 0, sizeof(s));
	s.id = 5;
	s.cum_buckets = cum;
	cum[b1] = 100;
	s.cum.reads = 100;
	s.has_depth = true;
	s.inflight = 3;
	s.max_inflight = 9;
	s.stuck = 1;
	aio_table_snapshot(t, &s);
	aio_table_end_interval(t, SEC, SEC, NULL);
	r = aio_table_find(t, 5);
	UASSERT(r->lat_count == 100 && r->p99_ns == aio_bucket_upper(b1),
		"first interval lat %llu p99 %llu",
		(unsigned long long)r->lat_count,
		(unsigned long long)r->p99_ns);
	UASSERT(r->inflight == 3 && r->max_inflight == 9 && r->stuck == 1,
		"depth from snapshot %u/%u/%u", r->inflight, r->max_inflight,
		r->stuck);
	cum[b2] = 10;	/* only slow requests in the second interval */
	s.has_depth = false;
	s.cum_lat_sum_ns = 0;
	aio_table_snapshot(t, &s);
	aio_table_end_interval(t, 2 * SEC, SEC, NULL);
	r = aio_table_find(t, 5);
	UASSERT(r->lat_count == 10 && r->p99_ns == aio_bucket_upper(b2),
		"second interval lat %llu p99 %llu",
		(unsigned long long)r->lat_count,
		(unsigned long long)r->p99_ns);
	UASSERT(r->avg_ns >= aio_bucket_lower(b2) &&
			r->avg_ns <= aio_bucket_upper(b2),
		"avg %llu", (unsigned long long)r->avg_ns);
	UASSERT(r->inflight == 0, "depth without snapshot depth or inflight");
	aio_table_free(t);
}

/* the dashboard's way: events, then a snapshot that only adds the depth */
static void test_table_events_plus_depth_snapshot(void)
{
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, NULL);
	const struct aio_row *r;
	struct aio_snap s;
	int i;

	UASSERT(t, "new failed");
	for (i = 0; i < 30; i++)
		complete(t, 9, "app", 1, 512, 512, 2000, false);
	r = aio_table_find(t, 9);
	UASSERT(r, "row missing");
	memset(&s, 0, sizeof(s));
	s.id = 9;
	s.ident = r->ident;
	s.cum = r->total;
	s.has_depth = true;
	s.inflight = 4;
	s.max_inflight = 16;
	UASSERT(aio_table_snapshot(t, &s) == 0, "snapshot");
	aio_table_end_interval(t, SEC, SEC / 2, NULL);
	r = aio_table_find(t, 9);
	UASSERT(r->delta.writes == 30 && r->writes_s == 60.0,
		"writes %llu rate %f (must not double count)",
		(unsigned long long)r->delta.writes, r->writes_s);
	UASSERT(r->lat_count == 30 && r->inflight == 4 &&
			r->max_inflight == 16,
		"lat %llu depth %u/%u", (unsigned long long)r->lat_count,
		r->inflight, r->max_inflight);
	/* next interval without a depth snapshot: depth falls back to 0 */
	aio_table_end_interval(t, 2 * SEC, SEC, NULL);
	r = aio_table_find(t, 9);
	UASSERT(r && r->inflight == 0 && r->max_inflight == 0 &&
			r->delta.writes == 0,
		"stale depth %u/%u", r ? r->inflight : 0,
		r ? r->max_inflight : 0);
	aio_table_free(t);
}

/* rows with p99 0, 1 and 2^63+x: a comparator casting to int fails */
static void test_table_sort_large_values_and_ties(void)
{
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, NULL);
	struct aio_snap s;
	__u64 order[5];
	size_t i;

	UASSERT(t, "new failed");
	memset(&s, 0, sizeof(s));
	/* five rows: reads 5, 0x100000000 + 1, 1, 5 (tie), 0 */
	{
		__u64 reads[5] = { 5, 0x100000001ULL, 1, 5, 0 };
		__u32 pids[5] = { 30, 10, 20, 25, 40 };

		for (i = 0; i < 5; i++) {
			s.id = pids[i];
			s.ident.pid = pids[i];
			snprintf(s.ident.comm, sizeof(s.ident.comm), "c%zu", i);
			s.cum.reads = reads[i];
			aio_table_snapshot(t, &s);
		}
	}
	aio_table_end_interval(t, SEC, SEC, NULL);
	UASSERT(aio_table_sort(t, AIO_COL_RPS, true) == 0, "sort");
	for (i = 0; i < 5; i++)
		order[i] = aio_table_row(t, i)->id;
	UASSERT(order[0] == 10 && order[1] == 25 && order[2] == 30 &&
			order[3] == 20 && order[4] == 40,
		"R/s desc order %llu %llu %llu %llu %llu (ties by id asc)",
		(unsigned long long)order[0], (unsigned long long)order[1],
		(unsigned long long)order[2], (unsigned long long)order[3],
		(unsigned long long)order[4]);
	aio_table_sort(t, AIO_COL_RPS, false);
	for (i = 0; i < 5; i++)
		order[i] = aio_table_row(t, i)->id;
	UASSERT(order[0] == 40 && order[1] == 20 && order[2] == 25 &&
			order[3] == 30 && order[4] == 10,
		"R/s asc order %llu %llu %llu %llu %llu",
		(unsigned long long)order[0], (unsigned long long)order[1],
		(unsigned long long)order[2], (unsigned long long)order[3],
		(unsigned long long)order[4]);
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

static void test_table_selection_follows_id(void)
{
	struct aio_table_opts o = { .linger = 0, .stuck_ns = SEC };
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, &o);
	__u64 id = 0;
	__u32 pid;
	int k;

	UASSERT(t, "new failed");
	for (pid = 1; pid <= 5; pid++)
		for (k = 0; k < (int)pid; k++)
			complete(t, pid, "w", 0, 1, 1, 1, false);
	aio_table_end_interval(t, SEC, SEC, NULL);
	aio_table_sort(t, AIO_COL_RPS, true);	/* 5 4 3 2 1 */
	UASSERT(aio_table_select(t, 4) == 1, "select pid 4 at index 1");
	UASSERT(aio_table_select(t, 99) == -ENOENT, "select absent id");
	UASSERT(aio_table_selected(t, &id) == 1 && id == 4,
		"failed select changed the selection");
	aio_table_sort(t, AIO_COL_RPS, false);	/* 1 2 3 4 5 */
	UASSERT(aio_table_selected(t, &id) == 3 && id == 4,
		"after re-sort: index %zd id %llu",
		aio_table_selected(t, &id), (unsigned long long)id);
	/* next interval: pid 4 becomes the busiest */
	for (pid = 1; pid <= 5; pid++)
		for (k = 0; k < (pid == 4 ? 50 : 1); k++)
			complete(t, pid, "w", 0, 1, 1, 1, false);
	aio_table_end_interval(t, 2 * SEC, SEC, NULL);
	aio_table_sort(t, AIO_COL_RPS, true);
	UASSERT(aio_table_selected(t, &id) == 0 && id == 4,
		"after refresh: index %zd", aio_table_selected(t, &id));
	UASSERT(aio_table_select_move(t, 2) == 2, "move down 2");
	UASSERT(aio_table_select_move(t, 100) == 4, "move clamps at last");
	UASSERT(aio_table_select_move(t, -100) == 0, "move clamps at first");
	UASSERT(aio_table_select_move(t, LONG_MIN) == 0, "move LONG_MIN");
	aio_table_select(t, 3);
	/* pid 3 goes idle and is swept (linger 0): selection stays at index */
	for (pid = 1; pid <= 5; pid++)
		if (pid != 3)
			complete(t, pid, "w", 0, 1, 1, 1, false);
	aio_table_end_interval(t, 3 * SEC, SEC, NULL);
	UASSERT(aio_table_find(t, 3) == NULL, "pid 3 not swept");
	UASSERT(aio_table_selected(t, &id) >= 0 && id != 3,
		"selection still on a swept row");
	aio_table_free(t);
}

static void test_table_filter(void)
{
	struct aio_table *t = aio_table_new(AIO_GROUP_PID, NULL);
	__u64 id;

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
	aio_table_select(t, 200);
	aio_table_set_filter(t, "zzz");
	UASSERT(aio_table_visible(t) == 0, "no match");
	UASSERT(aio_table_selected(t, &id) == -ENOENT,
		"selection with nothing visible");
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

int main(void)
{
	RUN(test_table_invalid_arguments);
	RUN(test_table_column_names);
	RUN(test_table_event_interval_counters);
	RUN(test_table_sweep_after_linger);
	RUN(test_table_sweep_many_rows);
	RUN(test_table_inflight_depth_and_stuck);
	RUN(test_table_snapshot_new_id_from_zero);
	RUN(test_table_snapshot_new_id_rate_zero);
	RUN(test_table_snapshot_wrap_and_reset);
	RUN(test_table_snapshot_buckets_and_depth);
	RUN(test_table_events_plus_depth_snapshot);
	RUN(test_table_sort_large_values_and_ties);
	RUN(test_table_sort_u64_difference);
	RUN(test_table_selection_follows_id);
	RUN(test_table_filter);
	RUN(test_table_totals);
	return unit_done("table");
}
