// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cli/core/oatable.[ch]. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/core/oatable.h"
#include "unit.h"

/* an entry with a __u64 key where 0 is a key too: a used flag marks the slot */
struct ent {
	__u64 key;
	__u64 val;
	__u32 used;
	__u32 seen;	/* oat_sweep visits */
	bool used8;	/* the mark of byte_type: a byte */
};

static const struct oat_type ent_type =
	OAT_U64_TYPE(struct ent, used, 4, 75);

/* home slot = key's low bits once the table has 16 slots: clusters on demand */
static __u64 low_hash(const void *key)
{
	return *(const __u64 *)key << 60;
}

static const struct oat_type low_type =
	OAT_TYPE(struct ent, low_hash, oat_u64_eq, used, 16, 90);

/* a few homes only: long runs that wrap around the end of the array */
static __u64 few_hash(const void *key)
{
	return oat_hash_u64(*(const __u64 *)key % 5);
}

static const struct oat_type few_type =
	OAT_TYPE(struct ent, few_hash, oat_u64_eq, used, 8, 75);

/* the mark a byte */
static const struct oat_type byte_type =
	OAT_U64_TYPE(struct ent, used8, 2, 50);

/* the mark the key itself (8 bytes): key 0 is no key */
static const struct oat_type key0_type =
	OAT_U64_TYPE(struct ent, key, 32, 75);

static struct ent *put(struct oat_table *t, const struct oat_type *ty, __u64 key,
		       __u64 val, bool *found)
{
	struct ent *e = oat_get(t, ty, &key, found);

	if (e && !*found)
		*e = (struct ent){ .key = key, .used = 1, .used8 = true };
	if (e)
		e->val = val;
	return e;
}

/*
 * The table's invariants: n counts the used slots, a slot stays empty, every entry
 * is reached from its home without crossing an empty slot, no key twice. Returns
 * NULL or what is wrong.
 */
static const char *check(const struct oat_table *t, const struct oat_type *ty)
{
	size_t i, used = 0;

	if (!t->cap)
		return t->n ? "n without slots" : NULL;
	for (i = 0; i < t->cap; i++) {
		const struct ent *e = oat_at(t, ty, i);
		size_t j;

		if (oat_empty(ty, e))
			continue;
		used++;
		for (j = oat_home(t, ty->hash(e)); j != i; j = (j + 1) & (t->cap - 1)) {
			const struct ent *o = oat_at(t, ty, j);

			if (oat_empty(ty, o))
				return "an empty slot between an entry and its home";
			if (o->key == e->key)
				return "a key twice";
		}
	}
	if (used != t->n)
		return "n is not the number of used slots";
	if (used * 100 > t->cap * ty->load_pct)
		return "over the load limit";
	return NULL;
}

static void test_oatable_empty(void)
{
	struct oat_table t = { 0 };
	__u64 key = 0;
	size_t pos = 0;
	bool found = true;

	UASSERT(oat_find(&t, &ent_type, &key) == NULL, "found in a zeroed table");
	UASSERT(oat_probe(&t, &ent_type, &key, &found) == 0 && !found,
		"probe of a zeroed table");
	UASSERT(oat_next(&t, &ent_type, &pos) == NULL, "next of a zeroed table");
	oat_sweep(&t, &ent_type, NULL, NULL);	/* nothing to call */
	UASSERT(!t.slots && !t.cap && !t.n, "sweep allocated");
	oat_free(&t);
	oat_free(NULL);
	UASSERT(!t.slots && !t.cap && !t.n, "free of a zeroed table");
}

static void test_oatable_insert_find_delete(void)
{
	struct oat_table t = { 0 };
	struct ent *e;
	__u64 key;
	bool found;

	e = put(&t, &ent_type, 0, 100, &found);
	UASSERT(e && !found, "insert of key 0");
	UASSERT(t.cap == 4 && t.n == 1, "first insert: cap %zu n %zu", t.cap, t.n);
	e = put(&t, &ent_type, 7, 700, &found);
	UASSERT(e && !found && t.n == 2, "insert of key 7");
	e = put(&t, &ent_type, 0, 101, &found);
	UASSERT(e && found && t.n == 2, "a second insert of key 0 is found");
	key = 0;
	e = oat_find(&t, &ent_type, &key);
	UASSERT(e && e->key == 0 && e->val == 101, "find key 0");
	key = 7;
	e = oat_find(&t, &ent_type, &key);
	UASSERT(e && e->val == 700, "find key 7");
	key = 8;
	UASSERT(!oat_find(&t, &ent_type, &key), "found an absent key");
	key = 0;
	oat_del(&t, &ent_type, oat_find(&t, &ent_type, &key));
	UASSERT(t.n == 1 && !oat_find(&t, &ent_type, &key), "delete key 0");
	key = 7;
	UASSERT(oat_find(&t, &ent_type, &key), "key 7 lost by the delete");
	UASSERT(!check(&t, &ent_type), "%s", check(&t, &ent_type));
	oat_free(&t);
}

