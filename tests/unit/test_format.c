// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cli/core/format.[ch]. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "cli/core/format.h"
#include "unit.h"

#define EXPECT(call, want)						\
	do {								\
		char b_[64];						\
		int n_ = call;						\
		UASSERT(n_ == (int)strlen(want) && !strcmp(b_, want),	\
			"%s gave \"%s\" (%d), want \"%s\"", #call, b_,	\
			n_, want);					\
	} while (0)

static void test_format_ns_units(void)
{
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 0), "0ns");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 812), "812ns");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 999), "999ns");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 1000), "1.00us");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 8120), "8.12us");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 812000), "812us");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 2100000), "2.10ms");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 1500000000ULL), "1.50s");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 152000000000ULL), "152s");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 5000000000000ULL), "5000s");
}

static void test_format_fixed(void)
{
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 1234567, 1000, 1), "1234.6");
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 1234549, 1000, 1), "1234.5");
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 1234550, 1000, 1), "1234.6");
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 0, 1000, 1), "0.0");
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 99950, 1000, 1), "100.0");
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 1500000000ULL, 1000000000ULL, 6), "1.500000");
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 3596236499ULL, 1000000000ULL, 6), "3.596236");
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 3596236500ULL, 1000000000ULL, 6), "3.596237");
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 999999999ULL, 1000000000ULL, 6), "1.000000");
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 18446744073709551615ULL, 1000, 1),
	       "18446744073709551.6");
	/* fewer decimals than asked when the unit has fewer factors of ten */
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 5, 1, 2), "5");
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 1234, 20, 3), "61.7");
	EXPECT(aio_fmt_fixed(b_, sizeof(b_), 7, 0, 1), "7");
	{
		/* snprintf's contract: truncated, terminated, full length returned */
		char b[4] = "xxx";
		int n = aio_fmt_fixed(b, sizeof(b), 1234567, 1000, 1);

		UASSERT(n == 6 && !strcmp(b, "123"), "truncated to \"%s\" (%d)", b, n);
		n = aio_fmt_fixed(b, 0, 1234567, 1000, 1);
		UASSERT(n == 6 && !strcmp(b, "123"), "len 0 wrote \"%s\" (%d)", b, n);
	}
}

static void test_format_ns_rounding_boundaries(void)
{
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 9994), "9.99us");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 9996), "10.0us");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 99940), "99.9us");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 99960), "100us");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 999400), "999us");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 999600), "1.00ms");
	EXPECT(aio_fmt_ns(b_, sizeof(b_), 999600000ULL), "1.00s");
}

static void test_format_count(void)
{
	EXPECT(aio_fmt_count(b_, sizeof(b_), 0), "0");
	EXPECT(aio_fmt_count(b_, sizeof(b_), -1), "0");
	EXPECT(aio_fmt_count(b_, sizeof(b_), 2.5), "2.5");
	EXPECT(aio_fmt_count(b_, sizeof(b_), 3), "3");
	EXPECT(aio_fmt_count(b_, sizeof(b_), 950), "950");
	EXPECT(aio_fmt_count(b_, sizeof(b_), 999.6), "1.00k");
	EXPECT(aio_fmt_count(b_, sizeof(b_), 12300), "12.3k");
	EXPECT(aio_fmt_count(b_, sizeof(b_), 4.56e6), "4.56M");
	EXPECT(aio_fmt_count(b_, sizeof(b_), 1.2e9), "1.20G");
}

static void test_format_truncation_and_invalid(void)
{
	char b[4];

	UASSERT(aio_fmt_ns(b, sizeof(b), 2100000) == 6 && !strcmp(b, "2.1"),
		"truncated to \"%s\"", b);
	UASSERT(aio_fmt_ns(NULL, 10, 1) == -EINVAL, "NULL buffer");
	UASSERT(aio_fmt_ns(b, 0, 1) == -EINVAL, "zero length");
	UASSERT(aio_fmt_count(NULL, 1, 1) == -EINVAL, "NULL buffer count");
	UASSERT(aio_sparkline(NULL, 1, NULL, 0, 0, true) == -EINVAL,
		"NULL sparkline buffer");
	UASSERT(aio_sparkline(b, sizeof(b), NULL, 3, 0, true) == -EINVAL,
		"NULL values with n > 0");
}

