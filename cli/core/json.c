// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - the JSON writer (json.h): to a FILE or into a buffer, numbers and
 * escaped strings formatted by hand in one place for both.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "format.h"
#include "json.h"

void aio_buf_init(struct aio_buf *b, char *p, size_t cap)
{
	b->p = p;
	b->len = 0;
	b->cap = p ? cap : 0;
	b->full = !b->cap;
	if (b->cap)
		p[0] = '\0';
}

bool aio_buf_str(struct aio_buf *b, const char *s)
{
	return aio_buf_put(b, s, strlen(s));
}

/*
 * The digits of @v (decimal, or hex after "0x") ending at @end; returns where they
 * start. The one number formatter of the writer: snoop formats hundreds of
 * thousands of lines per second, and printf would be the most of it.
 */
static char *dec_digits(char *end, __u64 v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";

	while (v >= 100) {	/* two digits per division */
		const char *p = pairs + 2 * (v % 100);

		v /= 100;
		*--end = p[1];
		*--end = p[0];
	}
	if (v >= 10) {
		*--end = pairs[2 * v + 1];
		*--end = pairs[2 * v];
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

static char *s64_digits(char *end, __s64 v)
{
	char *p = dec_digits(end, v < 0 ? -(__u64)v : (__u64)v);

	if (v < 0)
		*--p = '-';
	return p;
}

static char *hex_digits(char *end, __u64 v)
{
	do {
		*--end = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--end = 'x';
	*--end = '0';
	return end;
}

#define DIGITS_MAX 24	/* "-9223372036854775808", "0xffffffffffffffff" and more */

static unsigned int dec_len(__u64 v)
{
	unsigned int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/*
 * The digits of @v straight into the buffer, counted first: no copy through a
 * stage and no library call for a handful of bytes, which under an emulated CPU
 * costs more than the digits.
 */
static bool buf_num(struct aio_buf *b, __u64 mag, bool neg)
{
	size_t n = dec_len(mag) + neg;
	char *p;

	if (b->full || n >= b->cap - b->len) {
		b->full = true;
		return false;
	}
	p = dec_digits(b->p + b->len + n, mag);
	if (neg)
		*--p = '-';
	b->len += n;
	b->p[b->len] = '\0';
	return true;
}

bool aio_buf_u64(struct aio_buf *b, __u64 v)
{
	return buf_num(b, v, false);
}

bool aio_buf_s64(struct aio_buf *b, __s64 v)
{
	return buf_num(b, v < 0 ? -(__u64)v : (__u64)v, v < 0);
}

void aio_json_init(struct aio_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	if (!f)
		j->err = -EINVAL;
}

void aio_json_init_buf(struct aio_json *j, char *buf, size_t cap)
{
	memset(j, 0, sizeof(*j));
	aio_buf_init(&j->b, buf, cap);
	if (j->b.full)
		j->err = -EINVAL;
}

size_t aio_json_len(const struct aio_json *j)
{
	return j && !j->f ? j->b.len : 0;
}

int aio_json_error(const struct aio_json *j)
{
	return j ? j->err : -EINVAL;
}

static void fail(struct aio_json *j, int err)
{
	if (!j->err)
		j->err = err;
}

/* @n bytes to the stream or the buffer (where not fitting is an error) */
static inline void emit(struct aio_json *j, const char *s, size_t n)
{
	if (j->f)
		fwrite(s, 1, n, j->f);
	else if (!aio_buf_put(&j->b, s, n))
		fail(j, -ENOSPC);
}

static void emitc(struct aio_json *j, char c)
{
	emit(j, &c, 1);
}

static void indent(struct aio_json *j)
{
	unsigned int i;

	if (!j->pretty)
		return;
	emitc(j, '\n');
	for (i = 0; i < j->depth; i++)
		emit(j, "  ", 2);
}

/* Check that a value may come now and write what precedes it. */
static inline bool value_begin(struct aio_json *j)
{
	if (!j || j->err)
		return false;
	if (j->depth == 0)
		return true;
	if (j->is_obj[j->depth - 1]) {
		if (!j->named) {
			fail(j, -EINVAL);	/* object member without a name */
			return false;
		}
		return true;
	}
	if (j->nelem[j->depth - 1])
		emitc(j, ',');
	indent(j);
	return true;
}

static inline void value_end(struct aio_json *j)
{
	j->named = false;
	if (j->depth == 0) {
		emitc(j, '\n');
		if (j->f && !j->pretty)
			fflush(j->f);
	} else if (!j->is_obj[j->depth - 1]) {
		j->nelem[j->depth - 1]++;
	}
	if (j->f && ferror(j->f))
		fail(j, -EIO);
}

/*
 * The next character of a string as JSON: @out gets its text (at most 6 bytes,
 * not terminated), *@olen its length; the return value is the bytes of @p it
 * covers. Quotes, backslashes and control characters are escaped; a byte that
 * does not start a well-formed UTF-8 character becomes U+FFFD, so the output is
 * valid UTF-8 whatever the input (as Go's encoding/json does).
 */
static size_t json_unit(const char *p, char out[6], size_t *olen)
{
	static const char short_esc[] = { ['"'] = '"', ['\\'] = '\\', ['\b'] = 'b',
					  ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r',
					  ['\t'] = 't' };
	const unsigned char c = (unsigned char)*p;
	int n;

	if (c < sizeof(short_esc) && short_esc[c]) {
		out[0] = '\\';
		out[1] = short_esc[c];
		*olen = 2;
		return 1;
	}
	if (c < 0x20) {
		memcpy(out, "\\u00", 4);
		out[4] = "0123456789abcdef"[c >> 4];
		out[5] = "0123456789abcdef"[c & 15];
		*olen = 6;
		return 1;
	}
	n = aio_utf8_seq(p);
	if (!n) {
		memcpy(out, "\\ufffd", 6);
		*olen = 6;
		return 1;
	}
	memcpy(out, p, n);
	*olen = (size_t)n;
	return n;
}

/* bytes that stand for themselves in a JSON string: ASCII but controls, '"', '\\' */
static const bool json_plain[256] = {
	[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7f] = true,
};

/*
 * Stream mode: text gathered on the stack and written in one piece, so a name or
 * a string is one fwrite, not one per character. Buffer mode needs no stage: the
 * buffer is one.
 */
struct stage {
	char b[120];
	size_t n;
};

static void stage_flush(struct aio_json *j, struct stage *st)
{
	if (st->n)
		emit(j, st->b, st->n);
	st->n = 0;
}

static inline void stage_put(struct aio_json *j, struct stage *st, const char *s,
			     size_t n)
{
	if (!j->f) {
		emit(j, s, n);
		return;
	}
	if (n > sizeof(st->b) - st->n) {
		stage_flush(j, st);
		if (n > sizeof(st->b)) {
			emit(j, s, n);
			return;
		}
	}
	memcpy(st->b + st->n, s, n);
	st->n += n;
}

/* the same for a piece of at most 6 bytes (a character, an escape) */
static inline void stage_small(struct aio_json *j, struct stage *st, const char *s,
			       size_t n)
{
	if (!j->f) {
		emit(j, s, n);
		return;
	}
	if (n > sizeof(st->b) - st->n)
		stage_flush(j, st);
	memcpy(st->b + st->n, s, n);
	st->n += n;
}

/* @s as a string literal, then @post (NUL: nothing) */
static void stage_escaped(struct aio_json *j, struct stage *st, const char *s, char post)
{
	stage_small(j, st, "\"", 1);
	while (*s) {
		const char *run = s;
		char unit[6];
		size_t n;

		while (json_plain[(unsigned char)*s])
			s++;
		if (s > run)
			stage_put(j, st, run, (size_t)(s - run));
		if (!*s)
			break;
		s += json_unit(s, unit, &n);
		stage_small(j, st, unit, n);
	}
	stage_small(j, st, "\"", 1);
	if (post)
		stage_small(j, st, &post, 1);
}

/*
 * @pre, @s as a string literal, then @post (NUL: none of them). In buffer mode,
 * what does not fit is taken back whole: no half literal, so no half escape or
 * character.
 */
static void put_escaped_slow(struct aio_json *j, char pre, const char *s, char post)
{
	size_t start = j->b.len;
	struct stage st;

	st.n = 0;	/* not the whole stage: no memset per literal */
	if (pre)
		stage_small(j, &st, &pre, 1);
	stage_escaped(j, &st, s, post);
	stage_flush(j, &st);
	if (!j->f && j->b.full) {
		j->b.len = start;
		j->b.p[start] = '\0';
	}
}

/*
 * Buffer mode's short cut for the common literal, a name or a string of plain
 * ASCII: @pre, the literal and @post in one pass. False, having written nothing,
 * when @s needs escaping or the buffer is nearly full.
 */
static inline bool buf_plain_literal(struct aio_json *j, char pre, const char *s, char post)
{
	struct aio_buf *b = &j->b;
	char *d, *lim;

	if (j->f || b->full || b->cap - b->len < 5)
		return false;
	d = b->p + b->len;
	lim = b->p + b->cap - 3;	/* room for the quote, @post and the NUL */
	if (pre)
		*d++ = pre;
	*d++ = '"';
	/* copied as it is scanned: one pass over the bytes */
	while (json_plain[(unsigned char)*s] && d < lim)
		*d++ = *s++;
	if (*s) {
		b->p[b->len] = '\0';	/* nothing written after all */
		return false;
	}
	*d++ = '"';
	if (post)
		*d++ = post;
	*d = '\0';
	b->len = (size_t)(d - b->p);
	return true;
}

/* the short cut inlined, the rest (and its stage on the stack) called */
static inline void put_escaped(struct aio_json *j, char pre, const char *s, char post)
{
	if (!buf_plain_literal(j, pre, s, post))
		put_escaped_slow(j, pre, s, post);
}

static void start(struct aio_json *j, bool obj)
{
	if (!value_begin(j))
		return;
	if (j->depth >= AIO_JSON_MAX_DEPTH) {
		fail(j, -EINVAL);
		return;
	}
	emitc(j, obj ? '{' : '[');
	j->is_obj[j->depth] = obj;
	j->nelem[j->depth] = 0;
	j->depth++;
	j->named = false;
}

static void end(struct aio_json *j, bool obj)
{
	if (!j || j->err)
		return;
	if (!j->depth || j->is_obj[j->depth - 1] != obj || j->named) {
		fail(j, -EINVAL);
		return;
	}
	j->depth--;
	if (j->nelem[j->depth]) {
		indent(j);
	}
	emitc(j, obj ? '}' : ']');
	value_end(j);
}

void aio_json_start_object(struct aio_json *j)
{
	start(j, true);
}

void aio_json_end_object(struct aio_json *j)
{
	end(j, true);
}

void aio_json_start_array(struct aio_json *j)
{
	start(j, false);
}

void aio_json_end_array(struct aio_json *j)
{
	end(j, false);
}

void aio_json_name(struct aio_json *j, const char *name)
{
	char comma;

	if (!j || j->err)
		return;
	if (!name || !j->depth || !j->is_obj[j->depth - 1] || j->named) {
		fail(j, -EINVAL);
		return;
	}
	comma = j->nelem[j->depth - 1] ? ',' : '\0';
	if (j->pretty) {
		if (comma)
			emitc(j, comma);
		indent(j);
		put_escaped(j, '\0', name, ':');
		emitc(j, ' ');
	} else {
		put_escaped(j, comma, name, ':');
	}
	j->nelem[j->depth - 1]++;
	j->named = true;
}

void aio_json_key(struct aio_json *j, const char *name, const char text[AIO_JSON_KEY_MAX],
		  size_t n)
{
	struct aio_buf *b;

	if (!j || j->err || j->pretty || !j->depth || !j->is_obj[j->depth - 1] || j->named) {
		aio_json_name(j, name);		/* the general path, and its checks */
		return;
	}
	b = &j->b;
	if (!j->f && !b->full && b->cap - b->len > AIO_JSON_KEY_MAX + 1) {
		char *d = b->p + b->len;

		if (j->nelem[j->depth - 1])
			*d++ = ',';
		memcpy(d, text, AIO_JSON_KEY_MAX);	/* the padding is overwritten next */
		b->len = (size_t)(d - b->p) + n;
		b->p[b->len] = '\0';
	} else {
		if (j->nelem[j->depth - 1])
			emitc(j, ',');
		emit(j, text, n);
	}
	j->nelem[j->depth - 1]++;
	j->named = true;
}

void aio_json_string(struct aio_json *j, const char *s)
{
	if (!value_begin(j))
		return;
	if (s)
		put_escaped(j, '\0', s, '\0');
	else
		emit(j, "null", 4);
	value_end(j);
}

/* a number's text from its end, as a value */
static void put_value(struct aio_json *j, const char *p, const char *end)
{
	emit(j, p, (size_t)(end - p));
	value_end(j);
}

void aio_json_u64(struct aio_json *j, __u64 v)
{
	char tmp[DIGITS_MAX];

	if (!value_begin(j))
		return;
	if (j->f) {
		put_value(j, dec_digits(tmp + sizeof(tmp), v), tmp + sizeof(tmp));
	} else {
		if (!aio_buf_u64(&j->b, v))
			fail(j, -ENOSPC);
		value_end(j);
	}
}

void aio_json_s64(struct aio_json *j, __s64 v)
{
	char tmp[DIGITS_MAX];

	if (!value_begin(j))
		return;
	if (j->f) {
		put_value(j, s64_digits(tmp + sizeof(tmp), v), tmp + sizeof(tmp));
	} else {
		if (!aio_buf_s64(&j->b, v))
			fail(j, -ENOSPC);
		value_end(j);
	}
}

/* a JSON string, as JSON has no hex numbers */
void aio_json_hex(struct aio_json *j, __u64 v)
{
	char tmp[DIGITS_MAX], *end = tmp + sizeof(tmp), *p;

	if (!value_begin(j))
		return;
	*--end = '"';
	p = hex_digits(end, v);
	*--p = '"';
	put_value(j, p, tmp + sizeof(tmp));
}

void aio_json_double(struct aio_json *j, double v)
{
	if (!value_begin(j))
		return;
	char tmp[32];

	if (isfinite(v))
		emit(j, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%.15g", v));
	else
		emit(j, "null", 4);
	value_end(j);
}

void aio_json_bool(struct aio_json *j, bool v)
{
	if (!value_begin(j))
		return;
	emit(j, v ? "true" : "false", v ? 4 : 5);
	value_end(j);
}

void aio_json_null(struct aio_json *j)
{
	if (!value_begin(j))
		return;
	emit(j, "null", 4);
	value_end(j);
}

void aio_json_string_field(struct aio_json *j, const char *name,
			   const char *s)
{
	aio_json_name(j, name);
	aio_json_string(j, s);
}

void aio_json_u64_field(struct aio_json *j, const char *name, __u64 v)
{
	aio_json_name(j, name);
	aio_json_u64(j, v);
}

void aio_json_s64_field(struct aio_json *j, const char *name, __s64 v)
{
	aio_json_name(j, name);
	aio_json_s64(j, v);
}

void aio_json_hex_field(struct aio_json *j, const char *name, __u64 v)
{
	aio_json_name(j, name);
	aio_json_hex(j, v);
}

void aio_json_double_field(struct aio_json *j, const char *name, double v)
{
	aio_json_name(j, name);
	aio_json_double(j, v);
}

void aio_json_bool_field(struct aio_json *j, const char *name, bool v)
{
	aio_json_name(j, name);
	aio_json_bool(j, v);
}

void aio_json_null_field(struct aio_json *j, const char *name)
{
	aio_json_name(j, name);
	aio_json_null(j);
}
