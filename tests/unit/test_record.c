// SPDX-License-Identifier: GPL-2.0
/*
 * test_record.c - snoop's completion/reap join (cli/collect/record.c): a completion
 * waits for the reap record that names it, whatever the time; the sweep lets one
 * go without its reap only when it is old by the sweep's clock, never when it is
 * newer than that clock. An io_uring completion waits for the CQ head sample that
 * passes its tail mark, across the u32 counter's wrap.
 */
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#include "aioscope.h"
#include "collect/record.h"
#include "unit.h"

#define CTX 0x7f0000001000ULL
#define PID 42

struct seen {
	int n;
	uint64_t obj[8];
	uint64_t reap_ns[8];
};

static int on_event(void *ctx, const struct tracer_event *e)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		s->obj[s->n] = e->obj;
		s->reap_ns[s->n] = e->reap_ns;
	}
	s->n++;
	return 0;
}

static void done_rec(struct tracer_rx *rx, uint64_t obj, uint64_t submit, uint64_t ts)
{
	struct aios_done d;

	memset(&d, 0, sizeof(d));
	d.type = AIOS_REC_DONE;
	d.state = AIOS_DONE;
	d.ts = ts;
	d.res = 4096;
	d.req.ts = submit;
	d.req.obj = obj;
	d.req.ctx = CTX;
	d.req.pid = PID;
	d.req.tid = PID;
	d.req.api = AIOS_API_AIO;
	tracer_rx_record(rx, &d, sizeof(d));
}

static void reap_rec(struct tracer_rx *rx, uint64_t obj, uint64_t ts)
{
	struct aios_reap r;

	memset(&r, 0, sizeof(r));
	r.type = AIOS_REC_REAP;
	r.n = 1;
	r.ts = ts;
	r.ctx = CTX;
	r.pid = PID;
	r.ev[0].obj = obj;
	r.ev[0].res = 4096;
	tracer_rx_record(rx, &r, offsetof(struct aios_reap, ev) + sizeof(r.ev[0]));
}

#define RING 0xffff888012340000ULL

static void uring_done(struct tracer_rx *rx, uint32_t mark, uint64_t ts)
{
	struct aios_done d;

	memset(&d, 0, sizeof(d));
	d.type = AIOS_REC_DONE;
	d.ts = ts;
	d.req.ts = ts - 100;
	d.req.obj = mark;
	d.req.ctx = RING;
	d.req.pid = PID;
	d.req.api = AIOS_API_URING;
	tracer_rx_record(rx, &d, sizeof(d));
}

static void cq_head(struct tracer_rx *rx, uint64_t ctx, uint32_t from, uint32_t to, uint64_t ts)
{
	struct aios_cq_head h = { .type = AIOS_REC_CQ_HEAD, .pid = PID, .ts = ts, .ctx = ctx,
				  .from = from, .to = to };

	tracer_rx_record(rx, &h, sizeof(h));
}

static void test_uring_completion_waits_for_the_cq_head(void)
{
	struct seen s = { 0 };
	struct tracer_rx rx = { .join_reap = true, .join_uring = true, .cb = on_event,
				.cb_ctx = &s };

	/* marks 0xfffffffe, 0xffffffff, 0 and 1: the counter wraps between them */
	for (uint32_t i = 0; i < 4; i++)
		uring_done(&rx, 0xfffffffeU + i, 1000 + i);
	UASSERT(s.n == 0, "delivered before the head passed: %d", s.n);
	cq_head(&rx, RING + 4096, 0xfffffffdU, 1, 5000);	/* another ring */
	UASSERT(s.n == 0, "another ring's head reaped: %d", s.n);
	cq_head(&rx, RING, 0xfffffffdU, 0xffffffffU, 5000);
	UASSERT(s.n == 2 && s.obj[0] == 0xfffffffeU && s.reap_ns[0] == 4000 &&
		s.obj[1] == 0xffffffffU && s.reap_ns[1] == 3999,
		"n %d obj %#llx reap %llu", s.n, (unsigned long long)s.obj[0],
		(unsigned long long)s.reap_ns[0]);
	cq_head(&rx, RING, 0xffffffffU, 1, 7000);
	UASSERT(s.n == 4 && s.obj[2] == 0 && s.reap_ns[2] == 5998 && s.obj[3] == 1 &&
		s.reap_ns[3] == 5997, "after the wrap: n %d", s.n);
	UASSERT(rx.unmatched_reap == 0, "marks not traced counted: %llu",
		(unsigned long long)rx.unmatched_reap);
	tracer_rx_free(&rx);
}

