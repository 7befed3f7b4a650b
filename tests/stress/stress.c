// SPDX-License-Identifier: GPL-2.0
/*
 * aiodev stress: several worker processes, each with a libaio thread and an io_uring
 * thread submitting random reads/writes (plain and vectored, buffered and O_DIRECT,
 * some crossing the end of the device, a few fsyncs), cancelling at random with
 * io_cancel / IORING_OP_ASYNC_CANCEL, tearing their contexts down with requests
 * pending (io_destroy, io_uring_queue_exit); a knob process flipping every knob and
 * checking `stats` and the debugfs `pending` listing at every read, writing `abort`
 * now and then; and the main process forking victims that are killed with -9 while
 * they have requests in flight.
 *
 * At the end every request a surviving thread submitted must have produced exactly
 * one event (or have been abandoned by an io_destroy/ring exit, counted apart),
 * inflight must return to 0.
 *
 *   stress [-t SECONDS] [-w WORKERS] [-s SEED]
 *
 * Prints "ok - ..." / "not ok - ..." lines and a summary line "stress: ...".
 */
#define _GNU_SOURCE
#include <libaio.h>
#include <liburing.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "common.h"

#define MAX_WORKERS	16
#define AIO_SLOTS	48
#define URING_SLOTS	32
#define MAX_LEN		(64 * 1024)
#define MAX_IOV		8
#define CANCEL_TAG	(1ull << 63)

/* Results of one submitting thread, in shared memory. */
struct tres {
	uint64_t submitted;		/* requests accepted by io_submit / consumed SQEs */
	uint64_t events;		/* events reaped for them */
	uint64_t abandoned;		/* pending at io_destroy / ring exit (no event) */
	uint64_t bad_res;		/* event with an impossible result */
	uint64_t dup_events;		/* event for a slot with nothing pending */
	uint64_t eio, ecanceled, short_res;
	uint64_t intr_cancel;		/* -EINTR of io-wq requests hit by ASYNC_CANCEL */
	uint64_t cancel_calls, cancel_inprogress, cancel_einval, cancel_other;
	uint64_t cancel_won;		/* io_cancel -EINPROGRESS and event -ECANCELED */
	uint64_t destroys, destroy_max_ns;
	uint64_t destroy_max_nofsync_ns;	/* the slowest teardown with no fsync pending */
	uint64_t submit_err;		/* io_submit errors other than EAGAIN/EINTR */
	uint64_t drain_aborts;
	uint64_t leftover;		/* still pending when the drain gave up */
	int done;
	char err[160];
};

struct kres {
	uint64_t knob_writes, knob_mismatch, knob_write_err;
	uint64_t stats_reads, stats_violations, stats_nonmono, stats_parse_err;
	uint64_t pending_reads, pending_lines, pending_bad;
	uint64_t aborts, abort_err;
	int done;
	char err[200];
};

struct shared {
	volatile int stop;		/* workers: stop submitting, drain */
	volatile int knob_stop;
	struct tres aio[MAX_WORKERS + 1];	/* [MAX_WORKERS]: the victims, unchecked */
	struct tres uring[MAX_WORKERS + 1];
	struct tres sync[MAX_WORKERS + 1];	/* synchronous pread/pwrite/readv/fsync */
	struct kres k;
	uint64_t victim_submitted;
};

static struct shared *sh;
static int ndev;
static long cap;
static int slow;

static void seterr(char *dst, size_t sz, const char *fmt, ...)
{
	va_list ap;

	if (dst[0])
		return;		/* keep the first */
	va_start(ap, fmt);
	vsnprintf(dst, sz, fmt, ap);
	va_end(ap);
}

static int dev_open(int dev, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/aiodev%d", dev);
	return open(path, O_RDWR | flags);
}

static void write_abort(int dev)
{
	aiodev_knob_write(dev, "abort", "1");
}

/* ---- one request's shape, shared by both APIs ---- */

enum { OP_READ, OP_WRITE, OP_FSYNC };

struct req {
	bool busy;
	bool cancel_asked;
	int op;
	bool vec;
	bool direct;
	long off;
	size_t len;
	int niov;
	struct iovec iov[MAX_IOV];
	char *buf;
	struct iocb iocb;
};

static void req_init(struct req *r)
{
	memset(r, 0, sizeof(*r));
	if (posix_memalign((void **)&r->buf, 4096, MAX_LEN))
		abort();
	memset(r->buf, 0x5a, MAX_LEN);
}

/* Pick a random request. fsync only when allow_fsync. */
static void req_random(struct req *r, uint64_t *seed, bool allow_fsync)
{
	uint64_t x = rnd_below(seed, 1000);

	r->cancel_asked = false;
	if (allow_fsync && x < 5) {
		r->op = OP_FSYNC;
		r->len = 0;
		r->off = 0;
		r->vec = false;
		r->direct = false;
		return;
	}
	r->op = rnd_below(seed, 2) ? OP_WRITE : OP_READ;
	r->direct = rnd_below(seed, 4) == 0;
	if (r->direct) {
		r->len = 512 * (1 + rnd_below(seed, MAX_LEN / 512));
		r->off = 512 * rnd_below(seed, cap / 512);
	} else {
		r->len = 1 + rnd_below(seed, MAX_LEN);
		r->off = rnd_below(seed, cap);
	}
	/* Most requests inside the device; some cross or pass its end. */
	if (rnd_below(seed, 50) != 0 && r->off + (long)r->len > cap)
		r->off = cap - r->len;
	if (r->direct)
		r->off &= ~511L;
	if (rnd_below(seed, 200) == 0)
		r->off = cap + (r->direct ? 512 : 1) * rnd_below(seed, 8);
	r->vec = !r->direct && rnd_below(seed, 3) == 0;
	if (r->vec) {
		size_t left = r->len, pos = 0;

		r->niov = 0;
		while (left && r->niov < MAX_IOV) {
			size_t n = r->niov == MAX_IOV - 1 ? left : 1 + rnd_below(seed, left);

			r->iov[r->niov].iov_base = r->buf + pos;
			r->iov[r->niov].iov_len = n;
			r->niov++;
			pos += n;
			left -= n;
		}
	} else {
		r->niov = 1;
		r->iov[0].iov_base = r->buf;
		r->iov[0].iov_len = r->len;
	}
}

