// SPDX-License-Identifier: GPL-2.0
/* test_batch.c - reading a BPF map in batches (cli/collect/batch.c) with a fake lookup. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cli/collect/batch.h"
#include "unit.h"

/* an impossible calloc returns NULL, as in a program without ASan */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

struct fake {
	uint32_t entries;	/* in the map */
	uint32_t next;		/* first entry of the next batch */
	int calls;
	int fail;		/* != 0: the lookup returns it */
	bool never_ends;	/* batches of nothing, never -ENOENT */
};

static int fake_lookup(void *ctx, bool first, void *keys, void *vals, uint32_t *count)
{
	struct fake *f = ctx;
	uint32_t n = 0;

	(void)keys;
	if (++f->calls > 1000)
		return -E2BIG;	/* the walk did not stop: fail it loudly */
	if (f->fail)
		return f->fail;
	if (first)
		f->next = 0;
	if (f->never_ends) {
		*count = 0;
		return 0;
	}
	while (n < *count && f->next < f->entries)
		((uint64_t *)vals)[n++] = f->next++;
	*count = n;
	return f->next == f->entries ? -ENOENT : 0;
}

struct seen {
	uint64_t sum;
	int n, stop_at;
};

static int each(void *ctx, const void *val)
{
	struct seen *s = ctx;

	s->sum += *(const uint64_t *)val;
	return ++s->n == s->stop_at ? 42 : 0;
}

static void test_batch_walks_every_entry(void)
{
	struct map_batch b = { 0 };
	struct fake f = { .entries = 1000 };
	struct seen s = { 0 };
	int n;

	UASSERT(map_batch_alloc(&b, 64, 16, sizeof(uint64_t)) == 0, "alloc");
	n = map_batch_walk(&b, fake_lookup, &f, each, &s);
	UASSERT(n == 1000 && s.n == 1000 && s.sum == 999 * 1000 / 2,
		"walked %d entries, sum %llu", n, (unsigned long long)s.sum);
	UASSERT(f.calls == 16, "%d batches of 64 for 1000 entries", f.calls);
	f.calls = 0;
	f.entries = 0;
	UASSERT(map_batch_walk(&b, fake_lookup, &f, each, &s) == 0, "empty map");
	map_batch_free(&b);
}

/*
 * An allocation that fails must leave nothing behind: the old code kept the key
 * buffer, skipped the allocation on the next call, asked the kernel for batches of
 * 0 entries and, as the kernel answers that with 0 and no ENOENT, looped forever.
 */
static void test_batch_alloc_failure_leaves_nothing(void)
{
	struct map_batch b = { 0 };
	struct fake f = { .entries = 10 };
	struct seen s = { 0 };

	UASSERT(map_batch_alloc(&b, 1U << 20, 16, SIZE_MAX / 2) == -ENOMEM,
		"an impossible allocation succeeded");
	UASSERT(!b.keys && !b.vals && !b.cap, "half-allocated buffers kept");
	UASSERT(map_batch_alloc(&b, 1U << 20, 16, SIZE_MAX / 2) == -ENOMEM,
		"second try did not fail the same way");
	UASSERT(map_batch_walk(&b, fake_lookup, &f, each, &s) == -ENOMEM && f.calls == 0,
		"walk without buffers: %d lookups", f.calls);
	UASSERT(map_batch_alloc(&b, 4, 16, sizeof(uint64_t)) == 0, "alloc after a failure");
	UASSERT(map_batch_walk(&b, fake_lookup, &f, each, &s) == 10, "walk after a failure");
	UASSERT(map_batch_alloc(&b, 0, 16, 8) == 0 && b.cap == 4, "buffers kept once there");
	map_batch_free(&b);
	UASSERT(map_batch_alloc(&b, 0, 16, 8) == -EINVAL, "cap 0 accepted");
}

static void test_batch_empty_batches_end_the_walk(void)
{
	struct map_batch b = { 0 };
	struct fake f = { .never_ends = true };
	struct seen s = { 0 };
	int n;

	UASSERT(map_batch_alloc(&b, 8, 16, sizeof(uint64_t)) == 0, "alloc");
	n = map_batch_walk(&b, fake_lookup, &f, each, &s);
	UASSERT(n == 0 && f.calls == 1, "returned %d after %d lookups", n, f.calls);
	map_batch_free(&b);
}

static void test_batch_errors_and_early_stop(void)
{
	struct map_batch b = { 0 };
	struct fake f = { .entries = 100, .fail = -EPERM };
	struct seen s = { .stop_at = 5 };

	UASSERT(map_batch_alloc(&b, 8, 16, sizeof(uint64_t)) == 0, "alloc");
	UASSERT(map_batch_walk(&b, fake_lookup, &f, each, &s) == -EPERM, "error not passed");
	f.fail = 0;
	UASSERT(map_batch_walk(&b, fake_lookup, &f, each, &s) == 42 && s.n == 5,
		"callback's stop: %d entries", s.n);
	map_batch_free(&b);
}

int main(void)
{
	RUN(test_batch_walks_every_entry);
	RUN(test_batch_alloc_failure_leaves_nothing);
	RUN(test_batch_empty_batches_end_the_walk);
	RUN(test_batch_errors_and_early_stop);
	return unit_done("batch");
}