static void test_uring_without_its_hook_is_not_held(void)
{
	struct seen s = { 0 };
	struct tracer_rx rx = { .join_reap = true, .cb = on_event, .cb_ctx = &s };

	uring_done(&rx, 7, 1000);
	UASSERT(s.n == 1 && s.reap_ns[0] == TRACER_REAP_NONE, "n %d", s.n);
	tracer_rx_free(&rx);
}

static void test_completion_waits_for_its_reap(void)
{
	struct seen s = { 0 };
	struct tracer_rx rx = { .join_reap = true, .cb = on_event, .cb_ctx = &s };

	done_rec(&rx, 0xa0, 1000, 2000);
	UASSERT(s.n == 0, "delivered before its reap: %d", s.n);
	reap_rec(&rx, 0xa0, 2500);
	UASSERT(s.n == 1 && s.obj[0] == 0xa0 && s.reap_ns[0] == 500,
		"n %d obj %#llx reap %llu", s.n, (unsigned long long)s.obj[0],
		(unsigned long long)s.reap_ns[0]);
	tracer_rx_free(&rx);
}

static void test_sweep_ages_by_its_clock(void)
{
	const uint64_t sec = 1000000000ULL;
	struct seen s = { 0 };
	struct tracer_rx rx = { .join_reap = true, .cb = on_event, .cb_ctx = &s };

	done_rec(&rx, 0xa0, 10 * sec, 10 * sec + 5);
	/* read after the sweep's clock was taken: newer than it, so young */
	tracer_rx_sweep(&rx, 9 * sec, 2 * sec);
	UASSERT(s.n == 0, "an event newer than the clock went out: %d", s.n);
	tracer_rx_sweep(&rx, 11 * sec, 2 * sec);
	UASSERT(s.n == 0, "a 1 s old event went out: %d", s.n);
	reap_rec(&rx, 0xa0, 11 * sec);
	UASSERT(s.n == 1 && s.reap_ns[0] == sec - 5, "reaped late: n %d reap %llu", s.n,
		(unsigned long long)s.reap_ns[0]);
	/* one never reaped goes out once old, without a reap time */
	done_rec(&rx, 0xb0, 20 * sec, 20 * sec);
	tracer_rx_sweep(&rx, 23 * sec, 2 * sec);
	UASSERT(s.n == 2 && s.obj[1] == 0xb0 && s.reap_ns[1] == TRACER_REAP_NONE,
		"n %d reap %llu", s.n, (unsigned long long)s.reap_ns[1]);
	tracer_rx_free(&rx);
}

static void test_reap_before_its_completion_is_unmatched(void)
{
	struct seen s = { 0 };
	struct tracer_rx rx = { .join_reap = true, .cb = on_event, .cb_ctx = &s };

	/* the order the BPF side avoids (kernel-side joins run before the reap record) */
	reap_rec(&rx, 0xc0, 900);
	UASSERT(rx.unmatched_reap == 1, "unmatched %llu", (unsigned long long)rx.unmatched_reap);
	done_rec(&rx, 0xc0, 100, 800);
	tracer_rx_sweep(&rx, 1000, 0);
	UASSERT(s.n == 1 && s.reap_ns[0] == TRACER_REAP_NONE, "n %d", s.n);
	tracer_rx_free(&rx);
}

int main(void)
{
	RUN(test_completion_waits_for_its_reap);
	RUN(test_sweep_ages_by_its_clock);
	RUN(test_reap_before_its_completion_is_unmatched);
	RUN(test_uring_completion_waits_for_the_cq_head);
	RUN(test_uring_without_its_hook_is_not_held);
	return unit_done("record");
}
