// SPDX-License-Identifier: GPL-2.0
/*
 * stats under load: libaio and io_uring submitters with latency, jitter,
 * fail_every, stall_every, io_cancel and periodic abort, while a reader checks
 * submitted = completed + failed + cancelled + inflight on every read. At the
 * end every request produced exactly one event and the counters match them.
 */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define RUN_MS 2000
#define QD 32

static volatile int stop;
static uint64_t tot_sub, tot_ok, tot_fail, tot_cancel, tot_bytes_r, tot_bytes_w;
static pthread_mutex_t tot_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t reads, bad_reads, dup_events, over_depth;

static void account(long res, bool write)
{
	pthread_mutex_lock(&tot_lock);
	if (res == -ECANCELED)
		tot_cancel++;
	else if (res < 0)
		tot_fail++;
	else {
		tot_ok++;
		if (write)
			tot_bytes_w += res;
		else
			tot_bytes_r += res;
	}
	pthread_mutex_unlock(&tot_lock);
}

static void add_sub(int n)
{
	pthread_mutex_lock(&tot_lock);
	tot_sub += n;
	pthread_mutex_unlock(&tot_lock);
}

static void *aio_worker(void *arg)
{
	static __thread char bufs[QD][8192];
	struct iocb cbs[QD], *cbp;
	struct io_event ev[QD], evc;
	io_context_t ctx = 0;
	int fd = open_dev(O_RDWR), inflight = 0, free_slots[QD], nfree = QD, k;
	char busy[QD] = { 0 };
	unsigned int seed = (unsigned int)(long)arg;

	if (io_setup(QD, &ctx))
		die("io_setup");
	for (k = 0; k < QD; k++)
		free_slots[k] = k;
	while (!stop || inflight) {
		while (!stop && nfree) {
			int s = free_slots[--nfree];
			size_t len = 512 * (1 + rand_r(&seed) % 16);
			off_t off = (off_t)(rand_r(&seed) % 4096) * 4096;

			if (rand_r(&seed) % 2)
				io_prep_pwrite(&cbs[s], fd, bufs[s], len, off);
			else
				io_prep_pread(&cbs[s], fd, bufs[s], len, off);
			cbs[s].data = (void *)(long)s;
			cbp = &cbs[s];
			submit_all(ctx, &cbp, 1);
			busy[s] = 1;
			inflight++;
			add_sub(1);
			if (rand_r(&seed) % 8 == 0)
				io_cancel(ctx, &cbs[rand_r(&seed) % QD], &evc);
		}
		int r = io_getevents(ctx, 1, QD, ev, &(struct timespec){ 0, 20000000 });

		for (k = 0; k < r; k++) {
			int s = (int)(long)ev[k].data;

			if (!busy[s]) {
				__sync_fetch_and_add(&dup_events, 1);
				continue;
			}
			busy[s] = 0;
			account((long)ev[k].res, cbs[s].aio_lio_opcode == IO_CMD_PWRITE);
			free_slots[nfree++] = s;
			inflight--;
		}
	}
	io_destroy(ctx);
	close(fd);
	return NULL;
}

static void *uring_worker(void *arg)
{
	static __thread char bufs[QD][8192];
	static __thread char is_write[QD];
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int fd = open_dev(O_RDWR), inflight = 0, free_slots[QD], nfree = QD, k;
	unsigned int seed = (unsigned int)(long)arg;

	if (io_uring_queue_init(QD, &ring, 0))
		die("io_uring_queue_init");
	for (k = 0; k < QD; k++)
		free_slots[k] = k;
	while (!stop || inflight) {
		int n = 0;

		while (!stop && nfree) {
			int s = free_slots[--nfree];
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			unsigned int len = 512 * (1 + rand_r(&seed) % 16);
			off_t off = (off_t)(rand_r(&seed) % 4096) * 4096;

			is_write[s] = rand_r(&seed) % 2;
			if (is_write[s])
				io_uring_prep_write(sqe, fd, bufs[s], len, off);
			else
				io_uring_prep_read(sqe, fd, bufs[s], len, off);
			io_uring_sqe_set_data64(sqe, s);
			n++;
		}
		if (n) {
			io_uring_submit(&ring);
			inflight += n;
			add_sub(n);
		}
		struct __kernel_timespec ts = { 0, 20000000 };

		if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts))
			continue;
		do {
			int s = (int)io_uring_cqe_get_data64(cqe);

			account(cqe->res, is_write[s]);
			free_slots[nfree++] = s;
			inflight--;
			io_uring_cqe_seen(&ring, cqe);
		} while (!io_uring_peek_cqe(&ring, &cqe));
	}
	io_uring_queue_exit(&ring);
	close(fd);
	return NULL;
}

