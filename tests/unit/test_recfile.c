// SPDX-License-Identifier: GPL-2.0
/*
 * test_recfile.c - the recording file (cli/request/recfile.c): what is written is
 * read back equal, in both encodings; a file cut at any byte gives every record of
 * the chunks before the cut and a "truncated" error with an offset; a flipped byte
 * anywhere is an error, never a crash, after only the records before it; a newer
 * major version is refused with its number; a foreign file is named as one.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "request/recfile.h"
#include "unit.h"

#define MAXREC 6000

static struct recfile_rec written[MAXREC];
static int nwritten;

static const char argv_list[] = "aioscope\0record\0-o\0/tmp/x.rec\0";
static const char knob_list[] = "aiodev0/latency_ns=200000\0aiodev0/jitter_ns=0\0";

static void fill_event(struct tracer_event *e, unsigned long long *seed, int i)
{
	static const char *const comms[] = { "fio", "dbreader", "", "a\tb\xff", "fifteen_chars_x" };

	memset(e, 0, sizeof(*e));
	e->submit_ns = 1000000000ULL + (uint64_t)i * 20000 + unit_rand(seed) % 1000;
	e->lat_ns = unit_rand(seed) % 5000000;
	e->ts_ns = e->submit_ns + e->lat_ns;
	e->reap_ns = i % 7 ? unit_rand(seed) % 100000 : TRACER_REAP_NONE;
	e->driver_ns = i % 5 ? e->lat_ns / 2 : TRACER_DRIVER_NONE;
	e->id = 0xff11000000000000ULL | (unit_rand(seed) & 0xfffff00);
	e->ctx = 0x7f0000001000ULL;
	e->obj = 0x5600000000ULL + (uint64_t)i * 64;
	e->data = unit_rand(seed);
	e->ino = 100;
	e->offset = (int64_t)(unit_rand(seed) % 16384) * 4096 * (i % 11 ? 1 : -1);
	e->bytes = 4096;
	e->res = i % 13 ? 4096 : -5;
	e->dev = 246u << 20 | (uint32_t)(i % 2);
	e->qd = (uint32_t)(i % 33);
	e->pid = 100 + i % 4;
	e->tid = 200 + i % 8;
	e->api = (enum aios_api)(i % 4);
	e->op = (enum aios_op)(i % 6);
	e->state = (enum aios_state)(i % 3);
	strcpy(e->comm, comms[i % 5]);
	if (i % 17 == 0) {
		e->cancel_pid = e->pid;
		e->cancel_tid = e->tid;
		e->cancel_ret = i % 2 ? TRACER_CANCEL_RET_PENDING : -115;
		e->cancel_ns = 12345;
	}
}

/* @n records (events, a qd sample every 10th, a lost counter every 50th) */
static void make_records(int n)
{
	unsigned long long seed = 0x9e3779b97f4a7c15ULL;

	nwritten = n;
	for (int i = 0; i < n; i++) {
		struct recfile_rec *r = &written[i];

		memset(r, 0, sizeof(*r));
		if (i % 10 == 9) {
			r->type = RECFILE_QD;
			r->qd.ts_ns = 1000000000ULL + (uint64_t)i * 20000;
			r->qd.kind = (uint32_t)(i % 4);
			r->qd.key = unit_rand(&seed);
			r->qd.now = (int64_t)(i % 40) - 1;
			r->qd.max = (uint64_t)(i % 64);
		} else if (i % 50 == 49) {
			r->type = RECFILE_LOST;
			r->lost.ts_ns = (uint64_t)i;
			r->lost.ringbuf = (uint64_t)i / 50;
			r->lost.inflight_full = 1;
			r->lost.join = 2;
			r->lost.prog_misses = 3;
			r->lost.reap_unread = UINT64_MAX;
		} else if (i % 50 == 29) {
			struct pending_req *q = &r->pend.req;

			r->type = RECFILE_PENDING;
			fill_event(&r->ev, &seed, i);	/* random bits, then the fields */
			memset(&r->pend, 0, sizeof(r->pend));
			r->pend.ts_ns = 2000000000ULL + (uint64_t)i;
			q->submit_ns = 1000000000ULL + (uint64_t)i * 20000;
			q->id = 0xff11000000000000ULL | (unit_rand(&seed) & 0xfffff00);
			q->ctx = 0x7f0000001000ULL;
			q->obj = unit_rand(&seed);
			q->ino = 7;
			q->offset = -4096 * (int64_t)i;
			q->bytes = 65536;
			q->dev = 246u << 20 | 1;
			q->pid = 4000000 + i;
			q->tid = -1;
			q->api = (enum aios_api)(i % 4);
			q->op = (enum aios_op)(i % 6);
			strcpy(q->comm, i % 2 ? "fifteen_chars_x" : "");
			q->kstack_id = q->ustack_id = -1;
		} else {
			r->type = RECFILE_EVENT;
			fill_event(&r->ev, &seed, i);
		}
	}
}

