// SPDX-License-Identifier: GPL-2.0
/*
 * Teardown with pending and stalled requests: io_destroy, process exit and
 * kill -9 return promptly and leave nothing in D state; io_uring requests
 * stalled in the driver are released by abort.
 */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MS 1000000ull

static char buf[16][4096];

/* 4 stalled + 4 with a 10 s latency, half writes */
static void submit_mix(io_context_t ctx, int fd, struct iocb *cbs)
{
	struct iocb *cbp[8];

	set_knob("latency_ns", "10000000000");
	set_knob("stall_every", "2");
	for (int i = 0; i < 8; i++) {
		if (i < 4)
			io_prep_pread(&cbs[i], fd, buf[i], 4096, i * 4096);
		else
			io_prep_pwrite(&cbs[i], fd, buf[i], 4096, i * 4096);
		cbp[i] = &cbs[i];
	}
	submit_all(ctx, cbp, 8);
}

static bool wait_idle(int ms)
{
	struct aiodev_stats st;

	for (int i = 0; i < ms / 10; i++) {
		read_stats(&st);
		if (st.inflight == 0)
			return true;
		sleep_ms(10);
	}
	return false;
}

static void test_io_destroy(void)
{
	struct iocb cbs[8];
	io_context_t ctx = 0;
	struct aiodev_stats a, b;
	int fd = open_dev(O_RDWR), r;
	uint64_t t0, dt;

	if (io_setup(8, &ctx))
		die("io_setup");
	read_stats(&a);
	submit_mix(ctx, fd, cbs);
	read_stats(&b);
	check(b.inflight == 8 && b.stalled == a.stalled + 4, "teardown: 8 pending (4 stalled)",
	      "inflight=%lu", (unsigned long)b.inflight);
	t0 = now_ns();
	r = io_destroy(ctx);
	dt = now_ns() - t0;
	read_stats(&b);
	check(r == 0 && dt < 1000 * MS && b.inflight == 0 && b.cancelled == a.cancelled + 8,
	      "teardown: io_destroy with 4 stalled + 4 slow requests returns promptly, all cancelled",
	      "r=%d took %.1f ms inflight=%lu cancelled +%lu", r, dt / 1e6,
	      (unsigned long)b.inflight, (unsigned long)(b.cancelled - a.cancelled));
	close(fd);
	reset_knobs();
}

/* how: 0 = exit without io_destroy, 1 = kill -9 while blocked in io_getevents */
static void test_child(int how)
{
	const char *what = how ? "kill -9 of a process blocked in io_getevents" :
				 "exit without io_destroy";
	struct aiodev_stats a, b;
	int pipefd[2], gofd[2], status = 0, d;
	uint64_t t0, dt;
	char name[160], c;
	pid_t pid;

	read_stats(&a);
	/* the child exits only when told: its 8 requests are counted pending first */
	if (pipe(pipefd) || pipe(gofd))
		die("pipe");
	pid = fork();
	if (pid == 0) {
		struct iocb cbs[8];
		struct io_event ev;
		io_context_t ctx = 0;
		int fd = open_dev(O_RDWR);

		if (io_setup(8, &ctx))
			_exit(3);
		submit_mix(ctx, fd, cbs);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(4);
		if (how == 0) {
			close(gofd[1]);
			if (read(gofd[0], &c, 1) != 1)
				_exit(6);
			_exit(0);
		}
		io_getevents(ctx, 8, 8, &ev, NULL);
		_exit(5);
	}
	close(pipefd[1]);
	close(gofd[0]);
	if (read(pipefd[0], &c, 1) != 1)
		die("child failed before submitting");
	close(pipefd[0]);
	read_stats(&b);
	snprintf(name, sizeof(name), "teardown %s: 8 requests pending first", what);
	check(b.inflight == 8, name, "inflight=%lu", (unsigned long)b.inflight);
	sleep_ms(100);
	t0 = now_ns();
	if (how)
		kill(pid, SIGKILL);
	else if (write(gofd[1], "x", 1) != 1)
		die("cannot tell the child to exit");
	close(gofd[1]);
	waitpid(pid, &status, 0);
	dt = now_ns() - t0;
	d = count_d_state();
	read_stats(&b);
	snprintf(name, sizeof(name),
		 "teardown %s: the process is gone within 1 s, requests cancelled, no D state", what);
	check(dt < 1000 * MS && (how ? WIFSIGNALED(status) : WIFEXITED(status) &&
				 !WEXITSTATUS(status)) &&
	      b.inflight == 0 && b.cancelled == a.cancelled + 8 && d == 0, name,
	      "took %.1f ms status=0x%x inflight=%lu cancelled +%lu D=%d", dt / 1e6, status,
	      (unsigned long)b.inflight, (unsigned long)(b.cancelled - a.cancelled), d);
	reset_knobs();
}

static void test_uring_exit(void)
{
	struct aiodev_stats a, b;
	int pipefd[2], status = 0, d;
	uint64_t t0, dt;
	bool idle;
	pid_t pid;
	char c;

	read_stats(&a);
	if (pipe(pipefd))
		die("pipe");
	pid = fork();
	if (pid == 0) {
		struct io_uring ring;
		int fd = open_dev(O_RDWR);

		if (io_uring_queue_init(8, &ring, 0))
			_exit(3);
		set_knob("stall_every", "1");
		for (int i = 0; i < 4; i++)
			io_uring_prep_read(io_uring_get_sqe(&ring), fd, buf[i], 4096, i * 4096);
		io_uring_submit(&ring);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(4);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1)
		die("child failed before submitting");
	close(pipefd[0]);
	t0 = now_ns();
	waitpid(pid, &status, 0);
	dt = now_ns() - t0;
	read_stats(&b);
	check(dt < 1000 * MS && WIFEXITED(status) && b.inflight == 4,
	      "teardown io_uring: a process exits promptly with 4 stalled io_uring reads",
	      "took %.1f ms inflight=%lu", dt / 1e6, (unsigned long)b.inflight);
	/* the ring's teardown still holds the file: the module cannot go */
	check(system("rmmod aiodev 2>/dev/null") != 0 && access("/sys/module/aiodev", F_OK) == 0,
	      "teardown io_uring: rmmod is refused while the stalled requests hold the file",
	      "rmmod succeeded");
	set_knob("abort", "1");
	idle = wait_idle(2000);
	d = count_d_state();
	read_stats(&b);
	check(idle && b.cancelled == a.cancelled + 4 && d == 0,
	      "teardown io_uring: abort releases them (cancelled +4, no D state)",
	      "inflight=%lu cancelled +%lu D=%d", (unsigned long)b.inflight,
	      (unsigned long)(b.cancelled - a.cancelled), d);
	reset_knobs();
}

int main(void)
{
	reset_knobs();
	test_io_destroy();
	test_child(0);
	test_child(1);
	test_uring_exit();
	return failures() ? 1 : 0;
}
