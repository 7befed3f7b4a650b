// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_options - the command-line parsers (cli/collect/parse.c): parse_u64 (counts, pids,
 * milliseconds, --min-lat-us), parse_int (-p), parse_seconds (intervals and
 * durations), parse_mode (--mode), aio_col_parse (top's --sort). Every accepted
 * string must be exactly what the options document, with the value a reference
 * parser written here finds; everything else must be refused.
 *
 * Input: byte 0 chooses the range, the rest is the argument (up to its first NUL).
 */
#include <errno.h>
#include <math.h>

#include "fuzz.h"
#include "collect/parse.h"
#include "core/table.h"

/* all decimal digits, at least one; *v = the value, false on overflow */
static bool ref_u64(const char *s, uint64_t *v, bool *overflow)
{
	uint64_t x = 0;

	*overflow = false;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			*overflow = true;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

/* digits, at most one '.', at least one digit, an optional e[+-]digits */
static bool ref_decimal(const char *s)
{
	size_t digits = 0, dots = 0;

	for (; *s && *s != 'e' && *s != 'E'; s++) {
		if (*s == '.')
			dots++;
		else if (*s >= '0' && *s <= '9')
			digits++;
		else
			return false;
	}
	if (!digits || dots > 1)
		return false;
	if (!*s)
		return true;
	s++;
	if (*s == '+' || *s == '-')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static const uint64_t limits[][2] = {
	{ 0, UINT64_MAX / 1000 },		/* --min-lat-us */
	{ 1, UINT32_MAX },			/* hist -n */
	{ 1, 1000000000 },			/* top/stuck -n */
	{ 0, 1000ULL * 86400 * 365 },		/* --stuck-ms, --older-than */
	{ 1, 4194304 },				/* -p */
	{ 1, 1024 },				/* snoop's ring buffer MB */
	{ 0, UINT64_MAX },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t sel = size ? data[0] : 0;
	char *s = fz_cstr(size ? data + 1 : data, size ? size - 1 : 0);
	const uint64_t *lim = limits[sel % (sizeof(limits) / sizeof(limits[0]))];
	uint64_t u = 0, ref = 0;
	bool digits, overflow;
	enum tracer_mode mode;
	double d = -1;
	int i = 0, rc;

	/* unsigned: digits only, in range, the reference value */
	rc = parse_u64(s, lim[0], lim[1], &u);
	digits = ref_u64(s, &ref, &overflow);
	if (rc == 0)
		FUZZ_CHECK(digits && !overflow && u == ref && u >= lim[0] && u <= lim[1],
			   "parse_u64 accepted '%s' as %llu", s, (unsigned long long)u);
	else
		FUZZ_CHECK(rc == -EINVAL && (!digits || overflow || ref < lim[0] || ref > lim[1]),
			   "parse_u64 refused '%s'", s);

	/* signed int: an optional '-' and digits, in range */
	rc = parse_int(s, 1, INT32_MAX, &i);
	digits = ref_u64(s[0] == '-' ? s + 1 : s, &ref, &overflow);
	if (rc == 0)
		FUZZ_CHECK(s[0] != '-' && digits && !overflow && (uint64_t)i == ref && i >= 1,
			   "parse_int accepted '%s' as %d", s, i);
	else
		FUZZ_CHECK(!digits || overflow || s[0] == '-' || ref < 1 || ref > INT32_MAX,
			   "parse_int refused '%s'", s);
	rc = parse_int(s, -5, 5, &i);
	if (rc == 0)
		FUZZ_CHECK(i >= -5 && i <= 5, "parse_int out of range: %d", i);

	/* seconds: a plain decimal number (an exponent allowed), finite, in (0, 1e6] */
	rc = parse_seconds(s, sel & 0x80, &d);
	if (rc == 0) {
		FUZZ_CHECK(ref_decimal(s), "parse_seconds accepted '%s'", s);
		FUZZ_CHECK(isfinite(d) && d >= 0 && d <= 1e6 && ((sel & 0x80) || d > 0),
			   "parse_seconds gave %g for '%s'", d, s);
		FUZZ_CHECK(fabs(d - strtod(s, NULL)) <= 1e-9 * d, "'%s' is not %g", s, d);
	} else if (ref_decimal(s)) {
		double v = strtod(s, NULL);

		/* refused only when out of range (or below the smallest double) */
		FUZZ_CHECK(v > 1e6 || v == 0 || v < 1e-300 || !isfinite(v),
			   "parse_seconds refused '%s' (%g)", s, v);
	}

	rc = parse_mode(s, &mode);
	FUZZ_CHECK(rc == 0 ? (!strcmp(s, "auto") || !strcmp(s, "fentry") ||
			      !strcmp(s, "kprobe") || !strcmp(s, "syscalls")) : rc == -EINVAL,
		   "parse_mode '%s'", s);

	rc = aio_col_parse(s);
	FUZZ_CHECK(rc == -EINVAL || (rc >= 0 && rc < AIO_COL_NR), "aio_col_parse %d", rc);
	if (rc >= 0)
		FUZZ_CHECK(aio_col_name((enum aio_col)rc), "column %d has no name", rc);
	free(s);
	return 0;
}
