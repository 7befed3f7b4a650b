// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cli/core/json.[ch]. */
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

/* aio_json_escape: the same text into a buffer, whole units, quote closed. */
static void test_json_escape_buffer(void)
{
	char buf[16];
	int n;

	n = aio_json_escape(buf, sizeof(buf), "a\n\xc3");
	UASSERT(n == 11 && !strcmp(buf, "\"a\\n\\ufffd\""), "n %d buf %s", n, buf);
	n = aio_json_escape(buf, 8, "ab\x01" "cd");
	UASSERT(n == 12 && !strcmp(buf, "\"ab\""), "truncated: n %d buf %s", n, buf);
	n = aio_json_escape(buf, sizeof(buf), "");
	UASSERT(n == 2 && !strcmp(buf, "\"\""), "empty: n %d buf %s", n, buf);
	UASSERT(aio_json_escape(buf, 2, "x") == -EINVAL, "len 2 is too small");
	UASSERT(aio_json_escape(NULL, 8, "x") == -EINVAL, "NULL buffer");
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
	RUN(test_json_escape_buffer);
	RUN(test_json_doubles);
	RUN(test_json_pretty);
	RUN(test_json_misuse_is_reported);
	RUN(test_json_depth_limit);
	RUN(test_json_write_error);
	free(out);
	return unit_done("json");
}
