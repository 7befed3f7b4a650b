// SPDX-License-Identifier: GPL-2.0
/*
 * recording.c - a whole recording in memory (recording.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "recording.h"

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t nc;
	void *q;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 1024;
	q = realloc(*p, nc * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}

FILE *recording_open(const char *file, struct recfile_reader *r)
{
	FILE *f = fopen(file, "re");

	if (!f) {
		p_err("%s: %s", file, strerror(errno));
		return NULL;
	}
	if (recfile_open(r, f)) {
		p_err("%s: %s", file, r->err);
		recfile_close(r);
		fclose(f);
		return NULL;
	}
	return f;
}

int recording_load(const char *file, struct recording *rec)
{
	struct recfile_reader r;
	struct recfile_rec x;
	int rc, ret = EXIT_OK;
	FILE *f;

	memset(rec, 0, sizeof(*rec));
	f = recording_open(file, &r);
	if (!f)
		return EXIT_RUNTIME;
	rec->hdr = r.hdr;
	/* the header's strings live in the reader */
	rec->hdr.argv = NULL;
	rec->hdr.knobs = NULL;
	while ((rc = recfile_next(&r, &x)) == 1) {
		if (x.type == RECFILE_EVENT) {
			if (grow((void **)&rec->ev, &rec->capev, rec->nev, sizeof(*rec->ev)))
				break;
			rec->ev[rec->nev++] = x.ev;
		} else if (x.type == RECFILE_QD) {
			if (grow((void **)&rec->qd, &rec->capqd, rec->nqd, sizeof(*rec->qd)))
				break;
			rec->qd[rec->nqd++] = x.qd;
		} else if (x.type == RECFILE_PENDING) {
			if (grow((void **)&rec->pend, &rec->cappend, rec->npend,
				 sizeof(*rec->pend)))
				break;
			rec->pend[rec->npend++] = x.pend;
		} else if (x.type == RECFILE_LOST) {
			if (grow((void **)&rec->lost, &rec->caplost, rec->nlost,
				 sizeof(*rec->lost)))
				break;
			rec->lost[rec->nlost++] = x.lost;
		}
	}
	rec->complete = r.complete;
	if (rc == 1) {
		p_err("out of memory after %zu requests", rec->nev);
		ret = EXIT_RUNTIME;
	} else if (rc < 0 && r.truncated) {
		fprintf(stderr, "Warning: %s: %s; using the %zu requests before it\n", file, r.err,
			rec->nev);
	} else if (rc < 0) {
		p_err("%s: %s", file, r.err);
		ret = EXIT_RUNTIME;
	}
	recfile_close(&r);
	fclose(f);
	if (ret)
		recording_free(rec);
	return ret;
}

void recording_free(struct recording *rec)
{
	free(rec->ev);
	free(rec->qd);
	free(rec->pend);
	free(rec->lost);
	rec->ev = NULL;
	rec->qd = NULL;
	rec->pend = NULL;
	rec->lost = NULL;
	rec->nev = rec->nqd = rec->npend = rec->nlost = 0;
}
