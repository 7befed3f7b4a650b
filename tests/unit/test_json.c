// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cli/core/json.[ch]: stream mode, buffer mode, struct aio_buf. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/core/json.h"
#include "unit.h"

static char *out;
static size_t outlen;
static FILE *mf;
static struct aio_json J;

static void begin(bool pretty)
{
	free(out);
	out = NULL;
	mf = open_memstream(&out, &outlen);
	aio_json_init(&J, mf, pretty);
}

static const char *finish(void)
{
	fclose(mf);
	mf = NULL;
	return out ? out : "";
}

static void test_json_object_all_types(void)
{
	const char *s;

	begin(false);
	aio_json_start_object(&J);
	aio_json_string_field(&J, "comm", "fio");
	aio_json_u64_field(&J, "id", 18446744073709551615ULL);
	aio_json_s64_field(&J, "res", -5);
	aio_json_s64_field(&J, "min", (-9223372036854775807LL - 1));
	aio_json_double_field(&J, "ratio", 0.25);
	aio_json_bool_field(&J, "stalled", true);
	aio_json_bool_field(&J, "ok", false);
	aio_json_null_field(&J, "reap_ns");
	aio_json_string_field(&J, "dev", NULL);
	aio_json_end_object(&J);
	s = finish();
	UASSERT(aio_json_error(&J) == 0, "error %d", aio_json_error(&J));
	UASSERT(!strcmp(s, "{\"comm\":\"fio\",\"id\":18446744073709551615,"
			"\"res\":-5,\"min\":-9223372036854775808,"
			"\"ratio\":0.25,\"stalled\":true,\"ok\":false,"
			"\"reap_ns\":null,\"dev\":null}\n"),
		"got %s", s);
}

static void test_json_nested_arrays(void)
{
	const char *s;
	int i;

	begin(false);
	aio_json_start_object(&J);
	aio_json_name(&J, "buckets");
	aio_json_start_array(&J);
	for (i = 0; i < 3; i++)
		aio_json_u64(&J, (__u64)i);
	aio_json_end_array(&J);
	aio_json_name(&J, "rows");
	aio_json_start_array(&J);
	aio_json_start_object(&J);
	aio_json_u64_field(&J, "pid", 1);
	aio_json_end_object(&J);
	aio_json_start_object(&J);
	aio_json_end_object(&J);
	aio_json_start_array(&J);
	aio_json_end_array(&J);
	aio_json_end_array(&J);
	aio_json_end_object(&J);
	s = finish();
	UASSERT(!aio_json_error(&J), "error %d", aio_json_error(&J));
	UASSERT(!strcmp(s, "{\"buckets\":[0,1,2],\"rows\":[{\"pid\":1},{},[]]}\n"),
		"got %s", s);
}

static void test_json_one_object_per_line(void)
{
	const char *s;
	int i;

	begin(false);
	for (i = 0; i < 3; i++) {
		aio_json_start_object(&J);
		aio_json_u64_field(&J, "n", (__u64)i);
		aio_json_end_object(&J);
	}
	s = finish();
	UASSERT(!strcmp(s, "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n"), "got %s", s);
}

static void test_json_string_escaping(void)
{
	const char *s;

	begin(false);
	aio_json_string(&J, "a\"b\\c\n\t\r\b\f\x01\x1f\x7f é/");
	s = finish();
	UASSERT(!strcmp(s, "\"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001f\x7f é/\"\n"),
		"got %s", s);
	begin(false);
	aio_json_start_object(&J);
	aio_json_u64_field(&J, "we\"ird", 1);
	aio_json_end_object(&J);
	s = finish();
	UASSERT(!strcmp(s, "{\"we\\\"ird\":1}\n"), "escaped name: %s", s);
}