/* Is res a valid outcome for r?  Counts into t. */
static void check_res(struct tres *t, struct req *r, long res, const char *api)
{
	long expect;

	if (r->op == OP_FSYNC) {
		expect = 0;
	} else if (r->off >= cap) {
		expect = r->op == OP_READ ? 0 : -ENOSPC;
	} else {
		expect = (long)r->len;
		if (r->off + expect > cap)
			expect = cap - r->off;
	}
	if (r->op != OP_FSYNC && expect >= 0 && expect < (long)r->len)
		t->short_res++;
	if (res == expect)
		return;
	if (res == -EIO) {
		t->eio++;
		return;
	}
	if (res == -ECANCELED) {
		t->ecanceled++;
		return;
	}
	/*
	 * IORING_OP_ASYNC_CANCEL reaching a request that an io-wq worker is
	 * still submitting (waiting interruptibly for a queue slot) signals the
	 * worker: the driver's wait returns -ERESTARTSYS, io_uring reports -EINTR.
	 */
	if (res == -EINTR && r->cancel_asked && !strcmp(api, "uring")) {
		t->intr_cancel++;
		return;
	}
	t->bad_res++;
	seterr(t->err, sizeof(t->err),
	       "%s op=%d vec=%d direct=%d off=%ld len=%zu: res %ld, expected %ld",
	       api, r->op, r->vec, r->direct, r->off, r->len, res, expect);
}

/* ---- what the submitting threads share ---- */

struct wctx {
	int id;
	int dev;
	uint64_t seed;
	bool victim;
};

/* The buffered and the O_DIRECT descriptor; when either fails the thread ends at once. */
static bool worker_open(struct wctx *w, struct tres *t, int *fd, int *dfd)
{
	*fd = dev_open(w->dev, 0);
	*dfd = dev_open(w->dev, O_DIRECT);
	if (*fd >= 0 && *dfd >= 0)
		return true;
	seterr(t->err, sizeof(t->err), "open /dev/aiodev%d: %s", w->dev, strerror(errno));
	t->done = 1;
	return false;
}

/* The thread's end: its descriptors closed, its results final for the main process. */
static void worker_done(struct tres *t, int fd, int dfd)
{
	close(fd);
	close(dfd);
	t->done = 1;
}

/* A victim's results are never checked (it is killed): only the total it submitted. */
static void count_submitted(struct wctx *w, struct tres *t, int n)
{
	t->submitted += n;
	if (w->victim)
		__atomic_add_fetch(&sh->victim_submitted, n, __ATOMIC_RELAXED);
}

/*
 * io_destroy / ring exit with @nbusy requests pending took @dt ns; those requests
 * are abandoned (no event comes). A pending fsync may wait for an abort, so the
 * slowest teardown without one is kept apart.
 */
static void note_teardown(struct tres *t, uint64_t dt, bool fsync_pending, int nbusy)
{
	t->destroys++;
	if (dt > t->destroy_max_ns)
		t->destroy_max_ns = dt;
	if (!fsync_pending && dt > t->destroy_max_nofsync_ns)
		t->destroy_max_nofsync_ns = dt;
	t->abandoned += nbusy;
}

/*
 * The drain after the storm gives up after 60 s; a stalled request completes
 * only by an abort, so the device is aborted when nothing moved for 200 ms
 * (both times the slow factor).
 */
struct drain {
	uint64_t deadline, last_progress;
};

static void drain_start(struct drain *d)
{
	d->deadline = now_ns() + 60ull * slow * 1000000000ull;
	d->last_progress = now_ns();
}

static bool drain_in_time(const struct drain *d)
{
	return now_ns() < d->deadline;
}

static void drain_step(struct drain *d, bool moved, struct wctx *w, struct tres *t)
{
	if (moved) {
		d->last_progress = now_ns();
	} else if (now_ns() - d->last_progress > 200ull * 1000000 * slow) {
		write_abort(w->dev);
		t->drain_aborts++;
		d->last_progress = now_ns();
	}
}

/* ---- libaio thread ---- */

/* One libaio thread: its context and its slots, nbusy of them pending. */
struct aio_worker {
	struct wctx *w;
	struct tres *t;
	struct req *slots;	/* AIO_SLOTS; iocb.data is the slot */
	io_context_t ctx;	/* 0 when a new one could not be set up */
	int fd, dfd;
	int nbusy;
	uint64_t seed;
};

static void aio_prep(struct req *r, int fd, int dfd, int slot)
{
	struct iocb *cb = &r->iocb;

	if (r->op == OP_FSYNC)
		io_prep_fsync(cb, fd);
	else if (r->vec && r->op == OP_READ)
		io_prep_preadv(cb, fd, r->iov, r->niov, r->off);
	else if (r->vec)
		io_prep_pwritev(cb, fd, r->iov, r->niov, r->off);
	else if (r->op == OP_READ)
		io_prep_pread(cb, r->direct ? dfd : fd, r->buf, r->len, r->off);
	else
		io_prep_pwrite(cb, r->direct ? dfd : fd, r->buf, r->len, r->off);
	cb->data = (void *)(uintptr_t)slot;
}

/* 1 to 8 random requests in free slots, in one io_submit. */
static void aio_submit_batch(struct aio_worker *a)
{
	struct iocb *cbs[8];
	int n = 0, want = 1 + rnd_below(&a->seed, 8), i, rc;

	for (i = 0; i < AIO_SLOTS && n < want; i++) {
		int s = (i + rnd_below(&a->seed, AIO_SLOTS)) % AIO_SLOTS;

		if (a->slots[s].busy)
			continue;
		req_random(&a->slots[s], &a->seed, true);
		aio_prep(&a->slots[s], a->fd, a->dfd, s);
		a->slots[s].busy = true;	/* tentatively */
		cbs[n++] = &a->slots[s].iocb;
	}
	if (!n)
		return;
	rc = io_submit(a->ctx, n, cbs);
	if (rc < 0) {
		if (rc != -EAGAIN && rc != -EINTR) {
			a->t->submit_err++;
			seterr(a->t->err, sizeof(a->t->err), "io_submit: %s", strerror(-rc));
		}
		rc = 0;
	}
	/* io_submit took the first rc: the others are free again */
	for (i = rc; i < n; i++)
		a->slots[(uintptr_t)cbs[i]->data].busy = false;
	count_submitted(a->w, a->t, rc);
	a->nbusy += rc;
}

