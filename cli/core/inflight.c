// SPDX-License-Identifier: GPL-2.0
/*
 * inflight.c - pending requests by id, and queue depth per group.
 *
 * Both the request table and the per-group depth tables use open addressing
 * with linear probing, Fibonacci hashing and backward-shift deletion (no
 * tombstones, so probe lengths stay short under constant churn).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "inflight.h"

#define REQ_MIN_CAP	1024
#define GRP_MIN_CAP	64
#define DEFAULT_MAX	(1U << 20)

struct gslot {
	__u64 key;
	__u32 cur;	/* in flight now */
	__u32 max;	/* max of cur since the last interval reset */
	__u32 used;
};

struct gtab {
	struct gslot *s;
	size_t cap;	/* power of two */
	size_t n;	/* used slots */
};

struct aio_inflight {
	struct aio_req *s;	/* slots; id == 0 marks a free slot */
	size_t cap;		/* power of two */
	size_t n;
	size_t max_entries;
	__u32 total_max;	/* max of n since the last interval reset */
	struct gtab g[AIO_GROUP_NR];
	struct aio_inflight_stats st;
};

static inline size_t hash_idx(__u64 key, size_t cap)
{
	/* Fibonacci hashing: high bits of key * 2^64 / phi */
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >>
			(64 - __builtin_ctzll((unsigned long long)cap)));
}

/* true if home slot k lies cyclically in (i, j]: slot j must stay */
static inline bool in_range(size_t i, size_t k, size_t j)
{
	return i <= j ? (i < k && k <= j) : (i < k || k <= j);
}

/* murmur3's 32-bit finalizer: every bit of @x reaches every bit of the result */
static inline __u32 mix32(__u32 x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bU;
	x ^= x >> 13;
	x *= 0xc2b2ae35U;
	x ^= x >> 16;
	return x;
}

__u64 aio_group_key(const struct aio_req *r, enum aio_group k)
{
	switch (k) {
	case AIO_GROUP_PID:
		return r->pid;
	case AIO_GROUP_DEV:
		return r->dev;
	case AIO_GROUP_CTX:
		return r->ctx;
	case AIO_GROUP_FILE:
		/*
		 * (dev, ino) has 96 bits. The inode stays whole (two inodes of one
		 * device never share a key), dev goes to the high half as before and a
		 * hash of it to the low half: inodes below 2^32 keep exact keys, and two
		 * 64-bit inodes of different devices share one only if they differ by
		 * a pseudo-random pattern in all 64 bits. (dev << 32) ^ ino gave every
		 * pair that differs only in the high half by dev1 ^ dev2 one key: XFS
		 * and overlayfs (xino) put the allocation group or layer there.
		 */
		return r->ino ^ ((__u64)r->dev << 32 | mix32(r->dev));
	default:
		return 0;
	}
}

/* ---- group depth tables ---- */

static struct gslot *gtab_find(const struct gtab *g, __u64 key)
{
	size_t mask = g->cap - 1, i;

	if (!g->cap)
		return NULL;
	for (i = hash_idx(key, g->cap);; i = (i + 1) & mask) {
		if (!g->s[i].used)
			return NULL;
		if (g->s[i].key == key)
			return &g->s[i];
	}
}

static int gtab_resize(struct gtab *g, size_t cap)
{
	struct gslot *old = g->s, *s;
	size_t oldcap = g->cap, i;

	s = calloc(cap, sizeof(*s));
	if (!s)
		return -ENOMEM;
	g->s = s;
	g->cap = cap;
	for (i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		for (j = hash_idx(old[i].key, cap); s[j].used;
		     j = (j + 1) & (cap - 1))
			;
		s[j] = old[i];
	}
	free(old);
	return 0;
}

/* find or add the group of key; NULL on ENOMEM */
static struct gslot *gtab_get(struct gtab *g, __u64 key)
{
	size_t mask, i;

