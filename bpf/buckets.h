/* SPDX-License-Identifier: GPL-2.0 */
/*
 * buckets.h - bucket math of aioscope's fine log2 latency histogram.
 *
 * Shared by the BPF programs (clang -target bpf, vmlinux.h types) and user
 * space (<linux/types.h>). Pure functions on __u64/__u32 only, no loops.
 *
 * Layout (HDR style): values are nanoseconds. Each power of two [2^m, 2^(m+1))
 * with m >= AIO_HIST_SUB_BITS + 1 is split into 2^AIO_HIST_SUB_BITS (64)
 * linear sub-buckets; values below 2 * 64 = 128 ns get one bucket each.
 *
 *   shift = max(0, log2(v) - AIO_HIST_SUB_BITS)
 *   index = (shift << AIO_HIST_SUB_BITS) + (v >> shift)
 *
 * Bucket i holds [aio_bucket_lower(i), aio_bucket_upper(i)] (both inclusive).
 * Its width is at most 1/64 of its lower edge, so reporting the upper edge
 * ("<= x") overstates any value in it by less than 1.5625%.
 *
 * Values >= AIO_HIST_MAX_NS + 1 (2^37 ns, about 137 s) are clamped into the
 * last bucket, AIO_HIST_BUCKETS - 1. 2048 buckets of __u64 = 16 KiB.
 *
 * In BPF the verifier cannot derive the index bound through the variable
 * shift: check "idx < AIO_HIST_BUCKETS" before indexing a map value.
 */
#ifndef __AIOSCOPE_BUCKETS_H
#define __AIOSCOPE_BUCKETS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* log2 of the number of linear sub-buckets per power of two */
#define AIO_HIST_SUB_BITS	6
#define AIO_HIST_SUB		(1U << AIO_HIST_SUB_BITS)
/* values are clamped to [0, 2^AIO_HIST_MAX_LOG2 - 1] ns */
#define AIO_HIST_MAX_LOG2	37
#define AIO_HIST_MAX_NS		((1ULL << AIO_HIST_MAX_LOG2) - 1)
/* number of buckets: (37 - 6 + 1) * 64 = 2048 */
#define AIO_HIST_BUCKETS \
	((AIO_HIST_MAX_LOG2 - AIO_HIST_SUB_BITS + 1) * AIO_HIST_SUB)

/*
 * aio_log2_branchy - floor(log2(v)) for v > 0, 0 for v == 0.
 * Straight-line compare-and-shift (libbpf-tools bits.bpf.h style); the form
 * used in BPF, where clang 14 cannot lower __builtin_clzll.
 */
static __always_inline __u32 aio_log2_branchy(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xFFFFFFFFULL) << 5; v >>= s; r |= s;
	s = (v > 0xFFFFU) << 4; v >>= s; r |= s;
	s = (v > 0xFFU) << 3; v >>= s; r |= s;
	s = (v > 0xFU) << 2; v >>= s; r |= s;
	s = (v > 0x3U) << 1; v >>= s; r |= s;
	r |= (__u32)(v >> 1);
	return r;
}

/* aio_log2 - floor(log2(v)) for v > 0, 0 for v == 0 (same as the above). */
static __always_inline __u32 aio_log2(__u64 v)
{
#if defined(__bpf__) || !defined(__GNUC__)
	return aio_log2_branchy(v);
#else
	return 63U - (__u32)__builtin_clzll(v | 1);
#endif
}

/*
 * aio_bucket - bucket index of a value in ns: 0 .. AIO_HIST_BUCKETS - 1.
 * Values above AIO_HIST_MAX_NS land in the last bucket.
 */
static __always_inline __u32 aio_bucket(__u64 ns)
{
	__u32 lg, shift;

	if (ns > AIO_HIST_MAX_NS)
		ns = AIO_HIST_MAX_NS;
	lg = aio_log2(ns);
	shift = lg > AIO_HIST_SUB_BITS ? lg - AIO_HIST_SUB_BITS : 0;
	return (shift << AIO_HIST_SUB_BITS) + (__u32)(ns >> shift);
}

/*
 * aio_bucket_lower - smallest value (ns) in bucket i (i < AIO_HIST_BUCKETS;
 * larger i are treated as the last bucket).
 */
static __always_inline __u64 aio_bucket_lower(__u32 i)
{
	__u32 shift;

	if (i >= AIO_HIST_BUCKETS)
		i = AIO_HIST_BUCKETS - 1;
	if (i < 2 * AIO_HIST_SUB)
		return i;
	shift = (i >> AIO_HIST_SUB_BITS) - 1;
	return (__u64)((i & (AIO_HIST_SUB - 1)) + AIO_HIST_SUB) << shift;
}

/*
 * aio_bucket_upper - largest value (ns) in bucket i, inclusive. For the last
 * bucket this is AIO_HIST_MAX_NS, although it also holds clamped values.
 */
static __always_inline __u64 aio_bucket_upper(__u32 i)
{
	if (i >= AIO_HIST_BUCKETS - 1)
		return AIO_HIST_MAX_NS;
	return aio_bucket_lower(i + 1) - 1;	/* the buckets are contiguous */
}

#endif /* __AIOSCOPE_BUCKETS_H */
