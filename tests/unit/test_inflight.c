// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cli/core/inflight.[ch]. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/core/inflight.h"
#include "unit.h"

static struct aio_req mkreq(__u64 id, __u64 ts, __u32 pid, __u32 dev,
			    __u64 ctx, __u64 ino)
{
	struct aio_req r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.ts_ns = ts;
	r.pid = pid;
	r.tid = pid + 1;
	r.dev = dev;
	r.ctx = ctx;
	r.ino = ino;
	r.offset = (__s64)id * 4096;
	r.len = 4096;
	r.op = id & 1;
	r.api = 1;
	snprintf(r.comm, sizeof(r.comm), "proc%u", pid);
	return r;
}

static void test_inflight_struct_size(void)
{
	UASSERT(sizeof(struct aio_req) == 80, "struct aio_req is %zu bytes",
		sizeof(struct aio_req));
}

static void test_inflight_insert_lookup_remove(void)
{
	struct aio_inflight *t = aio_inflight_new(0);
	struct aio_req r = mkreq(0xffff888012345600ULL, 100, 7, 1, 2, 3), o;
	const struct aio_req *p;

	UASSERT(t, "new failed");
	UASSERT(aio_inflight_count(t) == 0, "new table not empty");
	UASSERT(aio_inflight_insert(t, &r) == 0, "insert");
	UASSERT(aio_inflight_count(t) == 1, "count after insert");
	p = aio_inflight_lookup(t, r.id);
	UASSERT(p && !memcmp(p, &r, sizeof(r)), "lookup returned wrong data");
	UASSERT(aio_inflight_lookup(t, r.id + 64) == NULL,
		"lookup of an absent id found something");
	memset(&o, 0, sizeof(o));
	UASSERT(aio_inflight_remove(t, r.id, &o) == 0, "remove");
	UASSERT(!memcmp(&o, &r, sizeof(r)), "remove copied wrong data");
	UASSERT(aio_inflight_count(t) == 0, "count after remove");
	UASSERT(aio_inflight_lookup(t, r.id) == NULL, "lookup after remove");
	UASSERT(aio_inflight_remove(t, r.id, NULL) == -ENOENT,
		"second remove should be -ENOENT");
	aio_inflight_free(t);
}

static void test_inflight_invalid_arguments(void)
{
	struct aio_inflight *t = aio_inflight_new(0);
	struct aio_req r = mkreq(0, 1, 1, 1, 1, 1);
	struct aio_depth d;

	UASSERT(t, "new failed");
	UASSERT(aio_inflight_insert(t, &r) == -EINVAL, "id 0 accepted");
	UASSERT(aio_inflight_insert(t, NULL) == -EINVAL, "NULL req accepted");
	UASSERT(aio_inflight_insert(NULL, &r) == -EINVAL, "NULL table");
	UASSERT(aio_inflight_remove(t, 0, NULL) == -EINVAL, "remove id 0");
	UASSERT(aio_inflight_lookup(t, 0) == NULL, "lookup id 0");
	UASSERT(aio_inflight_depth(t, AIO_GROUP_NR, 1, &d) == -EINVAL,
		"bad group kind accepted");
	UASSERT(aio_group_key(&r, AIO_GROUP_NR) == 0, "bad kind key");
	aio_inflight_free(t);
	aio_inflight_free(NULL);
}

/* a hint: on any table and any id (present, absent, 0) it changes nothing */
static void test_inflight_prefetch_changes_nothing(void)
{
	struct aio_inflight *t = aio_inflight_new(0);
	struct aio_req r = mkreq(0xffff888012345600ULL, 100, 7, 1, 2, 3);
	const struct aio_req *p;

	UASSERT(t, "new failed");
	aio_inflight_prefetch(NULL, r.id);
	aio_inflight_prefetch(t, r.id);
	UASSERT(aio_inflight_count(t) == 0, "prefetch added an entry");
	UASSERT(aio_inflight_insert(t, &r) == 0, "insert");
	aio_inflight_prefetch(t, r.id);
	aio_inflight_prefetch(t, r.id + 64);
	aio_inflight_prefetch(t, 0);
	UASSERT(aio_inflight_count(t) == 1, "prefetch changed the count");
	p = aio_inflight_lookup(t, r.id);
	UASSERT(p && !memcmp(p, &r, sizeof(r)), "prefetch changed the entry");
	aio_inflight_free(t);
}

