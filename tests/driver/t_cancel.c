// SPDX-License-Identifier: GPL-2.0
/*
 * io_cancel semantics, abort, fail_every/stall_every counts and the debugfs
 * pending listing.
 */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define MS 1000000ull

static char buf[64][4096];

static struct aiodev_stats st0;

static void stats_mark(void)
{
	read_stats(&st0);
}

static void test_cancel_basic(void)
{
	struct iocb cb, cb2, *cbp = &cb;
	struct io_event ev, evc;
	io_context_t ctx = 0;
	struct aiodev_stats st;
	int fd = open_dev(O_RDWR), r, got;
	uint64_t t0;

	if (io_setup(8, &ctx))
		die("io_setup");

	/* a stalled request */
	set_knob("stall_every", "1");
	stats_mark();
	io_prep_pread(&cb, fd, buf[0], 4096, 0);
	submit_all(ctx, &cbp, 1);
	got = reap(ctx, &ev, 1, 200);
	check(got == 0, "cancel: a stalled request does not complete by itself", "got=%d", got);
	r = io_cancel(ctx, &cb, &evc);
	check(r == -EINPROGRESS, "cancel: io_cancel of a stalled request returns -EINPROGRESS",
	      "r=%d", r);
	got = reap(ctx, &ev, 1, 1000);
	check(got == 1 && ev.obj == &cb && (long)ev.res == -ECANCELED,
	      "cancel: its event arrives with res -ECANCELED", "got=%d res=%ld", got,
	      got ? (long)ev.res : 0);
	r = io_cancel(ctx, &cb, &evc);
	check(r == -EINVAL, "cancel: a second io_cancel returns -EINVAL", "r=%d", r);
	read_stats(&st);
	check(st.cancelled == st0.cancelled + 1 && st.stalled == st0.stalled + 1 &&
	      st.inflight == 0 && aiodev_stats_consistent(&st),
	      "cancel: stats count 1 stalled, 1 cancelled, 0 inflight", "cancelled +%lu stalled +%lu",
	      (unsigned long)(st.cancelled - st0.cancelled), (unsigned long)(st.stalled - st0.stalled));
	set_knob("stall_every", "0");

	/* pending with a long latency, in both timer-driven modes */
	for (int m = 0; m < 2; m++) {
		const char *mode = m ? "workqueue" : "hrtimer";
		char name[128];

		set_knob("completion", mode);
		set_knob("latency_ns", "5000000000");
		io_prep_pread(&cb, fd, buf[0], 4096, 0);
		submit_all(ctx, &cbp, 1);
		t0 = now_ns();
		r = io_cancel(ctx, &cb, &evc);
		got = reap(ctx, &ev, 1, 2000);
		snprintf(name, sizeof(name),
			 "cancel %s: a request with 5 s latency is cancelled at once (-EINPROGRESS, -ECANCELED)",
			 mode);
		check(r == -EINPROGRESS && got == 1 && (long)ev.res == -ECANCELED &&
		      now_ns() - t0 < 1000 * MS, name, "r=%d got=%d res=%ld", r, got,
		      got ? (long)ev.res : 0);
	}
	set_knob("completion", "hrtimer");
	set_knob("latency_ns", "0");

	/* finished: completed and reaped, or completed and not yet reaped */
	io_prep_pread(&cb, fd, buf[0], 4096, 0);
	submit_all(ctx, &cbp, 1);
	got = reap(ctx, &ev, 1, 1000);
	r = io_cancel(ctx, &cb, &evc);
	check(got == 1 && r == -EINVAL, "cancel: io_cancel of a reaped request returns -EINVAL",
	      "got=%d r=%d", got, r);
	io_prep_pread(&cb, fd, buf[0], 4096, 0);
	submit_all(ctx, &cbp, 1);
	sleep_ms(50);
	r = io_cancel(ctx, &cb, &evc);
	got = reap(ctx, &ev, 1, 1000);
	check(got == 1 && r == -EINVAL && (long)ev.res == 4096,
	      "cancel: io_cancel of a completed, unreaped request returns -EINVAL", "got=%d r=%d", got, r);
	io_prep_pread(&cb2, fd, buf[1], 4096, 0);
	r = io_cancel(ctx, &cb2, &evc);
	check(r == -EINVAL, "cancel: io_cancel of an unknown iocb returns -EINVAL", "r=%d", r);
	io_destroy(ctx);
	close(fd);
}