static bool ev_equal(const struct tracer_event *a, const struct tracer_event *b)
{
	return a->ts_ns == b->ts_ns && a->submit_ns == b->submit_ns && a->lat_ns == b->lat_ns &&
	       a->reap_ns == b->reap_ns && a->driver_ns == b->driver_ns && a->id == b->id &&
	       a->ctx == b->ctx && a->obj == b->obj && a->data == b->data && a->ino == b->ino &&
	       a->offset == b->offset && a->bytes == b->bytes && a->res == b->res &&
	       a->dev == b->dev && a->qd == b->qd && a->pid == b->pid && a->tid == b->tid &&
	       a->api == b->api && a->op == b->op && a->state == b->state &&
	       !strcmp(a->comm, b->comm) && a->cancel_pid == b->cancel_pid &&
	       a->cancel_tid == b->cancel_tid && a->cancel_ret == b->cancel_ret &&
	       a->cancel_ns == b->cancel_ns;
}

static bool rec_equal(const struct recfile_rec *a, const struct recfile_rec *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case RECFILE_EVENT:
		return ev_equal(&a->ev, &b->ev);
	case RECFILE_QD:
		return a->qd.ts_ns == b->qd.ts_ns && a->qd.kind == b->qd.kind &&
		       a->qd.key == b->qd.key && a->qd.now == b->qd.now && a->qd.max == b->qd.max;
	case RECFILE_LOST:
		return !memcmp(&a->lost, &b->lost, sizeof(a->lost));
	case RECFILE_PENDING:
		return !memcmp(&a->pend, &b->pend, sizeof(a->pend));
	}
	return false;
}

static void fill_header(struct recfile_header *h)
{
	memset(h, 0, sizeof(*h));
	strcpy(h->host, "testhost");
	strcpy(h->kernel, "6.1.0-40-amd64");
	strcpy(h->mode, "fentry");
	h->start_real_ns = 1764900000123456789ULL;
	h->start_mono_ns = 987654321ULL;
	h->argv = argv_list;
	h->argv_len = sizeof(argv_list) - 1;
	h->knobs = knob_list;
	h->knobs_len = sizeof(knob_list) - 1;
	strcpy(h->trigger, "stuck:500: request 0x1 pending 512 ms");
}

/* the file's bytes, and after which byte each chunk of records ended: ends[k] bytes
 * hold recs[k] records */
struct image {
	unsigned char *p;
	size_t n;
	size_t ends[MAXREC + 2];
	int recs[MAXREC + 2];
	int nends;
};

/* write written[0..n) into @im (a chunk every @per records; 0: as the writer fills
 * them), finished with the end chunk */