/* A 15-byte comm that ends in half of "é", and bytes that are never UTF-8. */
static void test_json_invalid_utf8_replaced(void)
{
	const char *s;

	begin(false);
	aio_json_string(&J, "aaaaaaaaaaaaaa\xc3");
	s = finish();
	UASSERT(!strcmp(s, "\"aaaaaaaaaaaaaa\\ufffd\"\n"), "half a character: %s", s);
	begin(false);
	/* overlong '/', a surrogate, > U+10FFFF, a lone continuation, 0xff */
	aio_json_string(&J, "\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\x80|\xff|\xe2\x82");
	s = finish();
	UASSERT(!strcmp(s, "\"\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\\ufffd|"
			"\\ufffd|\\ufffd|\\ufffd\\ufffd\"\n"), "ill-formed: %s", s);
	begin(false);
	/* well-formed 2-, 3- and 4-byte characters and the edges pass unchanged */
	aio_json_string(&J, "\xc2\x80\xc3\xa9\xe2\x82\xac\xed\x9f\xbf\xef\xbf\xbf\xf0\x9f\x98\x80"
			"\xf4\x8f\xbf\xbf");
	s = finish();
	UASSERT(!strcmp(s, "\"\xc2\x80\xc3\xa9\xe2\x82\xac\xed\x9f\xbf\xef\xbf\xbf\xf0\x9f\x98\x80"
			"\xf4\x8f\xbf\xbf\"\n"), "well-formed: %s", s);
}

/* the document of test_json_object_all_types and more, by any writer */
static void write_doc(struct aio_json *j)
{
	aio_json_start_object(j);
	aio_json_string_field(j, "comm", "a\n\xc3\"\\\x01z");
	aio_json_u64_field(j, "id", 18446744073709551615ULL);
	aio_json_s64_field(j, "res", -5);
	aio_json_s64_field(j, "min", (-9223372036854775807LL - 1));
	aio_json_hex_field(j, "ctx", 0x7f12a0001000ULL);
	aio_json_double_field(j, "ratio", 0.25);
	aio_json_bool_field(j, "stalled", true);
	aio_json_null_field(j, "reap_ns");
	aio_json_string_field(j, "dev", NULL);
	aio_json_name(j, "we\"ird \xff");
	aio_json_start_array(j);
	aio_json_u64(j, 0);
	aio_json_start_object(j);
	aio_json_end_object(j);
	aio_json_hex(j, 0);
	aio_json_end_array(j);
	aio_json_end_object(j);
	aio_json_u64(j, 7);			/* a second line */
}

#define DOC "{\"comm\":\"a\\n\\ufffd\\\"\\\\\\u0001z\",\"id\":18446744073709551615," \
	    "\"res\":-5,\"min\":-9223372036854775808,\"ctx\":\"0x7f12a0001000\"," \
	    "\"ratio\":0.25,\"stalled\":true,\"reap_ns\":null,\"dev\":null," \
	    "\"we\\\"ird \\ufffd\":[0,{},\"0x0\"]}\n7\n"

/* buffer mode writes what stream mode writes, and says how long it is */
static void test_json_buffer_same_as_stream(void)
{
	char buf[512];
	struct aio_json b;
	const char *s;

	begin(false);
	write_doc(&J);
	s = finish();
	UASSERT(!aio_json_error(&J) && !strcmp(s, DOC), "stream: %s", s);
	aio_json_init_buf(&b, buf, sizeof(buf));
	write_doc(&b);
	UASSERT(!aio_json_error(&b), "buffer error %d", aio_json_error(&b));
	UASSERT(!strcmp(buf, DOC), "buffer: %s", buf);
	UASSERT(aio_json_len(&b) == strlen(DOC), "length %zu, not %zu", aio_json_len(&b),
		strlen(DOC));
	UASSERT(aio_json_len(&J) == 0, "stream mode has no length");
}

/* no quote left open, so no string, escape or character cut */
static bool whole_literals(const char *s)
{
	bool in = false;

	for (; *s; s++) {
		if (in && *s == '\\')
			s++;
		else if (*s == '"')
			in = !in;
	}
	return !in;
}

/*
 * Every size from 1 to the whole document: the buffer (exactly that big on the
 * heap, so ASan sees any byte past it) holds a NUL-terminated prefix of the
 * document cut between whole pieces, and -ENOSPC says it was cut.
 */
static void test_json_buffer_truncation(void)
{
	const size_t full = strlen(DOC);

	for (size_t cap = 1; cap <= full + 1; cap++) {
		char *buf = malloc(cap);
		struct aio_json b;
		size_t n;
		bool ok;

		UASSERT(buf, "malloc");
		aio_json_init_buf(&b, buf, cap);
		write_doc(&b);
		n = strlen(buf);
		ok = n == aio_json_len(&b) && n < cap && !strncmp(buf, DOC, n) &&
		     whole_literals(buf) &&
		     aio_json_error(&b) == (cap > full ? 0 : -ENOSPC);
		free(buf);
		UASSERT(ok, "capacity %zu: %zu bytes, error %d", cap, n, aio_json_error(&b));
	}
}

