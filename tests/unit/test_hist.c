// SPDX-License-Identifier: GPL-2.0
/* Unit tests of bpf/buckets.h and cli/core/hist.[ch]. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/core/hist.h"
#include "unit.h"

static struct aio_hist H, H2, H3;

/* ---- buckets.h ---- */

static void test_buckets_size_fits_percpu_value(void)
{
	UASSERT(AIO_HIST_BUCKETS == 2048, "AIO_HIST_BUCKETS %d",
		AIO_HIST_BUCKETS);
	UASSERT(sizeof(__u64) * AIO_HIST_BUCKETS <= 16384,
		"histogram is %zu bytes > 16 KiB",
		sizeof(__u64) * AIO_HIST_BUCKETS);
}

static void test_buckets_log2_forms_agree(void)
{
	unsigned long long s = 0x1234567;
	int k, i;

	UASSERT(aio_log2(0) == 0 && aio_log2_branchy(0) == 0,
		"log2(0) should be 0");
	for (k = 0; k < 64; k++) {
		__u64 p = 1ULL << k;
		__u64 vs[3] = { p - 1, p, p + 1 };

		for (i = 0; i < 3; i++) {
			UASSERT(aio_log2(vs[i]) == aio_log2_branchy(vs[i]),
				"log2 forms differ at %llu: %u vs %u",
				(unsigned long long)vs[i], aio_log2(vs[i]),
				aio_log2_branchy(vs[i]));
		}
		UASSERT(aio_log2(p) == (__u32)k, "log2(2^%d) = %u", k,
			aio_log2(p));
	}
	for (i = 0; i < 100000; i++) {
		__u64 v = unit_rand(&s) >> (unit_rand(&s) % 64);

		UASSERT(aio_log2(v) == aio_log2_branchy(v),
			"log2 forms differ at %llu", (unsigned long long)v);
	}
}

static void test_buckets_small_values_exact(void)
{
	__u32 v;

	for (v = 0; v < 2 * AIO_HIST_SUB; v++) {
		UASSERT(aio_bucket(v) == v, "bucket(%u) = %u", v,
			aio_bucket(v));
		UASSERT(aio_bucket_lower(v) == v && aio_bucket_upper(v) == v,
			"edges of bucket %u: %llu..%llu", v,
			(unsigned long long)aio_bucket_lower(v),
			(unsigned long long)aio_bucket_upper(v));
	}
}

static void test_buckets_edges_contiguous_and_roundtrip(void)
{
	__u32 i;

	UASSERT(aio_bucket_lower(0) == 0, "first bucket starts at %llu",
		(unsigned long long)aio_bucket_lower(0));
	for (i = 0; i < AIO_HIST_BUCKETS; i++) {
		__u64 lo = aio_bucket_lower(i), hi = aio_bucket_upper(i);

		UASSERT(lo <= hi, "bucket %u: lower %llu > upper %llu", i,
			(unsigned long long)lo, (unsigned long long)hi);
		UASSERT(aio_bucket(lo) == i, "bucket(lower(%u)) = %u", i,
			aio_bucket(lo));
		UASSERT(aio_bucket(hi) == i, "bucket(upper(%u)) = %u", i,
			aio_bucket(hi));
		if (i + 1 < AIO_HIST_BUCKETS)
			UASSERT(hi + 1 == aio_bucket_lower(i + 1),
				"gap after bucket %u: %llu then %llu", i,
				(unsigned long long)hi,
				(unsigned long long)aio_bucket_lower(i + 1));
		if (lo >= 2 * AIO_HIST_SUB)
			UASSERT((double)(hi - lo) / (double)lo < 1.0 / 64,
				"bucket %u too wide: %llu..%llu", i,
				(unsigned long long)lo,
				(unsigned long long)hi);
	}
	UASSERT(aio_bucket_upper(AIO_HIST_BUCKETS - 1) == AIO_HIST_MAX_NS,
		"last upper edge %llu",
		(unsigned long long)aio_bucket_upper(AIO_HIST_BUCKETS - 1));
}

static void test_buckets_power_of_two_boundaries(void)
{
	int k;

	for (k = 1; k < AIO_HIST_MAX_LOG2; k++) {
		__u64 p = 1ULL << k;

		UASSERT(aio_bucket(p - 1) + 1 == aio_bucket(p),
			"2^%d-1 and 2^%d are not in adjacent buckets", k, k);
		UASSERT(aio_bucket_lower(aio_bucket(p)) == p,
			"2^%d does not start a bucket", k);
	}
}

