// SPDX-License-Identifier: GPL-2.0
/* format.c - human-readable units and sparklines into caller buffers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format.h"

/*
 * Print x (>= 1 in units[0]) with 3 significant digits, moving to the next
 * unit (x / 1000) while the rounded value would reach 1000.
 */
static int fmt_sig3(char *buf, size_t len, double x, const char *const *units,
		    int nunits)
{
	int u = 0;

	for (;;) {
		if (x < 9.995)
			return snprintf(buf, len, "%.2f%s", x, units[u]);
		if (x < 99.95)
			return snprintf(buf, len, "%.1f%s", x, units[u]);
		if (x < 999.5 || u == nunits - 1)
			return snprintf(buf, len, "%.0f%s", x, units[u]);
		x /= 1000.0;
		u++;
	}
}

int aio_fmt_fixed(char *buf, size_t len, __u64 ns, __u64 unit, int digits)
{
	__u64 step = unit ? unit : 1, scale = 1, v, ip, fp;
	char tmp[48];
	int n = 0, i = sizeof(tmp), out;

	/* as many decimals as asked for and @unit allows */
	while (n < digits && step % 10 == 0) {
		step /= 10;
		scale *= 10;
		n++;
	}
	v = ns / step + (ns % step >= (step + 1) / 2);
	ip = v / scale;
	fp = v % scale;
	/* by hand, from the last digit: this runs once per line of snoop's output */
	for (int k = 0; k < n; k++) {
		tmp[--i] = (char)('0' + fp % 10);
		fp /= 10;
	}
	if (n)
		tmp[--i] = '.';
	do {
		tmp[--i] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	out = (int)sizeof(tmp) - i;
	if (len) {
		size_t c = (size_t)out < len - 1 ? (size_t)out : len - 1;

		memcpy(buf, tmp + i, c);
		buf[c] = '\0';
	}
	return out;
}

int aio_fmt_ns(char *buf, size_t len, __u64 ns)
{
	static const char *const units[] = { "us", "ms", "s" };

	if (!buf || !len)
		return -EINVAL;
	if (ns < 1000)
		return snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return fmt_sig3(buf, len, (double)ns / 1000.0, units, 3);
}

int aio_fmt_count(char *buf, size_t len, double n)
{
	static const char *const units[] = { "k", "M", "G", "T", "P" };

	if (!buf || !len)
		return -EINVAL;
	if (!(n > 0))
		n = 0;
	if (n < 9.95 && n != floor(n))
		return snprintf(buf, len, "%.1f", n);
	if (n < 999.5)
		return snprintf(buf, len, "%.0f", n);
	return fmt_sig3(buf, len, n / 1000.0, units, 5);
}

int aio_sparkline(char *buf, size_t len, const __u64 *vals, size_t n,
		  __u64 max, bool ascii)
{
	static const char ascii_lv[] = "_.-:=+*#";
	size_t i, w = ascii ? 1 : 3, out = 0;

	if (!buf || !len || (n && !vals))
		return -EINVAL;
	if (!max) {
		for (i = 0; i < n; i++)
			if (vals[i] > max)
				max = vals[i];
	}
	for (i = 0; i < n; i++) {
		double f = max ? (double)vals[i] / (double)max : 0.0;
		int lv = (int)(f * 7.0 + 0.5);

		if (lv > 7)
			lv = 7;
		if (lv < 0)
			lv = 0;
		if (out + w + 1 > len)
			break;
		if (ascii) {
			buf[out] = ascii_lv[lv];
		} else {
			/* U+2581 .. U+2588: E2 96 81 .. E2 96 88 */
			buf[out] = (char)0xE2;
			buf[out + 1] = (char)0x96;
			buf[out + 2] = (char)(0x81 + lv);
		}
		out += w;
	}
	buf[out] = '\0';
	return (int)(n * w);
}

int aio_utf8_seq(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (p[0] && p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* the second byte's range excludes overlong forms, surrogates, > U+10FFFF */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

int aio_fmt_term(char *buf, size_t len, const char *s)
{
	size_t off = 0, full = 0;

	if (!buf || !len)
		return -EINVAL;
	while (*s) {
		const unsigned char c = (unsigned char)*s;
		char esc[8];
		const char *unit = esc;
		size_t n = 1, ulen;
		int seq;

		if (c == '\\') {
			unit = "\\\\";
		} else if (c >= 0x20 && c < 0x7f) {
			unit = s;
		} else if ((seq = aio_utf8_seq(s)) > 1 &&
			   !(c == 0xc2 && (unsigned char)s[1] < 0xa0)) {	/* C1 */
			unit = s;
			n = (size_t)seq;
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		}
		ulen = unit == s ? n : strlen(unit);
		if (full == off && off + ulen < len) {
			memcpy(buf + off, unit, ulen);
			off += ulen;
		}
		full += ulen;
		s += n;
	}
	buf[off] = '\0';
	return full > 0x7fffffff ? 0x7fffffff : (int)full;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int aio_unescape_hex(char *buf, size_t len, const char *s, size_t n)
{
	size_t i = 0, off = 0;

	if (!buf || !len)
		return -EINVAL;
	while (i < n) {
		char c = s[i++];

		if (c == '\\' && i + 3 <= n && s[i] == 'x' &&
		    hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			c = (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2]));
			i += 3;
		}
		if (off + 1 < len)
			buf[off] = c;
		off++;
	}
	buf[off < len ? off : len - 1] = '\0';
	return off > 0x7fffffff ? 0x7fffffff : (int)off;
}
