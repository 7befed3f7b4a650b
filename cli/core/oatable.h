/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oatable.h - one open-addressing hash table of fixed-size entries (aioscope core).
 *
 * Used by the in-flight requests and their per-group depths (inflight.c), the group
 * tables' id map (table.c) and the tracer's completion/reap join (collect/record.c).
 *
 * Linear probing over a power-of-two array; the home slot of a key is the top
 * log2(cap) bits of its 64-bit hash (Fibonacci hashing when the hash is
 * key * 2^64/phi, oat_hash_u64()); deletion by backward shift, so there are no
 * tombstones and probe lengths stay short under constant churn; the array doubles
 * before an insert would pass the load limit the entry type sets.
 *
 * The caller describes its entries in a struct oat_type: their size, a hash and a
 * key compare, and the field whose value 0 marks a free slot (the key itself when 0
 * is no key, else a pointer or a flag: OAT_MARK()). An entry begins with its key, so
 * a stored entry's address is also its key's. New arrays are zeroed: all free. The
 * type is the caller's static const object.
 *
 * Lookup, insert and delete are always-inline functions: given the address of a
 * static const type, the compiler turns its functions into direct, inlined code, so
 * a table's hot path is what a hand-written table of that entry would be. Growing
 * and sweeping (rare) are out of line in oatable.c.
 *
 * A zeroed struct oat_table is an empty table with nothing allocated; the first
 * insert allocates type->min_cap slots (or call oat_resize() first). Indices and
 * entry pointers stay valid until the next insert or delete. Not thread-safe.
 */
#ifndef AIOSCOPE_CORE_OATABLE_H
#define AIOSCOPE_CORE_OATABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#define OAT_INLINE static inline __attribute__((always_inline))

struct oat_type {
	size_t size;		/* bytes of an entry, which begins with its key */
	/* hash of a key; the home slot is its top bits, so they must be well mixed */
	__u64 (*hash)(const void *key);
	/* the (used) entry holds key */
	bool (*eq)(const void *entry, const void *key);
	size_t mark_off;	/* the field that is 0 in a free slot: offset, */
	size_t mark_size;	/*   size (1, 4 or 8 bytes): OAT_MARK() */
	size_t min_cap;		/* first capacity: a power of two >= 2 */
	unsigned int load_pct;	/* grow before n would exceed cap * load_pct / 100 (< 100) */
};

/* OAT_MARK - in a struct oat_type initializer: field of struct type marks free slots */
#define OAT_MARK(type, field)						\
	.mark_off = offsetof(type, field),				\
	.mark_size = sizeof(((type *)0)->field)

struct oat_table {
	void *slots;		/* cap entries of type->size bytes; NULL while cap is 0 */
	size_t cap;		/* 0 (nothing allocated) or a power of two >= 2 */
	size_t n;		/* entries in use */
	unsigned int shift;	/* 64 - log2(cap): the home slot is hash >> shift */
};

/*
 * oat_resize - move t's entries into a new zeroed array of cap slots. Returns 0,
 * -EINVAL (cap not a power of two >= 2, or not above t->n), -ENOMEM (t unchanged).
 */
int oat_resize(struct oat_table *t, const struct oat_type *ty, size_t cap);

/* oat_free - free t's array; t is then an empty table again (NULL allowed). */
void oat_free(struct oat_table *t);

/*
 * oat_remove_all - delete every entry. The array is kept when a refill to the size
 * it held fits it at most 4 times over (no regrowth, no fresh pages), else it is
 * given back and the next insert starts small again.
 */
void oat_remove_all(struct oat_table *t, const struct oat_type *ty);

/*
 * oat_sweep - call drop(entry, ctx) once for every entry, in slot order from just
 * after an empty slot; delete the entries for which it returns true. drop may change
 * the entry it is given (before returning false) and must not touch t.
 */
void oat_sweep(struct oat_table *t, const struct oat_type *ty,
	       bool (*drop)(void *entry, void *ctx), void *ctx);

/* oat_hash_u64 - Fibonacci hashing: k * 2^64/phi, its high bits well mixed */
static inline __u64 oat_hash_u64(__u64 k)
{
	return k * 0x9E3779B97F4A7C15ULL;
}

/* the hash and key compare of entries that begin with a __u64 key */
static inline __u64 oat_u64_hash(const void *key)
{
	return oat_hash_u64(*(const __u64 *)key);
}

static inline bool oat_u64_eq(const void *entry, const void *key)
{
	return *(const __u64 *)entry == *(const __u64 *)key;
}

/*
 * OAT_TYPE - the struct oat_type of entries of struct type: key hash and compare
 * functions, free when field mark is 0, first min_cap slots, load limit load_pct.
 * OAT_U64_TYPE - the same for entries that begin with a __u64 key.
 */
#define OAT_TYPE(type, hash_, eq_, mark, min_cap_, load_pct_) {		\
	.size = sizeof(type),						\
	.hash = (hash_),						\
	.eq = (eq_),							\
	OAT_MARK(type, mark),						\
	.min_cap = (min_cap_),						\
	.load_pct = (load_pct_),					\
}
#define OAT_U64_TYPE(type, mark, min_cap, load_pct)			\
	OAT_TYPE(type, oat_u64_hash, oat_u64_eq, mark, min_cap, load_pct)

/* oat_at - the entry in slot i (i < t->cap) */
OAT_INLINE void *oat_at(const struct oat_table *t, const struct oat_type *ty, size_t i)
{
	return (char *)t->slots + i * ty->size;
}