	if (g->cap == 0 || (g->n + 1) * 4 > g->cap * 3) {
		if (gtab_resize(g, g->cap ? g->cap * 2 : GRP_MIN_CAP))
			return NULL;
	}
	mask = g->cap - 1;
	for (i = hash_idx(key, g->cap);; i = (i + 1) & mask) {
		if (!g->s[i].used)
			break;
		if (g->s[i].key == key)
			return &g->s[i];
	}
	g->s[i].used = 1;
	g->s[i].key = key;
	g->s[i].cur = 0;
	g->s[i].max = 0;
	g->n++;
	return &g->s[i];
}

static void gtab_del_at(struct gtab *g, size_t i)
{
	size_t mask = g->cap - 1, j = i;

	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!g->s[j].used)
			break;
		k = hash_idx(g->s[j].key, g->cap);
		if (in_range(i, k, j))
			continue;
		g->s[i] = g->s[j];
		i = j;
	}
	g->s[i].used = 0;
	g->n--;
}

/* ---- request table ---- */

struct aio_inflight *aio_inflight_new(size_t max_entries)
{
	struct aio_inflight *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max_entries = max_entries ? max_entries : DEFAULT_MAX;
	t->cap = REQ_MIN_CAP;
	t->s = calloc(t->cap, sizeof(*t->s));
	if (!t->s) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void aio_inflight_free(struct aio_inflight *t)
{
	int k;

	if (!t)
		return;
	for (k = 0; k < AIO_GROUP_NR; k++)
		free(t->g[k].s);
	free(t->s);
	free(t);
}

static size_t req_find(const struct aio_inflight *t, __u64 id, bool *found)
{
	size_t mask = t->cap - 1, i;

	for (i = hash_idx(id, t->cap);; i = (i + 1) & mask) {
		if (!t->s[i].id) {
			*found = false;
			return i;
		}
		if (t->s[i].id == id) {
			*found = true;
			return i;
		}
	}
}

static int req_resize(struct aio_inflight *t, size_t cap)
{
	struct aio_req *old = t->s, *s;
	size_t oldcap = t->cap, i;

	s = calloc(cap, sizeof(*s));
	if (!s)
		return -ENOMEM;
	t->s = s;
	t->cap = cap;
	for (i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].id)
			continue;
		for (j = hash_idx(old[i].id, cap); s[j].id;
		     j = (j + 1) & (cap - 1))
			;
		s[j] = old[i];
	}
	free(old);
	return 0;
}

static void groups_dec(struct aio_inflight *t, const struct aio_req *r)
{
	int k;

	for (k = 0; k < AIO_GROUP_NR; k++) {
		struct gslot *g = gtab_find(&t->g[k],
					    aio_group_key(r, (enum aio_group)k));

		if (g && g->cur)
			g->cur--;
	}
}

/* add r to every group; on ENOMEM undo the groups already counted */
static int groups_inc(struct aio_inflight *t, const struct aio_req *r)
{
	int k;

	for (k = 0; k < AIO_GROUP_NR; k++) {
		struct gslot *g = gtab_get(&t->g[k],
					   aio_group_key(r, (enum aio_group)k));

		if (!g) {
			while (--k >= 0) {
				g = gtab_find(&t->g[k],
					      aio_group_key(r,
							    (enum aio_group)k));
				if (g && g->cur)
					g->cur--;
			}
			return -ENOMEM;
		}
		g->cur++;
		if (g->cur > g->max)
			g->max = g->cur;
	}
	return 0;
}

int aio_inflight_insert(struct aio_inflight *t, const struct aio_req *r)
{
	bool found;
	size_t i;
	int err;

	if (!t || !r || !r->id)
		return -EINVAL;
	i = req_find(t, r->id, &found);
	if (found) {
		groups_dec(t, &t->s[i]);
		err = groups_inc(t, r);
		if (err) {
			groups_inc(t, &t->s[i]);	/* groups exist: no alloc */
			return err;
		}
		t->s[i] = *r;
		t->st.replaced++;
		t->st.inserted++;
		return 1;
	}
	if (t->n >= t->max_entries) {
		t->st.dropped++;
		return -ENOSPC;
	}
	if ((t->n + 1) * 4 > t->cap * 3) {
		if (req_resize(t, t->cap * 2))
			return -ENOMEM;
		i = req_find(t, r->id, &found);
	}
	err = groups_inc(t, r);
	if (err)
		return err;
	t->s[i] = *r;
	t->n++;
	if (t->n > t->total_max)
		t->total_max = (__u32)t->n;
	t->st.inserted++;
	return 0;
}