/* Cancel racing completion: -EINPROGRESS <=> event res -ECANCELED, one event each. */
static void test_cancel_race(void)
{
	enum { N = 400 };
	static struct iocb cbs[N];
	static int cres[N];
	struct iocb *cbp;
	struct io_event ev[64], evc;
	io_context_t ctx = 0;
	int fd = open_dev(O_RDWR), i, got = 0, mismatch = 0, cancelled = 0, other = 0;
	static int seen[N];

	set_knob("latency_ns", "20000");
	set_knob("jitter_ns", "100000");
	if (io_setup(N, &ctx))
		die("io_setup");
	for (i = 0; i < N; i++) {
		io_prep_pread(&cbs[i], fd, buf[i % 64], 4096, 0);
		cbs[i].data = (void *)(long)i;
		cbp = &cbs[i];
		submit_all(ctx, &cbp, 1);
		if (i % 3 == 0)
			usleep(i % 50);
		cres[i] = io_cancel(ctx, &cbs[i], &evc);
	}
	while (got < N) {
		int r = reap(ctx, ev, 64 < N - got ? 64 : N - got, 3000);

		if (r <= 0)
			break;
		for (int k = 0; k < r; k++) {
			long j = (long)ev[k].data;

			seen[j]++;
			if ((long)ev[k].res == -ECANCELED) {
				cancelled++;
				if (cres[j] != -EINPROGRESS)
					mismatch++;
			} else {
				other++;
				if (cres[j] != -EINVAL || (long)ev[k].res != 4096)
					mismatch++;
			}
		}
		got += r;
	}
	for (i = 0; i < N; i++)
		if (seen[i] != 1)
			mismatch++;
	check(got == N && !mismatch,
	      "cancel race: 400 cancels against 20-120 us completions, one event each, -EINPROGRESS iff -ECANCELED",
	      "got=%d mismatch=%d", got, mismatch);
	printf("# cancel race: %d cancelled, %d completed\n", cancelled, other);
	io_destroy(ctx);
	close(fd);
	set_knob("latency_ns", "0");
	set_knob("jitter_ns", "0");
}

/*
 * A name that would forge fields and lines if written raw (PR_SET_NAME takes any
 * byte but NUL): space, newline, tab, backslash, ESC, half a UTF-8 character.
 * The listing writes each of those bytes as \xHH.
 */
#define T_CANCEL_COMM "t_c \nid=1\tx\\\x1b\xc3"
#define T_CANCEL_COMM_LISTED "t_c\\x20\\x0aid=1\\x09x\\x5c\\x1b\\xc3"

static int parse_pending(int want_stalled, int *nlines, const char **why)
{
	FILE *f = fopen(DBG_PENDING, "r");
	char line[512];
	int bad = 0;

	*nlines = 0;
	*why = "";
	if (!f) {
		*why = "cannot open";
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long id, ctxv, obj;
		char api[16], comm[64], op[16];
		int pid, tid, stalled, n = 0;
		long long off;
		unsigned long long age;
		size_t len;

		(*nlines)++;
		if (sscanf(line, "id=0x%lx api=%15s pid=%d tid=%d comm=%63s op=%15s off=%lld len=%zu "
			   "age_ns=%llu stalled=%d ctx=0x%lx obj=0x%lx%n",
			   &id, api, &pid, &tid, comm, op, &off, &len, &age, &stalled, &ctxv, &obj,
			   &n) != 12 || line[n] != '\n') {
			*why = "line does not match the format";
			bad++;
			continue;
		}
		if (pid != getpid() || tid != gettid() || strcmp(comm, T_CANCEL_COMM_LISTED) ||
		    stalled != want_stalled || !id || len != 4096 ||
		    (strcmp(api, "aio") && strcmp(api, "uring")) ||
		    (strcmp(op, "read") && strcmp(op, "write"))) {
			*why = "field values wrong";
			bad++;
		}
	}
	fclose(f);
	return bad;
}

