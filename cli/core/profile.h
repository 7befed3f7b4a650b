/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile.h - a latency distribution written as aiodev's `latency_profile` knob reads
 * it (docs/driver.md, "Latency profiles"): `LAT_NS WEIGHT` buckets whose upper bounds
 * increase, and an optional `errors PPM` line.
 *
 * The buckets are the sample's own quantiles: with k buckets, bucket i ends at the
 * latency of rank ceil(i * n / k) and weighs the values between the previous bound
 * and it. aiodev draws uniformly inside a bucket, so the device's delays follow the
 * sample's distribution function, linearly between those quantiles: every
 * percentile that falls on a bound (p50, p90 and p99 with 200 buckets) is the
 * sample's own, and the others lie between two neighbouring quantiles of it.
 */
#ifndef AIOSCOPE_CORE_PROFILE_H
#define AIOSCOPE_CORE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#define AIO_PROFILE_MAX_BUCKETS	256	/* aiodev's limit */
#define AIO_PROFILE_MAX_TEXT	4096	/* one sysfs write: a page */
#define AIO_PROFILE_MAX_NS	3600000000000ULL	/* aiodev's largest bound, 1 h */

/*
 * aio_profile_text - write the profile of the @n latencies (ns) in @lat, sorted in
 * increasing order, @errors of which failed, into @buf (@len bytes, NUL-terminated),
 * preceded by the comment @comment (one line, without '#', may be NULL). Uses at most
 * @max_buckets buckets (1 .. AIO_PROFILE_MAX_BUCKETS), fewer when the values repeat
 * or when the text would not fit AIO_PROFILE_MAX_TEXT bytes. Latencies above
 * AIO_PROFILE_MAX_NS are clamped to it.
 * Returns the text's length; -EINVAL for n == 0, errors > n, an unsorted @lat or a
 * bad @max_buckets; -ENOSPC if @len is too small. *@buckets (if not NULL) gets the
 * number of buckets with a weight.
 */
int aio_profile_text(const uint64_t *lat, size_t n, size_t errors, unsigned int max_buckets,
		     const char *comment, char *buf, size_t len, unsigned int *buckets);

/*
 * aio_profile_percentile - the value at percentile @p (0 < p <= 100) of the
 * distribution a profile text describes, as aiodev draws from it (uniform inside a
 * bucket, linear interpolation). For tests and for `aioscope profile -v`.
 * Returns 0 and sets *@ns, or -EINVAL for a text that is not a profile.
 */
int aio_profile_percentile(const char *text, double p, double *ns);

#endif