/*
 * The @n events io_getevents returned, each for a pending slot. During the
 * storm an event must also carry its slot's iocb, and the first stray one is
 * kept as the error; the drain only counts them.
 */
static void aio_reap(struct aio_worker *a, const struct io_event *ev, int n, bool storm)
{
	struct tres *t = a->t;

	for (int i = 0; i < n; i++) {
		int s = (uintptr_t)ev[i].data;
		struct req *r = &a->slots[s];

		if (s < 0 || s >= AIO_SLOTS || !r->busy ||
		    (storm && ev[i].obj != &r->iocb)) {
			t->dup_events++;
			if (storm)
				seterr(t->err, sizeof(t->err), "event for slot %d that is not pending", s);
			continue;
		}
		t->events++;
		if (r->cancel_asked && (long)ev[i].res == -ECANCELED)
			t->cancel_won++;
		check_res(t, r, (long)ev[i].res, "aio");
		r->busy = false;
		a->nbusy--;
	}
}

/* Random io_cancel of a pending request. */
static void aio_maybe_cancel(struct aio_worker *a)
{
	struct tres *t = a->t;
	struct io_event cev;
	int s, rc;

	if (!a->nbusy || rnd_below(&a->seed, 8) != 0)
		return;
	s = rnd_below(&a->seed, AIO_SLOTS);
	if (!a->slots[s].busy)
		return;
	rc = io_cancel(a->ctx, &a->slots[s].iocb, &cev);
	t->cancel_calls++;
	if (rc == -EINPROGRESS) {
		t->cancel_inprogress++;
		a->slots[s].cancel_asked = true;
	} else if (rc == -EINVAL) {
		t->cancel_einval++;
	} else {
		t->cancel_other++;
		seterr(t->err, sizeof(t->err), "io_cancel returned %d", rc);
	}
}

/* Now and then: io_destroy with requests pending, then a new context. false: stop. */
static bool aio_maybe_destroy(struct aio_worker *a)
{
	struct tres *t = a->t;
	uint64_t t0, dt;
	int nfsync = 0, i, rc;

	if (!a->nbusy || rnd_below(&a->seed, 400) != 0)
		return true;
	t0 = now_ns();
	for (i = 0; i < AIO_SLOTS; i++)
		nfsync += a->slots[i].busy && a->slots[i].op == OP_FSYNC;
	rc = io_destroy(a->ctx);
	dt = now_ns() - t0;
	if (rc) {
		seterr(t->err, sizeof(t->err), "io_destroy: %s", strerror(-rc));
		return false;
	}
	note_teardown(t, dt, nfsync, a->nbusy);
	for (i = 0; i < AIO_SLOTS; i++)
		a->slots[i].busy = false;
	a->nbusy = 0;
	a->ctx = 0;
	rc = io_setup(128, &a->ctx);
	if (rc) {
		seterr(t->err, sizeof(t->err), "io_setup: %s", strerror(-rc));
		return false;
	}
	return true;
}

/* Drain: reap everything; abort (stalled requests) when nothing moves. */
static void aio_drain(struct aio_worker *a)
{
	struct io_event ev[64];
	struct drain d;

	drain_start(&d);
	while (a->nbusy && drain_in_time(&d) && a->ctx) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		int rc = io_getevents(a->ctx, 0, 64, ev, &ts);

		aio_reap(a, ev, rc, false);
		drain_step(&d, rc > 0, a->w, a->t);
	}
	a->t->leftover = a->nbusy;
}

/* No further event may arrive for a request already reaped. */
static void aio_check_quiet(struct aio_worker *a)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	struct io_event ev[64];
	int rc;

	if (!a->ctx)
		return;
	rc = io_getevents(a->ctx, 0, 64, ev, &ts);
	if (rc > 0) {
		a->t->dup_events += rc;
		seterr(a->t->err, sizeof(a->t->err), "%d extra events after the drain", rc);
	}
	io_destroy(a->ctx);
}

static void *aio_thread(void *arg)
{
	static __thread struct req slots[AIO_SLOTS];
	struct wctx *w = arg;
	struct aio_worker a = {
		.w = w, .t = &sh->aio[w->id], .slots = slots, .seed = w->seed * 2 + 1,
	};
	struct io_event ev[64];
	int i, rc;

	if (!worker_open(w, a.t, &a.fd, &a.dfd))
		return NULL;
	for (i = 0; i < AIO_SLOTS; i++)
		req_init(&slots[i]);
	rc = io_setup(128, &a.ctx);
	if (rc) {
		seterr(a.t->err, sizeof(a.t->err), "io_setup: %s", strerror(-rc));
		a.t->done = 1;
		return NULL;
	}
	while (!sh->stop || w->victim) {
		struct timespec ts = { 0, 2 * 1000 * 1000 };

		aio_submit_batch(&a);
		rc = io_getevents(a.ctx, 0, 64, ev, &ts);
		aio_reap(&a, ev, rc, true);
		aio_maybe_cancel(&a);
		if (!aio_maybe_destroy(&a))
			break;
	}
	aio_drain(&a);
	aio_check_quiet(&a);
	worker_done(a.t, a.fd, a.dfd);
	return NULL;
}

/* ---- io_uring thread ---- */

/* One io_uring thread: its ring, its slots (nbusy pending) and ncancel ASYNC_CANCELs in flight. */
struct uring_worker {
	struct wctx *w;
	struct tres *t;
	struct req *slots;	/* URING_SLOTS; user_data is slot + 1 */
	struct io_uring ring;
	bool have_ring;		/* false when a new ring could not be set up */
	int fd, dfd;
	int nbusy, ncancel;
	uint64_t seed;
};

