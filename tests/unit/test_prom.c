// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cli/core/prom.[ch]: the Prometheus / OpenMetrics writer. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/core/prom.h"
#include "unit.h"

static char *out;
static size_t outlen;
static FILE *mf;
static struct aio_prom P;

static void begin(bool om)
{
	free(out);
	out = NULL;
	mf = open_memstream(&out, &outlen);
	aio_prom_init(&P, mf, om);
}

static const char *finish(void)
{
	aio_prom_finish(&P);
	fclose(mf);
	mf = NULL;
	return out ? out : "";
}

static void test_prom_counter_text(void)
{
	struct aio_prom_label l[2] = { { "dev", "aiodev0" }, { "result", "done" } };
	const char *s;

	begin(false);
	aio_prom_family(&P, "aioscope_requests", AIO_PROM_COUNTER, "Requests finished.");
	aio_prom_u64(&P, l, 2, 18446744073709551615ULL);
	s = finish();
	UASSERT(!strcmp(s, "# HELP aioscope_requests_total Requests finished.\n"
			   "# TYPE aioscope_requests_total counter\n"
			   "aioscope_requests_total{dev=\"aiodev0\",result=\"done\"} "
			   "18446744073709551615\n"), "got [%s]", s);
	UASSERT(aio_prom_error(&P) == 0, "error %d", aio_prom_error(&P));
}

static void test_prom_counter_openmetrics(void)
{
	const char *s;

	begin(true);
	aio_prom_family(&P, "aioscope_requests", AIO_PROM_COUNTER, "Requests \"finished\".");
	aio_prom_u64(&P, NULL, 0, 7);
	s = finish();
	/* the family has no _total, its sample has; HELP escapes the quote; # EOF */
	UASSERT(!strcmp(s, "# HELP aioscope_requests Requests \\\"finished\\\".\n"
			   "# TYPE aioscope_requests counter\n"
			   "aioscope_requests_total 7\n# EOF\n"), "got [%s]", s);
}

static void test_prom_gauge_no_suffix(void)
{
	const char *s;

	begin(false);
	aio_prom_family(&P, "aioscope_inflight_requests", AIO_PROM_GAUGE, "now");
	aio_prom_u64(&P, NULL, 0, 3);
	s = finish();
	UASSERT(!strcmp(s, "# HELP aioscope_inflight_requests now\n"
			   "# TYPE aioscope_inflight_requests gauge\n"
			   "aioscope_inflight_requests 3\n"), "got [%s]", s);
}

static void test_prom_label_escaping(void)
{
	struct aio_prom_label l = { "comm", "a\\b\"c\nd" };
	const char *s;

	begin(false);
	aio_prom_family(&P, "x", AIO_PROM_GAUGE, "line1\nline2 \\ \"q\"");
	aio_prom_u64(&P, &l, 1, 1);
	s = finish();
	/* 0.0.4: HELP escapes backslash and newline only; values also the quote */
	UASSERT(!strcmp(s, "# HELP x line1\\nline2 \\\\ \"q\"\n# TYPE x gauge\n"
			   "x{comm=\"a\\\\b\\\"c\\nd\"} 1\n"), "got [%s]", s);
}

static void test_prom_histogram_cumulative(void)
{
	static const __u64 edges[3] = { 1023, 2047, 4095 };
	static const __u64 cum[3] = { 1, 1, 5 };
	struct aio_prom_label l = { "dev", "aiodev0" };
	const char *s;

	begin(false);
	aio_prom_family(&P, "lat_seconds", AIO_PROM_HISTOGRAM, "h");
	aio_prom_histogram(&P, &l, 1, edges, cum, 3, 6, 1500000000ULL);
	s = finish();
	UASSERT(!strcmp(s, "# HELP lat_seconds h\n# TYPE lat_seconds histogram\n"
			   "lat_seconds_bucket{dev=\"aiodev0\",le=\"0.000001023\"} 1\n"
			   "lat_seconds_bucket{dev=\"aiodev0\",le=\"0.000002047\"} 1\n"
			   "lat_seconds_bucket{dev=\"aiodev0\",le=\"0.000004095\"} 5\n"
			   "lat_seconds_bucket{dev=\"aiodev0\",le=\"+Inf\"} 6\n"
			   "lat_seconds_sum{dev=\"aiodev0\"} 1.5\n"
			   "lat_seconds_count{dev=\"aiodev0\"} 6\n"), "got [%s]", s);
}

static void test_prom_histogram_rejects_bad_counts(void)
{
	static const __u64 edges[2] = { 10, 20 };
	static const __u64 dec[2] = { 5, 4 };
	static const __u64 big[2] = { 1, 9 };

	begin(false);
	aio_prom_family(&P, "h", AIO_PROM_HISTOGRAM, "h");
	aio_prom_histogram(&P, NULL, 0, edges, dec, 2, 9, 0);
	UASSERT(aio_prom_error(&P) == -EINVAL, "decreasing buckets accepted");
	finish();
	begin(false);
	aio_prom_family(&P, "h", AIO_PROM_HISTOGRAM, "h");
	aio_prom_histogram(&P, NULL, 0, edges, big, 2, 8, 0);
	UASSERT(aio_prom_error(&P) == -EINVAL, "bucket above count accepted");
	finish();
	begin(false);
	aio_prom_family(&P, "c", AIO_PROM_COUNTER, "c");
	aio_prom_histogram(&P, NULL, 0, edges, big, 2, 9, 0);
	UASSERT(aio_prom_error(&P) == -EINVAL, "histogram sample in a counter family");
	finish();
}