/* a literal that does not fit is not written at all, even with room for part */
static void test_json_buffer_literal_whole(void)
{
	char buf[16];
	struct aio_json b;

	aio_json_init_buf(&b, buf, sizeof(buf));
	aio_json_start_array(&b);
	aio_json_string(&b, "0123456789");	/* 12 bytes: fits */
	aio_json_string(&b, "abc");		/* ,"abc" does not */
	UASSERT(aio_json_error(&b) == -ENOSPC, "error %d", aio_json_error(&b));
	UASSERT(!strcmp(buf, "[\"0123456789\",") && aio_json_len(&b) == 14,
		"got %s", buf);
	aio_json_init_buf(&b, buf, 12);
	aio_json_string(&b, "\x01\x01");	/* "\u0001\u0001" is 14 bytes */
	UASSERT(aio_json_error(&b) == -ENOSPC && !buf[0] && !aio_json_len(&b),
		"half a literal: %s", buf);
	aio_json_init_buf(&b, buf, 15);		/* the literal, not its newline */
	aio_json_string(&b, "\x01\x01");
	UASSERT(aio_json_error(&b) == -ENOSPC && !strcmp(buf, "\"\\u0001\\u0001\""),
		"newline cut: %d %s", aio_json_error(&b), buf);
	aio_json_init_buf(&b, buf, 16);		/* the literal, its newline, the NUL */
	aio_json_string(&b, "\x01\x01");
	UASSERT(!aio_json_error(&b) && !strcmp(buf, "\"\\u0001\\u0001\"\n"),
		"exact fit: %d %s", aio_json_error(&b), buf);
}

static void test_json_buffer_misuse(void)
{
	char buf[8] = "xxxxxxx";
	struct aio_json b;

	aio_json_init_buf(&b, buf, 0);
	aio_json_u64(&b, 1);
	UASSERT(aio_json_error(&b) == -EINVAL && buf[0] == 'x', "capacity 0 accepted");
	aio_json_init_buf(&b, NULL, 8);
	aio_json_u64(&b, 1);
	UASSERT(aio_json_error(&b) == -EINVAL && !aio_json_len(&b), "NULL buffer accepted");
	aio_json_init_buf(&b, buf, 1);
	UASSERT(!buf[0], "not terminated at init");
	aio_json_u64(&b, 1);
	UASSERT(aio_json_error(&b) == -ENOSPC && !buf[0], "wrote into a 1-byte buffer");
	aio_json_init_buf(&b, buf, sizeof(buf));
	aio_json_start_object(&b);
	aio_json_u64(&b, 1);			/* no name */
	UASSERT(aio_json_error(&b) == -EINVAL && !strcmp(buf, "{"), "misuse: %s", buf);
}

/* numbers at their limits, in both modes alike */
static void test_json_number_limits(void)
{
	static const __s64 s[] = { 0, -1, 9, 10, 99, 100, -100, 999999999999999999LL,
				   9223372036854775807LL, -9223372036854775807LL - 1 };
	static const __u64 u[] = { 0, 9, 10, 99, 100, 101, 10000000000000000000ULL,
				   18446744073709551615ULL };
	char buf[1024], want[1024];
	struct aio_json b;
	size_t n = 0;
	const char *got;

	aio_json_init_buf(&b, buf, sizeof(buf));
	aio_json_start_array(&b);
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		aio_json_s64(&b, s[i]);
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%lld", n ? "," : "[",
				      (long long)s[i]);
	}
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		aio_json_u64(&b, u[i]);
		aio_json_hex(&b, u[i]);
		n += (size_t)snprintf(want + n, sizeof(want) - n, ",%llu,\"0x%llx\"",
				      (unsigned long long)u[i], (unsigned long long)u[i]);
	}
	aio_json_end_array(&b);
	snprintf(want + n, sizeof(want) - n, "]\n");
	UASSERT(!aio_json_error(&b) && !strcmp(buf, want), "buffer:\n%.400s\n%.400s", buf,
		want);
	begin(false);
	aio_json_init_buf(&b, buf, sizeof(buf));
	aio_json_start_array(&J);
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		aio_json_s64(&J, s[i]);
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		aio_json_u64(&J, u[i]);
		aio_json_hex(&J, u[i]);
	}
	aio_json_end_array(&J);
	got = finish();
	UASSERT(!strcmp(got, want), "stream:\n%.400s\n%.400s", got, want);
}

