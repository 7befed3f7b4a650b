// SPDX-License-Identifier: GPL-2.0
/* stages.c - one request's latency cut into stages (stages.h). */
#include <stddef.h>
#include <string.h>

#include "stages.h"

static const char *const stage_name[AIO_STAGE_NR] = {
	[AIO_STAGE_SUBMIT] = "submit",
	[AIO_STAGE_IOWQ] = "iowq",
	[AIO_STAGE_QUEUE] = "queue",
	[AIO_STAGE_DEVICE] = "device",
	[AIO_STAGE_COMPLETE] = "complete",
	[AIO_STAGE_REAP] = "reap",
};

const char *aio_stage_name(enum aio_stage s)
{
	return (unsigned int)s < AIO_STAGE_NR ? stage_name[s] : NULL;
}

int aio_stage_parse(const char *name)
{
	for (int s = 0; s < AIO_STAGE_NR; s++)
		if (!strcmp(name, stage_name[s]))
			return s;
	return -1;
}

/* @t clamped into [lo, hi] */
static uint64_t clamp(uint64_t t, uint64_t lo, uint64_t hi)
{
	return t < lo ? lo : t > hi ? hi : t;
}

static void set(struct aio_stages *out, enum aio_stage s, uint64_t ns)
{
	out->ns[s] = ns;
	out->known |= 1U << s;
}

int aio_stages_split(const struct aio_stage_bounds *b, struct aio_stages *out)
{
	uint64_t lo, hi, queue, issue, device, punt = 0, worker = 0;
	bool iowq;

	memset(out, 0, sizeof(*out));
	if (!b->start || !b->complete || b->complete < b->start)
		return -1;
	lo = b->start;
	hi = b->complete;
	if (b->reap)
		set(out, AIO_STAGE_REAP, b->reap > hi ? b->reap - hi : 0);
	if (!b->issue || !b->device)
		return 0;	/* the device's part was not seen: nothing before it */

	/* in order: start <= punt <= worker <= queue <= issue <= device <= complete */
	iowq = b->punt && b->worker;
	if (iowq) {
		punt = clamp(b->punt, lo, hi);
		worker = clamp(b->worker, punt, hi);
		lo = worker;
	}
	queue = b->queue ? clamp(b->queue, lo, hi) : 0;
	issue = clamp(b->issue, queue ? queue : lo, hi);
	device = clamp(b->device, issue, hi);

	set(out, AIO_STAGE_SUBMIT, (queue ? queue : issue) - b->start - (worker - punt));
	if (iowq)
		set(out, AIO_STAGE_IOWQ, worker - punt);
	if (queue)
		set(out, AIO_STAGE_QUEUE, issue - queue);
	set(out, AIO_STAGE_DEVICE, device - issue);
	set(out, AIO_STAGE_COMPLETE, hi - device);
	return 0;
}
