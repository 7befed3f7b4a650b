// SPDX-License-Identifier: GPL-2.0
/*
 * t_late_reap - requests reaped a known time after they completed, for the reap
 * stage: submits N 4 KiB reads of PATH (libaio, or io_uring with -u), waits until
 * every completion is in the ring without taking any (it watches the ring's tail
 * in its own memory, no syscall), sleeps MS milliseconds, then reaps them all:
 *   libaio    one io_getevents
 *   io_uring  advances the CQ head, then enters io_uring_enter once with nothing
 *             to do, where a tracer sees the head move
 * and prints "pid=P submitted=N reaped=R ok=K". With -x it never reaps: it
 * sleeps MS milliseconds with everything completed, then exits.
 *
 *   t_late_reap [-u] [-n N] [-r MS] [-x] [-w FILE] PATH
 *     -w FILE   wait until FILE exists before submitting (lets a tracer attach)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define USAGE "usage: t_late_reap [-u] [-n N] [-r MS] [-x] [-w FILE] PATH\n"
#define BS 4096
#define WAIT_MS 10000	/* completions not all in the ring after this: give up */

struct opts {
	bool uring, never;
	int n, ms;
	const char *waitfile, *path;
};

/* the head of the ring io_setup maps into the process (fs/aio.c's struct aio_ring) */
struct aio_ring_head {
	unsigned int id, nr, head, tail;
};

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static bool parse_args(int argc, char **argv, struct opts *o)
{
	int opt;

	*o = (struct opts){ .n = 8, .ms = 50 };
	while ((opt = getopt(argc, argv, "un:r:xw:")) != -1) {
		switch (opt) {
		case 'u': o->uring = true; break;
		case 'n': o->n = atoi(optarg); break;
		case 'r': o->ms = atoi(optarg); break;
		case 'x': o->never = true; break;
		case 'w': o->waitfile = optarg; break;
		default: return false;
		}
	}
	if (optind != argc - 1 || o->n < 1 || o->n > 256 || o->ms < 0)
		return false;
	o->path = argv[optind];
	return true;
}

/* until @done() says every completion is in, polling every 100 us */
static bool wait_for(bool (*done)(void *), void *arg)
{
	for (int i = 0; i < WAIT_MS * 10; i++) {
		if (done(arg))
			return true;
		usleep(100);
	}
	return false;
}

struct aio_state {
	io_context_t ctx;
	int n;
};

static bool aio_all_in(void *arg)
{
	const struct aio_state *s = arg;
	const volatile struct aio_ring_head *r = (const void *)s->ctx;

	return (r->tail + r->nr - r->head) % r->nr >= (unsigned int)s->n;
}

static int run_aio(const struct opts *o, int fd, char *buf, int *reaped, int *ok)
{
	struct aio_state s = { 0, o->n };
	struct iocb cbs[256], *cbp[256];
	struct io_event ev[256];
	int rc;

	rc = io_setup(o->n, &s.ctx);
	if (rc)
		return rc;
	for (int i = 0; i < o->n; i++) {
		io_prep_pread(&cbs[i], fd, buf + (size_t)i * BS, BS, (long long)i * BS);
		cbs[i].data = (void *)(long)(i + 1);
		cbp[i] = &cbs[i];
	}
	rc = io_submit(s.ctx, o->n, cbp);
	if (rc != o->n)
		return rc < 0 ? rc : -EAGAIN;
	if (!wait_for(aio_all_in, &s))
		return -ETIMEDOUT;
	sleep_ms(o->ms);
	if (o->never)
		return 0;
	rc = io_getevents(s.ctx, o->n, o->n, ev, NULL);
	if (rc < 0)
		return rc;
	*reaped = rc;
	for (int i = 0; i < rc; i++)
		*ok += ev[i].res == BS;
	return io_destroy(s.ctx);
}

static bool uring_all_in(void *arg)
{
	struct io_uring *ring = arg;

	return io_uring_cq_ready(ring) >= ring->sq.ring_entries;
}

static int run_uring(const struct opts *o, int fd, char *buf, int *reaped, int *ok)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;
	int rc;

	rc = io_uring_queue_init((unsigned int)o->n, &ring, 0);
	if (rc)
		return rc;
	if (ring.sq.ring_entries != (unsigned int)o->n) {
		fprintf(stderr, "t_late_reap: -n must be a power of two with -u\n");
		return -EINVAL;
	}
	for (int i = 0; i < o->n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, fd, buf + (size_t)i * BS, BS, (unsigned long long)i * BS);
		io_uring_sqe_set_data64(sqe, (unsigned long long)i + 1);
	}
	rc = io_uring_submit(&ring);
	if (rc != o->n)
		return rc < 0 ? rc : -EAGAIN;
	/* ring_entries CQEs at most are looked for: the CQ ring is twice the SQ ring */
	if (!wait_for(uring_all_in, &ring))
		return -ETIMEDOUT;
	sleep_ms(o->ms);
	if (o->never)
		return 0;
	io_uring_for_each_cqe(&ring, head, cqe) {
		*ok += cqe->res == BS;
		n++;
	}
	io_uring_cq_advance(&ring, n);
	*reaped = (int)n;
	/* the kernel entry where the head is seen: nothing to submit, nothing to wait for */
	if (syscall(__NR_io_uring_enter, ring.ring_fd, 0, 0, 0, NULL, 0) < 0)
		return -errno;
	io_uring_queue_exit(&ring);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	int fd, rc, reaped = 0, ok = 0;
	char *buf;

	if (!parse_args(argc, argv, &o)) {
		fputs(USAGE, stderr);
		return 2;
	}
	fd = open(o.path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "t_late_reap: %s: %s\n", o.path, strerror(errno));
		return 1;
	}
	if (posix_memalign((void **)&buf, BS, (size_t)o.n * BS))
		return 1;
	while (o.waitfile && access(o.waitfile, F_OK))
		usleep(10000);
	rc = o.uring ? run_uring(&o, fd, buf, &reaped, &ok) : run_aio(&o, fd, buf, &reaped, &ok);
	if (rc < 0) {
		fprintf(stderr, "t_late_reap: %s\n", strerror(-rc));
		return 1;
	}
	printf("pid=%d submitted=%d reaped=%d ok=%d\n", getpid(), o.n, reaped, ok);
	return 0;
}