static int write_image(struct image *im, enum recfile_enc enc, int per)
{
	struct recfile_header h;
	struct recfile_writer *w;
	char err[200];
	FILE *f = tmpfile();
	int rc = 0;

	if (!f)
		return -1;
	fill_header(&h);
	w = recfile_create(fileno(f), &h, enc, 3, err, sizeof(err));
	if (!w) {
		fclose(f);
		return -1;
	}
	im->nends = 0;
	im->ends[im->nends] = recfile_bytes(w);
	im->recs[im->nends++] = 0;
	for (int i = 0; i < nwritten && !rc; i++) {
		const struct recfile_rec *r = &written[i];
		uint64_t before = recfile_bytes(w);

		rc = recfile_write_rec(w, r);
		if (recfile_bytes(w) != before) {	/* a full chunk went out first */
			im->ends[im->nends] = recfile_bytes(w);
			im->recs[im->nends++] = i;
		}
		if (!rc && per && (i + 1) % per == 0) {
			rc = recfile_flush(w);
			im->ends[im->nends] = recfile_bytes(w);
			im->recs[im->nends++] = i + 1;
		}
	}
	rc = rc ? rc : recfile_flush(w);
	im->ends[im->nends] = recfile_bytes(w);
	im->recs[im->nends++] = nwritten;
	rc = rc ? rc : recfile_finish(w);
	fflush(f);
	im->n = (size_t)ftell(f);
	im->p = malloc(im->n + 1);
	rewind(f);
	if (!im->p || fread(im->p, 1, im->n, f) != im->n)
		rc = -1;
	fclose(f);
	return rc;
}

/* what a reader makes of @n bytes at @p: records compared with written[] as they
 * come; *got = how many came, equal and in order (-1 at the first unequal one) */
static int read_image(const unsigned char *p, size_t n, struct recfile_reader *r, int *got)
{
	struct recfile_rec rec;
	/* fmemopen refuses a size of 0 on older glibc: an empty file is a real one */
	FILE *f = n ? fmemopen((void *)p, n, "r") : tmpfile();
	int rc;

	*got = 0;
	if (!f)
		return -2;
	rc = recfile_open(r, f);
	while (!rc && (rc = recfile_next(r, &rec)) == 1) {
		if (*got < 0 || *got >= nwritten || !rec_equal(&rec, &written[*got]))
			*got = -1;
		else
			(*got)++;
		rc = 0;
	}
	recfile_close(r);
	fclose(f);
	return rc;
}

static void roundtrip(enum recfile_enc enc)
{
	static struct image im;
	struct recfile_reader r;
	struct recfile_rec rec;
	FILE *f;
	int got, rc;

	make_records(MAXREC);
	UASSERT(!write_image(&im, enc, 0), "writing %d records", MAXREC);
	UASSERT(im.nends > 2, "%d records fill more than one chunk (%d)", MAXREC, im.nends);
	rc = read_image(im.p, im.n, &r, &got);
	UASSERT(rc == 0 && r.complete, "read to the end chunk: rc %d, %s", rc, r.err);
	UASSERT(got == MAXREC, "%d records read back equal, of %d", got, MAXREC);

	f = fmemopen(im.p, im.n, "r");
	UASSERT(f, "fmemopen");
	rc = recfile_open(&r, f);
	UASSERT(!rc, "open: %s", r.err);
	UASSERT(r.hdr.major == RECFILE_MAJOR && r.hdr.minor == RECFILE_MINOR, "version %u.%u",
		r.hdr.major, r.hdr.minor);
	UASSERT(!strcmp(r.hdr.host, "testhost") && !strcmp(r.hdr.kernel, "6.1.0-40-amd64") &&
		!strcmp(r.hdr.mode, "fentry"), "host %s kernel %s mode %s", r.hdr.host,
		r.hdr.kernel, r.hdr.mode);
	UASSERT(r.hdr.start_real_ns == 1764900000123456789ULL && r.hdr.start_mono_ns == 987654321ULL,
		"start times %llu %llu", (unsigned long long)r.hdr.start_real_ns,
		(unsigned long long)r.hdr.start_mono_ns);
	UASSERT(r.hdr.argv_len == sizeof(argv_list) - 1 &&
		!memcmp(r.hdr.argv, argv_list, r.hdr.argv_len), "argv (%zu bytes)", r.hdr.argv_len);
	UASSERT(!strcmp(r.hdr.trigger, "stuck:500: request 0x1 pending 512 ms"), "trigger '%s'",
		r.hdr.trigger);
	UASSERT(r.hdr.knobs_len == sizeof(knob_list) - 1 &&
		!memcmp(r.hdr.knobs, knob_list, r.hdr.knobs_len), "knobs (%zu bytes)",
		r.hdr.knobs_len);
	while ((rc = recfile_next(&r, &rec)) == 1)
		;
	UASSERT(rc == 0 && recfile_next(&r, &rec) == 0, "the end stays the end");
	recfile_close(&r);
	fclose(f);
	free(im.p);
}

