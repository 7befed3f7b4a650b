// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_term - the terminal-safe formatter aio_fmt_term() (comm and file names of
 * other users on root's terminal) and aio_unescape_hex() (the aiodev listing's
 * comm). For any bytes: no control byte, no C1 control, no invalid UTF-8 reaches
 * the output, truncation keeps escapes and characters whole, and the escaping can
 * be undone (two different names never print the same).
 */
#include "core/format.h"
#include "fuzz.h"

/* Undo aio_fmt_term's escaping: "\\" and "\xHH". Returns the length, -1 if malformed. */
static long unterm(const char *s, char *out)
{
	long n = 0;

	while (*s) {
		if (*s != '\\') {
			out[n++] = *s++;
			continue;
		}
		if (s[1] == '\\') {
			out[n++] = '\\';
			s += 2;
		} else if (s[1] == 'x' && jp_hex((unsigned char)s[2]) >= 0 &&
			   jp_hex((unsigned char)s[3]) >= 0) {
			out[n++] = (char)(jp_hex((unsigned char)s[2]) << 4 |
					  jp_hex((unsigned char)s[3]));
			s += 4;
		} else {
			return -1;
		}
	}
	return n;
}

static void check_safe(const char *o)
{
	size_t n = strlen(o);

	FUZZ_CHECK(utf8_valid(o, n), "not valid UTF-8");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)o[i];

		FUZZ_CHECK(c >= 0x20 && c != 0x7f, "control byte 0x%02x at %zu", c, i);
		FUZZ_CHECK(!(c == 0xc2 && i + 1 < n && (unsigned char)o[i + 1] < 0xa0),
			   "C1 control at %zu", i);
	}
}

/* The aiodev listing's escaping of comm (docs/design.md): not printable ASCII, space, '\'. */
static size_t driver_escape(const char *s, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c >= 0x7f || c == '\\')
			o += (size_t)sprintf(out + o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_cstr(data, size), *full, *back, part[96], esc[4 * 4096 + 1];
	size_t slen = strlen(s);
	long bn;
	int n;

	full = malloc(4 * slen + 1);
	back = malloc(slen + 1);
	if (!full || !back)
		abort();
	n = aio_fmt_term(full, 4 * slen + 1, s);
	FUZZ_CHECK(n >= 0 && strlen(full) == (size_t)n, "returned %d, wrote %zu", n, strlen(full));
	check_safe(full);
	bn = unterm(full, back);
	FUZZ_CHECK(bn == (long)slen && !memcmp(back, s, slen), "escaping cannot be undone");
	for (size_t len = 1; len <= sizeof(part); len += 1 + len / 3) {
		int m = aio_fmt_term(part, len, s);
		size_t pl = strlen(part);

		FUZZ_CHECK(m == n, "len %zu: returned %d, not %d", len, m, n);
		FUZZ_CHECK(pl < len, "overran %zu", len);
		FUZZ_CHECK(!memcmp(part, full, pl), "truncation is no prefix");
		check_safe(part);
		/* whole units: what is cut off starts a new unit of the full text */
		FUZZ_CHECK(unterm(part, back) >= 0, "escape cut in half at %zu", len);
		FUZZ_CHECK(full[pl] == '\0' || full[pl] == '\\' ||
			   ((unsigned char)full[pl] & 0xc0) != 0x80,
			   "character cut in half at %zu", len);
	}
	/* the driver's escaping, decoded: the same bytes (first 4096) */
	if (slen <= 4096) {
		size_t en = driver_escape(s, slen, esc);
		char dec[4097];

		n = aio_unescape_hex(dec, sizeof(dec), esc, en);
		FUZZ_CHECK(n == (int)slen && !memcmp(dec, s, slen) && dec[slen] == '\0',
			   "unescape(escape(x)) != x");
	}
	/* any bytes into aio_unescape_hex: bounded, terminated */
	for (size_t len = 1; len <= 40; len += 13) {
		n = aio_unescape_hex(part, len, (const char *)data, size);
		FUZZ_CHECK(n >= 0 && (size_t)n <= size, "unescape returned %d", n);
		FUZZ_CHECK(memchr(part, '\0', len), "unescape left no NUL");
	}
	free(back);
	free(full);
	free(s);
	return 0;
}
