// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cli/core/profile.[ch]: aiodev latency profiles from a sample. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/core/profile.h"
#include "unit.h"

static char buf[8192];

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The exact percentile of a sorted sample, nearest rank. */
static uint64_t rank_pct(const uint64_t *v, size_t n, double p)
{
	size_t r = (size_t)ceil(p / 100.0 * (double)n);

	return v[r ? r - 1 : 0];
}

/* Checks the text as aiodev's parser would: increasing bounds, <= 256 buckets, weights. */
static int well_formed(const char *t, uint64_t *total, unsigned int *lines, uint64_t *ppm)
{
	uint64_t prev = 0, b, w;
	const char *s = t;
	bool first = true;

	*total = 0;
	*lines = 0;
	*ppm = 0;
	while (*s) {
		const char *eol = strchr(s, '\n');

		if (!eol)
			return -1;	/* every line ends */
		if (*s == '#') {
			s = eol + 1;
			continue;
		}
		if (sscanf(s, "errors %" SCNu64, ppm) == 1) {
			s = eol + 1;
			continue;
		}
		if (sscanf(s, "%" SCNu64 " %" SCNu64, &b, &w) != 2)
			return -2;
		if (!first && b <= prev)
			return -3;
		first = false;
		prev = b;
		*total += w;
		(*lines)++;
		s = eol + 1;
	}
	return *lines <= AIO_PROFILE_MAX_BUCKETS ? 0 : -4;
}

static void test_profile_bimodal_percentiles_exact(void)
{
	enum { N = 20000 };
	static uint64_t v[N];
	unsigned long long s = 42;
	uint64_t total, ppm;
	unsigned int lines, used;
	double got;
	int len;

	/* 95 % around 200 us, 5 % around 8 ms */
	for (int i = 0; i < N; i++)
		v[i] = (unit_rand(&s) % 20 < 19) ? 190000 + unit_rand(&s) % 20000 :
						  7900000 + unit_rand(&s) % 200000;
	qsort(v, N, sizeof(v[0]), cmp_u64);
	len = aio_profile_text(v, N, 0, 256, "test sample", buf, sizeof(buf), &used);
	UASSERT(len > 0 && (size_t)len == strlen(buf), "len %d", len);
	UASSERT(len < AIO_PROFILE_MAX_TEXT, "text of %d bytes does not fit a page", len);
	UASSERT(!strncmp(buf, "# test sample\n", 14), "comment first: %.20s", buf);
	UASSERT(!well_formed(buf, &total, &lines, &ppm), "malformed:\n%.300s", buf);
	UASSERT(total == N, "weights sum to %" PRIu64 ", not %d", total, N);
	UASSERT(ppm == 0, "no errors line expected");
	UASSERT(used >= 150, "only %u buckets", used);
	for (int k = 0; k < 3; k++) {
		static const double pct[3] = { 50, 90, 99 };
		uint64_t want = rank_pct(v, N, pct[k]);

		UASSERT(!aio_profile_percentile(buf, pct[k], &got), "percentile");
		UASSERT(fabs(got - (double)want) <= 0.01 * (double)want,
			"p%g: profile %.0f, sample %" PRIu64, pct[k], got, want);
	}
}

static void test_profile_starts_at_the_smallest_value(void)
{
	uint64_t v[4] = { 1000, 1000, 2000, 3000 }, total, ppm;
	unsigned int lines, used;
	int len = aio_profile_text(v, 4, 0, 256, NULL, buf, sizeof(buf), &used);

	UASSERT(len > 0, "len %d", len);
	/* a weightless bucket below 1000, then one per distinct value */
	UASSERT(!strcmp(buf, "999 0\n1000 2\n2000 1\n3000 1\n"), "got:\n%.300s", buf);
	UASSERT(!well_formed(buf, &total, &lines, &ppm) && total == 4 && used == 3,
		"total %" PRIu64 " used %u", total, used);
}