/* struct aio_buf: appends whole or not at all, and none after the first miss */
static void test_json_aio_buf(void)
{
	char buf[24];
	struct aio_buf b;

	aio_buf_init(&b, buf, sizeof(buf));
	UASSERT(aio_buf_s64(&b, -9223372036854775807LL - 1) && aio_buf_str(&b, " ") &&
		aio_buf_put(&b, "", 0), "appends failed");
	UASSERT(!strcmp(buf, "-9223372036854775808 ") && b.len == 21 && !b.full, "got %s", buf);
	UASSERT(!aio_buf_u64(&b, 100) && b.full && b.len == 21, "100 does not fit in 2");
	UASSERT(!aio_buf_put(&b, "", 0) && !aio_buf_str(&b, "x") && b.len == 21 &&
		!strcmp(buf, "-9223372036854775808 "), "appended after a miss: %s", buf);
	aio_buf_init(&b, buf, 21);
	UASSERT(aio_buf_u64(&b, 18446744073709551615ULL) && !strcmp(buf, "18446744073709551615"),
		"exact fit: %s", buf);
	aio_buf_init(&b, buf, 20);
	UASSERT(!aio_buf_u64(&b, 18446744073709551615ULL) && !buf[0], "one byte short");
	aio_buf_init(&b, NULL, 8);
	UASSERT(b.full && !aio_buf_put(&b, "a", 1), "NULL buffer");
	aio_buf_init(&b, buf, 0);
	UASSERT(b.full && !aio_buf_put(&b, "", 0), "capacity 0");
}

static void test_json_doubles(void)
{
	const char *s;

	begin(false);
	aio_json_start_array(&J);
	aio_json_double(&J, 1.5);
	aio_json_double(&J, NAN);
	aio_json_double(&J, INFINITY);
	aio_json_double(&J, -INFINITY);
	aio_json_double(&J, 1e300);
	aio_json_double(&J, 0.1);
	aio_json_end_array(&J);
	s = finish();
	UASSERT(!strcmp(s, "[1.5,null,null,null,1e+300,0.1]\n"), "got %s", s);
}

static void test_json_pretty(void)
{
	const char *s;

	begin(true);
	aio_json_start_object(&J);
	aio_json_u64_field(&J, "a", 1);
	aio_json_name(&J, "b");
	aio_json_start_array(&J);
	aio_json_u64(&J, 2);
	aio_json_u64(&J, 3);
	aio_json_end_array(&J);
	aio_json_end_object(&J);
	s = finish();
	UASSERT(!strcmp(s, "{\n  \"a\": 1,\n  \"b\": [\n    2,\n    3\n  ]\n}\n"),
		"got %s", s);
}

/* aio_json_key writes what aio_json_name does, in every mode, and refuses what it refuses */
static void test_json_key_same_as_name(void)
{
	char a[128], b[128];
	struct aio_json x, y;
	const char *s;

	for (int cut = 0; cut < 2; cut++) {
		size_t cap = cut ? 14 : sizeof(a);	/* 14: the second name does not fit */

		aio_json_init_buf(&x, a, cap);
		aio_json_init_buf(&y, b, cap);
		aio_json_start_object(&x);
		aio_json_start_object(&y);
		aio_json_key(&x, AIO_JSON_KEY("ts_ns"));
		aio_json_name(&y, "ts_ns");
		aio_json_u64(&x, 42);
		aio_json_u64(&y, 42);
		aio_json_key(&x, AIO_JSON_KEY("lat_ns"));
		aio_json_name(&y, "lat_ns");
		aio_json_null(&x);
		aio_json_null(&y);
		aio_json_end_object(&x);
		aio_json_end_object(&y);
		UASSERT((aio_json_error(&x) != 0) == (aio_json_error(&y) != 0),
			"cut %d: errors %d and %d", cut, aio_json_error(&x), aio_json_error(&y));
		if (!cut)
			UASSERT(!strcmp(a, b) && !strcmp(a, "{\"ts_ns\":42,\"lat_ns\":null}\n"),
				"key '%s', name '%s'", a, b);
	}
	begin(true);	/* pretty: the general path */
	aio_json_start_object(&J);
	aio_json_key(&J, AIO_JSON_KEY("a"));
	aio_json_u64(&J, 1);
	aio_json_key(&J, AIO_JSON_KEY("b"));
	aio_json_u64(&J, 2);
	aio_json_end_object(&J);
	s = finish();
	UASSERT(!strcmp(s, "{\n  \"a\": 1,\n  \"b\": 2\n}\n"), "got %s", s);
	begin(false);	/* a key outside an object, or twice in a row: misuse */
	aio_json_key(&J, AIO_JSON_KEY("a"));
	UASSERT(aio_json_error(&J) == -EINVAL, "key at top level: %d", aio_json_error(&J));
	finish();
	begin(false);
	aio_json_start_object(&J);
	aio_json_key(&J, AIO_JSON_KEY("a"));
	aio_json_key(&J, AIO_JSON_KEY("b"));
	UASSERT(aio_json_error(&J) == -EINVAL, "two keys: %d", aio_json_error(&J));
	finish();
}