static void test_prom_fmt_seconds(void)
{
	char b[40];

	aio_prom_fmt_seconds(b, sizeof(b), 0);
	UASSERT(!strcmp(b, "0"), "0 -> %s", b);
	aio_prom_fmt_seconds(b, sizeof(b), 1);
	UASSERT(!strcmp(b, "0.000000001"), "1 -> %s", b);
	aio_prom_fmt_seconds(b, sizeof(b), 68719476735ULL);
	UASSERT(!strcmp(b, "68.719476735"), "2^36-1 -> %s", b);
	aio_prom_fmt_seconds(b, sizeof(b), 3000000000ULL);
	UASSERT(!strcmp(b, "3"), "3 s -> %s", b);
	aio_prom_fmt_seconds(b, sizeof(b), 18446744073709551615ULL);
	UASSERT(!strcmp(b, "18446744073.709551615"), "max -> %s", b);
}

static void test_prom_names(void)
{
	UASSERT(aio_prom_name_ok("aioscope_requests", false), "plain name");
	UASSERT(aio_prom_name_ok("a:b_c", false), "colon in a metric name");
	UASSERT(!aio_prom_name_ok("a:b", true), "colon in a label name");
	UASSERT(!aio_prom_name_ok("1abc", false), "leading digit");
	UASSERT(!aio_prom_name_ok("", false), "empty");
	UASSERT(!aio_prom_name_ok("a-b", false), "dash");
	begin(false);
	aio_prom_family(&P, "bad-name", AIO_PROM_GAUGE, "x");
	UASSERT(aio_prom_error(&P) == -EINVAL, "bad family name accepted");
	finish();
	begin(false);
	aio_prom_family(&P, "g", AIO_PROM_GAUGE, "x");
	{
		struct aio_prom_label l = { "1x", "v" };

		aio_prom_u64(&P, &l, 1, 1);
	}
	UASSERT(aio_prom_error(&P) == -EINVAL, "bad label name accepted");
	finish();
	begin(false);
	aio_prom_u64(&P, NULL, 0, 1);
	UASSERT(aio_prom_error(&P) == -EINVAL, "sample before any family accepted");
	finish();
}

static void test_prom_accept(void)
{
	/* what Prometheus 2.42 sends */
	UASSERT(aio_prom_accept_openmetrics("application/openmetrics-text;version=1.0.0,"
		"application/openmetrics-text;version=0.0.1;q=0.75,"
		"text/plain;version=0.0.4;q=0.5,*/*;q=0.1"), "Prometheus's Accept");
	UASSERT(aio_prom_accept_openmetrics("application/openmetrics-text"), "bare");
	UASSERT(!aio_prom_accept_openmetrics(NULL), "no header");
	UASSERT(!aio_prom_accept_openmetrics("text/plain"), "text/plain");
	UASSERT(!aio_prom_accept_openmetrics("*/*"), "*/*");
	UASSERT(!aio_prom_accept_openmetrics("application/openmetrics-text; q=0"), "q=0");
	UASSERT(!aio_prom_accept_openmetrics("application/openmetrics-textual"), "prefix only");
}

static void test_prom_eof_only_openmetrics(void)
{
	const char *s;

	begin(false);
	s = finish();
	UASSERT(!strcmp(s, ""), "text format wrote [%s]", s);
	begin(true);
	s = finish();
	UASSERT(!strcmp(s, "# EOF\n"), "OpenMetrics wrote [%s]", s);
	begin(true);
	aio_prom_finish(&P);
	aio_prom_family(&P, "late", AIO_PROM_GAUGE, "x");
	UASSERT(aio_prom_error(&P) == -EINVAL, "family after # EOF accepted");
	s = finish();
	UASSERT(!strcmp(s, "# EOF\n"), "wrote [%s]", s);
}

static void test_prom_write_error(void)
{
	FILE *f = fopen("/dev/full", "w");

	UASSERT(f, "cannot open /dev/full");
	setvbuf(f, NULL, _IONBF, 0);
	aio_prom_init(&P, f, false);
	aio_prom_family(&P, "g", AIO_PROM_GAUGE, "x");
	aio_prom_u64(&P, NULL, 0, 1);
	aio_prom_finish(&P);
	fclose(f);
	UASSERT(aio_prom_error(&P) == -EIO, "write error not reported: %d", aio_prom_error(&P));
}

int main(void)
{
	RUN(test_prom_counter_text);
	RUN(test_prom_counter_openmetrics);
	RUN(test_prom_gauge_no_suffix);
	RUN(test_prom_label_escaping);
	RUN(test_prom_histogram_cumulative);
	RUN(test_prom_histogram_rejects_bad_counts);
	RUN(test_prom_fmt_seconds);
	RUN(test_prom_names);
	RUN(test_prom_accept);
	RUN(test_prom_eof_only_openmetrics);
	RUN(test_prom_write_error);
	free(out);
	return unit_done("prom");
}