static void uring_prep(struct io_uring_sqe *sqe, struct req *r, int fd, int dfd, int slot)
{
	if (r->vec && r->op == OP_READ)
		io_uring_prep_readv(sqe, fd, r->iov, r->niov, r->off);
	else if (r->vec)
		io_uring_prep_writev(sqe, fd, r->iov, r->niov, r->off);
	else if (r->op == OP_READ)
		io_uring_prep_read(sqe, r->direct ? dfd : fd, r->buf, r->len, r->off);
	else
		io_uring_prep_write(sqe, r->direct ? dfd : fd, r->buf, r->len, r->off);
	io_uring_sqe_set_data64(sqe, slot + 1);
}

/* One CQE: the answer to an ASYNC_CANCEL (CANCEL_TAG), or a pending slot's result. */
static void uring_reap_one(struct uring_worker *u, const struct io_uring_cqe *cqe)
{
	struct tres *t = u->t;
	uint64_t ud = cqe->user_data;

	if (ud & CANCEL_TAG) {
		u->ncancel--;
		if (cqe->res == 0 || cqe->res == -EALREADY) {
			t->cancel_inprogress++;
		} else if (cqe->res == -ENOENT) {
			t->cancel_einval++;
		} else {
			t->cancel_other++;
			seterr(t->err, sizeof(t->err), "ASYNC_CANCEL: res %d", cqe->res);
		}
	} else if (ud < 1 || ud > URING_SLOTS || !u->slots[ud - 1].busy) {
		t->dup_events++;
		seterr(t->err, sizeof(t->err), "CQE for slot %llu that is not pending",
		       (unsigned long long)ud);
	} else {
		t->events++;
		check_res(t, &u->slots[ud - 1], cqe->res, "uring");
		u->slots[ud - 1].busy = false;
		u->nbusy--;
	}
}

/* Wait up to @timeout_ns for a CQE, then reap all that are there; false if none came. */
static bool uring_reap(struct uring_worker *u, long timeout_ns)
{
	struct __kernel_timespec ts = { 0, timeout_ns };
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;

	if (io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts) != 0)
		return false;
	io_uring_for_each_cqe(&u->ring, head, cqe) {
		uring_reap_one(u, cqe);
		seen++;
	}
	io_uring_cq_advance(&u->ring, seen);
	return true;
}

/* 1 to 8 random requests (no fsync) in free slots, as far as the SQ has room. false: stop. */
static bool uring_submit_batch(struct uring_worker *u)
{
	int n = 0, want = 1 + rnd_below(&u->seed, 8), rc;

	for (int i = 0; i < URING_SLOTS && n < want; i++) {
		int s = (i + rnd_below(&u->seed, URING_SLOTS)) % URING_SLOTS;
		struct io_uring_sqe *sqe;

		if (u->slots[s].busy)
			continue;
		sqe = io_uring_get_sqe(&u->ring);
		if (!sqe)
			break;
		req_random(&u->slots[s], &u->seed, false);
		uring_prep(sqe, &u->slots[s], u->fd, u->dfd, s);
		u->slots[s].busy = true;
		n++;
	}
	if (!n)
		return true;
	rc = io_uring_submit(&u->ring);
	if (rc != n) {
		seterr(u->t->err, sizeof(u->t->err), "io_uring_submit: %d of %d", rc, n);
		u->t->submit_err++;
		return false;
	}
	count_submitted(u->w, u->t, n);
	u->nbusy += n;
	return true;
}

/* IORING_OP_ASYNC_CANCEL cannot reach a request held by the driver; try. */
static void uring_maybe_cancel(struct uring_worker *u)
{
	struct io_uring_sqe *sqe;
	int s;

	if (!u->nbusy || rnd_below(&u->seed, 16) != 0)
		return;
	s = rnd_below(&u->seed, URING_SLOTS);
	if (!u->slots[s].busy || !(sqe = io_uring_get_sqe(&u->ring)))
		return;
	io_uring_prep_cancel64(sqe, s + 1, 0);
	io_uring_sqe_set_data64(sqe, CANCEL_TAG | (s + 1));
	if (io_uring_submit(&u->ring) == 1) {
		u->slots[s].cancel_asked = true;
		u->t->cancel_calls++;
		u->ncancel++;
	}
}

/* Now and then: tear the ring down with requests pending, then a new ring. false: stop. */
static bool uring_maybe_exit(struct uring_worker *u)
{
	uint64_t t0, dt;
	int rc;

	if (!u->nbusy || rnd_below(&u->seed, 400) != 0)
		return true;
	t0 = now_ns();
	io_uring_queue_exit(&u->ring);
	u->have_ring = false;
	dt = now_ns() - t0;
	note_teardown(u->t, dt, false, u->nbusy);
	/* The buffers may still be written by the abandoned requests:
	 * give those slots fresh buffers (the old ones leak on purpose). */
	for (int i = 0; i < URING_SLOTS; i++) {
		if (u->slots[i].busy)
			req_init(&u->slots[i]);
	}
	u->nbusy = 0;
	u->ncancel = 0;
	rc = io_uring_queue_init(64, &u->ring, 0);
	if (rc) {
		seterr(u->t->err, sizeof(u->t->err), "io_uring_queue_init: %s", strerror(-rc));
		return false;
	}
	u->have_ring = true;
	return true;
}

/* Drain: reap every request and cancel; abort (stalled requests) when nothing moves. */
static void uring_drain(struct uring_worker *u)
{
	struct drain d;

	drain_start(&d);
	while (u->have_ring && (u->nbusy || u->ncancel) && drain_in_time(&d))
		drain_step(&d, uring_reap(u, 20 * 1000 * 1000), u->w, u->t);
	u->t->leftover = u->nbusy;
}

/* No further CQE may arrive once everything is reaped. */
static void uring_check_quiet(struct uring_worker *u)
{
	struct __kernel_timespec ts = { 0, 50 * 1000 * 1000 };
	struct io_uring_cqe *cqe;

	if (!u->have_ring)
		return;
	if (io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts) == 0) {
		u->t->dup_events++;
		seterr(u->t->err, sizeof(u->t->err), "extra CQE after the drain (user_data %llu)",
		       (unsigned long long)cqe->user_data);
	}
	io_uring_queue_exit(&u->ring);
}

