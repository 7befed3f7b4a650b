// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_recfile - the recording file's reader (cli/request/recfile.c) on any bytes:
 * never a crash, a leak or a read past a buffer; an error is one line naming a byte
 * offset inside the file; and what it reads, written again by the writer, reads
 * back the same.
 *
 * Input: byte 0 = flags (bit 0: put right the checksums of the file header and of
 * each chunk before reading, so that the fuzzer reaches the parsers behind them);
 * then the file.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "request/recfile.h"

#define MAXRECS 200000

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* the checksums as a writer would have made them, over the bytes as they are */
static void fix_crcs(uint8_t *p, size_t n)
{
	size_t off = RECFILE_FILE_HDR;

	if (n < RECFILE_FILE_HDR)
		return;
	put32(p + 12, recfile_crc32c(0, p, 12));
	while (n - off >= RECFILE_CHUNK_HDR) {
		size_t stored = get32(p + off + 8), left = n - off - RECFILE_CHUNK_HDR;

		if (stored > left)
			stored = left;
		put32(p + off + 16, recfile_crc32c(recfile_crc32c(0, p + off, 16),
						   p + off + RECFILE_CHUNK_HDR, stored));
		off += RECFILE_CHUNK_HDR + stored;
	}
}

/* every record of @f into @recs (at most MAXRECS); the reader's result */
static int read_all(FILE *f, struct recfile_reader *r, struct recfile_rec *recs, size_t *n)
{
	int rc = recfile_open(r, f);

	*n = 0;
	while (!rc) {
		struct recfile_rec rec;

		memset(&rec, 0, sizeof(rec));
		rc = recfile_next(r, &rec);
		if (rc != 1)
			break;
		FUZZ_CHECK(rec.type == RECFILE_EVENT || rec.type == RECFILE_QD ||
			   rec.type == RECFILE_LOST || rec.type == RECFILE_PENDING,
			   "record of type %d", rec.type);
		if (rec.type == RECFILE_EVENT)
			FUZZ_CHECK(memchr(rec.ev.comm, '\0', sizeof(rec.ev.comm)),
				   "comm not terminated");
		if (rec.type == RECFILE_PENDING)
			FUZZ_CHECK(memchr(rec.pend.req.comm, '\0', sizeof(rec.pend.req.comm)),
				   "pending comm not terminated");
		if (*n < MAXRECS)
			recs[(*n)++] = rec;
		rc = 0;
	}
	return rc;
}

/* what @r read, through the writer and the reader again: the same records */
static void rewrite(struct recfile_reader *r, const struct recfile_rec *recs, size_t n)
{
	static struct recfile_rec again[MAXRECS];
	struct recfile_reader r2;
	struct recfile_writer *w;
	char err[200];
	size_t n2;
	FILE *f;
	int fd = memfd_create("fuzz_recfile", 0), rc;

	FUZZ_CHECK(fd >= 0, "memfd_create");
	w = recfile_create(fd, &r->hdr, RECFILE_ENC_ZSTD, 1, err, sizeof(err));
	FUZZ_CHECK(w, "recfile_create: %s", err);
	for (size_t i = 0; i < n; i++) {
		rc = recfile_write_rec(w, &recs[i]);
		FUZZ_CHECK(!rc, "write: %d", rc);
	}
	FUZZ_CHECK(!recfile_finish(w), "finish");
	FUZZ_CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek");
	f = fdopen(fd, "r");
	FUZZ_CHECK(f, "fdopen");
	rc = read_all(f, &r2, again, &n2);
	FUZZ_CHECK(rc == 0 && r2.complete, "rewritten file: %s", r2.err);
	FUZZ_CHECK(n2 == n, "rewritten file: %zu records of %zu", n2, n);
	FUZZ_CHECK(!strcmp(r2.hdr.host, r->hdr.host) && !strcmp(r2.hdr.kernel, r->hdr.kernel) &&
		   !strcmp(r2.hdr.mode, r->hdr.mode) &&
		   r2.hdr.start_real_ns == r->hdr.start_real_ns &&
		   r2.hdr.start_mono_ns == r->hdr.start_mono_ns, "rewritten header differs");
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(!memcmp(&again[i], &recs[i], sizeof(recs[i])),
			   "rewritten record %zu differs", i);
	recfile_close(&r2);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct recfile_rec recs[MAXRECS];
	struct recfile_reader r;
	uint8_t flags, *file;
	size_t n, nrecs;
	FILE *f;
	int rc;

	if (size < 2)
		return 0;
	flags = data[0];
	n = size - 1;
	file = malloc(n);
	if (!file)
		abort();
	memcpy(file, data + 1, n);
	if (flags & 1)
		fix_crcs(file, n);
	f = fmemopen(file, n, "r");
	FUZZ_CHECK(f, "fmemopen");
	rc = read_all(f, &r, recs, &nrecs);
	if (rc) {
		FUZZ_CHECK(rc == -1, "reader returned %d", rc);
		FUZZ_CHECK(r.err[0] && !strchr(r.err, '\n') && strstr(r.err, "byte"),
			   "error not one line naming a byte: '%s'", r.err);
		FUZZ_CHECK(r.err_offset <= n, "error at byte %llu of a %zu-byte file",
			   (unsigned long long)r.err_offset, n);
		FUZZ_CHECK(!r.complete, "complete and failed");
	} else {
		FUZZ_CHECK(r.complete, "ended without the end chunk");
	}
	/* a header was read: what came, rewritten, reads back the same */
	if (r.hdr.major == RECFILE_MAJOR && r.hdr.argv)
		rewrite(&r, recs, nrecs);
	recfile_close(&r);
	fclose(f);
	free(file);
	return 0;
}