static void test_json_misuse_is_reported(void)
{
	const char *s;

	begin(false);
	aio_json_start_object(&J);
	aio_json_u64(&J, 1);		/* value without a name */
	UASSERT(aio_json_error(&J) == -EINVAL, "unnamed member accepted");
	aio_json_end_object(&J);	/* ignored after the error */
	s = finish();
	UASSERT(!strcmp(s, "{"), "wrote after misuse: %s", s);

	begin(false);
	aio_json_name(&J, "x");		/* name at top level */
	finish();
	UASSERT(aio_json_error(&J) == -EINVAL, "top-level name accepted");

	begin(false);
	aio_json_start_array(&J);
	aio_json_end_object(&J);	/* mismatched end */
	finish();
	UASSERT(aio_json_error(&J) == -EINVAL, "mismatched end accepted");

	begin(false);
	aio_json_end_array(&J);		/* unbalanced end */
	finish();
	UASSERT(aio_json_error(&J) == -EINVAL, "unbalanced end accepted");

	begin(false);
	aio_json_start_object(&J);
	aio_json_name(&J, "a");
	aio_json_end_object(&J);	/* name without a value */
	finish();
	UASSERT(aio_json_error(&J) == -EINVAL, "dangling name accepted");

	begin(false);
	aio_json_start_object(&J);
	aio_json_name(&J, NULL);
	finish();
	UASSERT(aio_json_error(&J) == -EINVAL, "NULL name accepted");

	aio_json_init(&J, NULL, false);
	UASSERT(aio_json_error(&J) == -EINVAL, "NULL FILE accepted");
	UASSERT(aio_json_error(NULL) == -EINVAL, "NULL writer");
}

static void test_json_depth_limit(void)
{
	int i;

	begin(false);
	for (i = 0; i < AIO_JSON_MAX_DEPTH; i++)
		aio_json_start_array(&J);
	UASSERT(!aio_json_error(&J), "error within the limit");
	aio_json_start_array(&J);
	UASSERT(aio_json_error(&J) == -EINVAL, "depth %d accepted",
		AIO_JSON_MAX_DEPTH + 1);
	finish();
}

static void test_json_write_error(void)
{
	FILE *f = fopen("/dev/full", "w");

	UASSERT(f, "cannot open /dev/full");
	setvbuf(f, NULL, _IONBF, 0);
	aio_json_init(&J, f, false);
	aio_json_start_object(&J);
	aio_json_u64_field(&J, "a", 1);
	aio_json_end_object(&J);
	fclose(f);
	UASSERT(aio_json_error(&J) == -EIO, "write error not reported: %d",
		aio_json_error(&J));
}

int main(void)
{
	RUN(test_json_object_all_types);
	RUN(test_json_nested_arrays);
	RUN(test_json_one_object_per_line);
	RUN(test_json_string_escaping);
	RUN(test_json_invalid_utf8_replaced);
	RUN(test_json_buffer_same_as_stream);
	RUN(test_json_buffer_truncation);
	RUN(test_json_buffer_literal_whole);
	RUN(test_json_buffer_misuse);
	RUN(test_json_number_limits);
	RUN(test_json_aio_buf);
	RUN(test_json_key_same_as_name);
	RUN(test_json_doubles);
	RUN(test_json_pretty);
	RUN(test_json_misuse_is_reported);
	RUN(test_json_depth_limit);
	RUN(test_json_write_error);
	free(out);
	return unit_done("json");
}
