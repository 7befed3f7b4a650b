// SPDX-License-Identifier: GPL-2.0
/*
 * snoop_line.c - snoop's output line for one finished request (snoop_line.h): the
 * JSON line by the core's writer in buffer mode, the text columns on its buffer.
 * No printf: the consumer must keep up with hundreds of thousands of events per
 * second, and a printf per field does not.
 */
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "core/json.h"
#include "core/stages.h"
#include "snoop_line.h"

/* a stage's member: its ns, or null */
#define STAGE_MEMBER(j, st, s, name)					\
	do {								\
		aio_json_key(j, AIO_JSON_KEY(name));			\
		if (aio_stage_known(st, s))				\
			aio_json_u64(j, (st)->ns[s]);			\
		else							\
			aio_json_null(j);				\
	} while (0)

/* "stages": {"submit_ns": N or null, ..., "bios": N or null} */
static void json_stages(struct aio_json *j, const struct tracer_event *e)
{
	struct aio_stages st;

	tracer_event_stages(e, &st);
	aio_json_key(j, AIO_JSON_KEY("stages"));
	aio_json_start_object(j);
	STAGE_MEMBER(j, &st, AIO_STAGE_SUBMIT, "submit_ns");
	STAGE_MEMBER(j, &st, AIO_STAGE_IOWQ, "iowq_ns");
	STAGE_MEMBER(j, &st, AIO_STAGE_QUEUE, "queue_ns");
	STAGE_MEMBER(j, &st, AIO_STAGE_DEVICE, "device_ns");
	STAGE_MEMBER(j, &st, AIO_STAGE_COMPLETE, "complete_ns");
	STAGE_MEMBER(j, &st, AIO_STAGE_REAP, "reap_ns");
	aio_json_key(j, AIO_JSON_KEY("bios"));
	if (e->bios)
		aio_json_u64(j, e->bios);
	else
		aio_json_null(j);
	aio_json_end_object(j);
}

static size_t json_line(char *buf, size_t cap, const struct tracer_event *e,
			uint64_t mono_to_real, bool stages)
{
	struct aio_json j;
	char dev[24];

	aio_json_init_buf(&j, buf, cap);
	aio_json_start_object(&j);
	aio_json_key(&j, AIO_JSON_KEY("ts_ns"));
	aio_json_u64(&j, e->ts_ns + mono_to_real);
	aio_json_key(&j, AIO_JSON_KEY("pid"));
	aio_json_s64(&j, e->pid);
	aio_json_key(&j, AIO_JSON_KEY("tid"));
	aio_json_s64(&j, e->tid);
	aio_json_key(&j, AIO_JSON_KEY("comm"));
	aio_json_string(&j, e->comm);
	aio_json_key(&j, AIO_JSON_KEY("api"));
	aio_json_string(&j, tracer_api_name(e->api));
	aio_json_key(&j, AIO_JSON_KEY("op"));
	aio_json_string(&j, tracer_op_name(e->op));
	aio_json_key(&j, AIO_JSON_KEY("dev"));
	aio_json_string(&j, tracer_dev_str(e->dev, dev, sizeof(dev)));
	aio_json_key(&j, AIO_JSON_KEY("ino"));
	aio_json_u64(&j, e->ino);
	aio_json_key(&j, AIO_JSON_KEY("offset"));
	aio_json_s64(&j, e->offset);
	aio_json_key(&j, AIO_JSON_KEY("bytes"));
	aio_json_u64(&j, e->bytes);
	aio_json_key(&j, AIO_JSON_KEY("res"));
	aio_json_s64(&j, e->res);
	aio_json_key(&j, AIO_JSON_KEY("lat_ns"));
	aio_json_u64(&j, e->lat_ns);
	aio_json_key(&j, AIO_JSON_KEY("reap_ns"));
	if (e->reap_ns == TRACER_REAP_NONE)
		aio_json_null(&j);
	else
		aio_json_u64(&j, e->reap_ns);
	aio_json_key(&j, AIO_JSON_KEY("driver_ns"));
	if (e->driver_ns == TRACER_DRIVER_NONE)
		aio_json_null(&j);
	else
		aio_json_u64(&j, e->driver_ns);
	aio_json_key(&j, AIO_JSON_KEY("state"));
	aio_json_string(&j, tracer_state_name(e->state));
	aio_json_key(&j, AIO_JSON_KEY("id"));
	aio_json_hex(&j, e->id);
	aio_json_key(&j, AIO_JSON_KEY("ctx"));
	aio_json_hex(&j, e->ctx);
	aio_json_key(&j, AIO_JSON_KEY("data"));
	aio_json_u64(&j, e->data);
	aio_json_key(&j, AIO_JSON_KEY("cancel"));
	if (e->cancel_pid) {
		aio_json_start_object(&j);
		aio_json_key(&j, AIO_JSON_KEY("pid"));
		aio_json_s64(&j, e->cancel_pid);
		aio_json_key(&j, AIO_JSON_KEY("tid"));
		aio_json_s64(&j, e->cancel_tid);
		aio_json_key(&j, AIO_JSON_KEY("ret"));
		if (e->cancel_ret == TRACER_CANCEL_RET_PENDING)
			aio_json_null(&j);	/* completed before io_cancel returned */
		else
			aio_json_s64(&j, e->cancel_ret);
		aio_json_key(&j, AIO_JSON_KEY("after_ns"));
		aio_json_u64(&j, e->cancel_ns);
		aio_json_end_object(&j);
	} else {
		aio_json_null(&j);
	}
	if (stages)
		json_stages(&j, e);
	aio_json_end_object(&j);	/* and the newline */
	return aio_json_len(&j);
}

