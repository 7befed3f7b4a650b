/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recording.h - a whole recording in memory (its requests, queue-depth samples, the
 * requests pending at its end and its lost counters), for the commands that
 * need all of it at once: export, heatmap and report's top.
 */
#ifndef AIOSCOPE_RECORDING_H
#define AIOSCOPE_RECORDING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "request/recfile.h"

struct recording {
	struct recfile_header hdr;	/* without argv and knobs */
	struct tracer_event *ev;
	size_t nev, capev;
	struct recfile_qd *qd;
	size_t nqd, capqd;
	struct recfile_pending *pend;
	size_t npend, cappend;
	struct recfile_lost *lost;	/* the lost counters as they grew */
	size_t nlost, caplost;
	bool complete;			/* the end chunk was read */
};

/*
 * Opens @file and reads its header into @r (for the commands that stream a
 * recording): the file, or NULL after a one-line error. recfile_close() and fclose()
 * when done.
 */
FILE *recording_open(const char *file, struct recfile_reader *r);

/*
 * Reads @file into @rec. A recording cut short (still being written, or its writer
 * killed) is kept up to the damage, with a warning on stderr. Returns 0, or an exit
 * status after a one-line error (unreadable, corrupted, out of memory).
 */
int recording_load(const char *file, struct recording *rec);
void recording_free(struct recording *rec);

/* ns on the recording's clock as microseconds since its start */
static inline double recording_us(const struct recording *rec, uint64_t ns)
{
	uint64_t s = rec->hdr.start_mono_ns;

	return ns >= s ? (double)(ns - s) / 1000.0 : -(double)(s - ns) / 1000.0;
}

#endif