static void test_roundtrip_zstd(void)
{
	roundtrip(RECFILE_ENC_ZSTD);
}

static void test_roundtrip_raw(void)
{
	roundtrip(RECFILE_ENC_RAW);
}

/* the records a file cut after @len bytes must give: those of the chunks before it */
static int prefix_records(const struct image *im, size_t len)
{
	int k = 0;

	for (int i = 0; i < im->nends; i++)
		if (im->ends[i] <= len)
			k = im->recs[i];
	return k;
}

static void truncated_everywhere(enum recfile_enc enc)
{
	static struct image im;
	struct recfile_reader r;
	int got, rc;

	make_records(40);
	UASSERT(!write_image(&im, enc, 6), "writing");
	for (size_t len = 0; len < im.n; len++) {
		int want = prefix_records(&im, len);

		rc = read_image(im.p, len, &r, &got);
		UASSERT(rc == -1 && r.truncated && !r.complete,
			"cut at %zu of %zu: rc %d truncated %d (%s)", len, im.n, rc, r.truncated, r.err);
		UASSERT(got == want, "cut at %zu: %d records read, the chunks before hold %d",
			len, got, want);
		UASSERT(r.err_offset <= len && strstr(r.err, "byte"),
			"cut at %zu: error at %llu: %s", len, (unsigned long long)r.err_offset, r.err);
	}
	rc = read_image(im.p, im.n, &r, &got);
	UASSERT(rc == 0 && got == 40, "whole file: rc %d, %d records (%s)", rc, got, r.err);
	free(im.p);
}

static void test_truncated_at_every_byte_zstd(void)
{
	truncated_everywhere(RECFILE_ENC_ZSTD);
}

static void test_truncated_at_every_byte_raw(void)
{
	truncated_everywhere(RECFILE_ENC_RAW);
}

/* a flipped bit anywhere: an error, after no record that was not written there */
static void test_flipped_bytes_detected(void)
{
	static struct image im;
	struct recfile_reader r;
	int got, rc;

	make_records(40);
	UASSERT(!write_image(&im, RECFILE_ENC_ZSTD, 6), "writing");
	for (size_t at = 0; at < im.n; at++) {
		for (int bit = 0; bit < 8; bit += 3) {
			im.p[at] ^= (unsigned char)(1 << bit);
			rc = read_image(im.p, im.n, &r, &got);
			im.p[at] ^= (unsigned char)(1 << bit);
			UASSERT(rc == -1 && !r.complete, "bit %d of byte %zu flipped: rc %d, "
				"complete %d", bit, at, rc, r.complete);
			UASSERT(got == prefix_records(&im, at),
				"bit %d of byte %zu flipped: %d records read, %d before it", bit, at,
				got, prefix_records(&im, at));
			UASSERT(strstr(r.err, "byte"), "error names an offset: %s", r.err);
		}
	}
	free(im.p);
}

static void test_newer_version_refused(void)
{
	static struct image im;
	struct recfile_reader r;
	int got, rc;

	make_records(5);
	UASSERT(!write_image(&im, RECFILE_ENC_ZSTD, 0), "writing");
	im.p[8] = RECFILE_MAJOR + 1;	/* major 2, minor 7 */
	im.p[10] = 7;
	{
		uint32_t crc = recfile_crc32c(0, im.p, 12);

		for (int i = 0; i < 4; i++)
			im.p[12 + i] = (unsigned char)(crc >> (8 * i));
	}
	rc = read_image(im.p, im.n, &r, &got);
	UASSERT(rc == -1 && got == 0, "rc %d, %d records", rc, got);
	UASSERT(strstr(r.err, "version 2.7") && strstr(r.err, "newer"), "message: %s", r.err);
	/* a newer minor version of the same major is read */
	im.p[8] = RECFILE_MAJOR;
	{
		uint32_t crc = recfile_crc32c(0, im.p, 12);

		for (int i = 0; i < 4; i++)
			im.p[12 + i] = (unsigned char)(crc >> (8 * i));
	}
	rc = read_image(im.p, im.n, &r, &got);
	UASSERT(rc == 0 && got == 5, "minor 7 of major 1: rc %d, %d records (%s)", rc, got, r.err);
	free(im.p);
}