static void *reader(void *arg)
{
	struct aiodev_stats st;

	(void)arg;
	while (!stop) {
		read_stats(&st);
		reads++;
		if (!aiodev_stats_consistent(&st) || st.inflight > st.max_inflight)
			bad_reads++;
		if (st.inflight > 48)
			over_depth++;
	}
	return NULL;
}

static void *knobber(void *arg)
{
	static const char *const modes[] = { "hrtimer", "workqueue", "inline" };
	unsigned int i = 0;

	(void)arg;
	while (!stop) {
		sleep_ms(100);
		set_knob("completion", modes[i % 3]);
		set_knob("abort", "1");
		i++;
	}
	return NULL;
}

int main(void)
{
	pthread_t th[6];
	struct aiodev_stats a, b;
	int i;

	reset_knobs();
	set_knob("latency_ns", "50000");
	set_knob("jitter_ns", "2000000");
	set_knob("fail_every", "13");
	set_knob("stall_every", "17");
	set_knob("queue_depth", "48");
	read_stats(&a);
	pthread_create(&th[0], NULL, aio_worker, (void *)1L);
	pthread_create(&th[1], NULL, aio_worker, (void *)2L);
	pthread_create(&th[2], NULL, uring_worker, (void *)3L);
	pthread_create(&th[3], NULL, reader, NULL);
	pthread_create(&th[4], NULL, knobber, NULL);
	sleep_ms(RUN_MS);
	/* stop submitting; stalled ones still need an abort (or io_cancel) */
	set_knob("stall_every", "0");
	stop = 1;
	pthread_join(th[3], NULL);
	pthread_join(th[4], NULL);
	for (i = 0; i < 50; i++) {
		set_knob("abort", "1");
		sleep_ms(20);
		read_stats(&b);
		if (!b.inflight)
			break;
	}
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	read_stats(&b);

	check(bad_reads == 0, "stats: invariant holds on every read under load",
	      "%lu of %lu reads inconsistent", (unsigned long)bad_reads, (unsigned long)reads);
	check(dup_events == 0, "stats: no request completed twice", "%lu duplicate events",
	      (unsigned long)dup_events);
	printf("# %lu requests: %lu ok, %lu failed, %lu cancelled; %lu stats reads\n",
	       (unsigned long)tot_sub, (unsigned long)tot_ok, (unsigned long)tot_fail,
	       (unsigned long)tot_cancel, (unsigned long)reads);
	check(b.submitted - a.submitted == tot_sub && b.inflight == 0,
	      "stats: submitted matches the requests sent, none left in flight",
	      "submitted +%lu, sent %lu, inflight %lu", (unsigned long)(b.submitted - a.submitted),
	      (unsigned long)tot_sub, (unsigned long)b.inflight);
	check(b.completed - a.completed == tot_ok && b.failed - a.failed == tot_fail &&
	      b.cancelled - a.cancelled == tot_cancel,
	      "stats: completed/failed/cancelled match the events received",
	      "stats +%lu/+%lu/+%lu events %lu/%lu/%lu", (unsigned long)(b.completed - a.completed),
	      (unsigned long)(b.failed - a.failed), (unsigned long)(b.cancelled - a.cancelled),
	      (unsigned long)tot_ok, (unsigned long)tot_fail, (unsigned long)tot_cancel);
	check(b.bytes_read - a.bytes_read == tot_bytes_r &&
	      b.bytes_written - a.bytes_written == tot_bytes_w,
	      "stats: bytes_read/bytes_written match the successful events",
	      "read +%lu vs %lu, written +%lu vs %lu", (unsigned long)(b.bytes_read - a.bytes_read),
	      (unsigned long)tot_bytes_r, (unsigned long)(b.bytes_written - a.bytes_written),
	      (unsigned long)tot_bytes_w);
	check(over_depth == 0, "stats: inflight never above queue_depth=48",
	      "%lu reads above", (unsigned long)over_depth);
	reset_knobs();
	return failures() ? 1 : 0;
}