static void test_inflight_replace_existing_id(void)
{
	struct aio_inflight *t = aio_inflight_new(0);
	struct aio_req a = mkreq(0x1000, 1, 10, 1, 0, 5);
	struct aio_req b = mkreq(0x1000, 2, 20, 1, 0, 5);
	struct aio_inflight_stats st;
	struct aio_depth d;

	UASSERT(t, "new failed");
	UASSERT(aio_inflight_insert(t, &a) == 0, "insert a");
	UASSERT(aio_inflight_insert(t, &b) == 1, "reinsert should return 1");
	UASSERT(aio_inflight_count(t) == 1, "count %zu",
		aio_inflight_count(t));
	UASSERT(aio_inflight_lookup(t, 0x1000)->pid == 20, "not replaced");
	aio_inflight_depth(t, AIO_GROUP_PID, 10, &d);
	UASSERT(d.cur == 0, "old pid still counted: %u", d.cur);
	aio_inflight_depth(t, AIO_GROUP_PID, 20, &d);
	UASSERT(d.cur == 1, "new pid not counted: %u", d.cur);
	aio_inflight_stats(t, &st);
	UASSERT(st.replaced == 1 && st.inserted == 2, "stats %llu/%llu",
		(unsigned long long)st.replaced,
		(unsigned long long)st.inserted);
	aio_inflight_free(t);
}

static void test_inflight_full_table_drops(void)
{
	struct aio_inflight *t = aio_inflight_new(3);
	struct aio_inflight_stats st;
	struct aio_req r;
	int i;

	UASSERT(t, "new failed");
	for (i = 1; i <= 3; i++) {
		r = mkreq((__u64)i * 64, 1, 1, 1, 1, 1);
		UASSERT(aio_inflight_insert(t, &r) == 0, "insert %d", i);
	}
	r = mkreq(4 * 64, 1, 1, 1, 1, 1);
	UASSERT(aio_inflight_insert(t, &r) == -ENOSPC, "4th insert accepted");
	r = mkreq(2 * 64, 9, 1, 1, 1, 1);
	UASSERT(aio_inflight_insert(t, &r) == 1,
		"replacing in a full table must work");
	aio_inflight_remove(t, 64, NULL);
	r = mkreq(4 * 64, 1, 1, 1, 1, 1);
	UASSERT(aio_inflight_insert(t, &r) == 0, "insert after remove");
	aio_inflight_stats(t, &st);
	UASSERT(st.dropped == 1, "dropped %llu",
		(unsigned long long)st.dropped);
	aio_inflight_free(t);
}

