// SPDX-License-Identifier: GPL-2.0
/*
 * gen_rec: writes a recording (aioscope record's format, through its own writer) that
 * is well-formed but hostile to the commands reading it: times at 0 and at 2^64 - 1,
 * latencies of 0 and of centuries, completions before their submits, a driver time
 * longer than the request, every request from its own process, thread, device and
 * context, enums out of range, control bytes in names and in the kernel release,
 * queue-depth samples of unknown kinds and negative depths, pending requests seen
 * before they were submitted, lost counters that go down.
 *   gen_rec FILE [REQUESTS]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "request/recfile.h"

static uint64_t s = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

static uint64_t pick(void)
{
	static const uint64_t edge[] = { 0, 1, 2, 1000, 1ULL << 37, 1ULL << 63, UINT64_MAX - 1,
					 UINT64_MAX };

	return rnd() % 3 ? rnd() >> (rnd() % 64) : edge[rnd() % 8];
}

int main(int argc, char **argv)
{
	struct recfile_header h = { 0 };
	struct recfile_writer *w;
	long n = argc > 2 ? atol(argv[2]) : 20000;
	char err[200];
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: gen_rec FILE [REQUESTS]\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	snprintf(h.host, sizeof(h.host), "host\twith\x1b[2Jcontrol");
	snprintf(h.kernel, sizeof(h.kernel), "6.1\n# not a comment\r\x7f");
	snprintf(h.mode, sizeof(h.mode), "fentry\x07");
	h.start_real_ns = UINT64_MAX - 5;
	h.start_mono_ns = UINT64_MAX / 2;
	w = recfile_create(fd, &h, RECFILE_ENC_ZSTD, 3, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		struct tracer_event e = { 0 };

		e.ts_ns = pick();
		e.submit_ns = pick();
		e.lat_ns = pick();
		e.reap_ns = rnd() % 4 ? pick() : TRACER_REAP_NONE;
		e.driver_ns = rnd() % 4 ? pick() : TRACER_DRIVER_NONE;
		e.id = pick();
		e.ctx = pick();
		e.obj = pick();
		e.offset = (int64_t)pick();
		e.bytes = pick();
		e.res = (int64_t)pick();
		e.dev = (uint32_t)rnd();
		e.qd = (uint32_t)rnd();
		e.pid = (int32_t)rnd();
		e.tid = (int32_t)rnd();
		e.api = (enum aios_api)(rnd() % 6);
		e.op = (enum aios_op)(rnd() % 6);
		e.state = (enum aios_state)(rnd() % 6);
		for (size_t k = 0; k + 1 < sizeof(e.comm); k++)
			e.comm[k] = (char)(rnd() % 256 ? rnd() % 256 : 1);
		e.cancel_ret = (int64_t)pick();
		e.cancel_ns = pick();
		if (recfile_write_event(w, &e))
			return 1;
		if (i % 97 == 0) {
			struct recfile_qd q = { .ts_ns = pick(), .kind = (uint32_t)(rnd() % 6),
						.key = rnd() % 2 ? pick() : (uint32_t)rnd(),
						.now = (int64_t)pick(), .max = pick() };

			if (recfile_write_qd(w, &q))
				return 1;
		}
		if (i % 53 == 0) {
			struct recfile_pending p = { .ts_ns = pick() };

			p.req.submit_ns = pick();
			p.req.id = pick();
			p.req.ctx = pick();
			p.req.ino = pick();
			p.req.offset = (int64_t)pick();
			p.req.bytes = pick();
			p.req.dev = (uint32_t)rnd();
			p.req.pid = (int32_t)rnd();
			p.req.tid = (int32_t)rnd();
			p.req.api = (enum aios_api)(rnd() % 6);
			p.req.op = (enum aios_op)(rnd() % 7);
			memcpy(p.req.comm, e.comm, sizeof(p.req.comm));
			if (recfile_write_pending(w, &p))
				return 1;
		}
		if (i % 211 == 0) {
			struct recfile_lost l = { pick(), pick(), pick(), pick(), pick(), pick() };

			if (recfile_write_lost(w, &l))
				return 1;
		}
	}
	if (recfile_finish(w))
		return 1;
	return close(fd) ? 1 : 0;
}