static void *uring_thread(void *arg)
{
	static __thread struct req slots[URING_SLOTS];
	struct wctx *w = arg;
	struct uring_worker u = {
		.w = w, .t = &sh->uring[w->id], .slots = slots, .seed = w->seed * 2 + 7,
	};
	int rc;

	if (!worker_open(w, u.t, &u.fd, &u.dfd))
		return NULL;
	for (int i = 0; i < URING_SLOTS; i++)
		req_init(&slots[i]);
	rc = io_uring_queue_init(64, &u.ring, 0);
	if (rc) {
		seterr(u.t->err, sizeof(u.t->err), "io_uring_queue_init: %s", strerror(-rc));
		u.t->done = 1;
		return NULL;
	}
	u.have_ring = true;
	while (!sh->stop || w->victim) {
		if (!uring_submit_batch(&u))
			break;
		uring_reap(&u, 2 * 1000 * 1000);
		uring_maybe_cancel(&u);
		if (!uring_maybe_exit(&u))
			break;
	}
	uring_drain(&u);
	uring_check_quiet(&u);
	worker_done(u.t, u.fd, u.dfd);
	return NULL;
}

/* ---- synchronous thread: read/write/readv/writev/fsync in the same process ---- */

static void *sync_thread(void *arg)
{
	struct wctx *w = arg;
	struct tres *t = &sh->sync[w->id];
	struct req r;
	uint64_t seed = w->seed * 2 + 13;
	int fd, dfd;

	if (!worker_open(w, t, &fd, &dfd))
		return NULL;
	req_init(&r);
	while (!sh->stop || w->victim) {
		long res;

		req_random(&r, &seed, !sh->stop);
		if (r.op == OP_FSYNC)
			res = rnd_below(&seed, 2) ? fsync(fd) : fdatasync(fd);
		else if (r.vec && r.op == OP_READ)
			res = preadv(fd, r.iov, r.niov, r.off);
		else if (r.vec)
			res = pwritev(fd, r.iov, r.niov, r.off);
		else if (r.op == OP_READ)
			res = pread(r.direct ? dfd : fd, r.buf, r.len, r.off);
		else
			res = pwrite(r.direct ? dfd : fd, r.buf, r.len, r.off);
		if (res < 0)
			res = -errno;
		count_submitted(w, t, 1);
		t->events++;
		check_res(t, &r, res, "sync");
		if (rnd_below(&seed, 4) == 0)
			usleep(rnd_below(&seed, 2000));
	}
	worker_done(t, fd, dfd);
	return NULL;
}

static void run_worker(int id, int dev, uint64_t seed, bool victim)
{
	struct wctx w = { .id = id, .dev = dev, .seed = seed, .victim = victim };
	pthread_t a, u, y;

	pthread_create(&a, NULL, aio_thread, &w);
	pthread_create(&u, NULL, uring_thread, &w);
	pthread_create(&y, NULL, sync_thread, &w);
	pthread_join(a, NULL);
	pthread_join(u, NULL);
	pthread_join(y, NULL);
	_exit(0);
}

/* ---- knob process ---- */

static regex_t pending_re;

