// SPDX-License-Identifier: GPL-2.0
/* batch.c - reading a BPF hash map in batches (batch.h). */
#include <errno.h>
#include <stdlib.h>

#include "batch.h"

int map_batch_alloc(struct map_batch *b, uint32_t cap, size_t key_size, size_t val_size)
{
	void *k, *v;

	if (b->keys && b->vals)
		return 0;
	if (!cap || !key_size || !val_size)
		return -EINVAL;
	k = calloc(cap, key_size);
	v = calloc(cap, val_size);
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	b->keys = k;
	b->vals = v;
	b->cap = cap;
	b->key_size = key_size;
	b->val_size = val_size;
	return 0;
}

void map_batch_free(struct map_batch *b)
{
	free(b->keys);
	free(b->vals);
	b->keys = b->vals = NULL;
	b->cap = 0;
}

int map_batch_walk(struct map_batch *b, map_batch_lookup_fn lookup, void *lctx,
		   map_batch_each_fn each, void *ectx)
{
	bool first = true;
	int n = 0;

	if (!b->keys || !b->vals || !b->cap)
		return -ENOMEM;
	for (;;) {
		uint32_t count = b->cap;
		int err = lookup(lctx, first, b->keys, b->vals, &count), rc;

		if (err && err != -ENOENT)
			return err;
		if (count > b->cap)
			count = b->cap;
		for (uint32_t i = 0; i < count; i++) {
			n++;
			rc = each(ectx, (const char *)b->vals + (size_t)i * b->val_size);
			if (rc)
				return rc;
		}
		if (err || !count)	/* -ENOENT: that was the last batch */
			break;
		first = false;
	}
	return n;
}
