/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracer_int.h - what the tracer's files share (tracer_attach.c: open, attach modes
 * and hooks, load, attach, close; tracer.c: the ring buffer, names, the clock;
 * tracer_maps.c: the maps' readers). Not for use outside cli/collect/: tracer.h is
 * the interface.
 */
#ifndef AIOSCOPE_TRACER_INT_H
#define AIOSCOPE_TRACER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aioscope.skel.h"
#include "batch.h"
#include "record.h"
#include "tracer.h"

#define HIST_QD_GROUPS 20		/* log2 queue depth groups: 1 .. 2^19 and more */
#define TRACER_SLOTS 16384		/* direct-mapped in-flight slots, a power of two */
#define JOIN_TIMEOUT_NS 2000000000ULL	/* deliver unreaped events after 2 s */

/*
 * Hooks: what the programs feed, decided one by one from what the kernel accepts.
 *
 * Every program belongs to one hook. A required hook (the submits, the completion,
 * the reaps) that cannot be loaded or attached fails its attach mode, after the
 * fallback it has (fexit -> tracepoint reaps, aio_complete -> aio_complete_rw
 * alone). An optional hook that cannot (a function
 * inlined or renamed, an .isra/.constprop clone with BTF but no symbol, a
 * tracepoint that is missing or whose arguments moved) is left out alone: only what
 * it feeds is missing, and -v and the JSON outputs name it.
 */
enum hook_id {
	HK_SUBMIT,		/* aio submits: required */
	HK_COMPLETE_RW,		/* aio_complete_rw: required where used */
	HK_REAP,		/* io_getevents returns: required where used */
	HK_COMPLETE,		/* aio_complete: fsync completions (fentry: the twin) */
	HK_SUBMIT_RET,		/* submit returns: failed submits leave the in-flight table */
	HK_SUBMIT_BATCH,	/* io_submit tracepoints: batch sizes */
	HK_CANCEL,		/* io_cancel: who cancelled a request */
	HK_DRIVER,		/* aiodev's tracepoints: the driver's time */
	HK_URING,		/* io_uring's tracepoints: io_uring requests */
	HK_PURGE,		/* process exit, io_destroy: unreaped records leave */
	HK_STAGES,		/* the block layer's tracepoints: --stages */
	HK_IOWQ,		/* io_uring's punts to io-wq and their start: --stages */
	HK_URING_REAP,		/* io_uring_enter: the CQ ring's head, io_uring's reaps */
	HK_NR
};

#define HK(h) (1U << (h))
/* left out alone when they fail; the others need a fallback or fail the mode */
#define HK_PLAIN_OPTIONAL (HK(HK_SUBMIT_RET) | HK(HK_SUBMIT_BATCH) | HK(HK_CANCEL) | \
			   HK(HK_DRIVER) | HK(HK_URING) | HK(HK_PURGE) | HK(HK_STAGES) | \
			   HK(HK_IOWQ) | HK(HK_URING_REAP))

/* the block joins' bio completion functions (enum tracer_join), then bio_chain_endio */
#define TRACER_END_IO_CHAIN	(TRACER_JOIN_IOMAP + 1)
#define TRACER_END_IO_NR	(TRACER_END_IO_CHAIN + 1)

struct tracer {
	struct aioscope_bpf *skel;
	struct ring_buffer *rb;
	struct tracer_opts opts;
	enum tracer_mode mode;
	bool driver;			/* aiodev's tracepoints exist (aiodev is loaded) */
	const char *uring_tp;		/* io_uring's submit tracepoint, NULL: none */
	int uring_err;			/* why there is none */
	bool complete_inlined;		/* aio_complete has no BTF function */
	bool complete_rw;		/* aio_complete not hooked: aio_complete_rw alone */
	uint32_t hooks_wanted;		/* HK() bits the mode and options use */
	uint32_t hooks_missing;		/* of those, the ones the kernel refused */
	int hook_err[HK_NR];		/* -errno of each missing hook */
	bool uring;			/* io_uring requests are traced */
	bool preemptible;		/* the kernel preempts BPF programs: 3 twins */
	uint64_t attached_ns;		/* every hook attached (tracer_now_ns) */
	/* opts.stages: the direct-I/O paths' bio completion functions (0: none) */
	uint64_t end_io[TRACER_END_IO_NR];
	bool end_io_read;		/* kallsyms was read for them */
	int cgroup_fd;
	int ncpus;
	unsigned int hist_ngroups;	/* >0: histograms in the per-CPU array */
	void *pcpu_buf;			/* ncpus * sizeof(struct aios_hist) */
	/* poll state: decoding and the completion/reap join (record.c) */
	struct tracer_rx rx;
	uint64_t last_sweep;
	/* the ring's consumer and producer pages, mapped read-only (NULL: not mapped) */
	const volatile uint64_t *rb_pos;
	size_t rb_page;
	/* the in-flight slots, mapped read-only */
	const struct aios_slot *slots;
	size_t slots_len;
	/* a scan's first pass over them (tracer_inflight_foreach) */
	struct slot_seen *seen;
	size_t seen_cap;
	/* batch buffers for the in-flight table and the unreaped one */
	struct map_batch ib, ub;
};

/* tracer.c: formats the message into @err, returns @rc */
int tracer_fail(char *err, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* tracer.c: one ring-buffer record (libbpf's callback) */
int tracer_on_record(void *ctx, void *data, size_t size);

#endif /* AIOSCOPE_TRACER_INT_H */