/* oat_empty - entry is a free slot: its mark is 0 */
OAT_INLINE bool oat_empty(const struct oat_type *ty, const void *entry)
{
	const char *m = (const char *)entry + ty->mark_off;

	switch (ty->mark_size) {
	case 1:
		return !*m;
	case 4: {
		__u32 v32;

		memcpy(&v32, m, 4);
		return !v32;
	}
	default: {
		__u64 v64;

		memcpy(&v64, m, 8);
		return !v64;
	}
	}
}

/* oat_clear - make entry a free slot */
OAT_INLINE void oat_clear(const struct oat_type *ty, void *entry)
{
	memset((char *)entry + ty->mark_off, 0, ty->mark_size);
}

/* oat_index - the slot of an entry of t */
OAT_INLINE size_t oat_index(const struct oat_table *t, const struct oat_type *ty,
			    const void *entry)
{
	return (size_t)((const char *)entry - (const char *)t->slots) / ty->size;
}

/* oat_home - the home slot of a key of hash h (t->cap > 0) */
OAT_INLINE size_t oat_home(const struct oat_table *t, __u64 h)
{
	return (size_t)(h >> t->shift);
}

/*
 * oat_probe - the slot holding key (*found true), or the empty slot where the probe
 * for it ends (*found false: where an insert puts it). 0 and false when t->cap is 0.
 */
OAT_INLINE size_t oat_probe(const struct oat_table *t, const struct oat_type *ty,
			    const void *key, bool *found)
{
	size_t mask = t->cap - 1, i;

	*found = false;
	if (!t->cap)
		return 0;
	for (i = oat_home(t, ty->hash(key));; i = (i + 1) & mask) {
		const void *e = oat_at(t, ty, i);

		if (oat_empty(ty, e))
			return i;
		if (ty->eq(e, key)) {
			*found = true;
			return i;
		}
	}
}

/* oat_find - the entry holding key, or NULL */
OAT_INLINE void *oat_find(const struct oat_table *t, const struct oat_type *ty,
			  const void *key)
{
	bool found;
	size_t i = oat_probe(t, ty, key, &found);

	return found ? oat_at(t, ty, i) : NULL;
}

/*
 * oat_reserve - make room for one more entry within the load limit. Returns 0 (there
 * was room), 1 (the array grew: probe again, earlier slots are stale), -ENOMEM.
 */
OAT_INLINE int oat_reserve(struct oat_table *t, const struct oat_type *ty)
{
	int err;

	if ((t->n + 1) * 100 <= t->cap * ty->load_pct)
		return 0;
	err = oat_resize(t, ty, t->cap ? t->cap * 2 : ty->min_cap);
	return err ? err : 1;
}

/*
 * oat_claim - count the empty slot i (from oat_probe, after oat_reserve) as used and
 * return it; the caller writes the entry (its key included), making it non-empty.
 */
OAT_INLINE void *oat_claim(struct oat_table *t, const struct oat_type *ty, size_t i)
{
	t->n++;
	return oat_at(t, ty, i);
}

/*
 * oat_get - the entry holding key (*found true), or a new one for it (*found false:
 * claimed, still empty, the caller writes it, key included, or gives it back with
 * oat_del()). NULL (-ENOMEM) when the array had to grow and could not.
 */
OAT_INLINE void *oat_get(struct oat_table *t, const struct oat_type *ty,
			 const void *key, bool *found)
{
	size_t i = oat_probe(t, ty, key, found);
	int rc;

	if (*found)
		return oat_at(t, ty, i);
	rc = oat_reserve(t, ty);
	if (rc < 0)
		return NULL;
	if (rc > 0)
		i = oat_probe(t, ty, key, found);
	return oat_claim(t, ty, i);
}

/*
 * oat_del_at - delete the entry in slot i: later entries of its probe run move back
 * (backward shift), the slot they leave becomes empty. Scanning by index while
 * deleting, look at slot i again after this: an entry may have moved there (or use
 * oat_sweep(), which sees every entry once).
 */
OAT_INLINE void oat_del_at(struct oat_table *t, const struct oat_type *ty, size_t i)
{
	size_t mask = t->cap - 1, j = i;

	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (oat_empty(ty, oat_at(t, ty, j)))
			break;
		k = oat_home(t, ty->hash(oat_at(t, ty, j)));
		/* the entry at j stays if its home k lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		memcpy(oat_at(t, ty, i), oat_at(t, ty, j), ty->size);
		i = j;
	}
	oat_clear(ty, oat_at(t, ty, i));
	t->n--;
}

/* oat_del - delete entry (a pointer into t) */
OAT_INLINE void oat_del(struct oat_table *t, const struct oat_type *ty, void *entry)
{
	oat_del_at(t, ty, oat_index(t, ty, entry));
}

/*
 * oat_next - iterate: start with *pos = 0; returns the next entry, or NULL at the
 * end. Slot order.
 */
OAT_INLINE void *oat_next(const struct oat_table *t, const struct oat_type *ty,
			  size_t *pos)
{
	for (; *pos < t->cap; (*pos)++) {
		void *e = oat_at(t, ty, *pos);

		if (!oat_empty(ty, e)) {
			(*pos)++;
			return e;
		}
	}
	return NULL;
}

#endif /* AIOSCOPE_CORE_OATABLE_H */
