// SPDX-License-Identifier: GPL-2.0
/*
 * Regressions from the driver hardening review: a failed page allocation of an
 * IOCB_NOWAIT write is the submit call's -EAGAIN (io_uring retries it from io-wq),
 * a cancelled write has already moved its data (the documented contract), the
 * pending listing does not hold the device lock while it formats 10,000 lines, an
 * interrupted synchronous sleep is not counted, and which teardown waits need
 * `abort` (execve with a stalled io_uring read, IOCB_CMD_FSYNC behind a stalled
 * write).
 */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define MS 1000000ull
#define DBG_FAIL_ALLOC "/sys/kernel/debug/aiodev/aiodev0/fail_page_alloc"
#define DBG_LOCK_NS "/sys/kernel/debug/aiodev/aiodev0/pending_lock_ns"

static char buf[8][4096] __attribute__((aligned(4096)));

static int dbg_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = -errno;
	close(fd);
	return err;
}

static long dbg_read(const char *path)
{
	char s[32] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, s, sizeof(s) - 1);
	close(fd);
	return n > 0 ? strtol(s, NULL, 10) : -1;
}

static uint64_t capacity(void)
{
	FILE *f = fopen("/sys/module/aiodev/parameters/capacity_mb", "r");
	unsigned long mb = 0;

	if (!f || fscanf(f, "%lu", &mb) != 1)
		die("capacity_mb");
	fclose(f);
	return (uint64_t)mb << 20;
}

/*
 * An offset whose page the store does not hold yet: with one page allocation made
 * to fail, a blocking pwrite(2) there fails with ENOMEM (and leaves no page), while
 * a page written before needs no allocation. Scans down from the end; -1 if none.
 */
static long long fresh_page(int fd, int *enomem_seen)
{
	static long long next = -1;
	uint64_t cap = capacity();

	if (next < 0)
		next = (long long)cap - 4096 * 3;
	for (; next >= (long long)cap / 2; next -= 4096 * 7) {
		ssize_t n;

		if (dbg_write(DBG_FAIL_ALLOC, "1"))
			die("cannot write %s", DBG_FAIL_ALLOC);
		n = pwrite(fd, buf[0], 4096, next);
		if (n < 0 && errno == ENOMEM) {
			*enomem_seen = 1;
			next -= 4096 * 7;
			return next + 4096 * 7;
		}
		if (n != 4096)
			die("pwrite at %lld: %zd %s", next, n, strerror(errno));
	}
	dbg_write(DBG_FAIL_ALLOC, "0");
	return -1;
}

/*
 * One 4 KiB write of buf[1] at @off through @ring, its CQE waited for up to 5 s:
 * the CQE's res, or the wait's error; *@dt from submit to CQE.
 */
static int uring_write_wait(struct io_uring *ring, int fd, long long off, int rw_flags,
			    uint64_t *dt)
{
	struct __kernel_timespec ts = { 5, 0 };
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	uint64_t t0;
	int r, got;

	io_uring_prep_write(sqe, fd, buf[1], 4096, off);
	sqe->rw_flags = rw_flags;
	t0 = now_ns();
	io_uring_submit(ring);
	r = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
	*dt = now_ns() - t0;
	got = r ? r : cqe->res;
	if (!r)
		io_uring_cqe_seen(ring, cqe);
	return got;
}

/* A blocking write whose page allocation fails: ENOMEM, uncounted. Its page's offset, or -1. */
static long long nowait_blocking(int fd)
{
	struct aiodev_stats a, b;
	int enomem = 0;
	long long off;

	read_stats(&a);
	off = fresh_page(fd, &enomem);
	read_stats(&b);
	check(off >= 0 && enomem && b.submitted == a.submitted && dbg_read(DBG_FAIL_ALLOC) == 0,
	      "nowait alloc: a blocking write whose page allocation fails gets ENOMEM, uncounted",
	      "off=%lld enomem=%d submitted +%lu", off, enomem,
	      (unsigned long)(b.submitted - a.submitted));
	return off;
}