static void test_buckets_clamp(void)
{
	__u32 last = AIO_HIST_BUCKETS - 1;

	UASSERT(aio_bucket(AIO_HIST_MAX_NS) == last, "max -> %u",
		aio_bucket(AIO_HIST_MAX_NS));
	UASSERT(aio_bucket(AIO_HIST_MAX_NS + 1) == last, "max+1 -> %u",
		aio_bucket(AIO_HIST_MAX_NS + 1));
	UASSERT(aio_bucket(~0ULL) == last, "U64_MAX -> %u",
		aio_bucket(~0ULL));
	UASSERT(aio_bucket(AIO_HIST_MAX_NS - (1ULL << 30)) == last - 1,
		"just below the last bucket -> %u",
		aio_bucket(AIO_HIST_MAX_NS - (1ULL << 30)));
	UASSERT(aio_bucket_lower(AIO_HIST_BUCKETS + 5) ==
			aio_bucket_lower(last),
		"out-of-range index not treated as the last bucket");
}

static void test_buckets_monotonic_random(void)
{
	unsigned long long s = 42;
	int i;

	for (i = 0; i < 200000; i++) {
		__u64 a = unit_rand(&s) >> (unit_rand(&s) % 64);
		__u64 b = a + (unit_rand(&s) & 0xffff);
		__u32 ia = aio_bucket(a), ib = aio_bucket(b);

		if (b < a)
			continue;
		UASSERT(ia <= ib, "bucket(%llu)=%u > bucket(%llu)=%u",
			(unsigned long long)a, ia, (unsigned long long)b, ib);
		if (a <= AIO_HIST_MAX_NS)
			UASSERT(aio_bucket_lower(ia) <= a &&
					a <= aio_bucket_upper(ia),
				"%llu outside its bucket %u",
				(unsigned long long)a, ia);
	}
}

/* ---- hist ---- */

static void test_hist_empty_is_no_data(void)
{
	__u64 v = 12345;
	double m = 1.0;

	aio_hist_reset(&H);
	UASSERT(aio_hist_percentile(&H, 50, &v) == -ENODATA,
		"p50 of an empty histogram should be -ENODATA");
	UASSERT(v == 12345, "output touched on no data: %llu",
		(unsigned long long)v);
	UASSERT(aio_hist_percentile(&H, 0, &v) == -ENODATA,
		"p0 of an empty histogram should be -ENODATA");
	UASSERT(aio_hist_mean(&H, &m) == -ENODATA,
		"mean of an empty histogram should be -ENODATA");
}

static void test_hist_empty_after_reset(void)
{
	__u64 v;

	aio_hist_reset(&H);
	aio_hist_add(&H, 1000);
	UASSERT(aio_hist_percentile(&H, 99, &v) == 0, "p99 with data");
	aio_hist_reset(&H);
	UASSERT(H.count == 0 && H.sum == 0, "reset left count %llu",
		(unsigned long long)H.count);
	UASSERT(aio_hist_percentile(&H, 99, &v) == -ENODATA,
		"p99 after reset should be -ENODATA");
}

static void test_hist_invalid_arguments(void)
{
	__u64 v;
	double m;

	aio_hist_reset(&H);
	aio_hist_add(&H, 10);
	UASSERT(aio_hist_percentile(&H, -0.001, &v) == -EINVAL, "p < 0");
	UASSERT(aio_hist_percentile(&H, 100.001, &v) == -EINVAL, "p > 100");
	UASSERT(aio_hist_percentile(&H, NAN, &v) == -EINVAL, "p NaN");
	UASSERT(aio_hist_percentile(&H, 50, NULL) == -EINVAL, "NULL out");
	UASSERT(aio_hist_percentile(NULL, 50, &v) == -EINVAL, "NULL hist");
	UASSERT(aio_hist_mean(&H, NULL) == -EINVAL, "mean NULL out");
	UASSERT(aio_hist_mean(NULL, &m) == -EINVAL, "mean NULL hist");
	UASSERT(aio_hist_percentile(&H, 0, &v) == 0 && v == 10,
		"p0 edge value: %llu", (unsigned long long)v);
	UASSERT(aio_hist_percentile(&H, 100, &v) == 0 && v == 10,
		"p100 edge value: %llu", (unsigned long long)v);
}