static void test_format_sparkline_utf8(void)
{
	const __u64 v[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	char b[64];
	int n;

	n = aio_sparkline(b, sizeof(b), v, 8, 0, false);
	UASSERT(n == 24, "returned %d", n);
	UASSERT(!strcmp(b, "▁▂▃▄▅▆▇█"), "got \"%s\"", b);
	n = aio_sparkline(b, sizeof(b), v, 8, 14, false);
	UASSERT(!strcmp(b, "▁▂▂▃▃▄▄▅"), "explicit max (round to nearest level): \"%s\"", b);
	n = aio_sparkline(b, 8, v, 8, 0, false);	/* room for 2 chars */
	UASSERT(n == 24 && !strcmp(b, "▁▂"), "truncated: \"%s\" %d", b, n);
}

static void test_format_sparkline_ascii(void)
{
	const __u64 v[4] = { 0, 0, 100, 50 }, z[3] = { 0, 0, 0 };
	const __u64 big[2] = { ~0ULL, ~0ULL / 2 };
	char b[16];

	UASSERT(aio_sparkline(b, sizeof(b), v, 4, 0, true) == 4 &&
			!strcmp(b, "__#="), "ascii: \"%s\"", b);
	UASSERT(aio_sparkline(b, sizeof(b), z, 3, 0, true) == 3 &&
			!strcmp(b, "___"), "all zero: \"%s\"", b);
	UASSERT(aio_sparkline(b, sizeof(b), v, 4, 10, true) == 4 &&
			!strcmp(b, "__##"), "values above max clip: \"%s\"", b);
	UASSERT(aio_sparkline(b, sizeof(b), big, 2, 0, true) == 2 &&
			!strcmp(b, "#="), "huge values: \"%s\"", b);
	UASSERT(aio_sparkline(b, sizeof(b), v, 0, 0, true) == 0 && !b[0],
		"empty series");
}

/* Names for a terminal: controls, ESC, C1, half characters and '\' escaped. */
static void test_format_term_escapes(void)
{
	char b[64];
	int n;

	EXPECT(aio_fmt_term(b_, sizeof(b_), "fio"), "fio");
	EXPECT(aio_fmt_term(b_, sizeof(b_), "\x1b]0;pwn\x07\x1b[2J"),
	       "\\x1b]0;pwn\\x07\\x1b[2J");
	EXPECT(aio_fmt_term(b_, sizeof(b_), "\nid=0x1\tpid=1"), "\\x0aid=0x1\\x09pid=1");
	EXPECT(aio_fmt_term(b_, sizeof(b_), "a\\x1b"), "a\\\\x1b");
	EXPECT(aio_fmt_term(b_, sizeof(b_), "\x7f\xc2\x9b" "1m"), "\\x7f\\xc2\\x9b1m");
	/* well-formed UTF-8 passes; half a character does not */
	EXPECT(aio_fmt_term(b_, sizeof(b_), "caf\xc3\xa9"), "caf\xc3\xa9");
	EXPECT(aio_fmt_term(b_, sizeof(b_), "aaaaaaaaaaaaaa\xc3"), "aaaaaaaaaaaaaa\\xc3");
	EXPECT(aio_fmt_term(b_, sizeof(b_), "\xed\xa0\x80\xf0\x9f\x98\x80"),
	       "\\xed\\xa0\\x80\xf0\x9f\x98\x80");
	/* truncation keeps escapes whole and returns the full length */
	n = aio_fmt_term(b, 6, "ab\x1b" "c");
	UASSERT(n == 7 && !strcmp(b, "ab"), "truncated: %d \"%s\"", n, b);
	UASSERT(aio_fmt_term(NULL, 4, "x") == -EINVAL, "NULL buffer");
}

/* The aiodev listing's escaping undone; anything else copied as it is. */
static void test_format_unescape_hex(void)
{
	char b[32];
	const char *in = "\\x0aid=0x1\\x09pid=1\\x5c\\x20";
	int n = aio_unescape_hex(b, sizeof(b), in, strlen(in));

	UASSERT(n == 15 && !strcmp(b, "\nid=0x1\tpid=1\\ "), "decoded %d \"%s\"", n, b);
	n = aio_unescape_hex(b, sizeof(b), "\\x4\\xg1\\y\\", 10);
	UASSERT(n == 10 && !strcmp(b, "\\x4\\xg1\\y\\"), "malformed kept: %d \"%s\"", n, b);
	n = aio_unescape_hex(b, sizeof(b), "\\x41\\x42", 6);	/* the second cut short */
	UASSERT(n == 3 && !strcmp(b, "A\\x"), "bounded by n: %d \"%s\"", n, b);
	n = aio_unescape_hex(b, 4, "abcdef", 6);
	UASSERT(n == 6 && !strcmp(b, "abc"), "truncated: %d \"%s\"", n, b);
	UASSERT(aio_utf8_seq("") == 0 && aio_utf8_seq("a") == 1 &&
		aio_utf8_seq("\xc3\xa9") == 2 && aio_utf8_seq("\xc3") == 0 &&
		aio_utf8_seq("\xe0\x80\x80") == 0 && aio_utf8_seq("\xf4\x8f\xbf\xbf") == 4,
		"aio_utf8_seq");
}

int main(void)
{
	RUN(test_format_ns_units);
	RUN(test_format_fixed);
	RUN(test_format_ns_rounding_boundaries);
	RUN(test_format_count);
	RUN(test_format_truncation_and_invalid);
	RUN(test_format_sparkline_utf8);
	RUN(test_format_sparkline_ascii);
	RUN(test_format_term_escapes);
	RUN(test_format_unescape_hex);
	return unit_done("format");
}
