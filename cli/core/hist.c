// SPDX-License-Identifier: GPL-2.0
/*
 * hist.c - fine log2 latency histogram with percentiles.
 *
 * Percentiles follow HdrHistogram_c's hdr_value_at_percentile: a rank from
 * the total count, a walk over the cumulative counts, the bucket's highest
 * equivalent value. Unlike it, an empty histogram answers -ENODATA.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hist.h"

void aio_hist_reset(struct aio_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void aio_hist_add_n(struct aio_hist *h, __u64 ns, __u64 n)
{
	if (!n)
		return;
	if (!h->count || ns < h->min)
		h->min = ns;
	if (!h->count || ns > h->max)
		h->max = ns;
	h->count += n;
	h->sum += ns * n;
	h->buckets[aio_bucket(ns)] += n;
}

void aio_hist_add(struct aio_hist *h, __u64 ns)
{
	aio_hist_add_n(h, ns, 1);
}

void aio_hist_merge(struct aio_hist *dst, const struct aio_hist *src)
{
	size_t i;

	if (!src->count)
		return;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (!dst->count || src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	for (i = 0; i < AIO_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
}

/* Set min/max from the edges of the lowest/highest non-empty bucket. */
static void hist_edges(struct aio_hist *h)
{
	__u32 lo = AIO_HIST_BUCKETS, hi = 0, i;

	for (i = 0; i < AIO_HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		if (lo == AIO_HIST_BUCKETS)
			lo = i;
		hi = i;
	}
	if (lo == AIO_HIST_BUCKETS) {
		h->min = h->max = 0;
		return;
	}
	h->min = aio_bucket_lower(lo);
	h->max = aio_bucket_upper(hi);
}

int aio_hist_add_buckets(struct aio_hist *h, const __u64 *counts, size_t n)
{
	struct aio_hist add;
	__u32 i;

	if (!h || !counts || n != AIO_HIST_BUCKETS)
		return -EINVAL;
	memset(&add, 0, offsetof(struct aio_hist, buckets));
	for (i = 0; i < AIO_HIST_BUCKETS; i++) {
		__u64 c = counts[i];
		__u64 mid;

		add.buckets[i] = c;
		if (!c)
			continue;
		add.count += c;
		mid = aio_bucket_lower(i) +
		      (aio_bucket_upper(i) - aio_bucket_lower(i)) / 2;
		add.sum += mid * c;
	}
	hist_edges(&add);
	aio_hist_merge(h, &add);
	return 0;
}

void aio_hist_diff(struct aio_hist *out, const struct aio_hist *cur,
		   const struct aio_hist *prev)
{
	__u64 cmin = cur->min, cmax = cur->max, ccount = cur->count;
	__u64 count = 0;
	__u32 i;

	/* out may alias cur or prev: read each bucket pair before writing */
	for (i = 0; i < AIO_HIST_BUCKETS; i++) {
		__u64 c = cur->buckets[i], p = prev->buckets[i];

		out->buckets[i] = aio_delta(c, p);
		count += out->buckets[i];
	}
	out->sum = aio_delta(cur->sum, prev->sum);
	out->count = count;
	hist_edges(out);
	if (out->count && ccount) {
		if (out->min < cmin)
			out->min = cmin;
		if (out->max > cmax)
			out->max = cmax;
		if (out->min > out->max)
			out->min = out->max;
	}
}

int aio_hist_percentile(const struct aio_hist *h, double p, __u64 *ns)
{
	__u64 rank, run = 0;
	double r;
	__u32 i;

	if (!h || !ns || !(p >= 0.0 && p <= 100.0))
		return -EINVAL;
	if (!h->count)
		return -ENODATA;
	r = p / 100.0 * (double)h->count + 0.5;
	rank = r >= (double)h->count ? h->count : (__u64)r;
	if (rank < 1)
		rank = 1;
	for (i = 0; i < AIO_HIST_BUCKETS; i++) {
		run += h->buckets[i];
		if (run >= rank)
			break;
	}
	if (i == AIO_HIST_BUCKETS) {
		/* buckets disagree with count (caller edited it): use max */
		*ns = h->max;
		return 0;
	}
	if (i == AIO_HIST_BUCKETS - 1)
		*ns = h->max;	/* the clamp bucket has no real upper edge */
	else
		*ns = aio_bucket_upper(i) < h->max ? aio_bucket_upper(i) :
						     h->max;
	return 0;
}

int aio_hist_mean(const struct aio_hist *h, double *ns)
{
	if (!h || !ns)
		return -EINVAL;
	if (!h->count)
		return -ENODATA;
	*ns = (double)h->sum / (double)h->count;
	return 0;
}

const char *aio_hist_unit_pick(__u64 max_ns, __u64 *div)
{
	__u64 d;
	const char *u;

	if (max_ns < 10000ULL) {
		d = 1;
		u = "nsecs";
	} else if (max_ns < 10000000000ULL) {
		d = 1000;
		u = "usecs";
	} else {
		d = 1000000;
		u = "msecs";
	}
	if (div)
		*div = d;
	return u;
}

static int unit_div(const char *unit, __u64 *div)
{
	static const struct {
		const char *name;
		__u64 div;
	} units[] = {
		{ "nsecs", 1 }, { "usecs", 1000 }, { "msecs", 1000000 },
		{ "secs", 1000000000 },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(unit, units[i].name)) {
			*div = units[i].div;
			return 0;
		}
	}
	return -EINVAL;
}

static void print_stars(FILE *f, __u64 val, __u64 val_max, int width)
{
	int n, i;

	n = val_max ? (int)((double)val * width / (double)val_max) : 0;
	if (n > width)
		n = width;
	for (i = 0; i < n; i++)
		fputc('*', f);
	for (; i < width; i++)
		fputc(' ', f);
}

int aio_hist_print_log2(const struct aio_hist *h, FILE *f, const char *unit)
{
	__u64 slots[64] = { 0 };
	__u64 div, val_max = 0;
	int idx_max = -1, i, stars = 40, width = 10;
	__u32 b;

	if (!h || !f)
		return -EINVAL;
	if (unit) {
		if (unit_div(unit, &div))
			return -EINVAL;
	} else {
		unit = aio_hist_unit_pick(h->max, &div);
	}
	if (!h->count)
		return 0;
	for (b = 0; b < AIO_HIST_BUCKETS; b++) {
		__u32 s;

		if (!h->buckets[b])
			continue;
		s = aio_log2(aio_bucket_lower(b) / div);
		slots[s] += h->buckets[b];
	}
	for (i = 0; i < 64; i++) {
		if (slots[i])
			idx_max = i;
		if (slots[i] > val_max)
			val_max = slots[i];
	}
	if (idx_max < 0)
		return 0;
	if (idx_max > 31)
		width = 20;
	/* bcc print_log2_hist layout */
	fprintf(f, "%*s%-*s : count    distribution\n", width == 10 ? 5 : 15,
		"", width == 10 ? 19 : 29, unit);
	for (i = 0; i <= idx_max; i++) {
		unsigned long long low = (1ULL << (i + 1)) >> 1;
		unsigned long long high = (1ULL << (i + 1)) - 1;

		if (i == 63)
			high = ~0ULL;
		if (low == high)
			low -= 1;
		fprintf(f, "%*llu -> %-*llu : %-8llu |", width, low, width,
			high, (unsigned long long)slots[i]);
		print_stars(f, slots[i], val_max, stars);
		fputs("|\n", f);
	}
	return ferror(f) ? -EIO : 0;
}
