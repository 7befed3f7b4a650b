/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recfile.h - the recording file of `aioscope record` (docs/record-format.md): a
 * writer and a reader of finished requests (struct tracer_event), queue-depth samples
 * and lost-event counters, behind a header that says where and how they were taken.
 *
 * The file is a 16-byte file header and then independently framed chunks, each with
 * its length and a CRC-32C, each compressed on its own (zstd) or stored: a reader sees
 * every chunk that was written whole, while the file is still being written or after
 * its writer was killed. No libbpf, no stdio on the hot path: the writer fills a
 * chunk in memory and writes it with one write() when it is full or flushed.
 *
 * Reader errors (truncated, corrupted, foreign or newer files) are one line with the
 * byte offset, in recfile_reader.err; never a crash, for any bytes.
 */
#ifndef AIOSCOPE_RECFILE_H
#define AIOSCOPE_RECFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "event.h"
#include "pending.h"

#define RECFILE_MAGIC		"AIOSREC\0"	/* 8 bytes */
#define RECFILE_MAJOR		1	/* a reader refuses a larger major */
#define RECFILE_MINOR		1	/* a larger minor only adds: older readers skip it;
					 * 1.1 added pending requests and the trigger */
#define RECFILE_FILE_HDR	16	/* magic, major, minor, CRC-32C of those */
#define RECFILE_CHUNK_HDR	20	/* see docs/record-format.md */
#define RECFILE_CHUNK_RAW	(64 * 1024)	/* the writer's chunk, before compression */
#define RECFILE_CHUNK_MAX	(1024 * 1024)	/* the largest chunk a reader accepts */

/* chunk kinds */
enum recfile_chunk { RECFILE_CHUNK_HEADER = 1, RECFILE_CHUNK_RECORDS = 2, RECFILE_CHUNK_END = 3 };
/* chunk encodings */
enum recfile_enc { RECFILE_ENC_RAW = 0, RECFILE_ENC_ZSTD = 1 };
/* record types (in a records chunk) */
enum recfile_type { RECFILE_EVENT = 1, RECFILE_QD = 2, RECFILE_LOST = 3, RECFILE_PENDING = 4 };

/* The header: where, when and how the recording was taken. */
#define RECFILE_STR 256
struct recfile_header {
	uint16_t major, minor;		/* the file's version (reader: as read) */
	char host[RECFILE_STR];		/* uname nodename */
	char kernel[RECFILE_STR];	/* uname release */
	char mode[32];			/* attach mode: fentry, kprobe, syscalls */
	uint64_t start_real_ns;		/* CLOCK_REALTIME at start */
	uint64_t start_mono_ns;		/* CLOCK_MONOTONIC at the same moment: events'
					 * times + (start_real - start_mono) = wall time */
	/* the command line and the driver's knobs ("aiodev0/latency_ns=1000000"): each
	 * a list of NUL-terminated strings, one after the other (@*_len bytes) */
	const char *argv;
	size_t argv_len;
	const char *knobs;
	size_t knobs_len;
	/* a flight recorder's dump (record --ring): what fired it, one line; "" for a
	 * whole recording */
	char trigger[RECFILE_STR];
};

/* A queue-depth sample: one device, context, process or the total at @ts_ns. */
struct recfile_qd {
	uint64_t ts_ns;			/* CLOCK_MONOTONIC */
	uint32_t kind;			/* enum aios_qd_kind's values: 0 total, 1 dev,
					 * 2 ctx, 3 pid */
	uint64_t key;			/* 0, dev_t, ctx id or tgid */
	int64_t now;			/* requests in flight at @ts_ns */
	uint64_t max;			/* maximum since the previous sample */
};

/* Lost events, cumulative since the start, as of @ts_ns. */
struct recfile_lost {
	uint64_t ts_ns;
	uint64_t ringbuf;		/* ring buffer full */
	uint64_t inflight_full;		/* in-flight map full */
	uint64_t join;			/* user-space join table full */
	uint64_t prog_misses;		/* BPF program runs skipped */
	uint64_t reap_unread;		/* reaps whose ids could not be read */
};