static void test_hist_single_value_is_exact(void)
{
	__u64 v;

	aio_hist_reset(&H);
	aio_hist_add(&H, 2000000);	/* 2 ms: bucket upper edge is higher */
	UASSERT(aio_hist_percentile(&H, 50, &v) == 0, "p50");
	UASSERT(v == 2000000, "p50 of one value should be capped at max, "
		"got %llu", (unsigned long long)v);
	UASSERT(H.min == 2000000 && H.max == 2000000, "min/max %llu/%llu",
		(unsigned long long)H.min, (unsigned long long)H.max);
}

static void test_hist_rank_boundary_pair(void)
{
	__u64 v;
	int i;

	/* six exact-bucket values 1..6: rank = round(p / 100 * 6) */
	aio_hist_reset(&H);
	for (i = 1; i <= 6; i++)
		aio_hist_add(&H, (__u64)i);
	UASSERT(aio_hist_percentile(&H, 74.99, &v) == 0 && v == 4,
		"p74.99 should be rank 4 -> 4, got %llu",
		(unsigned long long)v);
	UASSERT(aio_hist_percentile(&H, 75.0, &v) == 0 && v == 5,
		"p75 should be rank 5 -> 5, got %llu", (unsigned long long)v);
	UASSERT(aio_hist_percentile(&H, 83.33, &v) == 0 && v == 5,
		"p83.33 should be rank 5 -> 5, got %llu",
		(unsigned long long)v);
	UASSERT(aio_hist_percentile(&H, 91.67, &v) == 0 && v == 6,
		"p91.67 should be rank 6 -> 6, got %llu",
		(unsigned long long)v);
	UASSERT(aio_hist_percentile(&H, 0, &v) == 0 && v == 1,
		"p0 should be the first value, got %llu",
		(unsigned long long)v);
}

static void test_hist_upper_edge_reported(void)
{
	__u64 v, lo = 1ULL << 20;	/* bucket [2^20, 2^20 + 2^14 - 1] */

	aio_hist_reset(&H);
	aio_hist_add(&H, lo);
	aio_hist_add(&H, 1ULL << 30);
	UASSERT(aio_hist_percentile(&H, 50, &v) == 0, "p50");
	UASSERT(v == lo + (1ULL << 14) - 1,
		"p50 should be the bucket's upper edge %llu, got %llu",
		(unsigned long long)(lo + (1ULL << 14) - 1),
		(unsigned long long)v);
	UASSERT(v >= lo, "percentile below the exact value");
}

static void test_hist_clamped_values_report_max(void)
{
	__u64 v, big = 1ULL << 40;

	aio_hist_reset(&H);
	aio_hist_add(&H, big);
	UASSERT(H.buckets[AIO_HIST_BUCKETS - 1] == 1, "not in the last bucket");
	UASSERT(aio_hist_percentile(&H, 99, &v) == 0 && v == big,
		"p99 of a clamped value should be max %llu, got %llu",
		(unsigned long long)big, (unsigned long long)v);
}

static void test_hist_mean_and_sum(void)
{
	double m;

	aio_hist_reset(&H);
	aio_hist_add(&H, 1000);
	aio_hist_add(&H, 3000);
	aio_hist_add_n(&H, 5000, 2);
	aio_hist_add_n(&H, 7777, 0);
	UASSERT(H.count == 4, "count %llu", (unsigned long long)H.count);
	UASSERT(H.sum == 14000, "sum %llu", (unsigned long long)H.sum);
	UASSERT(aio_hist_mean(&H, &m) == 0 && m == 3500.0, "mean %f", m);
	UASSERT(H.min == 1000 && H.max == 5000, "min/max %llu/%llu",
		(unsigned long long)H.min, (unsigned long long)H.max);
}

