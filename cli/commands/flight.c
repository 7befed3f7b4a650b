// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's ring and dumps (flight.h). The ring is a circular array of
 * records that grows by doubling up to FLIGHT_MAX_RECS; records leave it when they
 * are older than the ring's length. A dump is a whole recording (recfile.c), so
 * every reader of recordings reads it, and `report DUMP stuck` lists what was pending.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flight.h"

int flight_trigger_parse(struct flight *f, const char *spec, char *err, size_t errlen)
{
	uint64_t *ns = NULL;
	const char *ms = NULL;
	char *end;
	unsigned long long v;

	if (!strcmp(spec, "signal")) {
		f->on_signal = true;
		return 0;
	}
	if (!strncmp(spec, "stuck:", 6))
		ns = &f->stuck_ns, ms = spec + 6;
	else if (!strncmp(spec, "lat:", 4))
		ns = &f->lat_ns, ms = spec + 4;
	if (!ns) {
		snprintf(err, errlen, "invalid trigger '%s' (stuck:MS, lat:MS or signal)", spec);
		return -1;
	}
	errno = 0;
	v = strtoull(ms, &end, 10);
	if (!*ms || *end || errno || *ms == '-' || v < 1 || v > 86400000ULL) {
		snprintf(err, errlen, "invalid trigger '%s' (MS: milliseconds, 1 to 86400000)",
			 spec);
		return -1;
	}
	*ns = v * 1000000ULL;
	return 0;
}

static int ring_grow(struct flight *f)
{
	size_t cap = f->cap ? f->cap * 2 : 4096;
	struct recfile_rec *v;

	if (cap > FLIGHT_MAX_RECS)
		cap = FLIGHT_MAX_RECS;
	v = malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* unwrap: the oldest first */
	for (size_t i = 0; i < f->n; i++)
		v[i] = f->v[(f->head + i) % f->cap];
	free(f->v);
	f->v = v;
	f->cap = cap;
	f->head = 0;
	return 0;
}

/* what is older than ring_ns before @now leaves */
static void ring_prune(struct flight *f, uint64_t now)
{
	uint64_t keep_from = now > f->ring_ns ? now - f->ring_ns : 0;

	while (f->n && recfile_rec_time(&f->v[f->head]) < keep_from) {
		f->head = (f->head + 1) % f->cap;
		f->n--;
	}
}

int flight_push(struct flight *f, const struct recfile_rec *rec, uint64_t now)
{
	ring_prune(f, now);
	if (f->n == f->cap) {
		if (f->cap < FLIGHT_MAX_RECS) {
			if (ring_grow(f))
				return -ENOMEM;
		} else {
			f->head = (f->head + 1) % f->cap;
			f->n--;
			f->evicted++;
		}
	}
	f->v[(f->head + f->n) % f->cap] = *rec;
	f->n++;
	return 0;
}

static void fire(struct flight *f, const char *word)
{
	f->fired = true;
	f->word = word;
}

void flight_check_event(struct flight *f, const struct tracer_event *e)
{
	if (!f->lat_ns || f->fired || e->lat_ns < f->lat_ns)
		return;
	fire(f, "lat");
	snprintf(f->cause, sizeof(f->cause), "lat:%" PRIu64 ": request 0x%" PRIx64 " (pid %d %s, "
		 "%s) took %.3f ms", f->lat_ns / 1000000, e->id, e->pid, e->comm,
		 tracer_op_name(e->op), e->lat_ns / 1e6);
}

void flight_check_pending(struct flight *f, const struct pending_req *q, uint64_t now)
{
	uint64_t due = q->submit_ns + f->stuck_ns;

	/* each request once: when its age first passes the threshold */
	if (!f->stuck_ns || f->fired || due > now || due <= f->stuck_seen_ns)
		return;
	fire(f, "stuck");
	snprintf(f->cause, sizeof(f->cause), "stuck:%" PRIu64 ": request 0x%" PRIx64 " (pid %d "
		 "%s, %s) pending %.3f ms", f->stuck_ns / 1000000, q->id, q->pid, q->comm,
		 tracer_op_name(q->op), (now - q->submit_ns) / 1e6);
}

void flight_fire_signal(struct flight *f)
{
	if (!f->on_signal || f->fired)
		return;
	fire(f, "signal");
	snprintf(f->cause, sizeof(f->cause), "signal: SIGUSR1");
}

/* DIR/YYYYmmdd-HHMMSS.mmm-KIND.rec, created new (a -N suffix if taken) */
static int dump_open(struct flight *f, char *path, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];
	int fd = -1;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (int i = 0; i < 100 && fd < 0; i++) {
		if (i)
			snprintf(path, len, "%s/%s.%03ld-%s-%d.rec", f->dir, stamp,
				 ts.tv_nsec / 1000000, f->word, i);
		else
			snprintf(path, len, "%s/%s.%03ld-%s.rec", f->dir, stamp,
				 ts.tv_nsec / 1000000, f->word);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	return fd < 0 ? -EEXIST : fd;
}

struct pend_write {
	struct recfile_writer *w;
	uint64_t now, n;
	int err;
};

static int write_pending(void *ctx, const struct pending_req *q)
{
	struct pend_write *p = ctx;
	struct recfile_pending r = { p->now, *q };

	p->err = recfile_write_pending(p->w, &r);
	if (!p->err)
		p->n++;
	return p->err;
}

int flight_dump(struct flight *f, const struct recfile_header *base, uint64_t now,
		const struct recfile_lost *lost, flight_pending_walk walk, void *walk_ctx,
		char *path, size_t pathlen, uint64_t *nreq, uint64_t *npend)
{
	struct recfile_header h = *base;
	struct pend_write p = { NULL, now, 0, 0 };
	char err[200];
	int fd, rc = 0;

	if (!f->fired)
		return 0;
	f->fired = false;
	if (f->last_dump_ns && now - f->last_dump_ns < f->ring_ns) {
		f->suppressed++;
		return 0;
	}
	snprintf(h.trigger, sizeof(h.trigger), "%s", f->cause);
	ring_prune(f, now);
	fd = dump_open(f, path, pathlen);
	if (fd < 0)
		return fd;
	p.w = recfile_create(fd, &h, RECFILE_ENC_ZSTD, 3, err, sizeof(err));
	if (!p.w) {
		close(fd);
		unlink(path);
		return -EIO;
	}
	*nreq = 0;
	for (size_t i = 0; i < f->n && !rc; i++) {
		const struct recfile_rec *r = &f->v[(f->head + i) % f->cap];

		rc = recfile_write_rec(p.w, r);
		*nreq += r->type == RECFILE_EVENT;
	}
	if (!rc) {
		walk(walk_ctx, write_pending, &p);
		rc = p.err;
	}
	if (!rc)
		rc = recfile_write_lost(p.w, lost);
	if (recfile_finish(p.w) && !rc)
		rc = -EIO;
	if (close(fd) && !rc)
		rc = -errno;
	*npend = p.n;
	f->dumps++;
	f->last_dump_ns = now;
	return rc ? rc : 1;
}

void flight_free(struct flight *f)
{
	free(f->v);
	f->v = NULL;
	f->n = f->cap = f->head = 0;
}
