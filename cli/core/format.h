/* SPDX-License-Identifier: GPL-2.0 */
/*
 * format.h - human-readable units and sparklines (aioscope core).
 *
 * Every function writes a NUL-terminated string into the caller's buffer
 * buf of size len and returns snprintf-style: the length the full string
 * has (excluding the NUL; >= len means it was truncated), or -EINVAL for a
 * NULL buf or len 0. Nothing is allocated.
 */
#ifndef AIOSCOPE_CORE_FORMAT_H
#define AIOSCOPE_CORE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * aio_fmt_ns - a duration in ns with 3 significant digits and a unit:
 * "0ns", "812ns", "8.12us", "812us", "2.10ms", "1.50s", "152s" (seconds
 * do not grow into minutes). Rounding never yields "1000us": it becomes
 * "1.00ms".
 */
int aio_fmt_ns(char *buf, size_t len, __u64 ns);

/*
 * aio_fmt_fixed - @ns in units of @unit ns with @digits decimals, rounded half up,
 * with integer arithmetic only (fewer decimals when @unit is not a multiple of
 * 10^@digits): (1234567, 1000, 1) gives "1234.6", (1500000000, 1000000000, 6)
 * "1.500000", (5, 1, 2) "5". Returns what snprintf returns.
 */
int aio_fmt_fixed(char *buf, size_t len, __u64 ns, __u64 unit, int digits);

/*
 * aio_fmt_count - a count or rate with 3 significant digits: "0", "950",
 * "12.3k", "4.56M", "1.20G"; fractions below 10 keep one decimal ("2.5").
 * Negative or NaN counts print as "0".
 */
int aio_fmt_count(char *buf, size_t len, double n);

/*
 * aio_sparkline - one character per value of vals[0..n-1], scaled so that
 * max maps to the top level (max == 0: the largest value). Levels: UTF-8
 * "▁▂▃▄▅▆▇█" (3 bytes each), or with ascii "_.-:=+*#". A value of 0 is the
 * lowest level. Writes at most the characters that fit whole.
 * Returns the bytes of the full sparkline (n, or 3n for UTF-8), -EINVAL.
 */
int aio_sparkline(char *buf, size_t len, const __u64 *vals, size_t n,
		  __u64 max, bool ascii);

/*
 * aio_utf8_seq - length of the well-formed UTF-8 character at @s (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF): 1 for ASCII, 2..4,
 * or 0 when @s starts an ill-formed sequence or is its terminating NUL. Reads
 * no further than a NUL.
 */
int aio_utf8_seq(const char *s);

/*
 * aio_fmt_term - @s made safe for a terminal (names chosen by other users:
 * comm, file names): printable ASCII and well-formed UTF-8 characters pass,
 * except the C1 controls U+0080..U+009F; a backslash becomes "\\"; every
 * other byte "\xHH" (ESC is "\x1b", a lone 0xc3 "\xc3"). Truncation keeps
 * escapes and characters whole. Returns the length of the full result.
 */
int aio_fmt_term(char *buf, size_t len, const char *s);

/*
 * aio_unescape_hex - @s[0..@n) with each "\xHH" (two hex digits) decoded to
 * its byte, every other byte copied as it is; NUL-terminated, truncated to
 * @len - 1 bytes. The inverse of the aiodev listing's comm escaping. Returns
 * the length of the full result.
 */
int aio_unescape_hex(char *buf, size_t len, const char *s, size_t n);

#endif /* AIOSCOPE_CORE_FORMAT_H */
