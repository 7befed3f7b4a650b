// SPDX-License-Identifier: GPL-2.0
/*
 * recfile.c - the recording file's writer and reader (recfile.h); the layout is
 * docs/record-format.md's. Every number is little-endian, written and read a byte at
 * a time (no struct is written as it is in memory), so the file is the same on any
 * machine and a reader never depends on alignment.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "recfile.h"

#define CHUNK_MAGIC	"AIOC"
/* header chunk fields */
enum { HDR_HOST = 1, HDR_KERNEL, HDR_MODE, HDR_START, HDR_ARGV, HDR_KNOB, HDR_TRIGGER };
#define HDR_LIST_MAX	(32 * 1024)	/* argv, and the knobs together, at most */

/* record bodies, version 1.0 (a newer minor may make them longer, never shorter) */
#define EV_LEN		163
#define QD_LEN		36
#define LOST_LEN	48
#define PEND_LEN	94

/* ---- CRC-32C ---- */

uint32_t recfile_crc32c(uint32_t crc, const void *p, size_t n)
{
	static uint32_t table[256];
	const unsigned char *s = p;

	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *s++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- little-endian numbers ---- */

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* a cursor that writes fields one after the other */
struct put {
	unsigned char *p;
};

static void put_u(struct put *c, uint64_t v, int bytes)
{
	put_le(c->p, v, bytes);
	c->p += bytes;
}

struct get {
	const unsigned char *p;
};

static uint64_t get_u(struct get *c, int bytes)
{
	uint64_t v = get_le(c->p, bytes);

	c->p += bytes;
	return v;
}

/* ---- writer ---- */

struct recfile_writer {
	int fd;
	enum recfile_enc enc;
	int level;
	ZSTD_CCtx *cctx;
	int err;			/* sticky: the first write error */
	uint64_t records, bytes;
	size_t raw_len;
	unsigned char raw[RECFILE_CHUNK_RAW];
	unsigned char *out;		/* chunk header + stored bytes */
	size_t out_cap;
};

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* one chunk: @out holds RECFILE_CHUNK_HDR bytes of room, then @stored bytes */
static int write_chunk(struct recfile_writer *w, unsigned char *out, enum recfile_chunk kind,
		       enum recfile_enc enc, size_t stored, size_t raw)
{
	struct put c = { out };
	int rc;

	if (w->err)
		return w->err;
	memcpy(c.p, CHUNK_MAGIC, 4);
	c.p += 4;
	put_u(&c, kind, 1);
	put_u(&c, enc, 1);
	put_u(&c, 0, 2);
	put_u(&c, stored, 4);
	put_u(&c, raw, 4);
	put_u(&c, recfile_crc32c(recfile_crc32c(0, out, 16), out + RECFILE_CHUNK_HDR, stored), 4);
	rc = write_all(w->fd, out, RECFILE_CHUNK_HDR + stored);
	if (rc) {
		w->err = rc;
		return rc;
	}
	w->bytes += RECFILE_CHUNK_HDR + stored;
	return 0;
}

/* a header field: type, length, bytes; @p has room */
static unsigned char *hdr_field(unsigned char *p, int type, const void *v, size_t n)
{
	put_le(p, (uint64_t)type, 2);
	put_le(p + 2, n, 2);
	memcpy(p + 4, v, n);
	return p + 4 + n;
}

/* the whole strings of a list that fit in HDR_LIST_MAX bytes */
static size_t list_cut(const char *s, size_t n)
{
	size_t keep = 0, i = 0;

	while (i < n) {
		size_t l = strnlen(s + i, n - i) + 1;

		if (i + l > n || i + l > HDR_LIST_MAX)
			break;
		i += l;
		keep = i;
	}
	return keep;
}

static int write_header(struct recfile_writer *w, const struct recfile_header *h)
{
	unsigned char file[RECFILE_FILE_HDR] = { 0 }, start[16];
	size_t argv_len = list_cut(h->argv, h->argv ? h->argv_len : 0);
	size_t knobs_len = list_cut(h->knobs, h->knobs ? h->knobs_len : 0);
	size_t cap = RECFILE_CHUNK_HDR + 4 * (4 + RECFILE_STR) + 4 + 16 + 4 + argv_len +
		     knobs_len + 4 * (knobs_len + 1);
	unsigned char *buf = malloc(cap), *p;
	int rc;

	if (!buf)
		return -ENOMEM;
	memcpy(file, RECFILE_MAGIC, 8);
	put_le(file + 8, RECFILE_MAJOR, 2);
	put_le(file + 10, RECFILE_MINOR, 2);
	put_le(file + 12, recfile_crc32c(0, file, 12), 4);
	rc = write_all(w->fd, file, sizeof(file));
	if (rc) {
		free(buf);
		return rc;
	}
	w->bytes += sizeof(file);

	p = buf + RECFILE_CHUNK_HDR;
	p = hdr_field(p, HDR_HOST, h->host, strnlen(h->host, RECFILE_STR - 1));
	p = hdr_field(p, HDR_KERNEL, h->kernel, strnlen(h->kernel, RECFILE_STR - 1));
	p = hdr_field(p, HDR_MODE, h->mode, strnlen(h->mode, sizeof(h->mode) - 1));
	put_le(start, h->start_real_ns, 8);
	put_le(start + 8, h->start_mono_ns, 8);
	p = hdr_field(p, HDR_START, start, sizeof(start));
	p = hdr_field(p, HDR_ARGV, h->argv, argv_len);
	for (size_t i = 0; i < knobs_len;) {
		size_t l = strlen(h->knobs + i);

		p = hdr_field(p, HDR_KNOB, h->knobs + i, l);
		i += l + 1;
	}
	if (h->trigger[0])
		p = hdr_field(p, HDR_TRIGGER, h->trigger, strnlen(h->trigger, RECFILE_STR - 1));
	rc = write_chunk(w, buf, RECFILE_CHUNK_HEADER, RECFILE_ENC_RAW,
			 (size_t)(p - buf) - RECFILE_CHUNK_HDR, (size_t)(p - buf) - RECFILE_CHUNK_HDR);
	free(buf);
	return rc;
}

struct recfile_writer *recfile_create(int fd, const struct recfile_header *h,
				      enum recfile_enc enc, int level, char *err, size_t errlen)
{
	struct recfile_writer *w = calloc(1, sizeof(*w));
	int rc;

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->fd = fd;
	w->enc = enc;
	w->level = level;
	w->out_cap = RECFILE_CHUNK_HDR + (enc == RECFILE_ENC_ZSTD ?
					  ZSTD_compressBound(RECFILE_CHUNK_RAW) : RECFILE_CHUNK_RAW);
	w->out = malloc(w->out_cap);
	if (enc == RECFILE_ENC_ZSTD)
		w->cctx = ZSTD_createCCtx();
	if (!w->out || (enc == RECFILE_ENC_ZSTD && !w->cctx)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	rc = write_header(w, h);
	if (rc) {
		snprintf(err, errlen, "writing the header: %s", strerror(-rc));
		goto fail;
	}
	return w;
fail:
	ZSTD_freeCCtx(w->cctx);
	free(w->out);
	free(w);
	return NULL;
}

int recfile_flush(struct recfile_writer *w)
{
	size_t stored = w->raw_len;
	enum recfile_enc enc = RECFILE_ENC_RAW;
	int rc;

	if (w->err)
		return w->err;
	if (!w->raw_len)
		return 0;
	if (w->enc == RECFILE_ENC_ZSTD) {
		size_t n = ZSTD_compressCCtx(w->cctx, w->out + RECFILE_CHUNK_HDR,
					     w->out_cap - RECFILE_CHUNK_HDR, w->raw, w->raw_len,
					     w->level);

		/* a chunk that does not shrink is stored */
		if (!ZSTD_isError(n) && n < w->raw_len) {
			stored = n;
			enc = RECFILE_ENC_ZSTD;
		}
	}
	if (enc == RECFILE_ENC_RAW)
		memcpy(w->out + RECFILE_CHUNK_HDR, w->raw, w->raw_len);
	rc = write_chunk(w, w->out, RECFILE_CHUNK_RECORDS, enc, stored, w->raw_len);
	w->raw_len = 0;
	return rc;
}

/* room for a record of @len body bytes: its header written, the body's place */
static unsigned char *rec_start(struct recfile_writer *w, enum recfile_type type, size_t len)
{
	unsigned char *p;

	if (w->raw_len + 4 + len > sizeof(w->raw) && recfile_flush(w))
		return NULL;
	if (w->err)
		return NULL;
	p = w->raw + w->raw_len;
	put_le(p, type, 2);
	put_le(p + 2, len, 2);
	w->raw_len += 4 + len;
	w->records++;
	return p + 4;
}

int recfile_write_event(struct recfile_writer *w, const struct tracer_event *e)
{
	unsigned char *b = rec_start(w, RECFILE_EVENT, EV_LEN);
	struct put c = { b };

	if (!b)
		return w->err;
	put_u(&c, e->ts_ns, 8);
	put_u(&c, e->submit_ns, 8);
	put_u(&c, e->lat_ns, 8);
	put_u(&c, e->reap_ns, 8);
	put_u(&c, e->driver_ns, 8);
	put_u(&c, e->id, 8);
	put_u(&c, e->ctx, 8);
	put_u(&c, e->obj, 8);
	put_u(&c, e->data, 8);
	put_u(&c, e->ino, 8);
	put_u(&c, (uint64_t)e->offset, 8);
	put_u(&c, e->bytes, 8);
	put_u(&c, (uint64_t)e->res, 8);
	put_u(&c, (uint64_t)e->cancel_ret, 8);
	put_u(&c, e->cancel_ns, 8);
	put_u(&c, e->dev, 4);
	put_u(&c, e->qd, 4);
	put_u(&c, (uint32_t)e->pid, 4);
	put_u(&c, (uint32_t)e->tid, 4);
	put_u(&c, (uint32_t)e->cancel_pid, 4);
	put_u(&c, (uint32_t)e->cancel_tid, 4);
	put_u(&c, (uint8_t)e->api, 1);
	put_u(&c, (uint8_t)e->op, 1);
	put_u(&c, (uint8_t)e->state, 1);
	memset(c.p, 0, TRACER_COMM_LEN);
	memcpy(c.p, e->comm, strnlen(e->comm, TRACER_COMM_LEN - 1));
	return 0;
}

int recfile_write_qd(struct recfile_writer *w, const struct recfile_qd *q)
{
	unsigned char *b = rec_start(w, RECFILE_QD, QD_LEN);
	struct put c = { b };

	if (!b)
		return w->err;
	put_u(&c, q->ts_ns, 8);
	put_u(&c, q->kind, 4);
	put_u(&c, q->key, 8);
	put_u(&c, (uint64_t)q->now, 8);
	put_u(&c, q->max, 8);
	return 0;
}

int recfile_write_lost(struct recfile_writer *w, const struct recfile_lost *l)
{
	unsigned char *b = rec_start(w, RECFILE_LOST, LOST_LEN);
	struct put c = { b };

	if (!b)
		return w->err;
	put_u(&c, l->ts_ns, 8);
	put_u(&c, l->ringbuf, 8);
	put_u(&c, l->inflight_full, 8);
	put_u(&c, l->join, 8);
	put_u(&c, l->prog_misses, 8);
	put_u(&c, l->reap_unread, 8);
	return 0;
}

int recfile_write_pending(struct recfile_writer *w, const struct recfile_pending *p)
{
	unsigned char *b = rec_start(w, RECFILE_PENDING, PEND_LEN);
	const struct pending_req *q = &p->req;
	struct put c = { b };

	if (!b)
		return w->err;
	put_u(&c, p->ts_ns, 8);
	put_u(&c, q->submit_ns, 8);
	put_u(&c, q->id, 8);
	put_u(&c, q->ctx, 8);
	put_u(&c, q->obj, 8);
	put_u(&c, q->ino, 8);
	put_u(&c, (uint64_t)q->offset, 8);
	put_u(&c, q->bytes, 8);
	put_u(&c, q->dev, 4);
	put_u(&c, (uint32_t)q->pid, 4);
	put_u(&c, (uint32_t)q->tid, 4);
	put_u(&c, (uint8_t)q->api, 1);
	put_u(&c, (uint8_t)q->op, 1);
	memset(c.p, 0, TRACER_COMM_LEN);
	memcpy(c.p, q->comm, strnlen(q->comm, TRACER_COMM_LEN - 1));
	return 0;
}

int recfile_write_rec(struct recfile_writer *w, const struct recfile_rec *rec)
{
	switch (rec->type) {
	case RECFILE_EVENT:
		return recfile_write_event(w, &rec->ev);
	case RECFILE_QD:
		return recfile_write_qd(w, &rec->qd);
	case RECFILE_LOST:
		return recfile_write_lost(w, &rec->lost);
	case RECFILE_PENDING:
		return recfile_write_pending(w, &rec->pend);
	}
	return -EINVAL;
}

int recfile_finish(struct recfile_writer *w)
{
	int rc = recfile_flush(w);

	if (!rc) {
		put_le(w->out + RECFILE_CHUNK_HDR, w->records, 8);
		rc = write_chunk(w, w->out, RECFILE_CHUNK_END, RECFILE_ENC_RAW, 8, 8);
	}
	ZSTD_freeCCtx(w->cctx);
	free(w->out);
	free(w);
	return rc;
}

uint64_t recfile_records(const struct recfile_writer *w)
{
	return w->records;
}

uint64_t recfile_bytes(const struct recfile_writer *w)
{
	return w->bytes;
}

/* ---- reader ---- */

static int fail(struct recfile_reader *r, bool truncated, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct recfile_reader *r, bool truncated, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->err_offset = off;
	r->truncated = truncated;
	r->state = -1;
	return -1;
}

/* up to @n bytes at the reader's position into @buf; the count read */
static size_t get_bytes(struct recfile_reader *r, void *buf, size_t n)
{
	size_t got = n ? fread(buf, 1, n, r->f) : 0;

	r->off += got;
	return got;
}

static int grow(unsigned char **p, size_t n)
{
	unsigned char *q = realloc(*p, n ? n : 1);

	if (!q)
		return -1;
	*p = q;
	return 0;
}

/*
 * The next chunk into r->raw (r->raw_len bytes), its kind in *kind. 0, or -1 with
 * the error set (an end of the file before a whole chunk is "truncated").
 */
static int read_chunk(struct recfile_reader *r, int *kind)
{
	unsigned char h[RECFILE_CHUNK_HDR];
	uint64_t at = r->off;
	size_t got = get_bytes(r, h, sizeof(h)), stored, raw;
	uint32_t crc;
	int enc;

	if (got == 0)
		return fail(r, true, at, "the file ends at byte %llu without its end chunk "
			    "(the recording was cut short, or is still being written)",
			    (unsigned long long)at);
	if (got < sizeof(h))
		return fail(r, true, at, "truncated chunk header at byte %llu (%zu of %d bytes)",
			    (unsigned long long)at, got, RECFILE_CHUNK_HDR);
	if (memcmp(h, CHUNK_MAGIC, 4))
		return fail(r, false, at, "corrupted: no chunk at byte %llu (bad chunk magic)",
			    (unsigned long long)at);
	*kind = h[4];
	enc = h[5];
	stored = get_le(h + 8, 4);
	raw = get_le(h + 12, 4);
	crc = (uint32_t)get_le(h + 16, 4);
	if (stored > RECFILE_CHUNK_MAX || raw > RECFILE_CHUNK_MAX)
		return fail(r, false, at, "corrupted: chunk at byte %llu claims %zu bytes "
			    "(%zu unpacked), more than %d", (unsigned long long)at, stored, raw,
			    RECFILE_CHUNK_MAX);
	if (grow(&r->stored, stored) || grow(&r->raw, raw))
		return fail(r, false, at, "out of memory for the chunk at byte %llu",
			    (unsigned long long)at);
	got = get_bytes(r, r->stored, stored);
	if (got < stored)
		return fail(r, true, at, "truncated chunk at byte %llu (%zu of its %zu bytes "
			    "are in the file)", (unsigned long long)at, got, stored);
	if (recfile_crc32c(recfile_crc32c(0, h, 16), r->stored, stored) != crc)
		return fail(r, false, at, "corrupted: checksum mismatch in the chunk at byte %llu",
			    (unsigned long long)at);
	if (enc == RECFILE_ENC_RAW) {
		if (raw != stored)
			return fail(r, false, at, "corrupted: stored chunk at byte %llu has %zu "
				    "bytes, its header says %zu", (unsigned long long)at, stored, raw);
		memcpy(r->raw, r->stored, stored);
	} else if (enc == RECFILE_ENC_ZSTD) {
		size_t n = ZSTD_decompress(r->raw, raw, r->stored, stored);

		if (ZSTD_isError(n) || n != raw)
			return fail(r, false, at, "corrupted: the chunk at byte %llu does not "
				    "decompress to its %zu bytes (%s)", (unsigned long long)at, raw,
				    ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong length");
	} else {
		return fail(r, false, at, "chunk at byte %llu has an unknown encoding %d",
			    (unsigned long long)at, enc);
	}
	r->raw_len = raw;
	r->raw_pos = 0;
	r->chunk_off = at;
	return 0;
}

/* the header chunk's fields into r->hdr */
static int parse_header(struct recfile_reader *r)
{
	const unsigned char *p = r->raw, *end = r->raw + r->raw_len;
	size_t argv = 0, knobs = 0;
	char *s;

	/* the strings' room: every field's bytes and a NUL each, at most */
	r->strs = calloc(1, r->raw_len * 2 + 2);
	if (!r->strs)
		return fail(r, false, r->chunk_off, "out of memory for the header");
	s = r->strs;
	/* first pass: argv at the front; second: the knobs after it */
	for (int pass = 0; pass < 2; pass++) {
		p = r->raw;
		while (p < end) {
			size_t type, len;

			if (end - p < 4)
				return fail(r, false, r->chunk_off, "corrupted: header field cut "
					    "at byte %zu of the header chunk at byte %llu",
					    (size_t)(p - r->raw), (unsigned long long)r->chunk_off);
			type = get_le(p, 2);
			len = get_le(p + 2, 2);
			p += 4;
			if ((size_t)(end - p) < len)
				return fail(r, false, r->chunk_off, "corrupted: header field of %zu "
					    "bytes runs past the header chunk at byte %llu", len,
					    (unsigned long long)r->chunk_off);
			if (pass == 0) {
				char *dst = NULL;
				size_t cap = 0;

				if (type == HDR_HOST)
					dst = r->hdr.host, cap = sizeof(r->hdr.host);
				else if (type == HDR_KERNEL)
					dst = r->hdr.kernel, cap = sizeof(r->hdr.kernel);
				else if (type == HDR_MODE)
					dst = r->hdr.mode, cap = sizeof(r->hdr.mode);
				else if (type == HDR_TRIGGER)
					dst = r->hdr.trigger, cap = sizeof(r->hdr.trigger);
				if (dst) {
					size_t n = len < cap - 1 ? len : cap - 1;

					memcpy(dst, p, n);
					dst[n] = '\0';
				} else if (type == HDR_START && len >= 16) {
					r->hdr.start_real_ns = get_le(p, 8);
					r->hdr.start_mono_ns = get_le(p + 8, 8);
				} else if (type == HDR_ARGV) {
					memcpy(s + argv, p, len);
					argv += len;
					if (len && p[len - 1])
						s[argv++] = '\0';
				}
			} else if (type == HDR_KNOB) {
				memcpy(s + argv + 1 + knobs, p, len);
				knobs += len;
				s[argv + 1 + knobs++] = '\0';
			}
			p += len;
		}
	}
	r->hdr.argv = s;
	r->hdr.argv_len = argv;
	r->hdr.knobs = s + argv + 1;
	r->hdr.knobs_len = knobs;
	return 0;
}

int recfile_open(struct recfile_reader *r, FILE *f)
{
	unsigned char h[RECFILE_FILE_HDR];
	size_t got;
	int kind;

	memset(r, 0, sizeof(*r));
	r->f = f;
	got = get_bytes(r, h, sizeof(h));
	if (got == 0)
		return fail(r, true, 0, "empty file: no recording header at byte 0");
	if (memcmp(h, RECFILE_MAGIC, got < 8 ? got : 8))
		return fail(r, false, 0, "not an aioscope recording (no recording magic at byte 0)");
	if (got < sizeof(h))
		return fail(r, true, got, "truncated file header at byte %zu (%zu of %d bytes)",
			    got, got, RECFILE_FILE_HDR);
	if (recfile_crc32c(0, h, 12) != (uint32_t)get_le(h + 12, 4))
		return fail(r, false, 0, "corrupted: checksum mismatch in the file header at byte 0");
	r->hdr.major = (uint16_t)get_le(h + 8, 2);
	r->hdr.minor = (uint16_t)get_le(h + 10, 2);
	if (r->hdr.major > RECFILE_MAJOR)
		return fail(r, false, 8, "recording format version %u.%u (at byte 8) is newer "
			    "than this aioscope reads (%d.x); read it with a newer aioscope",
			    r->hdr.major, r->hdr.minor, RECFILE_MAJOR);
	if (r->hdr.major < 1)
		return fail(r, false, 8, "unknown recording format version %u.%u at byte 8",
			    r->hdr.major, r->hdr.minor);
	if (read_chunk(r, &kind))
		return -1;
	if (kind != RECFILE_CHUNK_HEADER)
		return fail(r, false, r->chunk_off, "corrupted: the chunk at byte %llu is not "
			    "the header chunk", (unsigned long long)r->chunk_off);
	if (parse_header(r))
		return -1;
	r->raw_len = r->raw_pos = 0;
	return 0;
}

static void decode_event(const unsigned char *b, struct tracer_event *e)
{
	struct get c = { b };

	memset(e, 0, sizeof(*e));
	e->ts_ns = get_u(&c, 8);
	e->submit_ns = get_u(&c, 8);
	e->lat_ns = get_u(&c, 8);
	e->reap_ns = get_u(&c, 8);
	e->driver_ns = get_u(&c, 8);
	e->id = get_u(&c, 8);
	e->ctx = get_u(&c, 8);
	e->obj = get_u(&c, 8);
	e->data = get_u(&c, 8);
	e->ino = get_u(&c, 8);
	e->offset = (int64_t)get_u(&c, 8);
	e->bytes = get_u(&c, 8);
	e->res = (int64_t)get_u(&c, 8);
	e->cancel_ret = (int64_t)get_u(&c, 8);
	e->cancel_ns = get_u(&c, 8);
	e->dev = (uint32_t)get_u(&c, 4);
	e->qd = (uint32_t)get_u(&c, 4);
	e->pid = (int32_t)(uint32_t)get_u(&c, 4);
	e->tid = (int32_t)(uint32_t)get_u(&c, 4);
	e->cancel_pid = (int32_t)(uint32_t)get_u(&c, 4);
	e->cancel_tid = (int32_t)(uint32_t)get_u(&c, 4);
	e->api = (enum aios_api)get_u(&c, 1);
	e->op = (enum aios_op)get_u(&c, 1);
	e->state = (enum aios_state)get_u(&c, 1);
	/* up to the first NUL: what follows it is no part of the name */
	memcpy(e->comm, c.p, strnlen((const char *)c.p, TRACER_COMM_LEN - 1));
}

static void decode_pending(const unsigned char *b, struct recfile_pending *p)
{
	struct pending_req *q = &p->req;
	struct get c = { b };

	memset(p, 0, sizeof(*p));
	p->ts_ns = get_u(&c, 8);
	q->submit_ns = get_u(&c, 8);
	q->id = get_u(&c, 8);
	q->ctx = get_u(&c, 8);
	q->obj = get_u(&c, 8);
	q->ino = get_u(&c, 8);
	q->offset = (int64_t)get_u(&c, 8);
	q->bytes = get_u(&c, 8);
	q->dev = (uint32_t)get_u(&c, 4);
	q->pid = (int32_t)(uint32_t)get_u(&c, 4);
	q->tid = (int32_t)(uint32_t)get_u(&c, 4);
	q->api = (enum aios_api)get_u(&c, 1);
	q->op = (enum aios_op)get_u(&c, 1);
	memcpy(q->comm, c.p, strnlen((const char *)c.p, TRACER_COMM_LEN - 1));
	q->kstack_id = q->ustack_id = -1;
}

/* the record at r->raw_pos: 1 one of ours in @rec, 2 skipped (a newer type), -1 */
static int next_in_chunk(struct recfile_reader *r, struct recfile_rec *rec)
{
	const unsigned char *p = r->raw + r->raw_pos;
	size_t left = r->raw_len - r->raw_pos, type, len, min;
	struct get c;

	if (left < 4 || left - 4 < get_le(p + 2, 2))
		return fail(r, false, r->chunk_off, "corrupted: the record at byte %zu of the "
			    "chunk at byte %llu runs past the chunk", r->raw_pos,
			    (unsigned long long)r->chunk_off);
	type = get_le(p, 2);
	len = get_le(p + 2, 2);
	min = type == RECFILE_EVENT ? EV_LEN : type == RECFILE_QD ? QD_LEN :
	      type == RECFILE_LOST ? LOST_LEN : type == RECFILE_PENDING ? PEND_LEN : 0;
	if (len < min)
		return fail(r, false, r->chunk_off, "corrupted: record of type %zu at byte %zu "
			    "of the chunk at byte %llu has %zu bytes, fewer than its %zu", type,
			    r->raw_pos, (unsigned long long)r->chunk_off, len, min);
	r->raw_pos += 4 + len;
	r->records++;
	c.p = p + 4;
	switch (type) {
	case RECFILE_EVENT:
		rec->type = RECFILE_EVENT;
		decode_event(c.p, &rec->ev);
		return 1;
	case RECFILE_QD:
		rec->type = RECFILE_QD;
		rec->qd.ts_ns = get_u(&c, 8);
		rec->qd.kind = (uint32_t)get_u(&c, 4);
		rec->qd.key = get_u(&c, 8);
		rec->qd.now = (int64_t)get_u(&c, 8);
		rec->qd.max = get_u(&c, 8);
		return 1;
	case RECFILE_LOST:
		rec->type = RECFILE_LOST;
		rec->lost.ts_ns = get_u(&c, 8);
		rec->lost.ringbuf = get_u(&c, 8);
		rec->lost.inflight_full = get_u(&c, 8);
		rec->lost.join = get_u(&c, 8);
		rec->lost.prog_misses = get_u(&c, 8);
		rec->lost.reap_unread = get_u(&c, 8);
		return 1;
	case RECFILE_PENDING:
		rec->type = RECFILE_PENDING;
		decode_pending(c.p, &rec->pend);
		return 1;
	default:
		return 2;
	}
}

int recfile_next(struct recfile_reader *r, struct recfile_rec *rec)
{
	for (;;) {
		int kind, rc;

		if (r->state)
			return r->state > 0 ? 0 : -1;
		if (r->raw_pos < r->raw_len) {
			rc = next_in_chunk(r, rec);
			if (rc == 2)
				continue;
			return rc;
		}
		if (read_chunk(r, &kind))
			return -1;
		if (kind == RECFILE_CHUNK_END) {
			uint64_t n = r->raw_len >= 8 ? get_le(r->raw, 8) : 0;

			if (n != r->records)
				return fail(r, false, r->chunk_off, "corrupted: the end chunk at "
					    "byte %llu counts %llu records, the file holds %llu",
					    (unsigned long long)r->chunk_off,
					    (unsigned long long)n, (unsigned long long)r->records);
			r->complete = true;
			r->state = 1;
			return 0;
		}
		if (kind != RECFILE_CHUNK_RECORDS)
			r->raw_len = 0;	/* a newer kind of chunk: skipped */
	}
}

void recfile_close(struct recfile_reader *r)
{
	free(r->stored);
	free(r->raw);
	free(r->strs);
	r->stored = r->raw = NULL;
	r->strs = NULL;
}
