// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_record - the ring buffer's records in user space (cli/collect/record.c): DONE,
 * REAP and CQ_HEAD records of any length and content, in any order, through the decoder and the
 * completion/reap join, then through snoop's two line forms: the JSON line must be
 * one valid JSON object in valid UTF-8, whole; the text line terminal-safe.
 *
 * Input: byte 0 = flags (bit 0: join completions with their reap; bit 1: stop
 * delivery after a few events, as a callback error does; bit 2: join io_uring's
 * completions with the CQ head records); 8 bytes of clock offset; then records,
 * each a 2-byte length, 1 type byte (0: keep the bytes' own type, 1 DONE, 2 REAP,
 * 3 CQ_HEAD), the bytes.
 */
#include <linux/types.h>

#include "aioscope.h"
#include "core/format.h"
#include "fuzz.h"
#include "core/json.h"
#include "collect/record.h"
#include "commands/snoop_line.h"

struct state {
	bool join;
	uint64_t clock;		/* mono_to_real, and start_mono by way of the events */
	int stop_after;
	int seen;
};

static int on_event(void *ctx, const struct tracer_event *e)
{
	struct state *st = ctx;
	char term[TRACER_COMM_LEN * 4], js[TRACER_COMM_LEN * 6 + 4], num[48];
	struct aio_json j;
	char line[SNOOP_LINE_MAX];
	size_t n;

	FUZZ_CHECK(memchr(e->comm, '\0', sizeof(e->comm)), "comm not terminated");
	FUZZ_CHECK(e->reap_ns == TRACER_REAP_NONE || st->join, "reap time without the join");
	aio_fmt_term(term, sizeof(term), e->comm);
	aio_json_init_buf(&j, js, sizeof(js));	/* every byte a \uXXXX, quotes, newline */
	aio_json_string(&j, e->comm);
	FUZZ_CHECK(!aio_json_error(&j) && aio_json_len(&j) >= 3, "comm as JSON: %d",
		   aio_json_error(&j));
	FUZZ_CHECK(utf8_valid(js, aio_json_len(&j) - 1) &&
		   json_string_valid(js, aio_json_len(&j) - 1), "comm as JSON: %s", js);
	aio_fmt_ns(num, sizeof(num), e->lat_ns);
	/* snoop --json: one whole object per line */
	n = snoop_line(line, sizeof(line), e, true, st->clock, st->clock ^ e->ts_ns);
	FUZZ_CHECK(n > 2 && n < sizeof(line) && line[n - 1] == '\n' && line[n] == '\0',
		   "JSON line of %zu bytes", n);
	FUZZ_CHECK(utf8_valid(line, n), "JSON line is not UTF-8: %s", line);
	FUZZ_CHECK(json_valid(line, n - 1) && line[0] == '{', "invalid JSON line: %s", line);
	FUZZ_CHECK(!memchr(line, '\n', n - 1), "newline inside a JSON line");
	/* snoop --stages --json: the same, with the stages object */
	n = snoop_stage_line(line, sizeof(line), e, true, st->clock, st->clock ^ e->ts_ns);
	FUZZ_CHECK(n > 2 && n < sizeof(line) && line[n - 1] == '\n' && line[n] == '\0',
		   "stage JSON line of %zu bytes", n);
	FUZZ_CHECK(json_valid(line, n - 1) && line[0] == '{', "invalid stage JSON line: %s", line);
	/* snoop (--stages): columns; whole, and nothing a terminal would act on */
	for (int stages = 0; stages < 2; stages++) {
		n = (stages ? snoop_stage_line : snoop_line)(line, sizeof(line), e, false,
							     st->clock, st->clock ^ e->ts_ns);
		FUZZ_CHECK(n > 1 && n < sizeof(line) - 1 && line[n - 1] == '\n',
			   "text line of %zu", n);
		FUZZ_CHECK(utf8_valid(line, n), "text line is not UTF-8: %s", line);
		for (size_t i = 0; i + 1 < n; i++)
			FUZZ_CHECK((unsigned char)line[i] >= 0x20 && line[i] != 0x7f,
				   "control byte 0x%02x in a text line", (unsigned char)line[i]);
	}
	st->seen++;
	return st->stop_after && st->seen >= st->stop_after ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	uint8_t flags = fz_u8(&in);
	struct state st = { .join = flags & 1, .stop_after = (flags & 2) ? 1 + (flags >> 4) : 0 };
	struct tracer_rx rx = { .join_reap = st.join, .join_uring = flags & 4, .cb = on_event,
				.cb_ctx = &st };
	uint64_t now;

	st.clock = fz_u64(&in, 8);

	while (fz_left(&in) >= 3) {
		size_t len = (size_t)fz_u64(&in, 2) % 2048;
		uint8_t type = fz_u8(&in);
		uint32_t t32 = type;
		void *rec;

		if (len > fz_left(&in))
			len = fz_left(&in);
		/* exactly len bytes on the heap: ASan sees any read past the record */
		rec = malloc(len ? len : 1);
		if (!rec)
			abort();
		memcpy(rec, in.p, len);
		in.p += len;
		in.n -= len;
		if ((type == AIOS_REC_DONE || type == AIOS_REC_REAP || type == AIOS_REC_CQ_HEAD) &&
		    len >= 4)
			memcpy(rec, &t32, 4);
		tracer_rx_record(&rx, rec, len);
		free(rec);
		FUZZ_CHECK(rx.join.n * 2 <= rx.join.cap, "join table over half full");
		FUZZ_CHECK(st.join || rx.join.n == 0, "held an event without the join");
	}
	/* the poll loop's sweep of old completions, then the final flush */
	now = fz_u64(&in, 8);
	tracer_rx_sweep(&rx, now, 2000000000ULL);
	rx.cb_ret = 0;
	tracer_rx_sweep(&rx, now, 0);
	FUZZ_CHECK(rx.join.n == 0, "%zu events left after the final sweep", rx.join.n);
	tracer_rx_free(&rx);
	return 0;
}
