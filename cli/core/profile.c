// SPDX-License-Identifier: GPL-2.0
/*
 * profile.c - latency profiles for aiodev from a sample of latencies (profile.h).
 */
#include "profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t clamp_ns(uint64_t ns)
{
	return ns > AIO_PROFILE_MAX_NS ? AIO_PROFILE_MAX_NS : ns;
}

/* The number of values <= @v in the sorted @lat (clamped as the buckets are). */
static size_t count_le(const uint64_t *lat, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (clamp_ns(lat[mid]) <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Appends to @buf at *@off; false once it does not fit. */
static bool __attribute__((format(printf, 4, 5)))
put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*off >= len)
		return false;
	va_start(ap, fmt);
	w = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= len - *off)
		return false;
	*off += (size_t)w;
	return true;
}

/*
 * One attempt with @k quantile buckets: the text's length, or -ENOSPC when it does
 * not fit @len. *@used gets the buckets with a weight.
 */
static int profile_try(const uint64_t *lat, size_t n, size_t errors, size_t k,
		       const char *comment, char *buf, size_t len, unsigned int *used)
{
	uint64_t first = clamp_ns(lat[0]);
	size_t off = 0, prev = 0;
	unsigned int nb = 0;

	if (comment && !put(buf, len, &off, "# %s\n", comment))
		return -ENOSPC;
	/* a weightless bucket ending below the smallest value: the next one starts there */
	if (first > 0 && !put(buf, len, &off, "%" PRIu64 " %" PRIu64 "\n", first - 1, (uint64_t)0))
		return -ENOSPC;
	for (size_t i = 1; i <= k; i++) {
		size_t rank = (i * n + k - 1) / k;	/* ceil(i * n / k), 1-based */
		uint64_t bound = clamp_ns(lat[rank - 1]);
		size_t cum = count_le(lat, n, bound);

		if (cum <= prev)
			continue;	/* a repeated value: its bucket has them all */
		if (!put(buf, len, &off, "%" PRIu64 " %" PRIu64 "\n", bound, (uint64_t)(cum - prev)))
			return -ENOSPC;
		prev = cum;
		nb++;
	}
	if (errors) {
		uint64_t ppm = ((uint64_t)errors * 1000000 + n / 2) / n;

		if (!ppm)
			ppm = 1;	/* rare, not never */
		if (!put(buf, len, &off, "errors %" PRIu64 "\n", ppm))
			return -ENOSPC;
	}
	if (used)
		*used = nb;
	return (int)off;
}

int aio_profile_text(const uint64_t *lat, size_t n, size_t errors, unsigned int max_buckets,
		     const char *comment, char *buf, size_t len, unsigned int *buckets)
{
	size_t k, cap = len < AIO_PROFILE_MAX_TEXT ? len : AIO_PROFILE_MAX_TEXT;
	int ret;

	if (!lat || !n || errors > n || !buf || !max_buckets ||
	    max_buckets > AIO_PROFILE_MAX_BUCKETS)
		return -EINVAL;
	for (size_t i = 1; i < n; i++)
		if (lat[i] < lat[i - 1])
			return -EINVAL;
	if (comment && strchr(comment, '\n'))
		return -EINVAL;
	/* the weightless first bucket counts against aiodev's limit too */
	k = max_buckets - (clamp_ns(lat[0]) > 0 && max_buckets > 1);
	if (k > n)
		k = n;
	for (;;) {
		/* cap: the NUL must fit too, and the knob takes one page */
		ret = profile_try(lat, n, errors, k, comment, buf,
				  cap < len ? cap + 1 : len, buckets);
		if (ret >= 0 && (size_t)ret < cap)
			return ret;
		if (k == 1)
			return -ENOSPC;
		k = k * 9 / 10;	/* shorter lines would not fit many more */
		if (!k)
			k = 1;
	}
}

int aio_profile_percentile(const char *text, double p, double *ns)
{
	uint64_t bounds[AIO_PROFILE_MAX_BUCKETS], weights[AIO_PROFILE_MAX_BUCKETS];
	uint64_t total = 0, cum = 0;
	const char *s = text;
	size_t nb = 0;

	if (!text || !ns || !(p > 0 && p <= 100))
		return -EINVAL;
	while (*s) {
		const char *eol = strchr(s, '\n');
		size_t l = eol ? (size_t)(eol - s) : strlen(s);
		char line[128];
		unsigned long long b, w;
		char extra;

		if (l >= sizeof(line))
			return -EINVAL;
		memcpy(line, s, l);
		line[l] = 0;
		s += l + (eol ? 1 : 0);
		if (!line[0] || line[0] == '#' || !strncmp(line, "errors ", 7))
			continue;
		if (sscanf(line, "%llu %llu %c", &b, &w, &extra) != 2 || nb == AIO_PROFILE_MAX_BUCKETS ||
		    (nb && b <= bounds[nb - 1]))
			return -EINVAL;
		bounds[nb] = b;
		weights[nb++] = w;
		total += w;
	}
	if (!total)
		return -EINVAL;
	for (size_t i = 0; i < nb; i++) {
		double target = p / 100.0 * (double)total, floor;

		if (!weights[i] || (double)(cum + weights[i]) < target) {
			cum += weights[i];
			continue;
		}
		floor = i ? (double)bounds[i - 1] : 0;
		*ns = floor + (target - (double)cum) / (double)weights[i] *
			      ((double)bounds[i] - floor);
		return 0;
	}
	*ns = (double)bounds[nb - 1];
	return 0;
}
