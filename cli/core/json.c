// SPDX-License-Identifier: GPL-2.0
/* json.c - streaming JSON writer (bpftool json_writer style). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "format.h"
#include "json.h"

void aio_json_init(struct aio_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	if (!f)
		j->err = -EINVAL;
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

static void indent(struct aio_json *j)
{
	unsigned int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Check that a value may come now and write what precedes it. */
static bool value_begin(struct aio_json *j)
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
		fputc(',', j->f);
	indent(j);
	return true;
}

static void value_end(struct aio_json *j)
{
	j->named = false;
	if (j->depth == 0) {
		fputc('\n', j->f);
		if (!j->pretty)
			fflush(j->f);
	} else if (!j->is_obj[j->depth - 1]) {
		j->nelem[j->depth - 1]++;
	}
	if (ferror(j->f))
		fail(j, -EIO);
}

/*
 * The next character of a string as JSON: @out gets its text (NUL-terminated,
 * at most 7 bytes), the return value is the bytes of @p it covers. Quotes,
 * backslashes and control characters are escaped; a byte that does not start
 * a well-formed UTF-8 character becomes U+FFFD, so the output is valid UTF-8
 * whatever the input (as Go's encoding/json does).
 */
static size_t json_unit(const char *p, char out[8])
{
	const unsigned char c = (unsigned char)*p;
	int n;

	switch (c) {
	case '"':
		strcpy(out, "\\\"");
		return 1;
	case '\\':
		strcpy(out, "\\\\");
		return 1;
	case '\b':
		strcpy(out, "\\b");
		return 1;
	case '\f':
		strcpy(out, "\\f");
		return 1;
	case '\n':
		strcpy(out, "\\n");
		return 1;
	case '\r':
		strcpy(out, "\\r");
		return 1;
	case '\t':
		strcpy(out, "\\t");
		return 1;
	}
	if (c < 0x20) {
		snprintf(out, 8, "\\u%04x", c);
		return 1;
	}
	n = aio_utf8_seq(p);
	if (!n) {
		strcpy(out, "\\ufffd");
		return 1;
	}
	memcpy(out, p, n);
	out[n] = '\0';
	return n;
}

static void put_escaped(FILE *f, const char *s)
{
	char unit[8];

	fputc('"', f);
	while (*s) {
		s += json_unit(s, unit);
		fputs(unit, f);
	}
	fputc('"', f);
}

int aio_json_escape(char *buf, size_t len, const char *s)
{
	size_t off = 0, full = 2;
	char unit[8];

	if (!buf || len < 3 || !s)
		return -EINVAL;
	buf[off++] = '"';
	while (*s) {
		size_t n;

		s += json_unit(s, unit);
		n = strlen(unit);
		if (full == off + 1 && off + n + 2 <= len) {
			memcpy(buf + off, unit, n);
			off += n;
		}
		full += n;
	}
	buf[off++] = '"';
	buf[off] = '\0';
	return full > 0x7fffffff ? 0x7fffffff : (int)full;
}

static void start(struct aio_json *j, bool obj)
{
	if (!value_begin(j))
		return;
	if (j->depth >= AIO_JSON_MAX_DEPTH) {
		fail(j, -EINVAL);
		return;
	}
	fputc(obj ? '{' : '[', j->f);
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
	fputc(obj ? '}' : ']', j->f);
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
	if (!j || j->err)
		return;
	if (!name || !j->depth || !j->is_obj[j->depth - 1] || j->named) {
		fail(j, -EINVAL);
		return;
	}
	if (j->nelem[j->depth - 1])
		fputc(',', j->f);
	indent(j);
	put_escaped(j->f, name);
	fputs(j->pretty ? ": " : ":", j->f);
	j->nelem[j->depth - 1]++;
	j->named = true;
}

void aio_json_string(struct aio_json *j, const char *s)
{
	if (!value_begin(j))
		return;
	if (s)
		put_escaped(j->f, s);
	else
		fputs("null", j->f);
	value_end(j);
}

void aio_json_u64(struct aio_json *j, __u64 v)
{
	if (!value_begin(j))
		return;
	fprintf(j->f, "%llu", (unsigned long long)v);
	value_end(j);
}

void aio_json_s64(struct aio_json *j, __s64 v)
{
	if (!value_begin(j))
		return;
	fprintf(j->f, "%lld", (long long)v);
	value_end(j);
}

void aio_json_double(struct aio_json *j, double v)
{
	if (!value_begin(j))
		return;
	if (isfinite(v))
		fprintf(j->f, "%.15g", v);
	else
		fputs("null", j->f);
	value_end(j);
}

void aio_json_bool(struct aio_json *j, bool v)
{
	if (!value_begin(j))
		return;
	fputs(v ? "true" : "false", j->f);
	value_end(j);
}

void aio_json_null(struct aio_json *j)
{
	if (!value_begin(j))
		return;
	fputs("null", j->f);
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
