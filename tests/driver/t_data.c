// SPDX-License-Identifier: GPL-2.0
/*
 * Data integrity: synchronous calls, libaio and io_uring (plain and vectored),
 * in every completion mode, with and without latency; capacity edges.
 */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define NREQ 64
#define SLOT (64 * 1024)	/* each request owns one 64 KiB slot */

static off_t capacity;

/* test_sync's buffers: what is written (a) and what is read back (b) */
static char sync_a[3 * 4096], sync_b[3 * 4096];

/* Sets capacity from SEEK_END and checks it against the module parameter. */
static void sync_capacity(int fd)
{
	long long mb = -1;
	FILE *f;

	capacity = lseek(fd, 0, SEEK_END);
	f = fopen("/sys/module/aiodev/parameters/capacity_mb", "r");
	if (!f || fscanf(f, "%lld", &mb) != 1)
		die("cannot read capacity_mb");
	fclose(f);
	check(capacity == mb << 20, "sync: SEEK_END is the capacity (capacity_mb MiB)",
	      "%lld, want %lld MiB", (long long)capacity, mb);
}

/* Zeros where never written; plain and positioned calls, unaligned, crossing pages. */
static void sync_plain(int fd)
{
	char *a = sync_a, *b = sync_b;
	bool ok;
	ssize_t n;

	/* never written: zeros */
	n = pread(fd, b, sizeof(sync_b), capacity - 65536);
	ok = n == (ssize_t)sizeof(sync_b);
	for (size_t i = 0; ok && i < sizeof(sync_b); i++)
		ok = b[i] == 0;
	check(ok, "sync: never-written range reads as zeros", "n=%zd", n);

	/* plain, unaligned, crossing pages */
	fill_pattern(a, 10000, 1);
	n = pwrite(fd, a, 10000, 1000);
	memset(b, 0, sizeof(sync_b));
	ok = n == 10000 && pread(fd, b, 10000, 1000) == 10000 && check_pattern(b, 10000, 1);
	check(ok, "sync: pwrite/pread unaligned 10000 bytes", "n=%zd", n);

	/* write(2)/read(2) advance the file position */
	fill_pattern(a, 4096, 2);
	lseek(fd, 1 << 20, SEEK_SET);
	ok = write(fd, a, 4096) == 4096 && lseek(fd, 0, SEEK_CUR) == (1 << 20) + 4096;
	lseek(fd, 1 << 20, SEEK_SET);
	ok = ok && read(fd, b, 4096) == 4096 && check_pattern(b, 4096, 2) &&
	     lseek(fd, 0, SEEK_CUR) == (1 << 20) + 4096;
	check(ok, "sync: write/read move the file position", "mismatch");
}

/* vectored, the segments split differently on each side */
static void sync_vectored(int fd)
{
	char *a = sync_a, *b = sync_b;
	struct iovec iov[3];
	bool ok;
	ssize_t n;

	fill_pattern(a, sizeof(sync_a), 3);
	iov[0] = (struct iovec){ a, 100 };
	iov[1] = (struct iovec){ a + 100, 5000 };
	iov[2] = (struct iovec){ a + 5100, sizeof(sync_a) - 5100 };
	n = pwritev(fd, iov, 3, 2 << 20);
	memset(b, 0, sizeof(sync_b));
	iov[0] = (struct iovec){ b, 7000 };
	iov[1] = (struct iovec){ b + 7000, 1 };
	iov[2] = (struct iovec){ b + 7001, sizeof(sync_b) - 7001 };
	ok = n == (ssize_t)sizeof(sync_a) &&
	     preadv2(fd, iov, 3, 2 << 20, 0) == (ssize_t)sizeof(sync_b) &&
	     check_pattern(b, sizeof(sync_b), 3);
	check(ok, "sync: pwritev/preadv2 with 3 segments", "n=%zd", n);
}

/* capacity edges */
static void sync_edges(int fd)
{
	char *a = sync_a, *b = sync_b;
	ssize_t n;

	n = pread(fd, b, 4096, capacity);
	check(n == 0, "sync: read at capacity returns 0", "n=%zd errno=%d", n, errno);
	n = pread(fd, b, 4096, capacity + 12345);
	check(n == 0, "sync: read past capacity returns 0", "n=%zd errno=%d", n, errno);
	errno = 0;
	n = pwrite(fd, a, 4096, capacity);
	check(n == -1 && errno == ENOSPC, "sync: write at capacity fails with ENOSPC",
	      "n=%zd errno=%d", n, errno);
	fill_pattern(a, 200, 4);
	n = pwrite(fd, a, 200, capacity - 100);
	check(n == 100, "sync: write crossing the end is shortened", "n=%zd", n);
	memset(b, 0, sizeof(sync_b));
	n = pread(fd, b, 200, capacity - 100);
	check(n == 100 && check_pattern(b, 100, 4), "sync: read crossing the end is shortened",
	      "n=%zd", n);
}

