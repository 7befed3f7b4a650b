// SPDX-License-Identifier: GPL-2.0
/*
 * recfile_bench.c - host benchmark of the recording file's writer
 * (cli/request/recfile.c): the bytes per request and the requests per second
 * written, stored (plain binary chunks) and zstd at levels 1, 3 and 9.
 *
 * The requests are synthetic and shaped like `make demo`'s workload: four fio
 * processes on two aiodev devices, libaio and io_uring, 4 KiB and 64 KiB random
 * offsets in 64 MiB, latencies around 4 ms with jitter, kiocbs and iocbs reused
 * from small pools, completions in time order, a reap some microseconds later;
 * one queue-depth sample per device every 100 ms. The file goes to /dev/null (the
 * sizes are the writer's count), and the rate is per second of this process's CPU
 * time (the best of 3 runs), so a loaded host gives the writer's own cost.
 *
 * Usage: recfile-bench [REQUESTS]   (default 2000000)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "request/recfile.h"

#include "bench_rand.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void make_event(struct tracer_event *e, uint64_t ts)
{
	static const char *const comms[] = { "logwriter", "uringsvc", "scanner", "dbreader" };
	int p = (int)(xrand() % 4);

	memset(e, 0, sizeof(*e));
	e->lat_ns = 3000000 + xrand() % 3000000;
	e->ts_ns = ts;
	e->submit_ns = ts - e->lat_ns;
	e->api = p == 1 ? AIOS_API_URING : AIOS_API_AIO;
	e->reap_ns = p == 1 ? TRACER_REAP_NONE : 20000 + xrand() % 2000000;
	e->driver_ns = e->lat_ns - 2000 - xrand() % 2000;
	e->id = 0xff1100000e226000ULL + (xrand() % 64) * 0xc0;
	e->ctx = p == 1 ? 0 : 0x7f3a5c2e1000ULL + (uint64_t)p * 0x1000;
	e->obj = p == 1 ? 0 : 0x55d0c4a01000ULL + (uint64_t)p * 0x10000 + (xrand() % 8) * 64;
	e->data = e->obj ? e->obj + 0x400 : 0;
	e->ino = 100 + (uint64_t)(p & 1);
	e->bytes = p == 2 ? 65536 : 4096;
	e->offset = (int64_t)((xrand() % (64 << 20)) & ~(e->bytes - 1));
	e->op = p == 0 ? AIOS_OP_WRITE : p == 1 ? (enum aios_op)(xrand() & 1) : AIOS_OP_READ;
	e->res = (int64_t)e->bytes;
	e->state = AIOS_DONE;
	e->dev = 246u << 20 | (uint32_t)(p == 2 || p == 0);
	e->qd = 1 + (uint32_t)(xrand() % 6);
	e->pid = 162 + p;
	e->tid = e->pid;
	strcpy(e->comm, comms[p]);
}

/* one run: its CPU seconds; the file's size in *size */
static double run1(enum recfile_enc enc, int level, long n, uint64_t *size)
{
	struct recfile_header h = { .mode = "fentry" };
	struct recfile_writer *w;
	struct tracer_event e;
	char err[200];
	uint64_t ts = 1000000000ULL, next_qd = ts;
	int fd = open("/dev/null", O_WRONLY);
	double t0, t;

	strcpy(h.host, "bench");
	strcpy(h.kernel, "6.1.0");
	w = recfile_create(fd, &h, enc, level, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "recfile-bench: %s\n", err);
		exit(1);
	}
	rng = 0x243F6A8885A308D3ULL;
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		ts += xrand() % 600;	/* ~3,300 requests per simulated second */
		make_event(&e, ts);
		recfile_write_event(w, &e);
		if (ts >= next_qd) {
			for (uint32_t d = 0; d < 2; d++) {
				struct recfile_qd q = { ts, 1, 246u << 20 | d, (int64_t)(xrand() % 30),
							30 };

				recfile_write_qd(w, &q);
			}
			next_qd += 100000000;
		}
	}
	*size = recfile_bytes(w);
	if (recfile_finish(w)) {
		fprintf(stderr, "recfile-bench: write error\n");
		exit(1);
	}
	t = now_s() - t0;
	close(fd);
	return t;
}

static void run(const char *name, enum recfile_enc enc, int level, long n)
{
	uint64_t bytes = 0;
	double best = 1e9;

	for (int i = 0; i < 3; i++) {
		double t = run1(enc, level, n, &bytes);

		if (t < best)
			best = t;
	}
	printf("%-8s %10ld requests %12llu bytes %7.1f bytes/request %10.0f requests/s "
	       "(%.0f ns each) %7.1f MB/s written\n", name, n, (unsigned long long)bytes,
	       (double)bytes / n, n / best, best / n * 1e9, bytes / best / 1e6);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;

	if (n <= 0) {
		fprintf(stderr, "usage: recfile-bench [REQUESTS]\n");
		return 2;
	}
	run("stored", RECFILE_ENC_RAW, 0, n);
	run("zstd-1", RECFILE_ENC_ZSTD, 1, n);
	run("zstd-3", RECFILE_ENC_ZSTD, 3, n);
	run("zstd-9", RECFILE_ENC_ZSTD, 9, n);
	return 0;
}