static void test_hist_merge(void)
{
	__u32 i;

	aio_hist_reset(&H);
	aio_hist_reset(&H2);
	aio_hist_reset(&H3);
	aio_hist_add(&H, 100);
	aio_hist_add(&H, 1000000);
	aio_hist_add(&H2, 50);
	aio_hist_add(&H2, 2000000);
	aio_hist_add(&H3, 100);
	aio_hist_add(&H3, 1000000);
	aio_hist_add(&H3, 50);
	aio_hist_add(&H3, 2000000);
	aio_hist_merge(&H, &H2);
	UASSERT(H.count == 4 && H.sum == H3.sum, "count %llu sum %llu",
		(unsigned long long)H.count, (unsigned long long)H.sum);
	UASSERT(H.min == 50 && H.max == 2000000, "min/max %llu/%llu",
		(unsigned long long)H.min, (unsigned long long)H.max);
	for (i = 0; i < AIO_HIST_BUCKETS; i++)
		UASSERT(H.buckets[i] == H3.buckets[i], "bucket %u differs", i);
	aio_hist_reset(&H2);
	aio_hist_merge(&H, &H2);
	UASSERT(H.count == 4 && H.min == 50, "merging empty changed h");
	aio_hist_merge(&H2, &H);
	UASSERT(H2.count == 4 && H2.min == 50 && H2.max == 2000000,
		"merge into empty: count %llu min %llu",
		(unsigned long long)H2.count, (unsigned long long)H2.min);
}

static void test_hist_diff_interval(void)
{
	__u64 v;

	aio_hist_reset(&H);	/* previous cumulative */
	aio_hist_add_n(&H, 1000, 10);
	H2 = H;			/* current cumulative = previous + 3 x 5 ms */
	aio_hist_add_n(&H2, 5000000, 3);
	aio_hist_diff(&H3, &H2, &H);
	UASSERT(H3.count == 3, "delta count %llu",
		(unsigned long long)H3.count);
	UASSERT(H3.sum == 15000000, "delta sum %llu",
		(unsigned long long)H3.sum);
	UASSERT(H3.buckets[aio_bucket(1000)] == 0, "old bucket in delta");
	UASSERT(aio_hist_percentile(&H3, 50, &v) == 0 && v == 5000000,
		"delta p50 should be 5 ms (capped at max), got %llu",
		(unsigned long long)v);
	UASSERT(H3.min >= 4900000 && H3.min <= 5000000, "delta min %llu",
		(unsigned long long)H3.min);
	aio_hist_diff(&H3, &H2, &H2);
	UASSERT(H3.count == 0, "self-diff count %llu",
		(unsigned long long)H3.count);
	UASSERT(aio_hist_percentile(&H3, 50, &v) == -ENODATA,
		"empty delta should be no data");
}

static void test_hist_diff_wrap_and_reset(void)
{
	aio_hist_reset(&H);
	aio_hist_reset(&H2);
	/* 64-bit wrap: prev near U64_MAX, cur wrapped past zero */
	H.buckets[200] = ~0ULL - 1;
	H.count = ~0ULL - 1;
	H.sum = ~0ULL - 99;
	H2.buckets[200] = ~0ULL;	/* +1 */
	H2.buckets[300] = 2;		/* +2 */
	H2.count = 1;			/* wrapped: +3 */
	H2.sum = 100;			/* wrapped: +200 */
	H2.max = aio_bucket_upper(300);
	aio_hist_diff(&H3, &H2, &H);
	UASSERT(H3.buckets[200] == 1 && H3.buckets[300] == 2,
		"bucket deltas %llu %llu", (unsigned long long)H3.buckets[200],
		(unsigned long long)H3.buckets[300]);
	UASSERT(H3.sum == 200, "wrapped sum delta %llu",
		(unsigned long long)H3.sum);
	UASSERT(H3.count == 3, "count delta %llu",
		(unsigned long long)H3.count);
	/* a bucket that went backwards (counter reset) yields 0 */
	aio_hist_reset(&H);
	aio_hist_reset(&H2);
	H.buckets[10] = 5;
	H.count = 5;
	H2.buckets[10] = 2;
	H2.count = 2;
	aio_hist_diff(&H3, &H2, &H);
	UASSERT(H3.buckets[10] == 0 && H3.count == 0,
		"backwards bucket gave %llu", (unsigned long long)H3.buckets[10]);
}

static void test_hist_diff_aliasing(void)
{
	aio_hist_reset(&H);
	aio_hist_add_n(&H, 1000, 2);
	H2 = H;
	aio_hist_add_n(&H2, 3000, 4);
	aio_hist_diff(&H2, &H2, &H);	/* out == cur */
	UASSERT(H2.count == 4 && H2.buckets[aio_bucket(3000)] == 4 &&
			H2.buckets[aio_bucket(1000)] == 0,
		"out aliasing cur: count %llu", (unsigned long long)H2.count);
}

