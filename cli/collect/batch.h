/* SPDX-License-Identifier: GPL-2.0 */
/*
 * batch.h - reading a BPF hash map in batches (BPF_MAP_LOOKUP_BATCH), without
 * libbpf: tracer.c passes the lookup, the unit tests a fake one.
 */
#ifndef AIOSCOPE_BATCH_H
#define AIOSCOPE_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct map_batch {
	void *keys, *vals;	/* both allocated, or both NULL */
	uint32_t cap;		/* entries each holds; 0 when not allocated */
	size_t key_size, val_size;
};

/*
 * map_batch_alloc - buffers for @cap entries, once (later calls keep the first
 * ones). All or nothing: on failure nothing stays allocated and the next call
 * tries again. Returns 0, -ENOMEM or -EINVAL (a size of 0).
 */
int map_batch_alloc(struct map_batch *b, uint32_t cap, size_t key_size, size_t val_size);
void map_batch_free(struct map_batch *b);

/*
 * One batch: *count entries at most in, the number read out. Returns 0 (more may
 * follow), -ENOENT (that was the last batch; *count is valid) or another -errno.
 */
typedef int (*map_batch_lookup_fn)(void *ctx, bool first, void *keys, void *vals,
				   uint32_t *count);
/* Called for each value; a non-zero return ends the walk with it. */
typedef int (*map_batch_each_fn)(void *ctx, const void *val);

/*
 * map_batch_walk - every entry of the map, batch after batch, through @each.
 * Returns the number of entries, a non-zero return of @each, -errno of the lookup,
 * or -ENOMEM when @b has no buffers. Ends also when a batch brings nothing without
 * saying it was the last (it would bring nothing forever).
 */
int map_batch_walk(struct map_batch *b, map_batch_lookup_fn lookup, void *lctx,
		   map_batch_each_fn each, void *ectx);

#endif /* AIOSCOPE_BATCH_H */