/* a chunk as a writer makes it: header, CRC-32C over its first 16 bytes and the data */
static size_t put_chunk(unsigned char *p, int kind, const unsigned char *data, size_t n)
{
	uint32_t crc;

	memcpy(p, "AIOC", 4);
	p[4] = (unsigned char)kind;
	p[5] = RECFILE_ENC_RAW;
	p[6] = p[7] = 0;
	for (int i = 0; i < 4; i++) {
		p[8 + i] = (unsigned char)(n >> (8 * i));
		p[12 + i] = (unsigned char)(n >> (8 * i));
	}
	memcpy(p + RECFILE_CHUNK_HDR, data, n);
	crc = recfile_crc32c(recfile_crc32c(0, p, 16), data, n);
	for (int i = 0; i < 4; i++)
		p[16 + i] = (unsigned char)(crc >> (8 * i));
	return RECFILE_CHUNK_HDR + n;
}

/* what a newer minor version may add is skipped: a record type, a chunk kind, bytes at
 * the end of a known record */
static void test_newer_minor_additions_skipped(void)
{
	static struct image im;
	static unsigned char file[8192];
	unsigned char recs[512], *q = recs, end[8] = { 3 };
	struct recfile_reader r;
	size_t n;
	int got, rc;

	make_records(1);	/* written[0]: an event */
	UASSERT(!write_image(&im, RECFILE_ENC_RAW, 0), "writing");
	/* the file header and the header chunk, then a chunk of: an unknown record, the
	 * event with 5 more bytes, another unknown record; an unknown chunk; the end */
	n = im.ends[0];
	memcpy(file, im.p, n);
	q[0] = 99, q[1] = 0, q[2] = 3, q[3] = 0, q[4] = q[5] = q[6] = 0xee;
	q += 7;
	{
		/* the event's record as the writer laid it out: after the header chunk */
		const unsigned char *ev = im.p + im.ends[0] + RECFILE_CHUNK_HDR;
		size_t len = (size_t)ev[2] | (size_t)ev[3] << 8;

		memcpy(q, ev, 4 + len);
		q[2] = (unsigned char)(len + 5);
		memset(q + 4 + len, 0xab, 5);
		q += 4 + len + 5;
	}
	q[0] = 0, q[1] = 1, q[2] = 0, q[3] = 0;	/* type 256, empty */
	q += 4;
	n += put_chunk(file + n, RECFILE_CHUNK_RECORDS, recs, (size_t)(q - recs));
	n += put_chunk(file + n, 9, (const unsigned char *)"future", 6);
	n += put_chunk(file + n, RECFILE_CHUNK_END, end, sizeof(end));
	rc = read_image(file, n, &r, &got);
	UASSERT(rc == 0 && r.complete, "rc %d: %s", rc, r.err);
	UASSERT(got == 1, "%d records read equal, of the 1 known", got);
	free(im.p);
}

static void test_foreign_file(void)
{
	static const char text[] = "TIME(s)      COMM                 PID API   OP\n";
	struct recfile_reader r;
	int got, rc;

	rc = read_image((const unsigned char *)text, sizeof(text) - 1, &r, &got);
	UASSERT(rc == -1 && !r.truncated && strstr(r.err, "not an aioscope recording") &&
		r.err_offset == 0, "rc %d: %s", rc, r.err);
	rc = read_image((const unsigned char *)"", 0, &r, &got);
	UASSERT(rc == -1 && strstr(r.err, "empty"), "empty file: %s", r.err);
}

int main(void)
{
	RUN(test_roundtrip_zstd);
	RUN(test_roundtrip_raw);
	RUN(test_truncated_at_every_byte_zstd);
	RUN(test_truncated_at_every_byte_raw);
	RUN(test_flipped_bytes_detected);
	RUN(test_newer_version_refused);
	RUN(test_newer_minor_additions_skipped);
	RUN(test_foreign_file);
	return unit_done("recfile");
}