static void test_hist_add_buckets(void)
{
	static __u64 counts[AIO_HIST_BUCKETS];
	__u32 b1 = aio_bucket(1000), b2 = aio_bucket(4000000);
	__u64 v;

	memset(counts, 0, sizeof(counts));
	counts[b1] = 7;
	counts[b2] = 3;
	aio_hist_reset(&H);
	UASSERT(aio_hist_add_buckets(&H, counts, AIO_HIST_BUCKETS - 1) ==
			-EINVAL, "wrong length accepted");
	UASSERT(aio_hist_add_buckets(&H, NULL, AIO_HIST_BUCKETS) == -EINVAL,
		"NULL counts accepted");
	UASSERT(aio_hist_add_buckets(&H, counts, AIO_HIST_BUCKETS) == 0,
		"add_buckets failed");
	UASSERT(H.count == 10, "count %llu", (unsigned long long)H.count);
	UASSERT(H.min == aio_bucket_lower(b1) && H.max == aio_bucket_upper(b2),
		"min/max from edges: %llu/%llu", (unsigned long long)H.min,
		(unsigned long long)H.max);
	UASSERT(aio_hist_percentile(&H, 90, &v) == 0 &&
			v == aio_bucket_upper(b2),
		"p90 %llu", (unsigned long long)v);
	UASSERT(aio_hist_percentile(&H, 50, &v) == 0 &&
			v == aio_bucket_upper(b1),
		"p50 %llu, expected the upper edge %llu", (unsigned long long)v,
		(unsigned long long)aio_bucket_upper(b1));
}