/* io_uring: the inline (IOCB_NOWAIT) attempt fails, io-wq retries blocking */
static void nowait_uring_retry(int fd, struct io_uring *ring, long long off)
{
	struct aiodev_stats a, b;
	uint64_t dt;
	long left;
	int got, r;

	set_knob("latency_ns", "100000000");
	fill_pattern(buf[1], 4096, 1001);
	dbg_write(DBG_FAIL_ALLOC, "1");
	read_stats(&a);
	got = uring_write_wait(ring, fd, off, 0, &dt);
	left = dbg_read(DBG_FAIL_ALLOC);
	read_stats(&b);
	set_knob("latency_ns", "0");
	r = pread(fd, buf[2], 4096, off);
	check(got == 4096 && left == 0 && b.submitted == a.submitted + 1 && b.failed == a.failed &&
	      r == 4096 && check_pattern(buf[2], 4096, 1001),
	      "nowait alloc: io_uring write whose GFP_NOWAIT page allocation fails is retried by io-wq and succeeds",
	      "cqe res=%d fail_page_alloc left=%ld submitted +%lu failed +%lu readback %d", got, left,
	      (unsigned long)(b.submitted - a.submitted), (unsigned long)(b.failed - a.failed), r);
}

/* io_uring with RWF_NOWAIT: -EAGAIN at once, not after the latency */
static void nowait_uring_rwf(int fd, struct io_uring *ring, long long off)
{
	struct aiodev_stats a, b;
	uint64_t dt;
	int got;

	set_knob("latency_ns", "300000000");
	dbg_write(DBG_FAIL_ALLOC, "1");
	read_stats(&a);
	got = uring_write_wait(ring, fd, off, RWF_NOWAIT, &dt);
	read_stats(&b);
	check(got == -EAGAIN && dt < 150 * MS && b.submitted == a.submitted,
	      "nowait alloc: io_uring RWF_NOWAIT write gets -EAGAIN at once, uncounted",
	      "res=%d after %.1f ms (latency 300 ms) submitted +%lu", got, dt / 1e6,
	      (unsigned long)(b.submitted - a.submitted));
}

/* libaio with RWF_NOWAIT: the event is -EAGAIN at once (the latency is still 300 ms) */
static void nowait_aio_rwf(int fd, long long off)
{
	struct aiodev_stats a, b;
	io_context_t ctx = 0;
	struct iocb cb, *cbp = &cb;
	struct io_event ev;
	uint64_t t0, dt;
	int got, r;

	if (io_setup(4, &ctx))
		die("io_setup");
	dbg_write(DBG_FAIL_ALLOC, "1");
	read_stats(&a);
	io_prep_pwrite(&cb, fd, buf[1], 4096, off);
	cb.aio_rw_flags = RWF_NOWAIT;
	t0 = now_ns();
	submit_all(ctx, &cbp, 1);
	got = reap(ctx, &ev, 1, 2000);
	dt = now_ns() - t0;
	read_stats(&b);
	memset(buf[2], 0xff, 4096);
	set_knob("latency_ns", "0");
	r = pread(fd, buf[2], 4096, off);
	check(got == 1 && (long)ev.res == -EAGAIN && dt < 150 * MS && b.submitted == a.submitted &&
	      b.failed == a.failed && r == 4096 && buf[2][0] == 0 && buf[2][4095] == 0,
	      "nowait alloc: libaio RWF_NOWAIT write gets its -EAGAIN event at once, uncounted, nothing written",
	      "got=%d res=%ld after %.1f ms (latency 300 ms) submitted +%lu failed +%lu", got,
	      got ? (long)ev.res : 0, dt / 1e6, (unsigned long)(b.submitted - a.submitted),
	      (unsigned long)(b.failed - a.failed));
	io_destroy(ctx);
}