/* random churn against a reference array, through several resizes */
static void test_inflight_random_churn_matches_reference(void)
{
	enum { U = 20000, OPS = 400000 };
	static bool present[U];
	struct aio_inflight *t = aio_inflight_new(0);
	unsigned long long s = 7;
	size_t n = 0, i, pos = 0, seen = 0;
	const struct aio_req *p;
	int op;

	UASSERT(t, "new failed");
	memset(present, 0, sizeof(present));
	for (op = 0; op < OPS; op++) {
		size_t k = unit_rand(&s) % U;
		/* kiocb-like ids: aligned kernel addresses */
		__u64 id = 0xffff888000000000ULL + (__u64)k * 192;
		/* grow during the first half, then balance */
		bool ins = op < OPS / 2 ? (unit_rand(&s) % 4 != 0) :
					  (unit_rand(&s) % 2 == 0);

		if (ins) {
			struct aio_req r = mkreq(id, op, k % 50, k % 3, k % 7,
						 k);
			int rc = aio_inflight_insert(t, &r);

			UASSERT(rc == (present[k] ? 1 : 0),
				"insert %zu rc %d (present %d)", k, rc,
				present[k]);
			if (!present[k])
				n++;
			present[k] = true;
		} else {
			int rc = aio_inflight_remove(t, id, NULL);

			UASSERT(rc == (present[k] ? 0 : -ENOENT),
				"remove %zu rc %d (present %d)", k, rc,
				present[k]);
			if (present[k])
				n--;
			present[k] = false;
		}
		UASSERT(aio_inflight_count(t) == n, "count %zu, expected %zu",
			aio_inflight_count(t), n);
	}
	for (i = 0; i < U; i++) {
		__u64 id = 0xffff888000000000ULL + (__u64)i * 192;

		p = aio_inflight_lookup(t, id);
		UASSERT((p != NULL) == present[i], "lookup %zu: %p vs %d", i,
			(const void *)p, present[i]);
		UASSERT(!p || p->ino == i, "entry %zu has ino %llu", i,
			(unsigned long long)p->ino);
	}
	while ((p = aio_inflight_next(t, &pos)) != NULL)
		seen++;
	UASSERT(seen == n, "iteration saw %zu of %zu", seen, n);
	aio_inflight_free(t);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

/*
 * The file group's key: 64-bit inode numbers of two devices whose high halves differ
 * by dev1 ^ dev2 (XFS allocation groups, overlayfs layers) had one key with
 * (dev << 32) ^ ino, and one depth counted both files.
 */
static void test_inflight_file_key_64bit_inodes(void)
{
	struct aio_inflight *t = aio_inflight_new(0);
	__u32 d1 = (8U << 20) | 1, d2 = (8U << 20) | 2;
	__u64 ino1 = (3ULL << 32) | 0x85, ino2 = ino1 ^ ((__u64)(d1 ^ d2) << 32);
	struct aio_req a = mkreq(0x1000, 1, 10, d1, 0, ino1);
	struct aio_req b = mkreq(0x2000, 1, 10, d2, 0, ino2);
	struct aio_depth d;
	static __u64 keys[64 * 512];
	size_t n = 0;

	UASSERT(t, "new failed");
	UASSERT((((__u64)d1 << 32) ^ ino1) == (((__u64)d2 << 32) ^ ino2),
		"the pair does not collide under the old key");
	UASSERT(aio_group_key(&a, AIO_GROUP_FILE) != aio_group_key(&b, AIO_GROUP_FILE),
		"two files of two devices share a key");
	UASSERT(aio_inflight_insert(t, &a) == 0 && aio_inflight_insert(t, &b) == 0,
		"insert");
	UASSERT(aio_inflight_depth(t, AIO_GROUP_FILE, aio_group_key(&a, AIO_GROUP_FILE),
				   &d) == 0 && d.cur == 1, "file a: %u in flight", d.cur);
	UASSERT(aio_inflight_depth(t, AIO_GROUP_FILE, aio_group_key(&b, AIO_GROUP_FILE),
				   &d) == 0 && d.cur == 1, "file b: %u in flight", d.cur);
	/* the same pattern for other device pairs and high halves */
	for (__u32 i = 0; i < 64; i++) {
		for (__u32 j = i + 1; j < 64; j++) {
			__u64 hi = (__u64)i * 0x10001 + j;
			struct aio_req x = mkreq(1, 1, 1, (259U << 20) | i, 0, hi << 40 | 12);
			struct aio_req y = mkreq(2, 1, 1, (259U << 20) | j, 0,
						 (hi << 40 | 12) ^ ((__u64)(i ^ j) << 32));

			UASSERT(aio_group_key(&x, AIO_GROUP_FILE) !=
					aio_group_key(&y, AIO_GROUP_FILE),
				"devices %u and %u share a key", i, j);
		}
	}
	/* small inode numbers keep distinct keys across devices, as before */
	for (__u32 dv = 0; dv < 64; dv++) {
		for (__u64 ino = 0; ino < 512; ino++) {
			struct aio_req x = mkreq(1, 1, 1, (8U << 20) | dv, 0, ino * 7919);

			keys[n++] = aio_group_key(&x, AIO_GROUP_FILE);
		}
	}
	qsort(keys, n, sizeof(keys[0]), cmp_u64);
	for (size_t i = 1; i < n; i++)
		UASSERT(keys[i] != keys[i - 1], "two (dev, ino) pairs share key %llx",
			(unsigned long long)keys[i]);
	aio_inflight_free(t);
}

static void test_inflight_group_depth_and_max(void)
{
	struct aio_inflight *t = aio_inflight_new(0);
	struct aio_depth d;
	struct aio_req r;
	__u32 cur, max;
	int i;

	UASSERT(t, "new failed");
	/* pid 100: 4 requests on dev 8, ctx 0xa; pid 200: 2 on dev 9 */
	for (i = 0; i < 4; i++) {
		r = mkreq(0x1000 + i * 64, 1, 100, 8, 0xa, 11);
		aio_inflight_insert(t, &r);
	}
	for (i = 0; i < 2; i++) {
		r = mkreq(0x2000 + i * 64, 1, 200, 9, 0xb, 12);
		aio_inflight_insert(t, &r);
	}
	UASSERT(aio_inflight_depth(t, AIO_GROUP_PID, 100, &d) == 0 &&
			d.cur == 4 && d.max == 4, "pid 100: %u/%u", d.cur,
		d.max);
	UASSERT(aio_inflight_depth(t, AIO_GROUP_DEV, 9, &d) == 0 &&
			d.cur == 2, "dev 9: %u", d.cur);
	UASSERT(aio_inflight_depth(t, AIO_GROUP_CTX, 0xa, &d) == 0 &&
			d.cur == 4, "ctx a: %u", d.cur);
	r = mkreq(1, 1, 100, 8, 0xa, 11);
	UASSERT(aio_inflight_depth(t, AIO_GROUP_FILE,
				   aio_group_key(&r, AIO_GROUP_FILE), &d) ==
			0 && d.cur == 4, "file 8:11: %u", d.cur);
	for (i = 0; i < 3; i++)
		aio_inflight_remove(t, 0x1000 + i * 64, NULL);
	aio_inflight_depth(t, AIO_GROUP_PID, 100, &d);
	UASSERT(d.cur == 1 && d.max == 4, "after removes: %u/%u", d.cur,
		d.max);
	aio_inflight_total_depth(t, &cur, &max);
	UASSERT(cur == 3 && max == 6, "total %u/%u", cur, max);
	aio_inflight_interval_reset(t);
	aio_inflight_depth(t, AIO_GROUP_PID, 100, &d);
	UASSERT(d.cur == 1 && d.max == 1, "after reset: %u/%u", d.cur, d.max);
	aio_inflight_total_depth(t, &cur, &max);
	UASSERT(cur == 3 && max == 3, "total after reset %u/%u", cur, max);
	aio_inflight_remove(t, 0x1000 + 3 * 64, NULL);
	aio_inflight_depth(t, AIO_GROUP_PID, 100, &d);
	UASSERT(d.cur == 0 && d.max == 1, "drained in interval: %u/%u",
		d.cur, d.max);
	aio_inflight_interval_reset(t);
	UASSERT(aio_inflight_depth(t, AIO_GROUP_PID, 100, &d) == -ENOENT &&
			d.cur == 0 && d.max == 0,
		"idle group should be forgotten after reset");
	UASSERT(aio_inflight_depth(t, AIO_GROUP_PID, 200, &d) == 0 &&
			d.cur == 2, "pid 200 lost by reset");
	aio_inflight_free(t);
}

static void test_inflight_depth_many_groups(void)
{
	struct aio_inflight *t = aio_inflight_new(0);
	struct aio_depth d;
	struct aio_req r;
	__u32 cur;
	int i;

	UASSERT(t, "new failed");
	for (i = 0; i < 300; i++) {
		r = mkreq(0x10000 + i * 64, 1, 1000 + i % 100, 1, 0, 0);
		aio_inflight_insert(t, &r);
	}
	for (i = 0; i < 100; i++)
		UASSERT(aio_inflight_depth(t, AIO_GROUP_PID, 1000 + i, &d) == 0 &&
				d.cur == 3, "pid %d depth %u", 1000 + i, d.cur);
	aio_inflight_total_depth(t, &cur, NULL);
	UASSERT(cur == 300, "%u requests", cur);
	/* many idle groups deleted in one reset (backward shifts) */
	for (i = 0; i < 300; i++)
		if (i % 100 >= 10)
			aio_inflight_remove(t, 0x10000 + i * 64, NULL);
	aio_inflight_interval_reset(t);
	for (i = 0; i < 100; i++) {
		int rc = aio_inflight_depth(t, AIO_GROUP_PID, 1000 + i, &d);

		if (i < 10)
			UASSERT(rc == 0 && d.cur == 3 && d.max == 3,
				"lookup of surviving pid %d: rc %d %u/%u",
				1000 + i, rc, d.cur, d.max);
		else
			UASSERT(rc == -ENOENT, "pid %d still present: rc %d",
				1000 + i, rc);
	}
	aio_inflight_free(t);
}

/* group depth against a reference, many groups, several interval resets */
static void test_inflight_group_churn_matches_reference(void)
{
	enum { G = 3000, R = 30000, OPS = 200000 };
	static __u32 cur[G], mx[G];
	static bool live[R];
	struct aio_inflight *t = aio_inflight_new(0);
	unsigned long long s = 99;
	struct aio_depth d;
	int op, g;

	UASSERT(t, "new failed");
	memset(cur, 0, sizeof(cur));
	memset(mx, 0, sizeof(mx));
	memset(live, 0, sizeof(live));
	for (op = 0; op < OPS; op++) {
		size_t k = unit_rand(&s) % R;
		__u32 pid = (__u32)(k % G);
		__u64 id = 0x40 + (__u64)k * 64;

		if (!live[k]) {
			struct aio_req r = mkreq(id, op, pid, 1, 0, 0);

			UASSERT(aio_inflight_insert(t, &r) == 0, "insert");
			live[k] = true;
			if (++cur[pid] > mx[pid])
				mx[pid] = cur[pid];
		} else {
			UASSERT(aio_inflight_remove(t, id, NULL) == 0, "remove");
			live[k] = false;
			cur[pid]--;
		}
		if (op % 20000 == 19999) {
			for (g = 0; g < G; g++) {
				int rc = aio_inflight_depth(t, AIO_GROUP_PID,
							    (__u64)g, &d);

				if (!cur[g] && !mx[g])
					UASSERT(rc == -ENOENT,
						"pid %d should be absent", g);
				else
					UASSERT(rc == 0 && d.cur == cur[g] &&
							d.max == mx[g],
						"pid %d: rc %d %u/%u, want %u/%u",
						g, rc, d.cur, d.max, cur[g],
						mx[g]);
			}
			aio_inflight_interval_reset(t);
			for (g = 0; g < G; g++)
				mx[g] = cur[g];
		}
	}
	aio_inflight_free(t);
}

static void test_inflight_memory_per_request(void)
{
	enum { N = 100000 };
	struct aio_inflight *t = aio_inflight_new(0);
	struct aio_inflight_stats st;
	double per;
	int i;

	UASSERT(t, "new failed");
	for (i = 0; i < N; i++) {
		struct aio_req r = mkreq(0xffff888000000000ULL + i * 256ULL, i,
					 i % 64, i % 4, i % 16, i % 1000);

		UASSERT(aio_inflight_insert(t, &r) == 0, "insert %d", i);
	}
	aio_inflight_stats(t, &st);
	per = (double)st.bytes / N;
	printf("# %d pending requests: %zu bytes, %.1f bytes per request "
	       "(capacity %zu slots)\n", N, st.bytes, per, st.capacity);
	UASSERT(per <= 2.0 * 2 * sizeof(struct aio_req),
		"%.1f bytes per pending request", per);
	aio_inflight_free(t);
}

/* clear: empty like a new table (groups, maxima, counters), kept when a refill of
 * the same size fits, given back when it was 4 times too large; and usable again */
static void test_inflight_clear(void)
{
	struct aio_inflight *t = aio_inflight_new(0);
	struct aio_inflight_stats st;
	struct aio_depth d;
	struct aio_req r;
	__u32 cur, max;
	size_t pos = 0, cap;
	int i, round;

	UASSERT(t, "new failed");
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 10000; i++) {
			r = mkreq(0x10000 + i * 64ULL, 1, 100 + i % 3, 8, 0xa, 11);
			UASSERT(aio_inflight_insert(t, &r) == 0, "round %d insert %d", round, i);
		}
		aio_inflight_stats(t, &st);
		cap = st.capacity;
		aio_inflight_clear(t);
		aio_inflight_stats(t, &st);
		UASSERT(aio_inflight_count(t) == 0 && st.inserted == 0,
			"round %d: %zu left, %llu inserted", round, aio_inflight_count(t),
			(unsigned long long)st.inserted);
		UASSERT(st.capacity == cap, "round %d: kept %zu of %zu slots", round,
			st.capacity, cap);
		UASSERT(!aio_inflight_lookup(t, 0x10000) && !aio_inflight_next(t, &pos),
			"round %d: an entry survived", round);
		UASSERT(aio_inflight_depth(t, AIO_GROUP_PID, 100, &d) == -ENOENT,
			"round %d: group pid 100 survived (%u/%u)", round, d.cur, d.max);
		aio_inflight_total_depth(t, &cur, &max);
		UASSERT(cur == 0 && max == 0, "round %d: total %u/%u", round, cur, max);
	}
	/* a refill of 10 after one of 10,000: the array is given back */
	for (i = 0; i < 10; i++) {
		r = mkreq(0x20000 + i * 64ULL, 1, 7, 9, 0xb, 12);
		aio_inflight_insert(t, &r);
	}
	aio_inflight_clear(t);		/* 10 in 16,384 slots: given back */
	aio_inflight_stats(t, &st);
	UASSERT(st.capacity == 0, "capacity %zu after an empty clear", st.capacity);
	r = mkreq(0x30000, 1, 7, 9, 0xb, 12);
	UASSERT(aio_inflight_insert(t, &r) == 0 && aio_inflight_lookup(t, 0x30000) &&
		aio_inflight_depth(t, AIO_GROUP_DEV, 9, &d) == 0 && d.cur == 1,
		"insert after clear");
	aio_inflight_free(t);
}

int main(void)
{
	RUN(test_inflight_struct_size);
	RUN(test_inflight_insert_lookup_remove);
	RUN(test_inflight_invalid_arguments);
	RUN(test_inflight_prefetch_changes_nothing);
	RUN(test_inflight_replace_existing_id);
	RUN(test_inflight_full_table_drops);
	RUN(test_inflight_random_churn_matches_reference);
	RUN(test_inflight_group_depth_and_max);
	RUN(test_inflight_depth_many_groups);
	RUN(test_inflight_file_key_64bit_inodes);
	RUN(test_inflight_group_churn_matches_reference);
	RUN(test_inflight_memory_per_request);
	RUN(test_inflight_clear);
	return unit_done("inflight");
}
