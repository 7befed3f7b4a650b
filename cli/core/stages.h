/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stages.h - one request's latency cut into the stages of its life (aioscope core).
 *
 *   submit    entered the kernel -> its first bio queued (or issued, or the driver
 *             started it), less any time waiting for an io-wq worker
 *   io-wq     punted to io-wq -> a worker started it (io_uring; absent if inline)
 *   queue     first bio queued -> first block request issued to the driver
 *   device    issued -> the device completed it (aiodev: the driver's own time)
 *   complete  the device completed it -> the event was posted
 *   reap      posted -> the application took it
 *
 * Each boundary is one timestamp shared by the two stages it separates, so the
 * stages of a request sum to its latency to the nanosecond (submit + io-wq + queue
 * + device + complete = completion - start; + reap = reap time - start).
 * Boundaries out of order (clocks of different CPUs) are clamped into order.
 */
#ifndef AIOSCOPE_CORE_STAGES_H
#define AIOSCOPE_CORE_STAGES_H

#include <stdbool.h>
#include <stdint.h>

enum aio_stage {
	AIO_STAGE_SUBMIT,
	AIO_STAGE_IOWQ,
	AIO_STAGE_QUEUE,
	AIO_STAGE_DEVICE,
	AIO_STAGE_COMPLETE,
	AIO_STAGE_REAP,
	AIO_STAGE_NR
};

/* One request's boundaries, ns of one clock; 0: not seen (start, complete: required). */
struct aio_stage_bounds {
	uint64_t start;		/* entered the kernel */
	uint64_t punt;		/* handed to io-wq */
	uint64_t worker;	/* an io-wq worker started it */
	uint64_t queue;		/* first bio queued */
	uint64_t issue;		/* issued to the driver */
	uint64_t device;	/* the device completed it */
	uint64_t complete;	/* the event was posted */
	uint64_t reap;		/* the application took it */
};

struct aio_stages {
	uint64_t ns[AIO_STAGE_NR];
	unsigned int known;	/* 1 << enum aio_stage for each stage that applies */
};

/*
 * Cut @b into @out. Without issue and device times the stages before the
 * completion are unknown (only reap can be known); queue needs a queue time,
 * io-wq both punt and worker. Returns -1 (nothing known) when start or complete is
 * 0 or complete < start, else 0.
 */
int aio_stages_split(const struct aio_stage_bounds *b, struct aio_stages *out);

/* "submit", "iowq", "queue", "device", "complete", "reap"; NULL out of range */
const char *aio_stage_name(enum aio_stage s);
/* the name's stage, or -1 */
int aio_stage_parse(const char *name);

static inline bool aio_stage_known(const struct aio_stages *s, enum aio_stage st)
{
	return s->known & (1U << st);
}

#endif
