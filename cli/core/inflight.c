// SPDX-License-Identifier: GPL-2.0
/*
 * inflight.c - pending requests by id, and queue depth per group.
 *
 * Both the request table and the per-group depth tables are oatable.h's
 * open-addressing tables (linear probing, Fibonacci hashing, backward-shift
 * deletion: no tombstones, so probe lengths stay short under constant churn).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "inflight.h"
#include "oatable.h"

#define REQ_MIN_CAP	1024
#define GRP_MIN_CAP	64
#define DEFAULT_MAX	(1U << 20)

/* requests: the slot is the request, id 0 marks a free one */
static const struct oat_type req_type =
	OAT_U64_TYPE(struct aio_req, id, REQ_MIN_CAP, 75);

/* one group's depth; key 0 is a group too (no ctx, no device) */
struct gslot {
	__u64 key;
	__u32 cur;	/* in flight now */
	__u32 max;	/* max of cur since the last interval reset */
	__u32 used;
};

static const struct oat_type gslot_type =
	OAT_U64_TYPE(struct gslot, used, GRP_MIN_CAP, 75);

struct aio_inflight {
	struct oat_table req;	/* struct aio_req by id */
	size_t max_entries;
	__u32 total_max;	/* max of req.n since the last interval reset */
	struct oat_table g[AIO_GROUP_NR];	/* struct gslot by group key */
	struct aio_inflight_stats st;
};

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

/* inline: four of these per completion (the core benchmark, depth 1024: 3%) */
OAT_INLINE struct gslot *group_find(const struct aio_inflight *t, int k,
				    const struct aio_req *r)
{
	__u64 key = aio_group_key(r, (enum aio_group)k);

	return oat_find(&t->g[k], &gslot_type, &key);
}

static void groups_dec(struct aio_inflight *t, const struct aio_req *r)
{
	int k;

	for (k = 0; k < AIO_GROUP_NR; k++) {
		struct gslot *g = group_find(t, k, r);

		if (g && g->cur)
			g->cur--;
	}
}

/* add r to every group; on ENOMEM undo the groups already counted */
static int groups_inc(struct aio_inflight *t, const struct aio_req *r)
{
	int k;

	for (k = 0; k < AIO_GROUP_NR; k++) {
		__u64 key = aio_group_key(r, (enum aio_group)k);
		struct gslot *g;
		bool found;

		g = oat_get(&t->g[k], &gslot_type, &key, &found);
		if (!g) {
			while (--k >= 0) {
				g = group_find(t, k, r);
				if (g && g->cur)
					g->cur--;
			}
			return -ENOMEM;
		}
		if (!found)
			*g = (struct gslot){ .key = key, .used = 1 };
		g->cur++;
		if (g->cur > g->max)
			g->max = g->cur;
	}
	return 0;
}

/* ---- request table ---- */

struct aio_inflight *aio_inflight_new(size_t max_entries)
{
	struct aio_inflight *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max_entries = max_entries ? max_entries : DEFAULT_MAX;
	if (oat_resize(&t->req, &req_type, REQ_MIN_CAP)) {
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
		oat_free(&t->g[k]);
	oat_free(&t->req);
	free(t);
}

void aio_inflight_clear(struct aio_inflight *t)
{
	int k;

	if (!t)
		return;
	oat_remove_all(&t->req, &req_type);
	for (k = 0; k < AIO_GROUP_NR; k++)
		oat_remove_all(&t->g[k], &gslot_type);
	t->total_max = 0;
	memset(&t->st, 0, sizeof(t->st));
}

int aio_inflight_insert(struct aio_inflight *t, const struct aio_req *r)
{
	struct aio_req *e;
	bool found;
	size_t i;
	int err;

	if (!t || !r || !r->id)
		return -EINVAL;
	i = oat_probe(&t->req, &req_type, &r->id, &found);
	if (found) {
		e = oat_at(&t->req, &req_type, i);
		groups_dec(t, e);
		err = groups_inc(t, r);
		if (err) {
			groups_inc(t, e);	/* groups exist: no alloc */
			return err;
		}
		*e = *r;
		t->st.replaced++;
		t->st.inserted++;
		return 1;
	}
	if (t->req.n >= t->max_entries) {
		t->st.dropped++;
		return -ENOSPC;
	}
	err = oat_reserve(&t->req, &req_type);
	if (err < 0)
		return err;
	if (err > 0)
		i = oat_probe(&t->req, &req_type, &r->id, &found);
	err = groups_inc(t, r);
	if (err)
		return err;
	e = oat_claim(&t->req, &req_type, i);
	*e = *r;
	if (t->req.n > t->total_max)
		t->total_max = (__u32)t->req.n;
	t->st.inserted++;
	return 0;
}

int aio_inflight_remove(struct aio_inflight *t, __u64 id, struct aio_req *out)
{
	struct aio_req *e;
	bool found;
	size_t i;

	if (!t || !id)
		return -EINVAL;
	i = oat_probe(&t->req, &req_type, &id, &found);
	if (!found) {
		t->st.unknown++;
		return -ENOENT;
	}
	e = oat_at(&t->req, &req_type, i);
	if (out)
		*out = *e;
	groups_dec(t, e);
	oat_del_at(&t->req, &req_type, i);
	t->st.removed++;
	return 0;
}

const struct aio_req *aio_inflight_lookup(const struct aio_inflight *t,
					  __u64 id)
{
	if (!t || !id)
		return NULL;
	return oat_find(&t->req, &req_type, &id);
}

void aio_inflight_prefetch(const struct aio_inflight *t, __u64 id)
{
	const char *e;

	if (!t || !t->req.cap)
		return;
	e = oat_at(&t->req, &req_type, oat_home(&t->req, oat_hash_u64(id)));
	__builtin_prefetch(e, 1);
	__builtin_prefetch(e + sizeof(struct aio_req) - 1, 1);
}

size_t aio_inflight_count(const struct aio_inflight *t)
{
	return t ? t->req.n : 0;
}

const struct aio_req *aio_inflight_next(const struct aio_inflight *t,
					size_t *pos)
{
	if (!t || !pos)
		return NULL;
	return oat_next(&t->req, &req_type, pos);
}

int aio_inflight_depth(const struct aio_inflight *t, enum aio_group k,
		       __u64 key, struct aio_depth *d)
{
	const struct gslot *g;

	if (!t || !d || (unsigned int)k >= AIO_GROUP_NR)
		return -EINVAL;
	d->key = key;
	g = oat_find(&t->g[k], &gslot_type, &key);
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
		*cur = t ? (__u32)t->req.n : 0;
	if (max)
		*max = t ? t->total_max : 0;
}

/* a group with nothing in flight is forgotten, the others start a new maximum */
static bool group_reset(void *e, void *ctx)
{
	struct gslot *g = e;

	(void)ctx;
	if (!g->cur)
		return true;
	g->max = g->cur;
	return false;
}

void aio_inflight_interval_reset(struct aio_inflight *t)
{
	int k;

	if (!t)
		return;
	t->total_max = (__u32)t->req.n;
	for (k = 0; k < AIO_GROUP_NR; k++)
		oat_sweep(&t->g[k], &gslot_type, group_reset, NULL);
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
	s->capacity = t->req.cap;
	bytes = sizeof(*t) + t->req.cap * sizeof(struct aio_req);
	for (k = 0; k < AIO_GROUP_NR; k++)
		bytes += t->g[k].cap * sizeof(struct gslot);
	s->bytes = bytes;
}
