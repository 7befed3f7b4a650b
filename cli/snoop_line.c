// SPDX-License-Identifier: GPL-2.0
/*
 * snoop_line.c - snoop's output line for one finished request (snoop_line.h).
 */
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "json.h"
#include "snoop_line.h"

/*
 * One JSON line per event, formatted by hand into a buffer: the consumer must keep
 * up with hundreds of thousands of events per second, and a printf per field
 * does not. Field names are constants; only comm needs escaping.
 */
struct jline {
	char *buf;
	size_t len, cap;
};

static void jl_raw(struct jline *l, const char *s)
{
	size_t n = strlen(s);

	if (l->len + n < l->cap) {
		memcpy(l->buf + l->len, s, n);
		l->len += n;
	}
}

static void jl_u64(struct jline *l, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (l->len + (sizeof(tmp) - i) < l->cap) {
		memcpy(l->buf + l->len, tmp + i, sizeof(tmp) - i);
		l->len += sizeof(tmp) - i;
	}
}

static void jl_s64(struct jline *l, int64_t v)
{
	if (v < 0) {
		jl_raw(l, "-");
		jl_u64(l, -(uint64_t)v);
	} else {
		jl_u64(l, (uint64_t)v);
	}
}

static void jl_hex(struct jline *l, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	if (l->len + (sizeof(tmp) - i) < l->cap) {
		memcpy(l->buf + l->len, tmp + i, sizeof(tmp) - i);
		l->len += sizeof(tmp) - i;
	}
}

/* a JSON string, escaped by the core's writer (valid UTF-8 whatever the bytes) */
static void jl_str(struct jline *l, const char *s)
{
	char esc[TRACER_COMM_LEN * 6 + 3];	/* every byte a \uXXXX escape, quotes */

	aio_json_escape(esc, sizeof(esc), s);
	jl_raw(l, esc);
}

/* @s in a column of @width characters (negative: left-aligned), then a space */
static void jl_col(struct jline *l, const char *s, int width)
{
	int n = (int)strlen(s), w = width < 0 ? -width : width;

	if (width > 0)
		for (; n < w && l->len + 1 < l->cap; n++)
			l->buf[l->len++] = ' ';
	jl_raw(l, s);
	if (width < 0)
		for (; n < w && l->len + 1 < l->cap; n++)
			l->buf[l->len++] = ' ';
	jl_raw(l, " ");
}

/* a number as a string, for jl_col */
static const char *s64_str(char *buf, size_t len, int64_t v)
{
	struct jline t = { buf, 0, len };

	jl_s64(&t, v);
	buf[t.len] = '\0';
	return buf;
}

static const char *u64_str(char *buf, size_t len, uint64_t v)
{
	struct jline t = { buf, 0, len };

	jl_u64(&t, v);
	buf[t.len] = '\0';
	return buf;
}