static void test_abort_and_listing(void)
{
	struct iocb cbs[4], *cbp[4];
	struct io_event ev[4];
	io_context_t ctx = 0;
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct aiodev_stats st;
	int fd = open_dev(O_RDWR), i, got, ugot = 0, ubad = 0, lines, bad;
	const char *why;

	prctl(PR_SET_NAME, T_CANCEL_COMM);
	if (io_setup(4, &ctx) || io_uring_queue_init(8, &ring, 0))
		die("setup");
	set_knob("stall_every", "1");
	stats_mark();
	for (i = 0; i < 4; i++) {
		if (i % 2)
			io_prep_pwrite(&cbs[i], fd, buf[i], 4096, (i + 10) * 4096);
		else
			io_prep_pread(&cbs[i], fd, buf[i], 4096, (i + 10) * 4096);
		cbp[i] = &cbs[i];
	}
	submit_all(ctx, cbp, 4);
	for (i = 0; i < 4; i++)
		io_uring_prep_read(io_uring_get_sqe(&ring), fd, buf[8 + i], 4096, i * 4096);
	io_uring_submit(&ring);
	sleep_ms(100);
	read_stats(&st);
	check(st.stalled == st0.stalled + 8 && st.inflight == 8,
	      "abort: 4 libaio + 4 io_uring requests stalled", "stalled +%lu inflight %lu",
	      (unsigned long)(st.stalled - st0.stalled), (unsigned long)st.inflight);
	bad = parse_pending(1, &lines, &why);
	check(lines == 8 && !bad, "debugfs: pending lists 8 stalled requests in the documented format (comm escaped)",
	      "%d lines, %d bad (%s)", lines, bad, why);

	set_knob("abort", "1");
	got = reap(ctx, ev, 4, 1000);
	for (i = 0; i < got; i++)
		if ((long)ev[i].res != -ECANCELED)
			got = -100;
	for (i = 0; i < 4; i++) {
		struct __kernel_timespec ts = { 1, 0 };

		if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts))
			break;
		ugot++;
		if (cqe->res != -ECANCELED)
			ubad++;
		io_uring_cqe_seen(&ring, cqe);
	}
	check(got == 4 && ugot == 4 && !ubad,
	      "abort: releases stalled libaio and io_uring requests with -ECANCELED",
	      "aio got=%d uring got=%d bad=%d", got, ugot, ubad);
	read_stats(&st);
	check(st.cancelled == st0.cancelled + 8 && st.inflight == 0 && aiodev_stats_consistent(&st),
	      "abort: stats count 8 cancelled, 0 inflight", "cancelled +%lu inflight %lu",
	      (unsigned long)(st.cancelled - st0.cancelled), (unsigned long)st.inflight);
	bad = parse_pending(1, &lines, &why);
	check(lines == 0, "debugfs: pending is empty after abort", "%d lines", lines);
	set_knob("stall_every", "0");

	/* abort also takes requests that would complete later by themselves */
	set_knob("latency_ns", "10000000000");
	submit_all(ctx, cbp, 4);
	set_knob("abort", "1");
	got = reap(ctx, ev, 4, 1000);
	for (i = 0; i < got; i++)
		if ((long)ev[i].res != -ECANCELED)
			got = -100;
	check(got == 4, "abort: requests waiting on a 10 s latency complete with -ECANCELED",
	      "got=%d", got);
	set_knob("latency_ns", "0");
	io_uring_queue_exit(&ring);
	io_destroy(ctx);
	close(fd);
	prctl(PR_SET_NAME, "t_cancel");
}

