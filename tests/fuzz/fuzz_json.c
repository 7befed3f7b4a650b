// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_json - the JSON writer (cli/core/json.c): documents of any shape with
 * strings of any bytes. The input is a program of writer calls; whatever the
 * strings hold, the output must be valid UTF-8 and valid JSON (one value per line
 * in line mode); the writer's buffer mode, given the same calls, must write the
 * same bytes (line mode) and, for a string in a buffer too small, the whole
 * literal or nothing of it, never a byte past the buffer.
 */
#include <errno.h>
#include <math.h>

#include "fuzz.h"
#include "core/json.h"

/* The stream writer j and the buffer writer jb, given the same calls. */
struct writers {
	struct aio_json j, jb;
};

/* a writer call made on both writers of w alike */
#define BOTH(fn, ...)					\
	do {						\
		fn(&w->j, ##__VA_ARGS__);		\
		fn(&w->jb, ##__VA_ARGS__);		\
	} while (0)

/* sizes growing by a quarter, then n - 1 and n */
static size_t next_cap(size_t cap, size_t n)
{
	if (cap >= n - 1)
		return cap + 1;
	return cap + 1 + cap / 4 < n - 1 ? cap + 1 + cap / 4 : n - 1;
}

/* one string in buffer mode: as the stream writer writes it, and cut only whole */
static void check_buffer(const char *s)
{
	char full[256 * 6 + 8], *part, *mem = NULL;
	size_t memlen = 0, n;
	struct aio_json j;
	FILE *f;

	aio_json_init_buf(&j, full, sizeof(full));
	aio_json_string(&j, s);
	n = aio_json_len(&j);
	FUZZ_CHECK(!aio_json_error(&j) && n >= 3 && n == strlen(full), "buffer mode: %d",
		   aio_json_error(&j));
	FUZZ_CHECK(json_string_valid(full, n - 1), "buffer mode wrote an invalid literal");
	f = open_memstream(&mem, &memlen);
	FUZZ_CHECK(f, "open_memstream");
	aio_json_init(&j, f, false);
	aio_json_string(&j, s);
	fclose(f);
	FUZZ_CHECK(memlen == n && !memcmp(mem, full, n), "stream and buffer modes differ");
	free(mem);
	/* smaller sizes up to one short of the newline, each on the heap exactly: ASan
	 * sees a byte written past it */
	for (size_t cap = 1; cap <= n; cap = next_cap(cap, n)) {
		part = malloc(cap);
		FUZZ_CHECK(part, "malloc");
		aio_json_init_buf(&j, part, cap);
		aio_json_string(&j, s);
		FUZZ_CHECK(aio_json_error(&j) == -ENOSPC, "capacity %zu: error %d", cap,
			   aio_json_error(&j));
		FUZZ_CHECK(strlen(part) == aio_json_len(&j) && aio_json_len(&j) < cap,
			   "capacity %zu: overran", cap);
		FUZZ_CHECK(!memcmp(part, full, aio_json_len(&j)), "truncation is no prefix");
		/* the whole literal without its newline, or nothing: never a cut one */
		FUZZ_CHECK(aio_json_len(&j) == (cap == n ? n - 1 : 0),
			   "capacity %zu: %zu bytes, a cut literal", cap, aio_json_len(&j));
		free(part);
	}
}

/* A value where one may stand (in an array, after a name, at the top), or an array's end. */
static void value_call(struct writers *w, struct fz *in, uint8_t op, bool in_obj)
{
	char str[256];
	uint64_t v;

	switch (op % 10) {
	case 0:
		if (w->j.depth < AIO_JSON_MAX_DEPTH)
			BOTH(aio_json_start_object);
		break;
	case 1:
		if (w->j.depth < AIO_JSON_MAX_DEPTH)
			BOTH(aio_json_start_array);
		break;
	case 2:
		if (w->j.depth && !in_obj)
			BOTH(aio_json_end_array);
		else
			BOTH(aio_json_null);
		break;
	case 3:
		fz_str(in, str, sizeof(str) - 1);
		BOTH(aio_json_string, str);
		check_buffer(str);
		break;
	case 4:
		v = fz_u64(in, 8);
		BOTH(aio_json_u64, v);
		break;
	case 5:
		v = fz_u64(in, 8);
		BOTH(aio_json_s64, (int64_t)v);
		break;
	case 6: {
		uint64_t bits = fz_u64(in, 8);
		double d;

		memcpy(&d, &bits, sizeof(d));	/* NaN and infinities too */
		BOTH(aio_json_double, d);
		break;
	}
	case 7:
		BOTH(aio_json_bool, op & 0x10);
		break;
	case 8:
		BOTH(aio_json_string, NULL);
		break;
	default:
		v = fz_u64(in, 8);
		BOTH(aio_json_hex, v);
		break;
	}
}

/* The next input byte chooses a call, always one the writer allows where it stands. */
static void one_call(struct writers *w, struct fz *in)
{
	uint8_t op = fz_u8(in);
	bool in_obj = w->j.depth && w->j.is_obj[w->j.depth - 1];
	char str[256];

	if (in_obj && !w->j.named) {
		/* an object wants a name or its end */
		if (op & 1) {
			BOTH(aio_json_end_object);
		} else {
			fz_str(in, str, sizeof(str) - 1);
			BOTH(aio_json_name, str);
		}
		return;
	}
	value_call(w, in, op, in_obj);
}

/* close what is open, as a command ending would */
static void close_all(struct writers *w)
{
	if (w->j.named)
		BOTH(aio_json_null);
	while (w->j.depth) {
		if (w->j.is_obj[w->j.depth - 1])
			BOTH(aio_json_end_object);
		else
			BOTH(aio_json_end_array);
	}
}

/* pretty output: a stream of values, whitespace between */
static void check_values(const char *out, size_t outlen)
{
	struct jp p = { (const unsigned char *)out, outlen, 0, 0 };

	for (;;) {
		jp_ws(&p);
		if (p.i == p.n)
			break;
		FUZZ_CHECK(jp_value(&p), "invalid JSON at byte %zu", p.i);
	}
}

/* line mode: JSON lines, every line one value */
static void check_lines(const char *out, size_t outlen)
{
	for (size_t a = 0; a < outlen;) {
		const char *nl = memchr(out + a, '\n', outlen - a);

		FUZZ_CHECK(nl, "last line without a newline");
		FUZZ_CHECK(json_valid(out + a, (size_t)(nl - (out + a))),
			   "invalid JSON line at byte %zu", a);
		a = (size_t)(nl - out) + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	bool pretty = fz_u8(&in) & 1;
	char *out = NULL;
	size_t outlen = 0;
	struct writers w;
	FILE *f = open_memstream(&out, &outlen);
	/* the same calls in buffer mode: the same bytes, unless the buffer fills */
	size_t bcap = 4096 + size * 64;
	char *bbuf = malloc(bcap);

	FUZZ_CHECK(f && bbuf, "open_memstream, malloc");
	aio_json_init(&w.j, f, pretty);
	aio_json_init_buf(&w.jb, bbuf, bcap);
	while (fz_left(&in))
		one_call(&w, &in);
	close_all(&w);
	fclose(f);
	FUZZ_CHECK(aio_json_error(&w.j) == 0, "writer error %d on well-formed calls",
		   aio_json_error(&w.j));
	FUZZ_CHECK(utf8_valid(out, outlen), "output is not valid UTF-8");
	if (!pretty && aio_json_error(&w.jb) != -ENOSPC) {
		FUZZ_CHECK(!aio_json_error(&w.jb), "buffer mode error %d", aio_json_error(&w.jb));
		FUZZ_CHECK(aio_json_len(&w.jb) == outlen && !memcmp(bbuf, out, outlen),
			   "buffer mode wrote other bytes than the stream");
	}
	free(bbuf);
	if (pretty)
		check_values(out, outlen);
	else
		check_lines(out, outlen);
	free(out);
	return 0;
}