/* @n bytes of @s in a column of @width characters (negative: left-aligned), a space */
static void col(struct aio_buf *b, const char *s, size_t n, int width)
{
	static const char spaces[] = "                ";	/* the widest column */
	size_t w = (size_t)(width < 0 ? -width : width);
	size_t pad = n < w ? w - n : 0;

	if (pad > sizeof(spaces) - 1)
		pad = sizeof(spaces) - 1;

	if (width > 0 && pad)
		aio_buf_put(b, spaces, pad);
	aio_buf_put(b, s, n);
	if (width < 0 && pad)
		aio_buf_put(b, spaces, pad);
	aio_buf_put(b, " ", 1);
}

static void col_str(struct aio_buf *b, const char *s, int width)
{
	col(b, s, strlen(s), width);
}

/* a number, signed (@sig) or not, in a column */
static void col_num(struct aio_buf *b, uint64_t v, bool sig, int width)
{
	char num[24];
	struct aio_buf t;

	aio_buf_init(&t, num, sizeof(num));
	if (sig)
		aio_buf_s64(&t, (int64_t)v);
	else
		aio_buf_u64(&t, v);
	col(b, num, t.len, width);
}

/* a time in ns as microseconds with one decimal */
static void col_us(struct aio_buf *b, uint64_t ns, int width)
{
	char us[32];

	col(b, us, (size_t)aio_fmt_fixed(us, sizeof(us), ns, 1000, 1), width);
}

/*
 * The text columns; with @stages (snoop --stages) the request's stages ("-": not
 * known) and its bios in place of ino, offset and reap.
 */
static size_t text_line(char *buf, size_t cap, const struct tracer_event *e,
			uint64_t start_mono, bool stages)
{
	char ts[32], dev[24], comm[TRACER_COMM_LEN * 4];
	uint64_t rel = e->ts_ns > start_mono ? e->ts_ns - start_mono : 0;
	struct aio_buf b;

	aio_buf_init(&b, buf, cap);
	col(&b, ts, (size_t)aio_fmt_fixed(ts, sizeof(ts), rel, 1000000000, 6), -12);
	aio_fmt_term(comm, sizeof(comm), e->comm);	/* no raw control bytes */
	col_str(&b, comm, -16);
	col_num(&b, (uint64_t)e->pid, true, 7);
	col_str(&b, tracer_api_name(e->api), -5);
	col_str(&b, tracer_op_name(e->op), -6);
	col_str(&b, tracer_dev_str(e->dev, dev, sizeof(dev)), -9);
	if (!stages) {
		col_num(&b, e->ino, false, 10);
		col_num(&b, (uint64_t)e->offset, true, 12);
	}
	col_num(&b, e->bytes, false, 8);
	col_num(&b, (uint64_t)e->res, true, 8);
	col_us(&b, e->lat_ns, 10);
	if (stages) {
		struct aio_stages st;

		tracer_event_stages(e, &st);
		for (int s = 0; s < AIO_STAGE_NR; s++) {
			if (aio_stage_known(&st, s))
				col_us(&b, st.ns[s], 9);
			else
				col_str(&b, "-", 9);
		}
		if (e->bios)
			col_num(&b, e->bios, false, 4);
		else
			col_str(&b, "-", 4);
	} else if (e->reap_ns == TRACER_REAP_NONE) {
		col_str(&b, "-", 10);
	} else {
		col_us(&b, e->reap_ns, 10);
	}
	aio_buf_str(&b, tracer_state_name(e->state));
	aio_buf_put(&b, "\n", 1);
	return b.len;
}

size_t snoop_line(char *buf, size_t cap, const struct tracer_event *e, bool json,
		  uint64_t mono_to_real, uint64_t start_mono)
{
	if (!cap)
		return 0;
	return json ? json_line(buf, cap, e, mono_to_real, false) :
		      text_line(buf, cap, e, start_mono, false);
}

size_t snoop_stage_line(char *buf, size_t cap, const struct tracer_event *e, bool json,
			uint64_t mono_to_real, uint64_t start_mono)
{
	if (!cap)
		return 0;
	return json ? json_line(buf, cap, e, mono_to_real, true) :
		      text_line(buf, cap, e, start_mono, true);
}

void snoop_header(FILE *f)
{
	fprintf(f, "%-12s %-16s %7s %-5s %-6s %-9s %10s %12s %8s %8s %10s %10s %s\n",
		"TIME(s)", "COMM", "PID", "API", "OP", "DEV", "INO", "OFFSET", "BYTES", "RES",
		"LAT(us)", "REAP(us)", "STATE");
}

void snoop_stage_header(FILE *f)
{
	fprintf(f, "%-12s %-16s %7s %-5s %-6s %-9s %8s %8s %10s %9s %9s %9s %9s %9s %9s %4s %s\n",
		"TIME(s)", "COMM", "PID", "API", "OP", "DEV", "BYTES", "RES", "LAT(us)",
		"SUBMIT", "IOWQ", "QUEUE", "DEVICE", "COMPLETE", "REAP", "BIOS", "STATE");
}
