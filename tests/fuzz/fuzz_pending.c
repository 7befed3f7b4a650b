// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_pending - the parser of aiodev's debugfs listing
 * (/sys/kernel/debug/aiodev/aiodevN/pending, docs/design.md), aiodev_pending_parse_line.
 *
 * Input byte 0 even: the rest is a listing, read as `aioscope stuck` reads it (lines
 * of at most 511 bytes); every request parsed must have terminated strings, and its
 * comm must print safely on a terminal and in JSON.
 * Input byte 0 odd: the rest is a comm (up to 15 bytes) and numbers; the line the
 * driver writes for them must parse back to exactly them, whatever the comm holds
 * (no name can add, hide or change a field: issue "forgeable comm"), its op and api
 * words to the enum values the driver wrote them for.
 */
#include <inttypes.h>

#include "core/format.h"
#include "fuzz.h"
#include "core/json.h"
#include "collect/parse.h"

static void check_req(const struct stuck_req *r)
{
	const struct pending_req *q = &r->req;
	char term[sizeof(q->comm) * 4], *out = NULL;
	size_t outlen = 0;
	struct aio_json j;
	FILE *f;

	FUZZ_CHECK(memchr(q->comm, '\0', sizeof(q->comm)), "comm not terminated");
	FUZZ_CHECK((unsigned int)q->op <= AIOS_OP_OTHER, "op %u out of range", q->op);
	FUZZ_CHECK((unsigned int)q->api <= AIOS_API_OTHER, "api %u out of range", q->api);
	aio_fmt_term(term, sizeof(term), q->comm);
	for (const char *p = term; *p; p++)
		FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f, "control byte in comm");
	/* the fields stuck --json writes from the listing */
	f = open_memstream(&out, &outlen);
	FUZZ_CHECK(f, "open_memstream");
	aio_json_init(&j, f, false);
	aio_json_start_object(&j);
	aio_json_s64_field(&j, "pid", q->pid);
	aio_json_string_field(&j, "comm", q->comm);
	aio_json_string_field(&j, "api", stuck_api_name(r));
	aio_json_string_field(&j, "op", stuck_op_name(r));
	aio_json_u64_field(&j, "age_ns", r->age_ns);
	aio_json_end_object(&j);
	fclose(f);
	FUZZ_CHECK(!aio_json_error(&j), "json error");
	FUZZ_CHECK(utf8_valid(out, outlen) && outlen && json_valid(out, outlen - 1),
		   "invalid JSON from a listing: %.*s", (int)outlen, out);
	free(out);
}

static void listing(const uint8_t *data, size_t size)
{
	FILE *f;
	char line[512];

	if (!size)
		return;
	f = fmemopen((void *)data, size, "r");
	FUZZ_CHECK(f, "fmemopen");
	while (fgets(line, sizeof(line), f)) {
		struct stuck_req r;

		memset(&r, 0, sizeof(r));
		r.stalled = -1;
		if (aiodev_pending_parse_line(line, &r) == 0)
			check_req(&r);
	}
	fclose(f);
}

static void roundtrip(struct fz *in)
{
	char comm[16], esc[16 * 4 + 1], line[512];
	uint64_t id = fz_u64(in, 8), off = fz_u64(in, 8), len = fz_u64(in, 4);
	uint64_t age = fz_u64(in, 8), ctx = fz_u64(in, 8), obj = fz_u64(in, 8);
	uint32_t pid = (uint32_t)fz_u64(in, 3), tid = (uint32_t)fz_u64(in, 3);
	static const char *const apis[] = { "aio", "uring", "other" };	/* aiodev's */
	static const enum aios_api api_of[] = { AIOS_API_AIO, AIOS_API_URING, AIOS_API_OTHER };
	uint8_t opb = fz_u8(in);
	bool write = opb & 1, stalled = fz_u8(in) & 1;
	unsigned int api = (opb >> 1) % 3;
	size_t n = fz_str(in, comm, 15), e = 0;
	struct stuck_req r;

	n = strlen(comm);	/* a comm holds no NUL */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)comm[i];

		if (c <= 0x20 || c >= 0x7f || c == '\\')
			e += (size_t)sprintf(esc + e, "\\x%02x", c);
		else
			esc[e++] = (char)c;
	}
	esc[e] = '\0';
	snprintf(line, sizeof(line),
		 "id=0x%" PRIx64 " api=%s pid=%u tid=%u comm=%s op=%s off=%" PRIu64
		 " len=%" PRIu64 " age_ns=%" PRIu64 " stalled=%d ctx=0x%" PRIx64
		 " obj=0x%" PRIx64 "\n", id, apis[api], pid, tid, esc, write ? "write" : "read", off,
		 len, age, stalled, ctx, obj);
	memset(&r, 0, sizeof(r));
	r.stalled = -1;
	FUZZ_CHECK(aiodev_pending_parse_line(line, &r) == 0, "driver line refused: %s", line);
	FUZZ_CHECK(!strcmp(r.req.comm, comm), "comm changed: %s", line);
	FUZZ_CHECK(r.req.id == id && r.req.pid == (int32_t)pid && r.req.tid == (int32_t)tid &&
		   (uint64_t)r.req.offset == off && r.req.bytes == len && r.age_ns == age &&
		   r.req.ctx == ctx && r.req.obj == obj && r.stalled == stalled,
		   "a field changed: %s", line);
	FUZZ_CHECK(r.req.op == (write ? AIOS_OP_WRITE : AIOS_OP_READ) && r.has_api &&
		   r.req.api == api_of[api], "op/api changed: %s", line);
	check_req(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };

	if (fz_u8(&in) & 1)
		roundtrip(&in);
	else
		listing(in.p, in.n);
	return 0;
}
