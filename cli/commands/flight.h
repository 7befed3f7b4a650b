/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flight.h - the flight recorder of `aioscope record --ring SEC --trigger ...`: the
 * last SEC seconds of records in memory, and a recording of them written into a
 * directory when a trigger fires (a request pending too long, a completion too slow,
 * SIGUSR1). record.c feeds it and asks it; flight.c holds the ring and writes dumps.
 */
#ifndef AIOSCOPE_FLIGHT_H
#define AIOSCOPE_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "request/recfile.h"

/* the most records the ring holds, whatever SEC (about 190 MB): past it the oldest
 * go early, counted in flight.evicted */
#define FLIGHT_MAX_RECS		(1u << 20)
#define FLIGHT_MAX_DUMPS	10	/* --max-dumps's default */

struct flight {
	/* settings */
	const char *dir;		/* where dumps go (created if missing) */
	uint64_t ring_ns;		/* keep this much of the past */
	uint64_t stuck_ns;		/* trigger stuck:MS, 0: off */
	uint64_t lat_ns;		/* trigger lat:MS, 0: off */
	bool on_signal;			/* trigger signal (SIGUSR1) */
	unsigned int max_dumps;

	/* the ring: a circular array of records, oldest at v[head] */
	struct recfile_rec *v;
	size_t cap, head, n;
	uint64_t evicted;		/* records dropped early: the ring was full */

	/* triggers */
	bool fired;			/* a trigger fired, not dumped yet */
	const char *word;		/* its kind, for the file name: stuck, lat, signal */
	char cause[RECFILE_STR];	/* one line: what fired, the header's trigger */
	uint64_t stuck_seen_ns;		/* requests older than stuck_ns at this time were
					 * already looked at */
	uint64_t last_dump_ns;		/* 0: none yet */
	unsigned int dumps;
	uint64_t suppressed;		/* triggers within ring_ns of the previous dump */
};

/*
 * flight_trigger_parse - one --trigger SPEC ("stuck:MS", "lat:MS" or "signal") into
 * @f. 0, or -1 with what is wrong in @err.
 */
int flight_trigger_parse(struct flight *f, const char *spec, char *err, size_t errlen);

/* Keep @rec (an event or a queue-depth sample) in the ring, dropping what is older
 * than ring_ns before @now. 0 or -ENOMEM. */
int flight_push(struct flight *f, const struct recfile_rec *rec, uint64_t now);

/* The lat trigger, on one finished request (already pushed). */
void flight_check_event(struct flight *f, const struct tracer_event *e);
/* The stuck trigger, on one pending request seen at @now. */
void flight_check_pending(struct flight *f, const struct pending_req *q, uint64_t now);
/* The signal trigger. */
void flight_fire_signal(struct flight *f);

/*
 * A dump's contents besides the ring: the requests pending at @now and the lost
 * counters. @each_pending calls @cb for every pending request (the tracer's in-flight
 * table; record.c passes a closure over it).
 */
typedef int (*flight_pending_cb)(void *ctx, const struct pending_req *q);
typedef int (*flight_pending_walk)(void *walk_ctx, flight_pending_cb cb, void *cb_ctx);

/*
 * flight_dump - if a trigger fired: a recording in f->dir named by the time and
 * the trigger's kind (YYYYmmdd-HHMMSS.mmm-KIND.rec) holding @base's header with
 * the trigger's cause, the ring, the pending requests and @lost. A trigger within
 * ring_ns of the previous dump is counted in f->suppressed, not dumped. Returns 1
 * when a dump was written (its path in @path), 0 when none was due, -errno.
 */
int flight_dump(struct flight *f, const struct recfile_header *base, uint64_t now,
		const struct recfile_lost *lost, flight_pending_walk walk, void *walk_ctx,
		char *path, size_t pathlen, uint64_t *nreq, uint64_t *npend);

void flight_free(struct flight *f);

#endif
