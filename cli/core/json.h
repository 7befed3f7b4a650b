/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - the JSON writer (aioscope core, bpftool json_writer style), in two
 * modes: streaming to a FILE, or building lines in a caller's buffer.
 *
 *   struct aio_json j;
 *   aio_json_init(&j, stdout, false);
 *   aio_json_start_object(&j);
 *   aio_json_u64_field(&j, "pid", 42);
 *   aio_json_name(&j, "rows"); aio_json_start_array(&j); ... aio_json_end_array(&j);
 *   aio_json_end_object(&j);	// line mode: writes "\n" and flushes
 *
 * Line mode (pretty == false): compact output, and every top-level value is
 * followed by a newline and fflush, so a stream is one object per line.
 * Pretty mode indents with 2 spaces.
 *
 * Buffer mode (aio_json_init_buf): the same calls, in line mode, into a buffer
 * the caller owns, with no stdio and no printf: for lines made hundreds of
 * thousands of times per second (snoop --json). Every call leaves the buffer
 * NUL-terminated; aio_json_len() is the length so far. A piece that does not fit
 * (punctuation, a number, a whole string literal) writes nothing and records
 * -ENOSPC, and like any error stops the writer: the buffer then holds a prefix of
 * the full output cut between whole pieces, never past its size, never inside a
 * string, an escape or a UTF-8 character.
 *
 * Misuse (value without a name inside an object, name outside an object,
 * unbalanced end, nesting deeper than AIO_JSON_MAX_DEPTH) writes nothing and
 * records -EINVAL; a write error records -EIO. See aio_json_error().
 * The struct is plain data the caller owns; the FILE or buffer stays the caller's.
 *
 * Numbers and escaped strings are written in one place (json.c), for both modes
 * and for struct aio_buf, the buffer mode's sink, which other hand-built lines
 * (snoop's text columns) use directly.
 */
#ifndef AIOSCOPE_CORE_JSON_H
#define AIOSCOPE_CORE_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#define AIO_JSON_MAX_DEPTH 32

/*
 * struct aio_buf - text appended into a buffer of @cap bytes (@cap >= 1), kept
 * NUL-terminated. An append that does not fit writes nothing and sets @full, and
 * every later append then writes nothing either: the text is always a prefix of
 * whole appends.
 */
struct aio_buf {
	char *p;
	size_t len;			/* bytes before the NUL */
	size_t cap;
	bool full;			/* an append did not fit */
};

/* aio_buf_init - an empty text in @p[0..@cap); @cap 0 (or @p NULL): always full. */
void aio_buf_init(struct aio_buf *b, char *p, size_t cap);

/* Appends: @n bytes of @s, a C string, a decimal number. False if full. */
static inline bool aio_buf_put(struct aio_buf *b, const char *s, size_t n)
{
	/* inline: a line of snoop's text is some 50 of these */
	if (b->full || n >= b->cap - b->len) {
		b->full = true;
		return false;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return true;
}

bool aio_buf_str(struct aio_buf *b, const char *s);
bool aio_buf_u64(struct aio_buf *b, __u64 v);
bool aio_buf_s64(struct aio_buf *b, __s64 v);

struct aio_json {
	FILE *f;			/* stream mode; NULL in buffer mode */
	struct aio_buf b;		/* buffer mode */
	bool pretty;
	int err;			/* first error, 0 if none */
	unsigned int depth;		/* open containers */
	bool named;			/* a name was written, value expected */
	bool is_obj[AIO_JSON_MAX_DEPTH];	/* container kind per level */
	unsigned int nelem[AIO_JSON_MAX_DEPTH];	/* members so far per level */
};

/* aio_json_init - prepare j to write to f (line mode unless pretty). */
void aio_json_init(struct aio_json *j, FILE *f, bool pretty);

/*
 * aio_json_init_buf - prepare j to write lines into @buf[0..@cap) (buffer mode,
 * above). @cap 0 or @buf NULL records -EINVAL.
 */
void aio_json_init_buf(struct aio_json *j, char *buf, size_t cap);

/* aio_json_len - buffer mode: the length of the text in the buffer; else 0. */
size_t aio_json_len(const struct aio_json *j);

/* aio_json_error - first error recorded (-EINVAL, -EIO, -ENOSPC) or 0. */
int aio_json_error(const struct aio_json *j);

/* Containers. */
void aio_json_start_object(struct aio_json *j);
void aio_json_end_object(struct aio_json *j);
void aio_json_start_array(struct aio_json *j);
void aio_json_end_array(struct aio_json *j);

/* aio_json_name - member name (escaped) inside an object; a value follows. */
void aio_json_name(struct aio_json *j, const char *name);

/*
 * aio_json_key - aio_json_name for a name that is a string literal of plain ASCII,
 * as AIO_JSON_KEY("name") gives it: the name, and its JSON text ("name": and its
 * length) made by the compiler, written with one copy instead of being scanned
 * for escapes. snoop's lines are mostly names, at hundreds of thousands a second.
 * The text is padded to AIO_JSON_KEY_MAX bytes, so that in buffer mode it is copied
 * with a constant size (a few moves, no library call).
 */
#define AIO_JSON_KEY_MAX 32	/* a longer name does not compile */
#define AIO_JSON_KEY(name) name, (const char[AIO_JSON_KEY_MAX]){ "\"" name "\":" }, \
	sizeof("\"" name "\":") - 1
void aio_json_key(struct aio_json *j, const char *name, const char text[AIO_JSON_KEY_MAX],
		  size_t n);

/* Values (array elements, top-level values, or after aio_json_name). */
/* aio_json_string - s escaped per RFC 8259 (control chars as \u00XX,
 * well-formed UTF-8 passed through, every byte of an ill-formed sequence as
 * \ufffd: the output is valid UTF-8 always); NULL writes null. */
void aio_json_string(struct aio_json *j, const char *s);
void aio_json_u64(struct aio_json *j, __u64 v);
void aio_json_s64(struct aio_json *j, __s64 v);
/* aio_json_hex - @v as a string of lowercase hex digits after "0x" ("0x0"). */
void aio_json_hex(struct aio_json *j, __u64 v);
/* aio_json_double - %.15g; NaN and infinities write null. */
void aio_json_double(struct aio_json *j, double v);
void aio_json_bool(struct aio_json *j, bool v);
void aio_json_null(struct aio_json *j);

/* Named fields: aio_json_name() + the value. */
void aio_json_string_field(struct aio_json *j, const char *name,
			   const char *s);
void aio_json_u64_field(struct aio_json *j, const char *name, __u64 v);
void aio_json_s64_field(struct aio_json *j, const char *name, __s64 v);
void aio_json_hex_field(struct aio_json *j, const char *name, __u64 v);
void aio_json_double_field(struct aio_json *j, const char *name, double v);
void aio_json_bool_field(struct aio_json *j, const char *name, bool v);
void aio_json_null_field(struct aio_json *j, const char *name);

#endif /* AIOSCOPE_CORE_JSON_H */