static void test_oatable_grows_at_the_load_limit(void)
{
	struct oat_table t = { 0 };
	__u64 k;
	bool found;

	for (k = 1; k <= 3; k++)
		UASSERT(put(&t, &ent_type, k, k, &found), "insert %llu",
			(unsigned long long)k);
	UASSERT(t.cap == 4, "3 of 4 slots is the 75%% limit: cap %zu", t.cap);
	UASSERT(put(&t, &ent_type, 4, 4, &found) && t.cap == 8,
		"the 4th entry doubles: cap %zu", t.cap);
	UASSERT(put(&t, &ent_type, 4, 5, &found) && found && t.cap == 8,
		"finding grows nothing: cap %zu", t.cap);
	for (k = 5; k <= 1000; k++)
		UASSERT(put(&t, &ent_type, k * 4096, k, &found) && !found,
			"insert %llu", (unsigned long long)k);
	UASSERT(t.cap == 2048 && t.n == 1000, "1000 entries: cap %zu n %zu", t.cap, t.n);
	UASSERT(!check(&t, &ent_type), "%s", check(&t, &ent_type));
	for (k = 5; k <= 1000; k++) {
		__u64 key = k * 4096;
		struct ent *e = oat_find(&t, &ent_type, &key);

		UASSERT(e && e->val == k, "entry %llu after growing",
			(unsigned long long)k);
	}
	oat_free(&t);
}

static void test_oatable_resize_invalid(void)
{
	struct oat_table t = { 0 };
	bool found;
	__u64 k;

	UASSERT(oat_resize(&t, &ent_type, 0) == -EINVAL, "cap 0");
	UASSERT(oat_resize(&t, &ent_type, 1) == -EINVAL, "cap 1");
	UASSERT(oat_resize(&t, &ent_type, 24) == -EINVAL, "cap 24");
	UASSERT(oat_resize(&t, &ent_type, 2) == 0 && t.cap == 2 && t.shift == 63,
		"cap 2: cap %zu shift %u", t.cap, t.shift);
	UASSERT(oat_resize(&t, &ent_type, 64) == 0, "cap 64");
	for (k = 0; k < 40; k++)
		put(&t, &ent_type, k, k, &found);
	UASSERT(oat_resize(&t, &ent_type, 32) == -EINVAL, "32 slots for 40 entries");
	UASSERT(t.cap == 64 && t.n == 40, "a refused resize changed the table");
	UASSERT(oat_resize(&t, &ent_type, 128) == 0 && t.n == 40, "cap 128");
	UASSERT(!check(&t, &ent_type), "%s", check(&t, &ent_type));
	oat_free(&t);
}

/* a run over the end of the array: deleting its head moves the wrapped entries back */
static void test_oatable_delete_wraps_around(void)
{
	static const __u64 keys[] = { 14, 30, 46, 15, 0 };	/* homes 14 14 14 15 0 */
	static const size_t at[] = { 14, 15, 0, 1, 2 };
	struct oat_table t = { 0 };
	struct ent *e;
	bool found;
	size_t i;
	__u64 key;

	for (i = 0; i < 5; i++) {
		e = put(&t, &low_type, keys[i], i, &found);
		UASSERT(e && oat_index(&t, &low_type, e) == at[i],
			"key %llu in slot %zu, not %zu", (unsigned long long)keys[i],
			e ? oat_index(&t, &low_type, e) : 0, at[i]);
	}
	key = 14;
	oat_del(&t, &low_type, oat_find(&t, &low_type, &key));
	UASSERT(!check(&t, &low_type), "%s", check(&t, &low_type));
	/* 30 and 46 move back to 14 and 15, 15 to 0, 0 to 1; slot 2 empties */
	for (i = 1; i < 5; i++) {
		e = oat_find(&t, &low_type, &keys[i]);
		UASSERT(e && oat_index(&t, &low_type, e) == at[i - 1],
			"key %llu after the delete: slot %zu, not %zu",
			(unsigned long long)keys[i], e ? oat_index(&t, &low_type, e) : 0,
			at[i - 1]);
	}
	UASSERT(oat_empty(&low_type, oat_at(&t, &low_type, 2)), "slot 2 still used");
	oat_free(&t);
}

