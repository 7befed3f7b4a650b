/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unit.h - minimal assertion helpers for the core's unit tests.
 *
 * One function per behaviour; UASSERT(cond, fmt, ...) records why and returns
 * from the test function at the first failure. RUN(fn) prints
 * "ok - fn" or "not ok - fn: file:line: why". unit_done() prints the totals
 * as a comment line and returns the exit status (1 if anything failed).
 */
#ifndef AIOSCOPE_UNIT_H
#define AIOSCOPE_UNIT_H

#include <stdio.h>

static char unit_why[4096];
static int unit_fail, unit_passed, unit_failed;

#define UASSERT(cond, fmt, ...)						\
	do {								\
		if (!(cond)) {						\
			snprintf(unit_why, sizeof(unit_why),		\
				 "%s:%d: " fmt, __FILE__, __LINE__,	\
				 ##__VA_ARGS__);			\
			unit_fail = 1;					\
			return;						\
		}							\
	} while (0)

#define RUN(fn) unit_run(#fn, fn)

static inline void unit_run(const char *name, void (*fn)(void))
{
	const char *n = name;

	if (!__builtin_strncmp(n, "test_", 5))
		n += 5;
	unit_fail = 0;
	unit_why[0] = '\0';
	fn();
	if (unit_fail) {
		printf("not ok - %s: %s\n", n, unit_why);
		unit_failed++;
	} else {
		printf("ok - %s\n", n);
		unit_passed++;
	}
	fflush(stdout);
}

static inline int unit_done(const char *suite)
{
	printf("# %s: %d passed, %d failed\n", suite, unit_passed,
	       unit_failed);
	return unit_failed ? 1 : 0;
}

/* xorshift64*: deterministic pseudo-random numbers for the tests */
static inline unsigned long long unit_rand(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* uniform double in [0, 1) */
static inline double unit_rand01(unsigned long long *s)
{
	return (double)(unit_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

#endif /* AIOSCOPE_UNIT_H */
