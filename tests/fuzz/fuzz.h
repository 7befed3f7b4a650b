/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - helpers shared by the libFuzzer targets: reading the input as a stream
 * of choices, and strict checkers (UTF-8, JSON) for what the code under test
 * writes. A failed check aborts, which libFuzzer reports as a crash with the input.
 */
#ifndef AIOSCOPE_FUZZ_H
#define AIOSCOPE_FUZZ_H

#include <ctype.h>
#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define FUZZ_CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__,	\
				__LINE__, #cond);				\
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
			abort();						\
		}								\
	} while (0)

/* The input, consumed from the front. Reads past the end give zeros. */
struct fz {
	const uint8_t *p;
	size_t n;
};

static inline size_t fz_left(const struct fz *f)
{
	return f->n;
}

static inline uint8_t fz_u8(struct fz *f)
{
	uint8_t v = 0;

	if (f->n) {
		v = *f->p++;
		f->n--;
	}
	return v;
}

static inline uint64_t fz_u64(struct fz *f, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)fz_u8(f) << (8 * i);
	return v;
}

/* Up to @max bytes (the count is the next byte) as a NUL-terminated string in @buf. */
static inline size_t fz_str(struct fz *f, char *buf, size_t max)
{
	size_t n = fz_u8(f) % (max + 1);

	if (n > f->n)
		n = f->n;
	memcpy(buf, f->p, n);
	buf[n] = '\0';
	f->p += n;
	f->n -= n;
	return n;
}

/* A malloc'd NUL-terminated copy of the whole input (ASan sees overreads). */
static inline char *fz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* ---- UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF) ---- */

/*
 * The oracle is glibc's decoder (mbrtowc in C.UTF-8), not a second copy of the
 * writers' own check: it refuses overlong forms and surrogates, and the range check
 * here adds what it allows beyond RFC 3629 (above U+10FFFF, 5- and 6-byte forms).
 * Returns the length of the well-formed character at s[0..n), 0 if ill-formed.
 */
static inline size_t utf8_char(const unsigned char *s, size_t n)
{
	static bool locale_set;
	mbstate_t st;
	wchar_t wc;
	size_t c;

	if (!locale_set) {
		if (!setlocale(LC_CTYPE, "C.UTF-8")) {
			fprintf(stderr, "fuzz: no C.UTF-8 locale for the UTF-8 oracle\n");
			abort();
		}
		locale_set = true;
	}
	if (!n)
		return 0;
	memset(&st, 0, sizeof(st));
	c = mbrtowc(&wc, (const char *)s, n, &st);
	if (c == (size_t)-1 || c == (size_t)-2 || (uint32_t)wc > 0x10ffff)
		return 0;
	return c ? c : 1;	/* 0: a NUL byte */
}

static inline bool utf8_valid(const void *buf, size_t n)
{
	const unsigned char *s = buf;

	while (n) {
		size_t c = utf8_char(s, n);

		if (!c)
			return false;
		s += c;
		n -= c;
	}
	return true;
}

/* ---- JSON (RFC 8259), strict: what Python's json and jq accept, no extensions ---- */

struct jp {
	const unsigned char *s;
	size_t n, i;
	int depth;
};

static bool jp_value(struct jp *p);

static inline void jp_ws(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
			       p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static inline bool jp_lit(struct jp *p, const char *lit)
{
	size_t l = strlen(lit);

	if (p->n - p->i < l || memcmp(p->s + p->i, lit, l))
		return false;
	p->i += l;
	return true;
}

static inline int jp_hex(unsigned char c)
{
	static const char digits[] = "0123456789abcdef";
	const char *p = c ? strchr(digits, tolower(c)) : NULL;

	return p ? (int)(p - digits) : -1;
}

static inline bool jp_string(struct jp *p)
{
	if (p->i >= p->n || p->s[p->i] != '"')
		return false;
	p->i++;
	while (p->i < p->n) {
		unsigned char c = p->s[p->i];
		size_t l;

		if (c == '"') {
			p->i++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			if (++p->i >= p->n)
				return false;
			c = p->s[p->i++];
			if (c == 'u') {
				unsigned int u = 0;

				if (p->n - p->i < 4)
					return false;
				for (int k = 0; k < 4; k++) {
					int h = jp_hex(p->s[p->i++]);

					if (h < 0)
						return false;
					u = u << 4 | (unsigned int)h;
				}
				/* a lone surrogate is no character: the writers never need one */
				if (u >= 0xd800 && u <= 0xdfff)
					return false;
			} else if (!strchr("\"\\/bfnrt", c) || !c) {
				return false;
			}
			continue;
		}
		l = utf8_char(p->s + p->i, p->n - p->i);
		if (!l)
			return false;
		p->i += l;
	}
	return false;
}

static inline bool jp_digits(struct jp *p)
{
	size_t st = p->i;

	while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
		p->i++;
	return p->i > st;
}

static inline bool jp_number(struct jp *p)
{
	if (p->i < p->n && p->s[p->i] == '-')
		p->i++;
	if (p->i < p->n && p->s[p->i] == '0')
		p->i++;
	else if (!jp_digits(p))
		return false;
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		if (!jp_digits(p))
			return false;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (!jp_digits(p))
			return false;
	}
	return true;
}

static inline bool jp_container(struct jp *p, bool obj)
{
	char close = obj ? '}' : ']';

	if (++p->depth > 512)
		return false;
	p->i++;
	jp_ws(p);
	if (p->i < p->n && p->s[p->i] == close) {
		p->i++;
		p->depth--;
		return true;
	}
	for (;;) {
		jp_ws(p);
		if (obj) {
			if (!jp_string(p))
				return false;
			jp_ws(p);
			if (p->i >= p->n || p->s[p->i] != ':')
				return false;
			p->i++;
		}
		if (!jp_value(p))
			return false;
		jp_ws(p);
		if (p->i >= p->n)
			return false;
		if (p->s[p->i] == close) {
			p->i++;
			p->depth--;
			return true;
		}
		if (p->s[p->i] != ',')
			return false;
		p->i++;
	}
}

static bool jp_value(struct jp *p)
{
	jp_ws(p);
	if (p->i >= p->n)
		return false;
	switch (p->s[p->i]) {
	case '{':
		return jp_container(p, true);
	case '[':
		return jp_container(p, false);
	case '"':
		return jp_string(p);
	case 't':
		return jp_lit(p, "true");
	case 'f':
		return jp_lit(p, "false");
	case 'n':
		return jp_lit(p, "null");
	default:
		return jp_number(p);
	}
}

/* s[0..n) is exactly one JSON value (whitespace around allowed). */
static inline bool json_valid(const void *s, size_t n)
{
	struct jp p = { s, n, 0, 0 };

	if (!jp_value(&p))
		return false;
	jp_ws(&p);
	return p.i == n;
}

/* s[0..n) is exactly one JSON string literal. */
static inline bool json_string_valid(const void *s, size_t n)
{
	struct jp p = { s, n, 0, 0 };

	return jp_string(&p) && p.i == n;
}

#endif /* AIOSCOPE_FUZZ_H */