/* Item 1: IOCB_NOWAIT writes whose page allocation fails, each at a page not stored yet. */
static void test_nowait_alloc(void)
{
	int fd = open_dev(O_RDWR), enomem = 0;
	struct io_uring ring;
	long long off;

	off = nowait_blocking(fd);
	if (off < 0)
		goto out;
	if (io_uring_queue_init(4, &ring, 0))
		die("io_uring_queue_init");
	nowait_uring_retry(fd, &ring, off);
	off = fresh_page(fd, &enomem);
	if (off < 0)
		goto out_ring;
	nowait_uring_rwf(fd, &ring, off);
	off = fresh_page(fd, &enomem);
	if (off < 0)
		goto out_ring;
	nowait_aio_rwf(fd, off);
out_ring:
	io_uring_queue_exit(&ring);
out:
	dbg_write(DBG_FAIL_ALLOC, "0");
	reset_knobs();
	close(fd);
}

/*
 * Item 2 (documented, docs/driver.md "Cancellation"): data moves at submit, so a
 * write that ends -ECANCELED has already written, and a cancelled read has filled
 * its buffer.
 */
static void test_cancel_moved_data(void)
{
	int fd = open_dev(O_RDWR), r, got;
	struct iocb cb, *cbp = &cb;
	struct io_event ev, evc;
	io_context_t ctx = 0;
	long long off = 40 * 4096;

	if (io_setup(4, &ctx))
		die("io_setup");
	fill_pattern(buf[0], 4096, 501);
	if (pwrite(fd, buf[0], 4096, off) != 4096)
		die("pwrite");
	set_knob("stall_every", "1");
	fill_pattern(buf[1], 4096, 502);
	io_prep_pwrite(&cb, fd, buf[1], 4096, off);
	submit_all(ctx, &cbp, 1);
	r = io_cancel(ctx, &cb, &evc);
	got = reap(ctx, &ev, 1, 1000);
	set_knob("stall_every", "0");
	memset(buf[2], 0, 4096);
	pread(fd, buf[2], 4096, off);
	check(r == -EINPROGRESS && got == 1 && (long)ev.res == -ECANCELED &&
	      check_pattern(buf[2], 4096, 502),
	      "cancel semantics: a cancelled write (-ECANCELED) has already written its data",
	      "io_cancel %d got=%d res=%ld readback is %s", r, got, got ? (long)ev.res : 0,
	      check_pattern(buf[2], 4096, 501) ? "the old data" : "neither");

	set_knob("stall_every", "1");
	memset(buf[3], 0, 4096);
	io_prep_pread(&cb, fd, buf[3], 4096, off);
	submit_all(ctx, &cbp, 1);
	set_knob("abort", "1");
	got = reap(ctx, &ev, 1, 1000);
	set_knob("stall_every", "0");
	check(got == 1 && (long)ev.res == -ECANCELED && check_pattern(buf[3], 4096, 502),
	      "cancel semantics: an aborted read (-ECANCELED) has already filled its buffer",
	      "got=%d res=%ld", got, got ? (long)ev.res : 0);
	io_destroy(ctx);
	close(fd);
}

/* Item 12: the listing of 10,000 stalled requests and the device lock. */
static volatile int listing_stop;