size_t snoop_line(char *buf, size_t cap, const struct tracer_event *e, bool json,
		  uint64_t mono_to_real, uint64_t start_mono)
{
	struct jline l = { buf, 0, cap };
	char dev[24];

	if (!cap)
		return 0;
	if (json) {
		jl_raw(&l, "{\"ts_ns\":");
		jl_u64(&l, e->ts_ns + mono_to_real);
		jl_raw(&l, ",\"pid\":");
		jl_s64(&l, e->pid);
		jl_raw(&l, ",\"tid\":");
		jl_s64(&l, e->tid);
		jl_raw(&l, ",\"comm\":");
		jl_str(&l, e->comm);
		jl_raw(&l, ",\"api\":\"");
		jl_raw(&l, tracer_api_name(e->api));
		jl_raw(&l, "\",\"op\":\"");
		jl_raw(&l, tracer_op_name(e->op));
		jl_raw(&l, "\",\"dev\":\"");
		jl_raw(&l, tracer_dev_str(e->dev, dev, sizeof(dev)));
		jl_raw(&l, "\",\"ino\":");
		jl_u64(&l, e->ino);
		jl_raw(&l, ",\"offset\":");
		jl_s64(&l, e->offset);
		jl_raw(&l, ",\"bytes\":");
		jl_u64(&l, e->bytes);
		jl_raw(&l, ",\"res\":");
		jl_s64(&l, e->res);
		jl_raw(&l, ",\"lat_ns\":");
		jl_u64(&l, e->lat_ns);
		jl_raw(&l, ",\"reap_ns\":");
		if (e->reap_ns == TRACER_REAP_NONE)
			jl_raw(&l, "null");
		else
			jl_u64(&l, e->reap_ns);
		jl_raw(&l, ",\"driver_ns\":");
		if (e->driver_ns == TRACER_DRIVER_NONE)
			jl_raw(&l, "null");
		else
			jl_u64(&l, e->driver_ns);
		jl_raw(&l, ",\"state\":\"");
		jl_raw(&l, tracer_state_name(e->state));
		jl_raw(&l, "\",\"id\":\"");
		jl_hex(&l, e->id);
		jl_raw(&l, "\",\"ctx\":\"");
		jl_hex(&l, e->ctx);
		jl_raw(&l, "\",\"data\":");
		jl_u64(&l, e->data);
		jl_raw(&l, ",\"cancel\":");
		if (e->cancel_pid) {
			jl_raw(&l, "{\"pid\":");
			jl_s64(&l, e->cancel_pid);
			jl_raw(&l, ",\"tid\":");
			jl_s64(&l, e->cancel_tid);
			jl_raw(&l, ",\"ret\":");
			if (e->cancel_ret == TRACER_CANCEL_RET_PENDING)
				jl_raw(&l, "null");	/* completed before io_cancel returned */
			else
				jl_s64(&l, e->cancel_ret);
			jl_raw(&l, ",\"after_ns\":");
			jl_u64(&l, e->cancel_ns);
			jl_raw(&l, "}");
		} else {
			jl_raw(&l, "null");
		}
		jl_raw(&l, "}\n");
	} else {
		/*
		 * Built by hand like the JSON line: printf with a dozen conversions cost
		 * about 10 us per line in the VM, where the consumer must keep up with
		 * 100,000 requests per second.
		 */
		char ts[32], lat[32], reap[32], num[24];
		char comm[TRACER_COMM_LEN * 4];
		uint64_t rel = e->ts_ns > start_mono ? e->ts_ns - start_mono : 0;

		if (e->reap_ns == TRACER_REAP_NONE)
			snprintf(reap, sizeof(reap), "-");
		else
			aio_fmt_fixed(reap, sizeof(reap), e->reap_ns, 1000, 1);
		aio_fmt_fixed(ts, sizeof(ts), rel, 1000000000, 6);
		aio_fmt_fixed(lat, sizeof(lat), e->lat_ns, 1000, 1);
		jl_col(&l, ts, -12);
		aio_fmt_term(comm, sizeof(comm), e->comm);	/* no raw control bytes */
		jl_col(&l, comm, -16);
		jl_col(&l, s64_str(num, sizeof(num), e->pid), 7);
		jl_col(&l, tracer_api_name(e->api), -5);
		jl_col(&l, tracer_op_name(e->op), -6);
		jl_col(&l, tracer_dev_str(e->dev, dev, sizeof(dev)), -9);
		jl_col(&l, u64_str(num, sizeof(num), e->ino), 10);
		jl_col(&l, s64_str(num, sizeof(num), e->offset), 12);
		jl_col(&l, u64_str(num, sizeof(num), e->bytes), 8);
		jl_col(&l, s64_str(num, sizeof(num), e->res), 8);
		jl_col(&l, lat, 10);
		jl_col(&l, reap, 10);
		jl_raw(&l, tracer_state_name(e->state));
		jl_raw(&l, "\n");
	}
	buf[l.len] = '\0';
	return l.len;
}
