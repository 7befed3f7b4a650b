// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cli/core/stages.[ch]. */
#include <string.h>

#include "cli/core/stages.h"
#include "unit.h"

static uint64_t sum_before_reap(const struct aio_stages *s)
{
	uint64_t t = 0;

	for (int i = 0; i < AIO_STAGE_REAP; i++)
		t += s->ns[i];
	return t;
}

static void test_stages_block_request(void)
{
	struct aio_stage_bounds b = { .start = 1000, .queue = 1300, .issue = 1700,
				      .device = 11700, .complete = 12000, .reap = 62000 };
	struct aio_stages s;

	UASSERT(aio_stages_split(&b, &s) == 0, "split");
	UASSERT(s.ns[AIO_STAGE_SUBMIT] == 300 && s.ns[AIO_STAGE_QUEUE] == 400 &&
		s.ns[AIO_STAGE_DEVICE] == 10000 && s.ns[AIO_STAGE_COMPLETE] == 300 &&
		s.ns[AIO_STAGE_REAP] == 50000, "stages %llu %llu %llu %llu %llu",
		(unsigned long long)s.ns[0], (unsigned long long)s.ns[2],
		(unsigned long long)s.ns[3], (unsigned long long)s.ns[4],
		(unsigned long long)s.ns[5]);
	UASSERT(!aio_stage_known(&s, AIO_STAGE_IOWQ), "no io-wq without a punt");
	UASSERT(aio_stage_known(&s, AIO_STAGE_QUEUE) && aio_stage_known(&s, AIO_STAGE_REAP),
		"known 0x%x", s.known);
	UASSERT(sum_before_reap(&s) == b.complete - b.start, "sum");
}

/* aiodev: no block layer, the driver's start and end */
static void test_stages_driver_only(void)
{
	struct aio_stage_bounds b = { .start = 50, .issue = 80, .device = 2000080,
				      .complete = 2000100 };
	struct aio_stages s;

	UASSERT(aio_stages_split(&b, &s) == 0, "split");
	UASSERT(s.known == (1U << AIO_STAGE_SUBMIT | 1U << AIO_STAGE_DEVICE |
			    1U << AIO_STAGE_COMPLETE), "known 0x%x", s.known);
	UASSERT(s.ns[AIO_STAGE_SUBMIT] == 30 && s.ns[AIO_STAGE_DEVICE] == 2000000 &&
		s.ns[AIO_STAGE_COMPLETE] == 20, "values");
}

static void test_stages_iowq(void)
{
	struct aio_stage_bounds b = { .start = 100, .punt = 150, .worker = 950, .queue = 1000,
				      .issue = 1010, .device = 5010, .complete = 5100 };
	struct aio_stages s;

	UASSERT(aio_stages_split(&b, &s) == 0, "split");
	UASSERT(s.ns[AIO_STAGE_IOWQ] == 800 && s.ns[AIO_STAGE_SUBMIT] == 100,
		"iowq %llu submit %llu", (unsigned long long)s.ns[AIO_STAGE_IOWQ],
		(unsigned long long)s.ns[AIO_STAGE_SUBMIT]);
	UASSERT(sum_before_reap(&s) == 5000, "sum %llu", (unsigned long long)sum_before_reap(&s));
}

static void test_stages_unknown_device(void)
{
	struct aio_stage_bounds b = { .start = 100, .queue = 200, .complete = 900, .reap = 1000 };
	struct aio_stages s;

	UASSERT(aio_stages_split(&b, &s) == 0, "split");
	UASSERT(s.known == 1U << AIO_STAGE_REAP && s.ns[AIO_STAGE_REAP] == 100,
		"only reap: 0x%x", s.known);
	b.reap = 0;
	UASSERT(aio_stages_split(&b, &s) == 0 && s.known == 0, "nothing");
	b.complete = 50;
	UASSERT(aio_stages_split(&b, &s) == -1 && s.known == 0, "complete before start");
	b.start = 0;
	UASSERT(aio_stages_split(&b, &s) == -1, "no start");
}

/* clocks of different CPUs: boundaries out of order are clamped, the sum holds */
static void test_stages_out_of_order(void)
{
	unsigned long long seed = 42;

	for (int i = 0; i < 100000; i++) {
		struct aio_stage_bounds b = {
			.start = 1000 + unit_rand(&seed) % 100,
			.punt = unit_rand(&seed) % 3 ? 0 : unit_rand(&seed) % 3000,
			.worker = unit_rand(&seed) % 3000,
			.queue = unit_rand(&seed) % 2 ? 0 : unit_rand(&seed) % 3000,
			.issue = 1 + unit_rand(&seed) % 3000,
			.device = 1 + unit_rand(&seed) % 3000,
			.complete = 1100 + unit_rand(&seed) % 2000,
		};
		struct aio_stages s;

		UASSERT(aio_stages_split(&b, &s) == 0, "split %d", i);
		UASSERT(sum_before_reap(&s) == b.complete - b.start,
			"case %d: sum %llu, latency %llu", i,
			(unsigned long long)sum_before_reap(&s),
			(unsigned long long)(b.complete - b.start));
		UASSERT(aio_stage_known(&s, AIO_STAGE_DEVICE), "device known");
		for (int k = 0; k < AIO_STAGE_NR; k++)
			UASSERT(s.ns[k] <= b.complete - b.start, "case %d stage %d", i, k);
	}
}

static void test_stages_names(void)
{
	for (int s = 0; s < AIO_STAGE_NR; s++)
		UASSERT(aio_stage_parse(aio_stage_name(s)) == s, "round trip %d", s);
	UASSERT(aio_stage_parse("total") == -1 && aio_stage_name(AIO_STAGE_NR) == NULL &&
		!strcmp(aio_stage_name(AIO_STAGE_IOWQ), "iowq"), "names");
}

int main(void)
{
	RUN(test_stages_block_request);
	RUN(test_stages_driver_only);
	RUN(test_stages_iowq);
	RUN(test_stages_unknown_device);
	RUN(test_stages_out_of_order);
	RUN(test_stages_names);
	return unit_done("stages");
}
