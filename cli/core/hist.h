/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.h - fine log2 latency histogram with percentiles (aioscope core).
 *
 * Values are nanoseconds. Buckets are those of bpf/buckets.h, so a BPF map
 * value of AIO_HIST_BUCKETS __u64 counters can be added as is.
 * No allocation: a struct aio_hist is plain data (about 16 KiB), the caller
 * owns it (stack, static or heap).
 */
#ifndef AIOSCOPE_CORE_HIST_H
#define AIOSCOPE_CORE_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "../../bpf/buckets.h"

struct aio_hist {
	__u64 count;	/* number of values recorded */
	__u64 sum;	/* ns, sum of the values (wraps after 584 years) */
	__u64 min;	/* ns, smallest value; meaningless when count == 0 */
	__u64 max;	/* ns, largest value; meaningless when count == 0 */
	__u64 buckets[AIO_HIST_BUCKETS];	/* count per bucket */
};

/*
 * aio_delta - wrap-safe difference of a monotonic counter: cur - prev modulo
 * 2^64. A modular difference above 2^63 means the counter went backwards
 * (the kernel side was reset or re-created), not that it wrapped: 0 then.
 */
static inline __u64 aio_delta(__u64 cur, __u64 prev)
{
	__u64 d = cur - prev;

	return d > (1ULL << 63) ? 0 : d;
}

/* aio_hist_reset - make h empty (count 0, every bucket 0). */
void aio_hist_reset(struct aio_hist *h);

/* aio_hist_add - record one value of ns nanoseconds. */
void aio_hist_add(struct aio_hist *h, __u64 ns);

/* aio_hist_add_n - record n values of ns nanoseconds each (n == 0: no-op). */
void aio_hist_add_n(struct aio_hist *h, __u64 ns, __u64 n);

/*
 * aio_hist_merge - add every value of src to dst (dst == src allowed: doubles).
 * count, sum, buckets add; min/max combine.
 */
void aio_hist_merge(struct aio_hist *dst, const struct aio_hist *src);

/*
 * aio_hist_add_buckets - add raw bucket counters (e.g. a BPF per-CPU map value
 * summed over CPUs, or one CPU's copy): counts[0..n-1] are bucket counts, n
 * must be AIO_HIST_BUCKETS. Since only buckets are known, min/max become the
 * lower/upper edge of the lowest/highest non-empty bucket and sum is
 * estimated with bucket midpoints. Callers that know the exact sum/max may
 * overwrite h->sum / h->max afterwards.
 * Returns 0, or -EINVAL (NULL pointer or n != AIO_HIST_BUCKETS).
 */
int aio_hist_add_buckets(struct aio_hist *h, const __u64 *counts, size_t n);

/*
 * aio_hist_diff - interval delta of monotonic histograms: out = cur - prev,
 * bucket by bucket and sum, each with aio_delta() (wrap-safe; a counter that
 * went backwards gives 0); out->count is the sum of the bucket deltas.
 * out->min/max are the edges of the lowest/highest non-empty
 * delta bucket, clamped to cur's min/max. out may alias cur or prev.
 */
void aio_hist_diff(struct aio_hist *out, const struct aio_hist *cur,
		   const struct aio_hist *prev);

/*
 * aio_hist_percentile - value (ns) at percentile p (0 <= p <= 100) by
 * cumulative rank, HdrHistogram style: rank = max(1, round(p / 100 * count));
 * walk the buckets until the running count reaches rank; answer that bucket's
 * upper edge, capped at h->max (so the answer is ">= the exact value, and
 * within 1.6% of it"; print it as "<= x").
 * Returns 0 and sets *ns; -ENODATA if h is empty (*ns untouched: no data is
 * not 0); -EINVAL for a NULL pointer or p outside [0, 100] or NaN.
 */
int aio_hist_percentile(const struct aio_hist *h, double p, __u64 *ns);

/*
 * aio_hist_mean - mean value in ns (sum / count).
 * Returns 0, -ENODATA if empty, -EINVAL for NULL pointers.
 */
int aio_hist_mean(const struct aio_hist *h, double *ns);

/*
 * aio_hist_unit_pick - unit for printing a histogram whose largest value is
 * max_ns: "nsecs" below 10 us, "usecs" below 10 s, else "msecs".
 * Returns a static string; *div gets the unit in ns (1, 1000, 1000000).
 */
const char *aio_hist_unit_pick(__u64 max_ns, __u64 *div);

/*
 * aio_hist_print_log2 - print h to f as a classic log2 histogram
 * (bcc print_log2_hist: "low -> high : count |****|"), fine buckets collapsed
 * into powers of two of the unit. unit is "nsecs", "usecs", "msecs" or
 * "secs", or NULL to pick one with aio_hist_unit_pick(h->max). A fine bucket
 * goes to the power-of-two slot of its lower edge in that unit.
 * Prints nothing for an empty histogram.
 * Returns 0, -EINVAL (NULL h/f, unknown unit), -EIO on a write error.
 */
int aio_hist_print_log2(const struct aio_hist *h, FILE *f, const char *unit);

#endif /* AIOSCOPE_CORE_HIST_H */