static void check_pending(struct kres *k, int dev)
{
	char path[128], *b, *line, *save = NULL;

	snprintf(path, sizeof(path), DEBUGFS_AIODEV "/aiodev%d/pending", dev);
	b = aiodev_read_file(path, NULL);
	if (!b) {
		k->pending_bad++;
		seterr(k->err, sizeof(k->err), "cannot read %s: %s", path, strerror(errno));
		return;
	}
	k->pending_reads++;
	for (line = strtok_r(b, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		k->pending_lines++;
		if (regexec(&pending_re, line, 0, NULL, 0)) {
			k->pending_bad++;
			seterr(k->err, sizeof(k->err), "bad pending line: %.150s", line);
		}
	}
	free(b);
}

static void check_stats(struct kres *k, int dev, struct aiodev_stats *prev)
{
	struct aiodev_stats st;
	int line = 0;

	if (aiodev_stats_read(dev, &st, &line)) {
		k->stats_parse_err++;
		seterr(k->err, sizeof(k->err), "aiodev%d: stats malformed at line %d", dev, line);
		return;
	}
	k->stats_reads++;
	if (!aiodev_stats_consistent(&st)) {
		k->stats_violations++;
		seterr(k->err, sizeof(k->err),
		       "aiodev%d: submitted %llu != completed %llu + failed %llu + cancelled %llu + inflight %llu",
		       dev, (unsigned long long)st.submitted, (unsigned long long)st.completed,
		       (unsigned long long)st.failed, (unsigned long long)st.cancelled,
		       (unsigned long long)st.inflight);
	}
	if (st.submitted < prev->submitted || st.completed < prev->completed ||
	    st.failed < prev->failed || st.cancelled < prev->cancelled ||
	    st.stalled < prev->stalled || st.bytes_read < prev->bytes_read ||
	    st.bytes_written < prev->bytes_written ||
	    st.max_inflight < prev->max_inflight || st.max_inflight < st.inflight) {
		k->stats_nonmono++;
		seterr(k->err, sizeof(k->err), "aiodev%d: a stats counter went backwards", dev);
	}
	*prev = st;
}

/* "completion" may read back as a list with the current choice in brackets. */
static bool knob_matches(const char *back, const char *val)
{
	char want[80];

	if (!strcmp(back, val))
		return true;
	snprintf(want, sizeof(want), "[%s]", val);
	return strstr(back, want) != NULL;
}

static void set_knob(struct kres *k, int dev, const char *knob, const char *val)
{
	char back[64];
	int rc = aiodev_knob_write(dev, knob, val);

	if (rc) {
		k->knob_write_err++;
		seterr(k->err, sizeof(k->err), "write %s=%s: %s", knob, val, strerror(-rc));
		return;
	}
	k->knob_writes++;
	if (aiodev_knob_value(dev, knob, back, sizeof(back)) || !knob_matches(back, val)) {
		k->knob_mismatch++;
		seterr(k->err, sizeof(k->err), "%s: wrote %s, read back %s", knob, val, back);
	}
}

static void knob_defaults(struct kres *k)
{
	for (int d = 0; d < ndev; d++) {
		set_knob(k, d, "stall_every", "0");
		set_knob(k, d, "fail_every", "0");
		set_knob(k, d, "latency_ns", "0");
		set_knob(k, d, "jitter_ns", "0");
		set_knob(k, d, "queue_depth", "128");
		set_knob(k, d, "completion", "hrtimer");
	}
}

static void run_knobs(uint64_t seed)
{
	static const char *const lat[] = { "0", "0", "1000", "50000", "200000", "1000000" };
	static const char *const jit[] = { "0", "0", "10000", "500000" };
	static const char *const comp[] = { "hrtimer", "workqueue", "inline" };
	static const char *const qd[] = { "1", "2", "8", "32", "128", "128", "1024", "65536" };
	static const char *const fail[] = { "0", "0", "0", "3", "17" };
	static const char *const stall[] = { "0", "0", "0", "7", "50" };
	struct kres *k = &sh->k;
	struct aiodev_stats prev[64];
	uint64_t next_abort = now_ns() + 300 * 1000000ull;

	memset(prev, 0, sizeof(prev));
	while (!sh->knob_stop) {
		int d = rnd_below(&seed, ndev);

		switch (rnd_below(&seed, 6)) {
		case 0: set_knob(k, d, "latency_ns", lat[rnd_below(&seed, 6)]); break;
		case 1: set_knob(k, d, "jitter_ns", jit[rnd_below(&seed, 4)]); break;
		case 2: set_knob(k, d, "completion", comp[rnd_below(&seed, 3)]); break;
		case 3: set_knob(k, d, "queue_depth", qd[rnd_below(&seed, 8)]); break;
		case 4: set_knob(k, d, "fail_every", fail[rnd_below(&seed, 5)]); break;
		case 5: set_knob(k, d, "stall_every", stall[rnd_below(&seed, 5)]); break;
		}
		for (int i = 0; i < ndev && i < 64; i++) {
			check_stats(k, i, &prev[i]);
			check_pending(k, i);
		}
		if (now_ns() > next_abort) {
			int rc = aiodev_knob_write(rnd_below(&seed, ndev), "abort", "1");

			if (rc) {
				k->abort_err++;
				seterr(k->err, sizeof(k->err), "abort: %s", strerror(-rc));
			} else {
				k->aborts++;
			}
			next_abort = now_ns() + (200 + rnd_below(&seed, 800)) * 1000000ull;
		}
		usleep(5000 + rnd_below(&seed, 20000));
	}
	knob_defaults(k);
	for (int i = 0; i < ndev && i < 64; i++)
		check_stats(k, i, &prev[i]);
	k->done = 1;
	_exit(0);
}

/* ---- main ---- */

static int failures;

static void result(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s - stress: %s", ok ? "ok" : "not ok", name);
	if (fmt) {
		printf(ok ? " (" : ": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		if (ok)
			printf(")");
	}
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

/* Wait for pid at most timeout_ns; returns elapsed ns or 0 on timeout. */
static uint64_t reap(pid_t pid, uint64_t timeout_ns)
{
	uint64_t t0 = now_ns();

	while (now_ns() - t0 < timeout_ns) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return now_ns() - t0 ? now_ns() - t0 : 1;
		usleep(2000);
	}
	return 0;
}

static void dump_task(pid_t pid)
{
	char path[64], *b;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	b = aiodev_read_file(path, NULL);
	if (b) {
		fprintf(stderr, "stress: stuck pid %d: %s", pid, b);
		free(b);
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	b = aiodev_read_file(path, NULL);
	if (b) {
		fprintf(stderr, "%s\n", b);
		free(b);
	}
}

struct opts {
	int seconds, nworkers;
	uint64_t seed;
};

static bool parse_args(int argc, char **argv, struct opts *o)
{
	int opt;

	while ((opt = getopt(argc, argv, "t:w:s:")) != -1) {
		switch (opt) {
		case 't': o->seconds = atoi(optarg); break;
		case 'w': o->nworkers = atoi(optarg); break;
		case 's': o->seed = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: stress [-t SECONDS] [-w WORKERS] [-s SEED]\n");
			return false;
		}
	}
	if (o->nworkers < 1 || o->nworkers > MAX_WORKERS)
		o->nworkers = 4;
	return true;
}

/* The devices, the shape of a pending line and the shared results: 0 or the exit code. */
static int setup(const struct opts *o)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	ndev = nr_devices();
	cap = capacity_bytes();
	slow = slow_factor();
	if (ndev < 1) {
		result(false, "setup", "no %s/aiodevN (module not loaded?)", SYSFS_AIODEV);
		return 1;
	}
	if (regcomp(&pending_re,
		    "^id=0x[0-9a-f]+ api=(aio|uring|other) pid=[0-9]+ tid=[0-9]+ comm=[^ ]+ "
		    "op=(read|write) off=[0-9]+ len=[0-9]+ age_ns=[0-9]+ stalled=[01] "
		    "ctx=0x[0-9a-f]+ obj=0x[0-9a-f]+$", REG_EXTENDED | REG_NOSUB))
		return 2;
	printf("# stress: %d s, %d workers x (libaio + io_uring), %d devices, capacity %ld MiB, seed 0x%llx, slow x%d\n",
	       o->seconds, o->nworkers, ndev, cap >> 20, (unsigned long long)o->seed, slow);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	memset(sh, 0, sizeof(*sh));
	return 0;
}

/* The knob process, then the workers (worker i on device i % ndev); returns the knob pid. */
static pid_t start_children(const struct opts *o, pid_t *wpid)
{
	pid_t kpid = fork();

	if (kpid == 0)
		run_knobs(o->seed ^ 0x1234);
	for (int i = 0; i < o->nworkers; i++) {
		wpid[i] = fork();
		if (wpid[i] == 0)
			run_worker(i, i % ndev, o->seed + 1000 * (i + 1), false);
	}
	return kpid;
}

/* Victims killed with -9: how many, how many did not exit in time, the slowest exit. */
struct kills {
	uint64_t n, stuck, max_ns;
};

/* Victims: submit with both APIs, get killed with -9 while requests are pending. */
static void run_victims(int seconds, uint64_t *seed, struct kills *k)
{
	uint64_t deadline = now_ns() + (uint64_t)seconds * 1000000000ull;

	while (now_ns() < deadline) {
		uint64_t vseed = rnd(seed), dt;
		pid_t v = fork();

		if (v == 0)
			run_worker(MAX_WORKERS, vseed % ndev, vseed, true);
		usleep((50 + rnd_below(seed, 400)) * 1000 * (slow > 1 ? 4 : 1));
		kill(v, SIGKILL);
		dt = reap(v, 30ull * slow * 1000000000ull);
		k->n++;
		if (!dt) {
			k->stuck++;
			dump_task(v);
			waitpid(v, NULL, 0);	/* the final abort must free it */
		} else if (dt > k->max_ns) {
			k->max_ns = dt;
		}
		usleep(rnd_below(seed, 200) * 1000);
	}
}

/*
 * Drain. The workers abort their device when nothing moves; one that does not
 * end in time is killed (false). Then the knob process sets the defaults back.
 */
static bool drain_children(const pid_t *wpid, int nworkers, pid_t kpid)
{
	bool ok = true;
	uint64_t t0;

	sh->stop = 1;
	t0 = now_ns();
	for (int i = 0; i < nworkers; i++) {
		if (!reap(wpid[i], 120ull * slow * 1000000000ull)) {
			ok = false;
			dump_task(wpid[i]);
			kill(wpid[i], SIGKILL);
			for (int d = 0; d < ndev; d++)
				write_abort(d);
			waitpid(wpid[i], NULL, 0);
		}
	}
	sh->knob_stop = 1;
	waitpid(kpid, NULL, 0);
	printf("# drain took %.1f s\n", (now_ns() - t0) / 1e9);
	return ok;
}

/*
 * The workers' counts added up. all: the asynchronous requests of both APIs,
 * with the result checks (bad_res, eio, ecanceled, short_res) of the
 * synchronous ones too; api[0] libaio's and api[1] io_uring's cancel counts.
 */
struct totals {
	struct tres all, api[2];
	uint64_t sync_ops;
};

/* Thread @j of a worker: 0 libaio, 1 io_uring, 2 synchronous. */
static void add_tres(struct totals *s, const struct tres *t, int j)
{
	struct tres *tot = &s->all;

	tot->bad_res += t->bad_res;
	tot->eio += t->eio;
	tot->ecanceled += t->ecanceled;
	tot->short_res += t->short_res;
	if (j == 2) {
		s->sync_ops += t->submitted;
		return;
	}
	tot->submitted += t->submitted;
	tot->events += t->events;
	tot->abandoned += t->abandoned;
	tot->dup_events += t->dup_events;
	tot->intr_cancel += t->intr_cancel;
	s->api[j].cancel_calls += t->cancel_calls;
	s->api[j].cancel_inprogress += t->cancel_inprogress;
	s->api[j].cancel_einval += t->cancel_einval;
	tot->cancel_calls += t->cancel_calls;
	tot->cancel_inprogress += t->cancel_inprogress;
	tot->cancel_einval += t->cancel_einval;
	tot->cancel_other += t->cancel_other;
	tot->cancel_won += t->cancel_won;
	tot->destroys += t->destroys;
	if (t->destroy_max_ns > tot->destroy_max_ns)
		tot->destroy_max_ns = t->destroy_max_ns;
	if (t->destroy_max_nofsync_ns > tot->destroy_max_nofsync_ns)
		tot->destroy_max_nofsync_ns = t->destroy_max_nofsync_ns;
	tot->submit_err += t->submit_err;
	tot->drain_aborts += t->drain_aborts;
	tot->leftover += t->leftover;
}

/* Add up every worker thread; false if one did not finish. The first error of each goes to stderr. */
static bool sum_workers(int nworkers, struct totals *s)
{
	char errs[1024] = "";
	bool done = true;

	for (int i = 0; i < nworkers; i++) {
		struct tres *ts[3] = { &sh->aio[i], &sh->uring[i], &sh->sync[i] };

		for (int j = 0; j < 3; j++) {
			struct tres *t = ts[j];

			if (!t->done)
				done = false;
			if (t->err[0]) {
				size_t l = strlen(errs);

				snprintf(errs + l, sizeof(errs) - l, "%sworker %d %s: %s",
					 l ? "; " : "", i, j == 2 ? "sync" : j ? "uring" : "aio", t->err);
			}
			add_tres(s, t, j);
		}
	}
	if (errs[0])
		fprintf(stderr, "stress: %s\n", errs);
	return done;
}

/* Every request accounted for once, with a valid result; cancels and submissions as documented. */
static void report_requests(bool workers_ok, const struct totals *s)
{
	const struct tres *tot = &s->all, *tc = s->api;

	result(workers_ok && !tot->leftover, "workers finished and drained", "%llu left pending",
	       (unsigned long long)tot->leftover);
	result(tot->submitted && tot->submitted == tot->events + tot->abandoned + tot->leftover &&
	       !tot->dup_events && !tot->leftover,
	       "every request of the surviving processes produced exactly one event",
	       "%llu submitted, %llu events, %llu abandoned by io_destroy/ring exit, %llu duplicate or unknown",
	       (unsigned long long)tot->submitted, (unsigned long long)tot->events,
	       (unsigned long long)tot->abandoned, (unsigned long long)tot->dup_events);
	result(!tot->bad_res, "every event carried a valid result",
	       "%llu bad; %llu -EIO, %llu -ECANCELED, %llu -EINTR after ASYNC_CANCEL, %llu short",
	       (unsigned long long)tot->bad_res, (unsigned long long)tot->eio,
	       (unsigned long long)tot->ecanceled, (unsigned long long)tot->intr_cancel,
	       (unsigned long long)tot->short_res);
	result(!tot->cancel_other && tc[0].cancel_calls, "cancels returned documented codes",
	       "io_cancel: %llu calls, %llu -EINPROGRESS (%llu then -ECANCELED), %llu -EINVAL; "
	       "ASYNC_CANCEL: %llu calls, %llu 0/-EALREADY, %llu -ENOENT; %llu other",
	       (unsigned long long)tc[0].cancel_calls, (unsigned long long)tc[0].cancel_inprogress,
	       (unsigned long long)tot->cancel_won, (unsigned long long)tc[0].cancel_einval,
	       (unsigned long long)tc[1].cancel_calls, (unsigned long long)tc[1].cancel_inprogress,
	       (unsigned long long)tc[1].cancel_einval, (unsigned long long)tot->cancel_other);
	result(!tot->submit_err, "submissions accepted", "%llu unexpected errors",
	       (unsigned long long)tot->submit_err);
}

/* Teardowns and kills with requests pending end promptly. */
static void report_teardowns(const struct totals *s, const struct kills *k)
{
	const struct tres *tot = &s->all;

	/*
	 * io_destroy waits for every request; an IOCB_CMD_FSYNC cannot be cancelled and
	 * waits for older writes, stalled ones included, until an abort releases them
	 * (every 0.2-1 s, on a random device): allow more time when one was pending.
	 */
	result(tot->destroy_max_nofsync_ns < 5ull * slow * 1000000000ull &&
	       tot->destroy_max_ns < 30ull * slow * 1000000000ull,
	       "io_destroy / ring exit with requests pending returned promptly",
	       "%llu teardowns, slowest %.3f s, slowest without a pending fsync %.3f s",
	       (unsigned long long)tot->destroys, tot->destroy_max_ns / 1e9,
	       tot->destroy_max_nofsync_ns / 1e9);
	result(!k->stuck && k->n, "kill -9 with requests pending: every victim exited promptly",
	       "%llu kills, %llu stuck, slowest %.3f s, %llu requests submitted by victims",
	       (unsigned long long)k->n, (unsigned long long)k->stuck, k->max_ns / 1e9,
	       (unsigned long long)sh->victim_submitted);
}

/* What the knob process saw: stats, the pending listing, knob and abort writes. */
static void report_knobs(const struct totals *s)
{
	const struct kres *k = &sh->k;

	if (k->err[0])
		fprintf(stderr, "stress: knobs: %s\n", k->err);
	result(k->done && !k->stats_violations && !k->stats_nonmono &&
	       !k->stats_parse_err && k->stats_reads,
	       "stats invariant held at every read",
	       "%llu reads, %llu violations, %llu non-monotonic, %llu unparsable",
	       (unsigned long long)k->stats_reads, (unsigned long long)k->stats_violations,
	       (unsigned long long)k->stats_nonmono, (unsigned long long)k->stats_parse_err);
	result(!k->pending_bad && k->pending_reads, "debugfs pending listing well-formed",
	       "%llu reads, %llu lines, %llu bad", (unsigned long long)k->pending_reads,
	       (unsigned long long)k->pending_lines, (unsigned long long)k->pending_bad);
	result(!k->knob_mismatch && !k->knob_write_err && k->knob_writes,
	       "knob writes accepted and read back",
	       "%llu writes, %llu mismatches, %llu errors", (unsigned long long)k->knob_writes,
	       (unsigned long long)k->knob_mismatch, (unsigned long long)k->knob_write_err);
	result(!k->abort_err, "abort writes accepted", "%llu aborts by the knob process, %llu by draining workers",
	       (unsigned long long)k->aborts, (unsigned long long)s->all.drain_aborts);
}

/* inflight back to 0 once everything is aborted (killed victims' uring rings
 * are torn down asynchronously). */
static void check_inflight_zero(void)
{
	bool zero = false, inv = true;
	struct aiodev_stats st;
	uint64_t end = now_ns() + 30ull * slow * 1000000000ull;
	char why[256] = "";

	while (!zero && now_ns() < end) {
		zero = true;
		for (int d = 0; d < ndev; d++) {
			write_abort(d);
			if (aiodev_stats_read(d, &st, NULL) || st.inflight) {
				zero = false;
				snprintf(why, sizeof(why), "aiodev%d inflight %llu", d,
					 (unsigned long long)st.inflight);
			}
			if (!aiodev_stats_consistent(&st))
				inv = false;
		}
		if (!zero)
			usleep(100000);
	}
	result(zero && inv, "inflight returned to 0 on every device", zero ? NULL : "%s", why);
}

static void print_summary(int seconds, const struct totals *s, const struct kills *k)
{
	const struct tres *tot = &s->all;

	printf("stress: %d s on %s: %llu async requests (%llu events, %llu abandoned at teardown), "
	       "%llu sync requests, "
	       "%llu io_cancel + async cancels, %llu aborts, %llu kills, %llu io_destroy/ring exits, "
	       "%llu knob changes, %llu stats reads, %llu victim requests\n",
	       seconds, getenv("STRESS_KERNEL") ? getenv("STRESS_KERNEL") : "?",
	       (unsigned long long)tot->submitted, (unsigned long long)tot->events,
	       (unsigned long long)tot->abandoned, (unsigned long long)s->sync_ops,
	       (unsigned long long)tot->cancel_calls,
	       (unsigned long long)(sh->k.aborts + tot->drain_aborts), (unsigned long long)k->n,
	       (unsigned long long)tot->destroys, (unsigned long long)sh->k.knob_writes,
	       (unsigned long long)sh->k.stats_reads, (unsigned long long)sh->victim_submitted);
}

int main(int argc, char **argv)
{
	struct opts o = { .seconds = 60, .nworkers = 4, .seed = now_ns() ^ getpid() };
	pid_t wpid[MAX_WORKERS], kpid;
	struct totals sum = { 0 };
	struct kills kills = { 0 };
	bool workers_ok;
	int rc;

	if (!parse_args(argc, argv, &o))
		return 2;
	rc = setup(&o);
	if (rc)
		return rc;
	kpid = start_children(&o, wpid);
	run_victims(o.seconds, &o.seed, &kills);
	workers_ok = drain_children(wpid, o.nworkers, kpid);
	if (!sum_workers(o.nworkers, &sum))
		workers_ok = false;
	report_requests(workers_ok, &sum);
	report_teardowns(&sum, &kills);
	report_knobs(&sum);
	check_inflight_zero();
	print_summary(o.seconds, &sum, &kills);
	return failures ? 1 : 0;
}