static void test_profile_errors_line(void)
{
	uint64_t v[1000], total, ppm;
	unsigned int lines;

	for (int i = 0; i < 1000; i++)
		v[i] = 5000 + (uint64_t)i;
	UASSERT(aio_profile_text(v, 1000, 25, 64, NULL, buf, sizeof(buf), NULL) > 0, "build");
	UASSERT(!well_formed(buf, &total, &lines, &ppm), "malformed");
	UASSERT(ppm == 25000, "errors %" PRIu64 " ppm, want 25000", ppm);
	UASSERT(lines <= 64, "%u bucket lines for max 64", lines);
	UASSERT(aio_profile_text(v, 1000, 0, 64, NULL, buf, sizeof(buf), NULL) > 0 &&
		!strstr(buf, "errors"), "no errors line without errors");
	/* one failure in three million rounds to 0 ppm, but still says "errors 1" */
	{
		enum { BIG = 3000000 };
		uint64_t *big = calloc(BIG, sizeof(*big));

		UASSERT(big, "calloc");
		for (int i = 0; i < BIG; i++)
			big[i] = 7000;
		UASSERT(aio_profile_text(big, BIG, 1, 64, NULL, buf, sizeof(buf), NULL) > 0, "big");
		free(big);
		UASSERT(!strcmp(buf, "6999 0\n7000 3000000\nerrors 1\n"), "got:\n%.300s", buf);
	}
}

static void test_profile_fits_a_page(void)
{
	enum { N = 5000 };
	static uint64_t v[N];
	uint64_t total, ppm;
	unsigned int lines, used;
	int len;

	/* 19-digit-wide lines would need 256 * 30 bytes: fewer buckets are used */
	for (int i = 0; i < N; i++)
		v[i] = 1000000000000ULL + (uint64_t)i * 100000007ULL;
	len = aio_profile_text(v, N, 1, 256, "wide", buf, sizeof(buf), &used);
	UASSERT(len > 0 && len < AIO_PROFILE_MAX_TEXT, "len %d", len);
	UASSERT(!well_formed(buf, &total, &lines, &ppm) && total == N, "malformed");
	UASSERT(used < 256 && used > 100, "%u buckets", used);
	/* clamped at aiodev's 1 h */
	v[N - 1] = UINT64_MAX;
	UASSERT(aio_profile_text(v, N, 0, 256, NULL, buf, sizeof(buf), NULL) > 0, "clamp");
	UASSERT(strstr(buf, "3600000000000 "), "last bound not clamped:\n%.60s",
		buf + strlen(buf) - 40);
}

static void test_profile_bad_input(void)
{
	uint64_t v[3] = { 3, 2, 1 };
	char small[8];

	UASSERT(aio_profile_text(v, 3, 0, 256, NULL, buf, sizeof(buf), NULL) == -EINVAL,
		"unsorted accepted");
	UASSERT(aio_profile_text(v, 0, 0, 256, NULL, buf, sizeof(buf), NULL) == -EINVAL,
		"empty accepted");
	v[0] = 1;
	v[2] = 3;
	UASSERT(aio_profile_text(v, 3, 4, 256, NULL, buf, sizeof(buf), NULL) == -EINVAL,
		"errors > n accepted");
	UASSERT(aio_profile_text(v, 3, 0, 257, NULL, buf, sizeof(buf), NULL) == -EINVAL,
		"257 buckets accepted");
	UASSERT(aio_profile_text(v, 3, 0, 256, "two\nlines", buf, sizeof(buf), NULL) == -EINVAL,
		"a comment of two lines accepted");
	UASSERT(aio_profile_text(v, 3, 0, 256, NULL, small, sizeof(small), NULL) == -ENOSPC,
		"a buffer too small accepted");
	{
		double ns;

		UASSERT(aio_profile_percentile("10 0\n", 50, &ns) == -EINVAL, "no weight");
		UASSERT(aio_profile_percentile("10 1\n5 1\n", 50, &ns) == -EINVAL, "unsorted");
		UASSERT(aio_profile_percentile("10 1\n", 0, &ns) == -EINVAL, "p 0");
		UASSERT(!aio_profile_percentile("# c\n0 0\n100 1\nerrors 5\n", 50, &ns) &&
			fabs(ns - 50) < 1e-9, "p50 of (0, 100] is %g", ns);
	}
}

int main(void)
{
	RUN(test_profile_bimodal_percentiles_exact);
	RUN(test_profile_starts_at_the_smallest_value);
	RUN(test_profile_errors_line);
	RUN(test_profile_fits_a_page);
	RUN(test_profile_bad_input);
	return unit_done("profile");
}
