/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - the ring buffer's records in user space: decoding (bpf/aioscope.h's
 * struct aios_done and struct aios_reap) and the join of a completion with the
 * io_getevents call that reaped it. No libbpf: tracer.c feeds it the records that
 * ring_buffer__poll hands out, and the fuzz target feeds it any bytes.
 *
 * A record of any length and content is safe: records shorter than their type's
 * layout, unknown types and a reap count larger than the record are ignored or
 * clamped, never read past @size.
 */
#ifndef AIOSCOPE_RECORD_H
#define AIOSCOPE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/oatable.h"
#include "request/event.h"

struct tracer_rx {
	/* set by the owner */
	bool join_reap;			/* hold aio completions for their reap record */
	bool join_uring;		/* and io_uring ones for their CQ head record */
	bool sampling;			/* 1 request in N followed: the reaps of the others
					 * find nothing to join, and are not counted */
	tracer_event_fn cb;		/* NULL: events are counted, not delivered */
	void *cb_ctx;
	/* per poll: the first non-zero callback return stops delivery */
	int cb_ret;
	int delivered;
	/* user-space join: completions held by (obj, aux) until their reap (libaio:
	 * user iocb, aios_aux; io_uring: CQE tail mark, ring). The kernel's own join
	 * (bpf/request.bpf.h, reap_key) keys io_uring by uring_aux(ring, tgid)
	 * instead, because its exit purge looks entries up by tgid; here a CQ head
	 * record names the ring only, and nothing is purged by process. */
	struct oat_table join;
	uint64_t join_lost, unmatched_reap;
};

/* One ring-buffer record of @size bytes (any alignment). Returns rx->cb_ret. */
int tracer_rx_record(struct tracer_rx *rx, const void *data, size_t size);

/* Deliver held completions older than @min_age_ns (0: all) with reap "none". */
void tracer_rx_sweep(struct tracer_rx *rx, uint64_t now, uint64_t min_age_ns);

/* Free the join table (events still held are dropped). */
void tracer_rx_free(struct tracer_rx *rx);

#endif /* AIOSCOPE_RECORD_H */
