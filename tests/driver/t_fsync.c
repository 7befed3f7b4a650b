// SPDX-License-Identifier: GPL-2.0
/* fsync(2) and IOCB_CMD_FSYNC finish only after every earlier write completed. */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define MS 1000000ull

static char buf[8][4096];
static int g_fd;
static volatile uint64_t fsync_done_ns;
static volatile int fsync_ret;

static void *fsync_thread(void *arg)
{
	(void)arg;
	fsync_ret = fsync(g_fd) ? -errno : 0;
	fsync_done_ns = now_ns();
	return NULL;
}

static void test_fsync_syscall(void)
{
	struct iocb cb, cb2, *cbp = &cb, *cbp2 = &cb2;
	struct io_event ev[2];
	io_context_t ctx = 0;
	uint64_t t0, dt;
	pthread_t th;
	int r, got;

	g_fd = open_dev(O_RDWR);
	if (io_setup(8, &ctx))
		die("io_setup");

	t0 = now_ns();
	r = fsync(g_fd);
	check(r == 0 && now_ns() - t0 < 100 * MS, "fsync: returns at once with no write pending",
	      "r=%d took %.1f ms", r, (now_ns() - t0) / 1e6);

	/* pending reads do not hold fsync */
	set_knob("latency_ns", "300000000");
	io_prep_pread(&cb, g_fd, buf[0], 4096, 0);
	submit_all(ctx, &cbp, 1);
	t0 = now_ns();
	r = fsync(g_fd);
	dt = now_ns() - t0;
	check(r == 0 && dt < 200 * MS, "fsync: does not wait for pending reads (300 ms)",
	      "r=%d took %.1f ms", r, dt / 1e6);
	reap(ctx, ev, 1, 2000);

	/* a write with 300 ms latency: fsync returns after it, its event already there */
	t0 = now_ns();
	io_prep_pwrite(&cb, g_fd, buf[0], 4096, 0);
	submit_all(ctx, &cbp, 1);
	r = fsync(g_fd);
	dt = now_ns() - t0;
	got = io_getevents(ctx, 0, 1, ev, &(struct timespec){ 0, 0 });
	check(r == 0 && dt >= 300 * MS && got == 1 && (long)ev[0].res == 4096,
	      "fsync: waits for a pending async write (300 ms) whose event is then ready",
	      "r=%d after %.1f ms, events ready %d", r, dt / 1e6, got);

	/* a write submitted after fsync started is not waited for */
	io_prep_pwrite(&cb, g_fd, buf[0], 4096, 0);
	submit_all(ctx, &cbp, 1);
	t0 = now_ns();
	fsync_done_ns = 0;
	pthread_create(&th, NULL, fsync_thread, NULL);
	sleep_ms(50);
	set_knob("latency_ns", "3000000000");
	io_prep_pwrite(&cb2, g_fd, buf[1], 4096, 4096);
	submit_all(ctx, &cbp2, 1);
	pthread_join(th, NULL);
	dt = fsync_done_ns - t0;
	check(fsync_ret == 0 && dt >= 200 * MS && dt < 2000 * MS,
	      "fsync: does not wait for writes submitted after it",
	      "ret=%d after %.1f ms", fsync_ret, dt / 1e6);
	set_knob("abort", "1");
	reap(ctx, ev, 2, 2000);

	/* a stalled write holds fsync until abort */
	set_knob("latency_ns", "0");
	set_knob("stall_every", "1");
	io_prep_pwrite(&cb, g_fd, buf[0], 4096, 0);
	submit_all(ctx, &cbp, 1);
	set_knob("stall_every", "0");
	fsync_done_ns = 0;
	pthread_create(&th, NULL, fsync_thread, NULL);
	sleep_ms(200);
	r = fsync_done_ns == 0;
	t0 = now_ns();
	set_knob("abort", "1");
	pthread_join(th, NULL);
	got = reap(ctx, ev, 1, 1000);
	check(r && fsync_ret == 0 && fsync_done_ns - t0 < 500 * MS && got == 1 &&
	      (long)ev[0].res == -ECANCELED,
	      "fsync: a stalled write holds fsync until abort releases both",
	      "blocked=%d ret=%d got=%d", r, fsync_ret, got);

	io_destroy(ctx);
	close(g_fd);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void test_fsync_signal(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 100000 } };
	struct iocb cb, *cbp = &cb;
	struct io_event ev;
	io_context_t ctx = 0;
	int fd = open_dev(O_RDWR), r, err;
	uint64_t t0;

	if (io_setup(2, &ctx))
		die("io_setup");
	set_knob("stall_every", "1");
	io_prep_pwrite(&cb, fd, buf[0], 4096, 0);
	submit_all(ctx, &cbp, 1);
	set_knob("stall_every", "0");
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	t0 = now_ns();
	r = fsync(fd);
	err = errno;
	check(r == -1 && err == EINTR && now_ns() - t0 < 1000 * MS,
	      "fsync: waiting on a stalled write is interruptible (EINTR)", "r=%d errno=%d", r, err);
	set_knob("abort", "1");
	reap(ctx, &ev, 1, 1000);
	io_destroy(ctx);
	close(fd);
}

static void test_aio_fsync(int cmd, const char *what)
{
	struct iocb cbs[3], *cbp[3];
	struct io_event ev[3];
	io_context_t ctx = 0;
	int fd = open_dev(O_RDWR), got, i;
	char name[128];

	if (io_setup(8, &ctx))
		die("io_setup");
	set_knob("latency_ns", "200000000");
	set_knob("jitter_ns", "100000000");
	io_prep_pwrite(&cbs[0], fd, buf[0], 4096, 0);
	io_prep_pwrite(&cbs[1], fd, buf[1], 4096, 8192);
	if (cmd == IO_CMD_FSYNC)
		io_prep_fsync(&cbs[2], fd);
	else
		io_prep_fdsync(&cbs[2], fd);
	for (i = 0; i < 3; i++) {
		cbs[i].data = (void *)(long)i;
		cbp[i] = &cbs[i];
	}
	submit_all(ctx, cbp, 3);
	got = reap(ctx, ev, 3, 3000);
	snprintf(name, sizeof(name),
		 "%s: submitted after two slow writes, its event comes after both", what);
	check(got == 3 && (long)ev[2].data == 2 && ev[2].res == 0 && (long)ev[0].res == 4096 &&
	      (long)ev[1].res == 4096, name, "got=%d order %ld %ld %ld", got,
	      got > 0 ? (long)ev[0].data : -1, got > 1 ? (long)ev[1].data : -1,
	      got > 2 ? (long)ev[2].data : -1);
	set_knob("latency_ns", "0");
	set_knob("jitter_ns", "0");
	io_destroy(ctx);
	close(fd);
}

int main(void)
{
	reset_knobs();
	test_fsync_syscall();
	reset_knobs();
	test_fsync_signal();
	reset_knobs();
	test_aio_fsync(IO_CMD_FSYNC, "IOCB_CMD_FSYNC");
	test_aio_fsync(IO_CMD_FDSYNC, "IOCB_CMD_FDSYNC");
	reset_knobs();
	return failures() ? 1 : 0;
}
