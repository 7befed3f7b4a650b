// SPDX-License-Identifier: GPL-2.0
/*
 * test_record.c - snoop's completion/reap join (cli/collect/record.c): a completion
 * waits for the reap record that names it, whatever the time; the sweep lets one
 * go without its reap only when it is old by the sweep's clock, never when it is
 * newer than that clock.
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
	return unit_done("record");
}
