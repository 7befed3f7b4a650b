// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_json - the JSON writer (cli/core/json.c): documents of any shape with
 * strings of any bytes. The input is a program of writer calls; whatever the
 * strings hold, the output must be valid UTF-8 and valid JSON (one value per line
 * in line mode), and aio_json_escape() must agree with the writer and truncate
 * into a valid literal.
 */
#include <math.h>

#include "fuzz.h"
#include "json.h"

static void check_escape(const char *s)
{
	char full[1024 * 7 + 8], part[300], *mem = NULL;
	size_t memlen = 0;
	struct aio_json j;
	FILE *f;
	int n, m;

	n = aio_json_escape(full, sizeof(full), s);
	FUZZ_CHECK(n >= 2 && (size_t)n < sizeof(full), "escape length %d", n);
	FUZZ_CHECK(strlen(full) == (size_t)n, "escape returned %d, wrote %zu", n, strlen(full));
	FUZZ_CHECK(json_string_valid(full, (size_t)n), "escape wrote an invalid literal: %s", full);
	/* the same text as the writer's */
	f = open_memstream(&mem, &memlen);
	FUZZ_CHECK(f, "open_memstream");
	aio_json_init(&j, f, false);
	aio_json_string(&j, s);
	fclose(f);
	FUZZ_CHECK(memlen == (size_t)n + 1 && !memcmp(mem, full, n) && mem[n] == '\n',
		   "writer and aio_json_escape differ");
	free(mem);
	/* truncated: whole escapes and characters, quote closed, a prefix of the full one */
	for (size_t len = 3; len < sizeof(part); len += 1 + len / 4) {
		m = aio_json_escape(part, len, s);
		FUZZ_CHECK(m == n, "truncated escape returned %d, not %d", m, n);
		FUZZ_CHECK(strlen(part) < len, "escape overran %zu", len);
		FUZZ_CHECK(json_string_valid(part, strlen(part)), "truncated literal invalid");
		FUZZ_CHECK(!memcmp(part, full, strlen(part) - 1), "truncation is no prefix");
		if ((size_t)n < len)
			FUZZ_CHECK(!strcmp(part, full), "fits but differs");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	bool pretty = fz_u8(&in) & 1;
	char *out = NULL, str[256];
	size_t outlen = 0;
	struct aio_json j;
	FILE *f = open_memstream(&out, &outlen);

	FUZZ_CHECK(f, "open_memstream");
	aio_json_init(&j, f, pretty);
	while (fz_left(&in)) {
		uint8_t op = fz_u8(&in);
		bool in_obj = j.depth && j.is_obj[j.depth - 1];

		if (in_obj && !j.named) {
			/* an object wants a name or its end */
			if (op & 1) {
				aio_json_end_object(&j);
			} else {
				fz_str(&in, str, sizeof(str) - 1);
				aio_json_name(&j, str);
			}
			continue;
		}
		switch (op % 9) {
		case 0:
			if (j.depth < AIO_JSON_MAX_DEPTH)
				aio_json_start_object(&j);
			break;
		case 1:
			if (j.depth < AIO_JSON_MAX_DEPTH)
				aio_json_start_array(&j);
			break;
		case 2:
			if (j.depth && !in_obj)
				aio_json_end_array(&j);
			else
				aio_json_null(&j);
			break;
		case 3:
			fz_str(&in, str, sizeof(str) - 1);
			aio_json_string(&j, str);
			check_escape(str);
			break;
		case 4:
			aio_json_u64(&j, fz_u64(&in, 8));
			break;
		case 5:
			aio_json_s64(&j, (int64_t)fz_u64(&in, 8));
			break;
		case 6: {
			uint64_t bits = fz_u64(&in, 8);
			double d;

			memcpy(&d, &bits, sizeof(d));	/* NaN and infinities too */
			aio_json_double(&j, d);
			break;
		}
		case 7:
			aio_json_bool(&j, op & 0x10);
			break;
		default:
			aio_json_string(&j, NULL);
			break;
		}
	}
	/* close what is open, as a command ending would */
	if (j.named)
		aio_json_null(&j);
	while (j.depth) {
		if (j.is_obj[j.depth - 1])
			aio_json_end_object(&j);
		else
			aio_json_end_array(&j);
	}
	fclose(f);
	FUZZ_CHECK(aio_json_error(&j) == 0, "writer error %d on well-formed calls",
		   aio_json_error(&j));
	FUZZ_CHECK(utf8_valid(out, outlen), "output is not valid UTF-8");
	if (pretty) {
		/* a stream of values, whitespace between */
		struct jp p = { (const unsigned char *)out, outlen, 0, 0 };

		for (;;) {
			jp_ws(&p);
			if (p.i == p.n)
				break;
			FUZZ_CHECK(jp_value(&p), "invalid JSON at byte %zu", p.i);
		}
	} else {
		/* JSON lines: every line one value */
		for (size_t a = 0; a < outlen;) {
			char *nl = memchr(out + a, '\n', outlen - a);

			FUZZ_CHECK(nl, "last line without a newline");
			FUZZ_CHECK(json_valid(out + a, (size_t)(nl - (out + a))),
				   "invalid JSON line at byte %zu", a);
			a = (size_t)(nl - out) + 1;
		}
	}
	free(out);
	return 0;
}