/* a claimed slot the caller cannot fill goes back */
static void test_oatable_claim_given_back(void)
{
	struct oat_table t = { 0 };
	struct ent *e;
	bool found;
	__u64 k;

	for (k = 1; k <= 10; k++)
		put(&t, &ent_type, k, k, &found);
	k = 99;
	e = oat_get(&t, &ent_type, &k, &found);
	UASSERT(e && !found && t.n == 11 && oat_empty(&ent_type, e), "claim of key 99");
	oat_del(&t, &ent_type, e);
	UASSERT(t.n == 10 && !oat_find(&t, &ent_type, &k), "claim given back");
	UASSERT(!check(&t, &ent_type), "%s", check(&t, &ent_type));
	oat_free(&t);
}

struct sweep_ctx {
	__u64 drop_mod;	/* drop keys divisible by it */
	size_t calls;
};

static bool drop_some(void *entry, void *ctx)
{
	struct ent *e = entry;
	struct sweep_ctx *c = ctx;

	c->calls++;
	e->seen++;
	return e->key % c->drop_mod == 0;
}

/* every entry once, however the deletes shift runs that wrap around */
static void test_oatable_sweep_sees_each_once(void)
{
	unsigned long long seed = 7;
	int round;

	for (round = 0; round < 200; round++) {
		struct sweep_ctx c = { .drop_mod = 2 + round % 3 };
		struct oat_table t = { 0 };
		size_t n = 1 + unit_rand(&seed) % 40, kept = 0, i, pos = 0;
		__u64 keys[40];
		struct ent *e;
		bool found;

		for (i = 0; i < n; i++) {
			keys[i] = unit_rand(&seed) % 1000;
			put(&t, &few_type, keys[i], 0, &found);
		}
		n = t.n;
		for (i = 0; i < t.cap; i++) {
			e = oat_at(&t, &few_type, i);
			kept += !oat_empty(&few_type, e) && e->key % c.drop_mod;
		}
		oat_sweep(&t, &few_type, drop_some, &c);
		UASSERT(c.calls == n, "round %d: %zu calls for %zu entries", round,
			c.calls, n);
		UASSERT(t.n == kept, "round %d: %zu kept, not %zu", round, t.n, kept);
		while ((e = oat_next(&t, &few_type, &pos)) != NULL)
			UASSERT(e->seen == 1 && e->key % c.drop_mod,
				"round %d: key %llu seen %u times", round,
				(unsigned long long)e->key, e->seen);
		UASSERT(!check(&t, &few_type), "round %d: %s", round,
			check(&t, &few_type));
		oat_free(&t);
	}
}

/* random inserts, deletes and lookups against a plain array, invariants each step */
static void test_oatable_random_against_model(void)
{
	enum { KEYS = 300 };
	static const struct oat_type *types[] = { &ent_type, &few_type, &low_type,
						  &byte_type, &key0_type };
	unsigned long long seed = 42;
	size_t ti;

	for (ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
		const struct oat_type *ty = types[ti];
		struct oat_table t = { 0 };
		__u64 model[KEYS];	/* value + 1, 0: absent */
		size_t n = 0;
		int step;

		memset(model, 0, sizeof(model));
		for (step = 0; step < 20000; step++) {
			__u64 key = 1 + unit_rand(&seed) % (KEYS - 1);
			__u64 r = unit_rand(&seed) % 3;
			struct ent *e = oat_find(&t, ty, &key);
			bool found;

			UASSERT(!e == !model[key] && (!e || e->val + 1 == model[key]),
				"type %zu step %d: key %llu found %d, model %llu", ti,
				step, (unsigned long long)key, !!e,
				(unsigned long long)model[key]);
			if (r == 0 && e) {
				oat_del(&t, ty, e);
				model[key] = 0;
				n--;
			} else if (r != 0) {
				e = put(&t, ty, key, (__u64)step, &found);
				UASSERT(e && found == !!model[key], "type %zu step %d: put",
					ti, step);
				n += !model[key];
				model[key] = (__u64)step + 1;
			}
			UASSERT(t.n == n, "type %zu step %d: n %zu, model %zu", ti,
				step, t.n, n);
			if (step % 97 == 0)
				UASSERT(!check(&t, ty), "type %zu step %d: %s", ti, step,
					check(&t, ty));
		}
		UASSERT(!check(&t, ty), "type %zu: %s", ti, check(&t, ty));
		oat_free(&t);
	}
}

int main(void)
{
	RUN(test_oatable_empty);
	RUN(test_oatable_insert_find_delete);
	RUN(test_oatable_grows_at_the_load_limit);
	RUN(test_oatable_resize_invalid);
	RUN(test_oatable_delete_wraps_around);
	RUN(test_oatable_claim_given_back);
	RUN(test_oatable_sweep_sees_each_once);
	RUN(test_oatable_random_against_model);
	return unit_done("oatable");
}