static void test_fail_every(void)
{
	enum { N = 30 };
	struct iocb cbs[N], *cbp[N];
	struct io_event ev[N];
	io_context_t ctx = 0;
	struct aiodev_stats st;
	int fd = open_dev(O_RDWR), i, got, eio = 0, wrong = 0, data_bad = 0;
	static char a[4096], b[N][4096], r[4096];
	ssize_t n1, n2, n3;

	/* old contents A everywhere */
	fill_pattern(a, 4096, 5);
	for (i = 0; i < N; i++)
		if (pwrite(fd, a, 4096, (off_t)(100 + i) * 4096) != 4096)
			die("pwrite");
	if (io_setup(N, &ctx))
		die("io_setup");
	set_knob("fail_every", "3");
	stats_mark();
	for (i = 0; i < N; i++) {
		fill_pattern(b[i], 4096, 1000 + i);
		io_prep_pwrite(&cbs[i], fd, b[i], 4096, (off_t)(100 + i) * 4096);
		cbs[i].data = (void *)(long)i;
		cbp[i] = &cbs[i];
	}
	submit_all(ctx, cbp, N);
	got = reap(ctx, ev, N, 3000);
	for (i = 0; i < got; i++) {
		long k = (long)ev[i].data;
		bool should_fail = k % 3 == 2;	/* the 3rd, 6th, ... admitted */

		if ((long)ev[i].res == -EIO)
			eio++;
		if (should_fail != ((long)ev[i].res == -EIO))
			wrong++;
	}
	read_stats(&st);
	check(got == N && eio == 10 && !wrong && st.failed == st0.failed + 10 &&
	      st.completed == st0.completed + 20,
	      "fail_every=3: 10 of 30 writes (every 3rd) fail with -EIO, stats agree",
	      "got=%d eio=%d wrong=%d failed +%lu", got, eio, wrong,
	      (unsigned long)(st.failed - st0.failed));
	set_knob("fail_every", "0");
	for (i = 0; i < N; i++) {
		if (pread(fd, r, 4096, (off_t)(100 + i) * 4096) != 4096)
			die("pread");
		if (memcmp(r, i % 3 == 2 ? a : b[i], 4096))
			data_bad++;
	}
	check(!data_bad, "fail_every=3: failed writes moved no data, the others did",
	      "%d blocks wrong", data_bad);

	/* the count covers synchronous requests too */
	set_knob("fail_every", "2");
	n1 = pread(fd, r, 4096, 0);
	errno = 0;
	n2 = pread(fd, r, 4096, 0);
	int err2 = errno;
	n3 = pread(fd, r, 4096, 0);
	check(n1 == 4096 && n2 == -1 && err2 == EIO && n3 == 4096,
	      "fail_every=2: every 2nd synchronous read fails with EIO", "%zd %zd(%d) %zd", n1, n2,
	      err2, n3);
	set_knob("fail_every", "0");
	io_destroy(ctx);
	close(fd);
}

static void test_stall_every(void)
{
	enum { N = 20 };
	struct iocb cbs[N], *cbp[N];
	struct io_event ev[N];
	io_context_t ctx = 0;
	struct aiodev_stats st;
	int fd = open_dev(O_RDWR), i, got, lines, wrong = 0;
	const char *why;

	if (io_setup(N, &ctx))
		die("io_setup");
	set_knob("stall_every", "4");
	stats_mark();
	for (i = 0; i < N; i++) {
		io_prep_pread(&cbs[i], fd, buf[i], 4096, i * 4096);
		cbs[i].data = (void *)(long)i;
		cbp[i] = &cbs[i];
	}
	submit_all(ctx, cbp, N);
	got = reap(ctx, ev, N, 300);
	for (i = 0; i < got; i++)
		if ((long)ev[i].data % 4 == 3 || (long)ev[i].res != 4096)
			wrong++;
	read_stats(&st);
	check(got == 15 && !wrong && st.stalled == st0.stalled + 5 && st.inflight == 5,
	      "stall_every=4: 15 of 20 complete, every 4th (5) stays pending",
	      "got=%d wrong=%d stalled +%lu inflight %lu", got, wrong,
	      (unsigned long)(st.stalled - st0.stalled), (unsigned long)st.inflight);
	parse_pending(1, &lines, &why);
	check(lines == 5, "stall_every=4: debugfs lists the 5 stalled requests", "%d lines (%s)",
	      lines, why);
	set_knob("stall_every", "0");
	set_knob("abort", "1");
	got = reap(ctx, ev, 5, 1000);
	for (i = 0; i < got; i++)
		if ((long)ev[i].res != -ECANCELED || (long)ev[i].data % 4 != 3)
			wrong++;
	check(got == 5 && !wrong, "stall_every=4: abort releases the 5 with -ECANCELED",
	      "got=%d wrong=%d", got, wrong);
	io_destroy(ctx);
	close(fd);
}

int main(void)
{
	prctl(PR_SET_NAME, "t_cancel");
	reset_knobs();
	test_cancel_basic();
	reset_knobs();
	test_cancel_race();
	reset_knobs();
	test_abort_and_listing();
	reset_knobs();
	test_fail_every();
	reset_knobs();
	test_stall_every();
	reset_knobs();
	return failures() ? 1 : 0;
}