/* RWF_NOWAIT: fine without latency, EAGAIN when the latency would block */
static void sync_nowait(int fd)
{
	struct iovec iov[1] = { { sync_b, 4096 } };
	ssize_t n;

	n = preadv2(fd, iov, 1, 0, RWF_NOWAIT);
	check(n == 4096, "sync: preadv2 RWF_NOWAIT without latency", "n=%zd errno=%d", n, errno);
	set_knob("latency_ns", "1000000");
	errno = 0;
	n = preadv2(fd, iov, 1, 0, RWF_NOWAIT);
	check(n == -1 && errno == EAGAIN, "sync: preadv2 RWF_NOWAIT with latency gets EAGAIN",
	      "n=%zd errno=%d", n, errno);
	set_knob("latency_ns", "0");
}

static void test_sync(void)
{
	int fd = open_dev(O_RDWR);

	sync_capacity(fd);
	sync_plain(fd);
	sync_vectored(fd);
	sync_edges(fd);
	sync_nowait(fd);
	close(fd);

	fd = open(DEV_PATH, O_RDWR | O_DIRECT);
	check(fd >= 0, "sync: O_DIRECT open succeeds", "errno=%d", errno);
	if (fd >= 0)
		close(fd);
}

/* request i: offset i*SLOT + (i%7)*512, length 4096 + (i%5)*1000 */
static off_t req_off(int i) { return (off_t)i * SLOT + (i % 7) * 512 + (8 << 20); }
static size_t req_len(int i) { return 4096 + (i % 5) * 1000; }

/* One test_aio run: its knobs, its context and the NREQ requests it reuses. */
struct aio_run {
	const char *mode;
	uint64_t lat, jit, seed;
	int fd;
	io_context_t ctx;
	struct iocb cbs[NREQ], *cbp[NREQ];
	struct iovec iov[NREQ][2];
	struct io_event ev[NREQ];
};

static char aio_wbuf[NREQ][SLOT], aio_rbuf[NREQ][SLOT];

/* NREQ patterned writes, every second one vectored, each in its own slot. */
static void aio_writes(struct aio_run *r)
{
	char name[128];
	int i, got, bad = 0;

	for (i = 0; i < NREQ; i++) {
		fill_pattern(aio_wbuf[i], req_len(i), r->seed + i);
		if (i % 2) {
			r->iov[i][0] = (struct iovec){ aio_wbuf[i], 1000 };
			r->iov[i][1] = (struct iovec){ aio_wbuf[i] + 1000, req_len(i) - 1000 };
			io_prep_pwritev(&r->cbs[i], r->fd, r->iov[i], 2, req_off(i));
		} else {
			io_prep_pwrite(&r->cbs[i], r->fd, aio_wbuf[i], req_len(i), req_off(i));
		}
		r->cbs[i].data = (void *)(long)i;
		r->cbp[i] = &r->cbs[i];
	}
	submit_all(r->ctx, r->cbp, NREQ);
	got = reap(r->ctx, r->ev, NREQ, 5000);
	for (i = 0; i < got; i++) {
		long k = (long)r->ev[i].data;

		if (r->ev[i].obj != &r->cbs[k] || (long)r->ev[i].res != (long)req_len(k))
			bad++;
	}
	snprintf(name, sizeof(name), "aio %s lat=%lu jit=%lu: %d writes (half vectored) complete",
		 r->mode, (unsigned long)r->lat, (unsigned long)r->jit, NREQ);
	check(got == NREQ && !bad, name, "got=%d bad=%d", got, bad);
}

/* The same slots read back, every third read vectored. */
static void aio_reads(struct aio_run *r)
{
	char name[128];
	int i, got, bad = 0;

	memset(aio_rbuf, 0, sizeof(aio_rbuf));
	for (i = 0; i < NREQ; i++) {
		if (i % 3 == 0) {
			r->iov[i][0] = (struct iovec){ aio_rbuf[i], 3000 };
			r->iov[i][1] = (struct iovec){ aio_rbuf[i] + 3000, req_len(i) - 3000 };
			io_prep_preadv(&r->cbs[i], r->fd, r->iov[i], 2, req_off(i));
		} else {
			io_prep_pread(&r->cbs[i], r->fd, aio_rbuf[i], req_len(i), req_off(i));
		}
		r->cbs[i].data = (void *)(long)i;
	}
	submit_all(r->ctx, r->cbp, NREQ);
	got = reap(r->ctx, r->ev, NREQ, 5000);
	for (i = 0; i < got; i++) {
		long k = (long)r->ev[i].data;

		if ((long)r->ev[i].res != (long)req_len(k) ||
		    !check_pattern(aio_rbuf[k], req_len(k), r->seed + k))
			bad++;
	}
	snprintf(name, sizeof(name), "aio %s lat=%lu jit=%lu: %d reads (third vectored) return the data",
		 r->mode, (unsigned long)r->lat, (unsigned long)r->jit, NREQ);
	check(got == NREQ && !bad, name, "got=%d bad=%d", got, bad);
}

