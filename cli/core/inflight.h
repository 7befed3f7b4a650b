/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inflight.h - table of pending requests keyed by request id (aioscope core).
 *
 * Open addressing (oatable.h: linear probing, backward-shift deletion,
 * power-of-two capacity, grows at 3/4 load), so insert/remove/lookup are O(1)
 * on average.
 * For every group kind (pid, device, aio context, file) it also keeps the
 * number of requests in flight per group and the maximum since the last
 * aio_inflight_interval_reset() (queue depth per device, per ctx, per pid).
 *
 * Not thread-safe: one thread owns a table.
 */
#ifndef AIOSCOPE_CORE_INFLIGHT_H
#define AIOSCOPE_CORE_INFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "../../bpf/aioscope.h"	/* the values of op and api */

#define AIO_COMM_LEN 16

/* Group kinds; also used by table.h. */
enum aio_group {
	AIO_GROUP_PID = 0,	/* key: tgid */
	AIO_GROUP_DEV,		/* key: dev (the kernel's dev_t, new encoding) */
	AIO_GROUP_CTX,		/* key: aio context user id (0: none) */
	AIO_GROUP_FILE,		/* key: ino ^ (dev << 32 | hash32(dev)), aio_group_key() */
	AIO_GROUP_NR,
};

/* One pending request. Plain data: copy it freely. 80 bytes. */
struct aio_req {
	__u64 id;	/* request id (kiocb address); must not be 0 */
	__u64 ts_ns;	/* submit time, ns, the tracer's clock (boot time) */
	__u64 ctx;	/* aio context user id, 0 if none */
	__u64 ino;	/* inode number of the file */
	__s64 offset;	/* byte offset */
	__u64 len;	/* bytes requested */
	__u32 pid;	/* submitter tgid */
	__u32 tid;	/* submitter thread id */
	__u32 dev;	/* device of the file (dev_t, new encoding), 0 unknown */
	__u8 op;	/* enum aios_op: read, write, fsync, ... */
	__u8 api;	/* enum aios_api: sync, aio, io_uring, other */
	__u16 flags;	/* bit 0: stalled (aiodev); others free for the tracer */
	char comm[AIO_COMM_LEN];	/* submitter comm, NUL-terminated */
};

/* aio_group_key - the key of r in group kind k (0 for an invalid kind). */
__u64 aio_group_key(const struct aio_req *r, enum aio_group k);

/* Per-group queue depth, as returned by aio_inflight_depth(). */
struct aio_depth {
	__u64 key;	/* group key, see enum aio_group */
	__u32 cur;	/* requests in flight now */
	__u32 max;	/* maximum of cur since the last interval reset */
};

struct aio_inflight;	/* opaque */

/*
 * aio_inflight_new - empty table holding at most max_entries requests
 * (0: 1 << 20). Returns a table the caller frees with aio_inflight_free(),
 * or NULL (errno ENOMEM).
 */
struct aio_inflight *aio_inflight_new(size_t max_entries);

/*
 * aio_inflight_prefetch - start loading the slot where @id is (or would go): a
 * caller that knows the requests it will insert or remove next asks for them a few
 * steps ahead, so that their cache misses overlap.
 */
void aio_inflight_prefetch(const struct aio_inflight *t, __u64 id);

/* aio_inflight_free - free t and everything in it (NULL allowed). */
void aio_inflight_free(struct aio_inflight *t);

/*
 * aio_inflight_clear - remove every request and group, as a new table would hold
 * (maxima and counters included), keeping the memory a refill to about the same
 * size needs: a caller that rebuilds the table at every sample (top's snapshot of
 * what is pending) neither regrows it nor faults in fresh pages each time.
 */
void aio_inflight_clear(struct aio_inflight *t);

/*
 * aio_inflight_insert - add a copy of *r (submit). If r->id is already in the
 * table (a completion was missed and the kernel reused the address) the old
 * entry is replaced and counted in stats.replaced.
 * Returns 0 (inserted), 1 (replaced), -EINVAL (NULL or id 0), -ENOSPC (table
 * full: counted in stats.dropped), -ENOMEM.
 */
int aio_inflight_insert(struct aio_inflight *t, const struct aio_req *r);

/*
 * aio_inflight_remove - remove request id (completion/cancel); copy it into
 * *out if out is not NULL. Returns 0, or -ENOENT (not tracked: counted in
 * stats.unknown), -EINVAL.
 */
int aio_inflight_remove(struct aio_inflight *t, __u64 id, struct aio_req *out);

/*
 * aio_inflight_lookup - pointer to the entry of id, or NULL. The pointer is
 * valid until the next insert/remove on t; the table owns it.
 */
const struct aio_req *aio_inflight_lookup(const struct aio_inflight *t,
					  __u64 id);

/* aio_inflight_count - number of requests in flight. */
size_t aio_inflight_count(const struct aio_inflight *t);

/*
 * aio_inflight_next - iterate: start with *pos = 0; returns the next entry
 * (table-owned, valid until the next insert/remove) or NULL at the end.
 * Order is unspecified.
 */
const struct aio_req *aio_inflight_next(const struct aio_inflight *t,
					size_t *pos);

/*
 * aio_inflight_depth - in-flight count of one group and its maximum since
 * the last interval reset. Returns 0, -ENOENT (group has nothing in flight
 * and no maximum recorded: *d = {key, 0, 0}), -EINVAL.
 */
int aio_inflight_depth(const struct aio_inflight *t, enum aio_group k,
		       __u64 key, struct aio_depth *d);

/*
 * aio_inflight_total_depth - requests in flight now (*cur) and the maximum
 * since the last interval reset (*max) over the whole table. NULLs allowed.
 */
void aio_inflight_total_depth(const struct aio_inflight *t, __u32 *cur,
			      __u32 *max);

/*
 * aio_inflight_interval_reset - start a new interval: every maximum becomes
 * the current in-flight count; groups with nothing in flight are forgotten.
 */
void aio_inflight_interval_reset(struct aio_inflight *t);

struct aio_inflight_stats {
	__u64 inserted;	/* successful inserts (including replacements) */
	__u64 removed;	/* successful removes */
	__u64 replaced;	/* inserts that found the id already present */
	__u64 dropped;	/* inserts refused: table full */
	__u64 unknown;	/* removes of ids not in the table */
	size_t capacity;	/* slots allocated for requests */
	size_t bytes;	/* bytes allocated by the table (all parts) */
};

/*
 * aio_inflight_stats - counters and memory use of t into *s. The tools do not
 * show them; the unit tests check the replaced/dropped accounting promised
 * above and the memory per request, and the core benchmark reports the bytes
 * per pending request (docs/benchmarks.md).
 */
void aio_inflight_stats(const struct aio_inflight *t,
			struct aio_inflight_stats *s);

#endif /* AIOSCOPE_CORE_INFLIGHT_H */