/*
 * A request still pending at @ts_ns (version 1.1): the requests in flight when a
 * recording ended or a flight recorder's dump was written; its age then is
 * ts_ns - req.submit_ns. The stack ids are not kept (-1 when read).
 */
struct recfile_pending {
	uint64_t ts_ns;
	struct pending_req req;
};

static inline uint64_t recfile_lost_total(const struct recfile_lost *l)
{
	return l->ringbuf + l->inflight_full + l->join + l->prog_misses + l->reap_unread;
}

struct recfile_rec {
	enum recfile_type type;
	union {
		struct tracer_event ev;
		struct recfile_qd qd;
		struct recfile_lost lost;
		struct recfile_pending pend;
	};
};

/* the time a record was taken (CLOCK_MONOTONIC ns) */
static inline uint64_t recfile_rec_time(const struct recfile_rec *r)
{
	switch (r->type) {
	case RECFILE_EVENT:
		return r->ev.ts_ns;
	case RECFILE_QD:
		return r->qd.ts_ns;
	case RECFILE_LOST:
		return r->lost.ts_ns;
	case RECFILE_PENDING:
		return r->pend.ts_ns;
	}
	return 0;
}

/* ---- writer ---- */

struct recfile_writer;

/*
 * recfile_create - start a recording on @fd (the writer does not close it): the file
 * header and the header chunk are written at once. @enc: RECFILE_ENC_ZSTD (at
 * @level, 1..19) or RECFILE_ENC_RAW. Returns NULL with a one-line reason in @err.
 */
struct recfile_writer *recfile_create(int fd, const struct recfile_header *h,
				      enum recfile_enc enc, int level, char *err, size_t errlen);
/* Append one record; a full chunk is written first. 0 or -errno (a write error). */
int recfile_write_event(struct recfile_writer *w, const struct tracer_event *e);
int recfile_write_qd(struct recfile_writer *w, const struct recfile_qd *q);
int recfile_write_lost(struct recfile_writer *w, const struct recfile_lost *l);
int recfile_write_pending(struct recfile_writer *w, const struct recfile_pending *p);
/* any record of the kinds above (a flight recorder's ring holds them as recfile_rec) */
int recfile_write_rec(struct recfile_writer *w, const struct recfile_rec *rec);
/* Write the records held so far as one chunk (nothing if none). 0 or -errno. */
int recfile_flush(struct recfile_writer *w);
/*
 * recfile_finish - flush and write the end chunk (the number of records): the file
 * is complete. Frees @w whatever the result. 0 or -errno.
 */
int recfile_finish(struct recfile_writer *w);
/* what was written so far: records appended, bytes written to the file */
uint64_t recfile_records(const struct recfile_writer *w);
uint64_t recfile_bytes(const struct recfile_writer *w);

/* ---- reader ---- */

struct recfile_reader {
	struct recfile_header hdr;	/* after a successful recfile_open */
	char err[200];			/* the error, one line, with its byte offset */
	uint64_t err_offset;
	bool truncated;			/* the error is an early end of the file */
	bool complete;			/* the end chunk was read */
	/* private */
	FILE *f;
	uint64_t off;			/* file offset of the next chunk */
	uint64_t records;		/* records returned */
	unsigned char *stored, *raw;
	size_t raw_len, raw_pos;
	uint64_t chunk_off;		/* offset of the chunk raw[] came from */
	char *strs;			/* the header's argv and knobs */
	int state;			/* 0 reading, 1 done, -1 failed */
};

/*
 * recfile_open - read the file header and the header chunk from @f (the caller's,
 * positioned at the start; not closed). 0, or -1 with r->err set.
 */
int recfile_open(struct recfile_reader *r, FILE *f);
/*
 * recfile_next - the next record into @rec: 1, 0 at the end chunk (r->complete),
 * -1 on an error (r->err: a truncated, corrupted or newer file; every record before
 * it was returned). Records of a newer minor version that this reader does not
 * know are skipped.
 */
int recfile_next(struct recfile_reader *r, struct recfile_rec *rec);
void recfile_close(struct recfile_reader *r);

/* CRC-32C (Castagnoli) of @n bytes, continuing from @crc (0 to start) */
uint32_t recfile_crc32c(uint32_t crc, const void *p, size_t n);

#endif /* AIOSCOPE_RECFILE_H */