/* capacity edges through libaio */
static void aio_edges(struct aio_run *r)
{
	char name[128];
	int i, got, bad = 0;

	io_prep_pread(&r->cbs[0], r->fd, aio_rbuf[0], 4096, capacity);
	io_prep_pwrite(&r->cbs[1], r->fd, aio_wbuf[0], 4096, capacity);
	io_prep_pread(&r->cbs[2], r->fd, aio_rbuf[2], 4096, capacity - 1000);
	for (i = 0; i < 3; i++)
		r->cbs[i].data = (void *)(long)i;
	submit_all(r->ctx, r->cbp, 3);
	got = reap(r->ctx, r->ev, 3, 5000);
	for (i = 0; i < got; i++) {
		long k = (long)r->ev[i].data, want = k == 0 ? 0 : k == 1 ? -ENOSPC : 1000;

		if ((long)r->ev[i].res != want)
			bad++;
	}
	snprintf(name, sizeof(name),
		 "aio %s lat=%lu: read at end 0, write at end -ENOSPC, crossing read shortened",
		 r->mode, (unsigned long)r->lat);
	check(got == 3 && !bad, name, "got=%d bad=%d", got, bad);
}

static void test_aio(const char *mode, uint64_t lat, uint64_t jit, uint64_t seed)
{
	struct aio_run r = { .mode = mode, .lat = lat, .jit = jit, .seed = seed };

	set_knob("completion", mode);
	set_knob_u64("latency_ns", lat);
	set_knob_u64("jitter_ns", jit);
	r.fd = open_dev(O_RDWR);
	if (io_setup(NREQ, &r.ctx))
		die("io_setup");
	aio_writes(&r);
	aio_reads(&r);
	aio_edges(&r);
	io_destroy(r.ctx);
	close(r.fd);
}

static void test_uring(const char *mode, uint64_t lat, uint64_t jit, uint64_t seed)
{
	static char wbuf[NREQ][SLOT], rbuf[NREQ][SLOT];
	struct iovec iov[NREQ][2];
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	char name[128];
	int fd, i, got = 0, bad = 0, workers;

	set_knob("completion", mode);
	set_knob_u64("latency_ns", lat);
	set_knob_u64("jitter_ns", jit);
	fd = open_dev(O_RDWR);
	if (io_uring_queue_init(NREQ, &ring, 0))
		die("io_uring_queue_init");

	for (int pass = 0; pass < 2; pass++) {
		got = bad = 0;
		for (i = 0; i < NREQ; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			if (pass == 0) {
				fill_pattern(wbuf[i], req_len(i), seed + i);
				if (i % 2) {
					iov[i][0] = (struct iovec){ wbuf[i], 1000 };
					iov[i][1] = (struct iovec){ wbuf[i] + 1000, req_len(i) - 1000 };
					io_uring_prep_writev(sqe, fd, iov[i], 2, req_off(i));
				} else {
					io_uring_prep_write(sqe, fd, wbuf[i], req_len(i), req_off(i));
				}
			} else {
				memset(rbuf[i], 0, req_len(i));
				if (i % 2 == 0) {
					iov[i][0] = (struct iovec){ rbuf[i], 2048 };
					iov[i][1] = (struct iovec){ rbuf[i] + 2048, req_len(i) - 2048 };
					io_uring_prep_readv(sqe, fd, iov[i], 2, req_off(i));
				} else {
					io_uring_prep_read(sqe, fd, rbuf[i], req_len(i), req_off(i));
				}
			}
			io_uring_sqe_set_data64(sqe, i);
		}
		if (io_uring_submit(&ring) != NREQ)
			die("io_uring_submit");
		workers = count_iou_workers();
		for (i = 0; i < NREQ; i++) {
			struct __kernel_timespec ts = { 5, 0 };
			long k;

			if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts))
				break;
			k = (long)io_uring_cqe_get_data64(cqe);
			if (cqe->res != (int)req_len(k) ||
			    (pass == 1 && !check_pattern(rbuf[k], req_len(k), seed + k)))
				bad++;
			io_uring_cqe_seen(&ring, cqe);
			got++;
		}
		snprintf(name, sizeof(name), "io_uring %s lat=%lu jit=%lu: %d %s (half vectored) %s",
			 mode, (unsigned long)lat, (unsigned long)jit, NREQ,
			 pass ? "reads" : "writes", pass ? "return the data" : "complete");
		check(got == NREQ && !bad && workers == 0, name, "got=%d bad=%d iou-wrk=%d",
		      got, bad, workers);
	}
	io_uring_queue_exit(&ring);
	close(fd);
}

int main(void)
{
	static const char *const modes[] = { "hrtimer", "workqueue", "inline" };

	reset_knobs();
	test_sync();
	for (int m = 0; m < 3; m++) {
		test_aio(modes[m], 0, 0, 100 + m * 1000);
		test_aio(modes[m], 1000000, 2000000, 200 + m * 1000);
		test_uring(modes[m], 0, 0, 300 + m * 1000);
		test_uring(modes[m], 1000000, 2000000, 400 + m * 1000);
	}
	reset_knobs();
	return failures() ? 1 : 0;
}
