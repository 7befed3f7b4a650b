/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - streaming JSON writer (aioscope core, bpftool json_writer style).
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
 * Misuse (value without a name inside an object, name outside an object,
 * unbalanced end, nesting deeper than AIO_JSON_MAX_DEPTH) writes nothing and
 * records -EINVAL; a write error records -EIO. See aio_json_error().
 * The struct is plain data the caller owns; the FILE stays the caller's.
 */
#ifndef AIOSCOPE_CORE_JSON_H
#define AIOSCOPE_CORE_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#define AIO_JSON_MAX_DEPTH 32

struct aio_json {
	FILE *f;
	bool pretty;
	int err;			/* first error, 0 if none */
	unsigned int depth;		/* open containers */
	bool named;			/* a name was written, value expected */
	bool is_obj[AIO_JSON_MAX_DEPTH];	/* container kind per level */
	unsigned int nelem[AIO_JSON_MAX_DEPTH];	/* members so far per level */
};

/* aio_json_init - prepare j to write to f (line mode unless pretty). */
void aio_json_init(struct aio_json *j, FILE *f, bool pretty);

/* aio_json_error - first error recorded (-EINVAL, -EIO) or 0. */
int aio_json_error(const struct aio_json *j);

/* Containers. */
void aio_json_start_object(struct aio_json *j);
void aio_json_end_object(struct aio_json *j);
void aio_json_start_array(struct aio_json *j);
void aio_json_end_array(struct aio_json *j);

/* aio_json_name - member name (escaped) inside an object; a value follows. */
void aio_json_name(struct aio_json *j, const char *name);

/* Values (array elements, top-level values, or after aio_json_name). */
/* aio_json_string - s escaped per RFC 8259 (control chars as \u00XX,
 * well-formed UTF-8 passed through, every byte of an ill-formed sequence as
 * \ufffd: the output is valid UTF-8 always); NULL writes null. */
void aio_json_string(struct aio_json *j, const char *s);
void aio_json_u64(struct aio_json *j, __u64 v);
void aio_json_s64(struct aio_json *j, __s64 v);
/* aio_json_double - %.15g; NaN and infinities write null. */
void aio_json_double(struct aio_json *j, double v);
void aio_json_bool(struct aio_json *j, bool v);
void aio_json_null(struct aio_json *j);

/*
 * aio_json_escape - @s as a JSON string literal, quotes included, escaped as
 * aio_json_string() does, into @buf (for writers that build lines by hand).
 * Truncation keeps escapes and characters whole and still closes the quote.
 * Returns the length of the full literal, or -EINVAL (@len < 3, NULL).
 */
int aio_json_escape(char *buf, size_t len, const char *s);

/* Named fields: aio_json_name() + the value. */
void aio_json_string_field(struct aio_json *j, const char *name,
			   const char *s);
void aio_json_u64_field(struct aio_json *j, const char *name, __u64 v);
void aio_json_s64_field(struct aio_json *j, const char *name, __s64 v);
void aio_json_double_field(struct aio_json *j, const char *name, double v);
void aio_json_bool_field(struct aio_json *j, const char *name, bool v);
void aio_json_null_field(struct aio_json *j, const char *name);

#endif /* AIOSCOPE_CORE_JSON_H */