static void *listing_thread(void *arg)
{
	static char lb[1 << 16];
	long *reads = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!listing_stop) {
		int fd = open(DBG_PENDING, O_RDONLY);

		if (fd < 0)
			break;
		while (read(fd, lb, sizeof(lb)) > 0)
			;
		close(fd);
		__atomic_add_fetch(reads, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_listing_lock(void)
{
	enum { N = 10000 };
	static struct iocb cbs[N], *cbp[N];
	int fd = open_dev(O_RDWR), lines = 0, c;
	io_context_t ctx = 0;
	uint64_t worst = 0, t0, dt, total = 0;
	long reads = 0, n = 0, held;
	pthread_t th;
	cpu_set_t set;
	FILE *f;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		check(true, "listing: skipped, one CPU", "%s", "");
		close(fd);
		return;
	}
	if (io_setup(N, &ctx))
		die("io_setup %d", N);
	set_knob("queue_depth", "16384");
	set_knob("stall_every", "1");
	for (int i = 0; i < N; i++) {
		io_prep_pread(&cbs[i], fd, buf[4], 512, (long long)(i % 1000) * 4096);
		cbp[i] = &cbs[i];
	}
	submit_all(ctx, cbp, N);
	set_knob("stall_every", "0");
	f = fopen(DBG_PENDING, "r");
	while (f && (c = fgetc(f)) != EOF)
		lines += c == '\n';
	if (f)
		fclose(f);
	check(lines == N, "listing: 10000 stalled requests, 10000 lines", "lines=%d", lines);

	/*
	 * One thread on CPU 0 reads the listing over and over; this one, on CPU 1,
	 * times synchronous 512-byte reads, each of which takes the device lock twice
	 * (printed only: a descheduled emulator thread shows up there too). The check
	 * is the driver's own record of its longest section with the lock held, which
	 * is interrupts off: formatting 10,000 lines under it took 140 ms per pass
	 * under TCG, copying them takes about 5 ms.
	 */
	dbg_write(DBG_LOCK_NS, "0");
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
	listing_stop = 0;
	pthread_create(&th, NULL, listing_thread, &reads);
	t0 = now_ns();
	/* 2 s, and until two listings are read (a loaded host took longer), at most 60 s */
	while (now_ns() - t0 < 2000 * MS ||
	       (__atomic_load_n(&reads, __ATOMIC_RELAXED) < 2 && now_ns() - t0 < 60000 * MS)) {
		uint64_t s = now_ns();

		if (pread(fd, buf[5], 512, 0) != 512)
			die("pread");
		dt = now_ns() - s;
		total += dt;
		n++;
		if (dt > worst)
			worst = dt;
	}
	listing_stop = 1;
	pthread_join(th, NULL);
	CPU_ZERO(&set);
	for (int i = 0; i < 2; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
	held = dbg_read(DBG_LOCK_NS);
	printf("# listing: %ld listings of %d lines on CPU 0, longest lock hold %.2f ms; %ld sync reads on CPU 1, worst %.2f ms, mean %.1f us\n",
	       reads, N, held / 1e6, n, worst / 1e6, n ? total / 1e3 / n : 0);
	check(reads >= 2 && held > 0 && held < 50 * (long)MS,
	      "listing: with 10000 stalled requests one read holds the device lock (irqs off) < 50 ms",
	      "%ld listings, longest hold %.2f ms", reads, held / 1e6);
	set_knob("abort", "1");
	io_destroy(ctx);
	reset_knobs();
	close(fd);
}

/* Item 18: an interrupted synchronous sleep is not counted (SA_RESTART or not). */
static void on_alarm(int sig)
{
	(void)sig;
}

static void test_sync_restart(void)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval it = { .it_value = { 0, 100000 } };
	int fd = open_dev(O_RDWR), err;
	struct aiodev_stats a, b;
	uint64_t t0, dt;
	ssize_t n;

	sigaction(SIGALRM, &sa, NULL);
	set_knob("latency_ns", "300000000");
	read_stats(&a);
	setitimer(ITIMER_REAL, &it, NULL);
	t0 = now_ns();
	n = pread(fd, buf[0], 4096, 0);
	dt = now_ns() - t0;
	read_stats(&b);
	check(n == 4096 && dt >= 350 * MS && b.submitted == a.submitted + 1 &&
	      b.completed == a.completed + 1 && b.failed == a.failed && aiodev_stats_consistent(&b),
	      "sync restart: a pread restarted after a signal (SA_RESTART) is counted once",
	      "n=%zd after %.1f ms, submitted +%lu completed +%lu failed +%lu", n, dt / 1e6,
	      (unsigned long)(b.submitted - a.submitted), (unsigned long)(b.completed - a.completed),
	      (unsigned long)(b.failed - a.failed));

	sa.sa_flags = 0;
	sigaction(SIGALRM, &sa, NULL);
	read_stats(&a);
	setitimer(ITIMER_REAL, &it, NULL);
	n = pwrite(fd, buf[0], 4096, 0);
	err = errno;
	read_stats(&b);
	check(n == -1 && err == EINTR && b.submitted == a.submitted && b.failed == a.failed &&
	      b.inflight == 0 && aiodev_stats_consistent(&b),
	      "sync restart: a pwrite interrupted by a signal (EINTR) is not counted",
	      "n=%zd errno=%d submitted +%lu failed +%lu inflight %lu", n, err,
	      (unsigned long)(b.submitted - a.submitted), (unsigned long)(b.failed - a.failed),
	      (unsigned long)b.inflight);
	signal(SIGALRM, SIG_DFL);
	reset_knobs();
	close(fd);
}

/* The state letter of /proc/PID/stat, '?' if gone. */
static char proc_state(pid_t pid)
{
	char path[64], s[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	p = fgets(s, sizeof(s), f) ? strrchr(s, ')') : NULL;
	fclose(f);
	return p && p[1] == ' ' ? p[2] : '?';
}

/* waitpid with a timeout in ms: 1 if reaped (status filled), 0 if still running. */
static int wait_ms(pid_t pid, int *status, int ms)
{
	for (int i = 0; i <= ms / 5; i++) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 1;
		sleep_ms(5);
	}
	return 0;
}

/* CPU time (utime + stime, clock ticks) of a process, -1 if gone. */
static long cpu_ticks(pid_t pid)
{
	char path[64], s[1024], *p;
	unsigned long ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(s, sizeof(s), f) ? strrchr(s, ')') : NULL;
	fclose(f);
	/* after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (long)(ut + st);
}

/*
 * Item 14: execve waits for the task's stalled io_uring read until abort; with
 * @kill, SIGKILL sent during that wait does not end it either.
 */
static void exec_uring(int kill_it)
{
	int pipefd[2], status = 0, gone_early, gone, alive_after_kill = 0;
	long ticks0 = 0, ticks1 = 0;
	struct aiodev_stats a, b;
	uint64_t t0, dt;
	char c, st, name[200];
	pid_t pid;

	read_stats(&a);
	set_knob("stall_every", "1");
	if (pipe(pipefd))
		die("pipe");
	pid = fork();
	if (pid == 0) {
		struct io_uring ring;
		int fd = open_dev(O_RDWR);

		if (io_uring_queue_init(4, &ring, 0))
			_exit(3);
		io_uring_prep_read(io_uring_get_sqe(&ring), fd, buf[0], 4096, 0);
		if (io_uring_submit(&ring) != 1)
			_exit(4);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(5);
		execl("/bin/true", "true", (char *)NULL);
		_exit(6);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1)
		die("child failed before submitting");
	close(pipefd[0]);
	gone_early = wait_ms(pid, &status, 500);
	st = proc_state(pid);
	if (!kill_it)
		check(!gone_early, "teardown exec: execve waits while the task's io_uring read is stalled",
		      "the child finished (status 0x%x)", status);
	if (kill_it && !gone_early) {
		kill(pid, SIGKILL);
		sleep_ms(100);
		ticks0 = cpu_ticks(pid);
		alive_after_kill = !wait_ms(pid, &status, 400);
		ticks1 = cpu_ticks(pid);
		printf("# exec: after SIGKILL the waiting task used %ld clock ticks in 400 ms (state %c)\n",
		       ticks1 - ticks0, proc_state(pid));
		check(alive_after_kill,
		      "teardown exec: SIGKILL does not end an execve waiting for a stalled io_uring read",
		      "gone after the kill (status 0x%x)", status);
	}
	t0 = now_ns();
	set_knob("abort", "1");
	gone = gone_early || (kill_it && !alive_after_kill) || wait_ms(pid, &status, 2000);
	dt = now_ns() - t0;
	read_stats(&b);
	snprintf(name, sizeof(name), "teardown exec: abort releases the read and the %s",
		 kill_it ? "killed task is gone" : "execve completes");
	check(gone && (kill_it ? WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL :
				 WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
	      b.cancelled == a.cancelled + 1 && b.inflight == 0, name,
	      "gone=%d status=0x%x after %.1f ms (state before abort %c) cancelled +%lu inflight %lu",
	      gone, status, dt / 1e6, st, (unsigned long)(b.cancelled - a.cancelled),
	      (unsigned long)b.inflight);
	if (!gone) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	reset_knobs();
}

static void test_exec_uring(void)
{
	exec_uring(0);
}

static void test_exec_uring_kill(void)
{
	exec_uring(1);
}

/* The child: a libaio fsync (behind a write of its own unless @uring), io_destroy 100 ms later. */
static void fsync_child(int fd, int uring, int ready_fd)
{
	struct iocb cbs[2], *cbp[2] = { &cbs[0], &cbs[1] };
	io_context_t ctx = 0;
	int n = 0;

	if (io_setup(4, &ctx))
		_exit(3);
	if (!uring)
		io_prep_pwrite(&cbs[n++], fd, buf[1], 4096, 8192);
	io_prep_fsync(&cbs[n], fd);
	cbp[0] = &cbs[0];
	cbp[1] = &cbs[1];
	if (io_submit(ctx, n + 1, cbp) != n + 1)
		_exit(4);
	if (write(ready_fd, "x", 1) != 1)
		_exit(5);
	sleep_ms(100);
	_exit(io_destroy(ctx) ? 6 : 0);
}

/* Fork the child and wait until it has submitted. */
static pid_t fsync_start_child(int fd, int uring)
{
	int pipefd[2];
	pid_t pid;
	char c;

	if (pipe(pipefd))
		die("pipe");
	pid = fork();
	if (pid == 0)
		fsync_child(fd, uring, pipefd[1]);
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1)
		die("child failed before submitting");
	close(pipefd[0]);
	return pid;
}

/*
 * Behind a stalled io_uring write the child's io_destroy must still be waiting, in
 * D state, and abort must release it: whether the child is gone now, *@dt the time
 * from the abort.
 */
static int fsync_abort_releases(pid_t pid, int gone, int *status, const char *what, uint64_t *dt)
{
	int d_seen = proc_state(pid) == 'D';
	char name[200];
	uint64_t t0;

	snprintf(name, sizeof(name),
		 "teardown fsync %s: io_destroy waits in D state for the aio fsync until abort",
		 what);
	check(!gone && d_seen, name, "gone=%d state %c", gone, proc_state(pid));
	t0 = now_ns();
	set_knob("abort", "1");
	gone = gone || wait_ms(pid, status, 2000);
	*dt = now_ns() - t0;
	return gone;
}

/*
 * Item 14: IOCB_CMD_FSYNC queued behind a stalled write. Behind a libaio write of
 * the same context, io_destroy cancels the write, which ends the fsync: prompt.
 * Behind a stalled io_uring write nothing can cancel, and io_destroy waits (D
 * state) until abort.
 */
static void fsync_teardown(int uring)
{
	const char *what = uring ? "behind a stalled io_uring write" :
				   "behind a stalled libaio write of the same context";
	int status = 0, gone;
	struct io_uring ring;
	struct aiodev_stats a, b;
	char name[200];
	uint64_t t0, dt;
	pid_t pid;
	int fd = open_dev(O_RDWR);

	read_stats(&a);
	set_knob("stall_every", "1");
	if (uring) {
		if (io_uring_queue_init(4, &ring, 0))
			die("io_uring_queue_init");
		io_uring_prep_write(io_uring_get_sqe(&ring), fd, buf[0], 4096, 0);
		if (io_uring_submit(&ring) != 1)
			die("io_uring_submit");
	}
	pid = fsync_start_child(fd, uring);
	t0 = now_ns();
	gone = wait_ms(pid, &status, uring ? 600 : 1000);
	dt = now_ns() - t0;
	if (uring) {
		gone = fsync_abort_releases(pid, gone, &status, what, &dt);
		snprintf(name, sizeof(name), "teardown fsync %s: abort releases io_destroy", what);
	} else {
		snprintf(name, sizeof(name), "teardown fsync %s: io_destroy returns promptly", what);
	}
	read_stats(&b);
	check(gone && WIFEXITED(status) && WEXITSTATUS(status) == 0 && dt < 1000 * MS &&
	      b.inflight == 0 && b.cancelled == a.cancelled + 1 && count_d_state() == 0,
	      name, "gone=%d status=0x%x after %.1f ms inflight %lu cancelled +%lu D=%d", gone, status,
	      dt / 1e6, (unsigned long)b.inflight, (unsigned long)(b.cancelled - a.cancelled),
	      count_d_state());
	if (!gone) {
		set_knob("abort", "1");
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (uring) {
		struct io_uring_cqe *cqe;

		if (!io_uring_peek_cqe(&ring, &cqe))
			io_uring_cqe_seen(&ring, cqe);
		io_uring_queue_exit(&ring);
	}
	reset_knobs();
	close(fd);
}

static void test_fsync_teardown_aio(void)
{
	fsync_teardown(0);
}

static void test_fsync_teardown_uring(void)
{
	fsync_teardown(1);
}

/*
 * Item 8: the listing's ctx and obj are the aio context id and the user iocb
 * pointer of libaio requests (0 for io_uring ones).
 */
static void test_listing_ids(void)
{
	struct iocb cbs[3], *cbp[3] = { &cbs[0], &cbs[1], &cbs[2] };
	int fd = open_dev(O_RDWR), found = 0, uring_zero = 0, other = 0;
	io_context_t ctx = 0;
	struct io_uring ring;
	char line[512];
	FILE *f;

	if (io_setup(4, &ctx) || io_uring_queue_init(4, &ring, 0))
		die("io_setup");
	set_knob("stall_every", "1");
	for (int i = 0; i < 3; i++)
		io_prep_pread(&cbs[i], fd, buf[i], 4096, i * 4096);
	submit_all(ctx, cbp, 3);
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, buf[3], 4096, 0);
	io_uring_submit(&ring);
	f = fopen(DBG_PENDING, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long c = 1, o = 1;
		char *p = strstr(line, " ctx=0x");

		if (!p || sscanf(p, " ctx=0x%llx obj=0x%llx", &c, &o) != 2) {
			other++;
			continue;
		}
		if (strstr(line, " api=uring ")) {
			uring_zero += !c && !o;
			continue;
		}
		for (int i = 0; i < 3; i++)
			if (c == (unsigned long long)(uintptr_t)ctx &&
			    o == (unsigned long long)(uintptr_t)&cbs[i])
				found++;
	}
	if (f)
		fclose(f);
	check(found == 3 && uring_zero == 1 && !other,
	      "listing: ctx and obj are the aio context id and the user iocb of libaio requests (0 for io_uring)",
	      "%d of 3 libaio lines match ctx=%p and their iocbs; io_uring lines with 0/0: %d; unparsed %d",
	      found, (void *)ctx, uring_zero, other);
	set_knob("abort", "1");
	io_uring_queue_exit(&ring);
	io_destroy(ctx);
	reset_knobs();
	close(fd);
}

/* t_harden [TEST...]: all tests, or the named ones */
static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "sync_restart", test_sync_restart },
	{ "nowait_alloc", test_nowait_alloc },
	{ "cancel_moved_data", test_cancel_moved_data },
	{ "exec_uring", test_exec_uring },
	{ "exec_uring_kill", test_exec_uring_kill },
	{ "fsync_teardown_aio", test_fsync_teardown_aio },
	{ "fsync_teardown_uring", test_fsync_teardown_uring },
	{ "listing_ids", test_listing_ids },
	{ "listing_lock", test_listing_lock },
};

int main(int argc, char **argv)
{
	reset_knobs();
	for (unsigned int i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		bool run = argc < 2;

		for (int j = 1; j < argc; j++)
			run |= !strcmp(argv[j], tests[i].name);
		if (run)
			tests[i].fn();
	}
	return failures() ? 1 : 0;
}