int aio_inflight_remove(struct aio_inflight *t, __u64 id, struct aio_req *out)
{
	size_t mask, i, j;
	bool found;

	if (!t || !id)
		return -EINVAL;
	i = req_find(t, id, &found);
	if (!found) {
		t->st.unknown++;
		return -ENOENT;
	}
	if (out)
		*out = t->s[i];
	groups_dec(t, &t->s[i]);
	mask = t->cap - 1;
	j = i;
	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!t->s[j].id)
			break;
		k = hash_idx(t->s[j].id, t->cap);
		if (in_range(i, k, j))
			continue;
		t->s[i] = t->s[j];
		i = j;
	}
	t->s[i].id = 0;
	t->n--;
	t->st.removed++;
	return 0;
}

const struct aio_req *aio_inflight_lookup(const struct aio_inflight *t,
					  __u64 id)
{
	bool found;
	size_t i;

	if (!t || !id)
		return NULL;
	i = req_find(t, id, &found);
	return found ? &t->s[i] : NULL;
}

size_t aio_inflight_count(const struct aio_inflight *t)
{
	return t ? t->n : 0;
}

const struct aio_req *aio_inflight_next(const struct aio_inflight *t,
					size_t *pos)
{
	if (!t || !pos)
		return NULL;
	for (; *pos < t->cap; (*pos)++) {
		if (t->s[*pos].id)
			return &t->s[(*pos)++];
	}
	return NULL;
}

int aio_inflight_depth(const struct aio_inflight *t, enum aio_group k,
		       __u64 key, struct aio_depth *d)
{
	const struct gslot *g;

	if (!t || !d || (unsigned int)k >= AIO_GROUP_NR)
		return -EINVAL;
	d->key = key;
	g = gtab_find(&t->g[k], key);
	if (!g) {
		d->cur = d->max = 0;
		return -ENOENT;
	}
	d->cur = g->cur;
	d->max = g->max;
	return 0;
}

void aio_inflight_total_depth(const struct aio_inflight *t, __u32 *cur,
			      __u32 *max)
{
	if (cur)
		*cur = t ? (__u32)t->n : 0;
	if (max)
		*max = t ? t->total_max : 0;
}

void aio_inflight_interval_reset(struct aio_inflight *t)
{
	int k;

	if (!t)
		return;
	t->total_max = (__u32)t->n;
	for (k = 0; k < AIO_GROUP_NR; k++) {
		struct gtab *g = &t->g[k];
		size_t i = 0;

		/*
		 * A backward-shift delete moves a later entry into slot i, so
		 * advance only past kept slots. An entry shifted from the
		 * start of the array (wrap-around) into slot i was already
		 * kept and is just visited twice.
		 */
		while (i < g->cap) {
			struct gslot *s = &g->s[i];

			if (s->used && !s->cur) {
				gtab_del_at(g, i);
				continue;
			}
			if (s->used)
				s->max = s->cur;
			i++;
		}
	}
}

void aio_inflight_stats(const struct aio_inflight *t,
			struct aio_inflight_stats *s)
{
	size_t bytes;
	int k;

	if (!s)
		return;
	memset(s, 0, sizeof(*s));
	if (!t)
		return;
	*s = t->st;
	s->capacity = t->cap;
	bytes = sizeof(*t) + t->cap * sizeof(*t->s);
	for (k = 0; k < AIO_GROUP_NR; k++)
		bytes += t->g[k].cap * sizeof(struct gslot);
	s->bytes = bytes;
}