/* exact percentile with the same rank rule, from sorted values */
static __u64 exact_pct(const __u64 *sorted, size_t n, double p)
{
	double r = p / 100.0 * (double)n + 0.5;
	size_t rank = r >= (double)n ? n : (size_t)r;

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

enum dist { D_UNIFORM, D_LOGUNIFORM, D_EXP, D_BIMODAL, D_NR };
static const char *const dist_name[D_NR] = {
	"uniform", "log-uniform", "exponential", "bimodal"
};

static __u64 draw(enum dist d, unsigned long long *s)
{
	const double lo = 1e3, hi = 1e10;	/* 1 us .. 10 s */
	double x;

	switch (d) {
	case D_UNIFORM:
		x = lo + unit_rand01(s) * (hi - lo);
		break;
	case D_LOGUNIFORM:
		x = lo * pow(hi / lo, unit_rand01(s));
		break;
	case D_EXP:
		x = lo - 2e6 * log(1.0 - unit_rand01(s));	/* mean 2 ms */
		break;
	default:
		/* 95% around 100 us, 5% around 50 ms */
		if (unit_rand01(s) < 0.95)
			x = 1e5 * (0.5 + unit_rand01(s));
		else
			x = 5e7 * (0.5 + unit_rand01(s));
		break;
	}
	if (x < lo)
		x = lo;
	if (x > hi)
		x = hi;
	return (__u64)x;
}

static void test_hist_percentiles_within_3pct_random(void)
{
	static const double ps[] = { 50, 90, 99, 99.9 };
	static const size_t sizes[] = { 1000, 100000 };
	unsigned long long s = 0x9e3779b97f4a7c15ULL;
	double worst = 0;
	int d, seed, k;
	size_t si;

	for (d = 0; d < D_NR; d++) {
		for (si = 0; si < 2; si++) {
			for (seed = 0; seed < 5; seed++) {
				size_t n = sizes[si], i;
				__u64 *v = malloc(n * sizeof(*v));

				UASSERT(v, "malloc");
				aio_hist_reset(&H);
				for (i = 0; i < n; i++) {
					v[i] = draw((enum dist)d, &s);
					aio_hist_add(&H, v[i]);
				}
				qsort(v, n, sizeof(*v), cmp_u64);
				for (k = 0; k < 4; k++) {
					__u64 ex = exact_pct(v, n, ps[k]), est;
					double err;

					if (aio_hist_percentile(&H, ps[k],
								&est)) {
						free(v);
						UASSERT(0, "percentile failed");
					}
					err = ((double)est - (double)ex) /
					      (double)ex;
					if (err > worst)
						worst = err;
					if (est < ex || err > 0.03) {
						free(v);
						UASSERT(0,
							"%s n=%zu p%g: est %llu exact %llu err %.4f",
							dist_name[d], n, ps[k],
							(unsigned long long)est,
							(unsigned long long)ex, err);
					}
				}
				free(v);
			}
		}
	}
	printf("# worst relative percentile error over %d runs: %.4f%%\n",
	       D_NR * 2 * 5, worst * 100);
}

static char *print_to_string(const struct aio_hist *h, const char *unit,
			     int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	*rc = aio_hist_print_log2(h, f, unit);
	fclose(f);
	return buf;
}

static void test_hist_print_log2(void)
{
	char *out;
	int rc = -1;

	aio_hist_reset(&H);
	aio_hist_add_n(&H, 1000, 3);	/* 1 us -> slot 0 "0 -> 1" */
	aio_hist_add(&H, 5000);		/* 5 us -> slot 2 "4 -> 7" */
	aio_hist_add(&H, 20000);	/* 20 us -> slot 4 "16 -> 31" */
	out = print_to_string(&H, NULL, &rc);
	UASSERT(out && rc == 0, "print failed: %d", rc);
	if (!strstr(out, "usecs") ||
	    !strstr(out, "         0 -> 1          : 3        |****************************************|") ||
	    !strstr(out, "         2 -> 3          : 0        |") ||
	    !strstr(out, "         4 -> 7          : 1        |*************                           |") ||
	    !strstr(out, "        16 -> 31         : 1        |")) {
		fprintf(stderr, "%s", out);
		free(out);
		UASSERT(0, "unexpected log2 output (printed on stderr)");
	}
	if (strstr(out, "32 -> 63")) {
		free(out);
		UASSERT(0, "printed past the last non-empty slot");
	}
	free(out);
	out = print_to_string(&H, "nsecs", &rc);
	UASSERT(out && rc == 0 && strstr(out, "nsecs") &&
			strstr(out, "1024 -> 2047"),
		"forced nsecs output wrong");
	free(out);
	out = print_to_string(&H, "furlongs", &rc);
	free(out);
	UASSERT(rc == -EINVAL, "unknown unit accepted: %d", rc);
	aio_hist_reset(&H);
	out = print_to_string(&H, NULL, &rc);
	UASSERT(rc == 0 && out && out[0] == '\0',
		"empty histogram printed something");
	free(out);
	UASSERT(aio_hist_print_log2(NULL, stdout, NULL) == -EINVAL,
		"NULL hist accepted");
}

static void test_hist_unit_pick(void)
{
	__u64 div = 0;

	UASSERT(!strcmp(aio_hist_unit_pick(9999, &div), "nsecs") && div == 1,
		"9999 ns");
	UASSERT(!strcmp(aio_hist_unit_pick(10000, &div), "usecs") &&
			div == 1000, "10000 ns");
	UASSERT(!strcmp(aio_hist_unit_pick(9999999999ULL, &div), "usecs"),
		"just under 10 s");
	UASSERT(!strcmp(aio_hist_unit_pick(10000000000ULL, &div), "msecs") &&
			div == 1000000, "10 s");
}

int main(void)
{
	RUN(test_buckets_size_fits_percpu_value);
	RUN(test_buckets_log2_forms_agree);
	RUN(test_buckets_small_values_exact);
	RUN(test_buckets_edges_contiguous_and_roundtrip);
	RUN(test_buckets_power_of_two_boundaries);
	RUN(test_buckets_clamp);
	RUN(test_buckets_monotonic_random);
	RUN(test_hist_empty_is_no_data);
	RUN(test_hist_empty_after_reset);
	RUN(test_hist_invalid_arguments);
	RUN(test_hist_single_value_is_exact);
	RUN(test_hist_rank_boundary_pair);
	RUN(test_hist_upper_edge_reported);
	RUN(test_hist_clamped_values_report_max);
	RUN(test_hist_mean_and_sum);
	RUN(test_hist_merge);
	RUN(test_hist_diff_interval);
	RUN(test_hist_diff_wrap_and_reset);
	RUN(test_hist_diff_aliasing);
	RUN(test_hist_add_buckets);
	RUN(test_hist_percentiles_within_3pct_random);
	RUN(test_hist_print_log2);
	RUN(test_hist_unit_pick);
	return unit_done("hist");
}
