/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracer.h: the BPF plumbing shared by every aioscope command.
 *
 * One struct tracer wraps the skeleton of bpf/aioscope.bpf.c: it picks the attach
 * mode (fentry, kprobe or syscalls), writes the filters into rodata, loads,
 * attaches, and hands out what the commands need:
 *   - finished requests, one callback per request (snoop, top),
 *   - the in-kernel latency histograms (hist), cumulative: diff two reads,
 *   - the in-flight table (top, stuck),
 *   - queue depth counters (now and max since the last reset),
 *   - drop counters (ring buffer, every map that ran full).
 *
 * Times are CLOCK_MONOTONIC nanoseconds (bpf_ktime_get_ns); tracer_now_ns()
 * reads the same clock, so "age = tracer_now_ns() - r->submit_ns".
 *
 * Error convention: functions return 0 or a negative errno; tracer_open()
 * also writes a one-line human message into @err.
 */
#ifndef AIOSCOPE_TRACER_H
#define AIOSCOPE_TRACER_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "request/event.h"
#include "request/pending.h"


enum tracer_mode {
	TRACER_MODE_AUTO = 0,	/* best the kernel allows: fentry > kprobe > syscalls */
	TRACER_MODE_FENTRY,	/* fentry on aio_read/aio_write/aio_fsync/aio_complete */
	TRACER_MODE_KPROBE,	/* kprobes on the same functions */
	TRACER_MODE_SYSCALLS,	/* syscall tracepoints only: lat = submit -> reap */
};

/*
 * Histogram grouping and kinds, and queue-depth kinds: bpf/aioscope.h's enum
 * aios_group (AIOS_BY_*), enum aios_hist_kind (AIOS_H_*) and enum aios_qd_kind
 * (AIOS_QD_*), used as they are.
 */


/* The parts of a AIOS_BY_METRIC group key. */
struct tracer_metric_key {
	uint32_t dev;			/* kernel dev_t */
	enum aios_op op;
	enum aios_api api;
	enum aios_state state;
};

static inline struct tracer_metric_key tracer_metric_group(uint64_t group)
{
	struct tracer_metric_key k = {
		.dev = (uint32_t)(group >> 32),
		.op = (enum aios_op)(group & 0xff),
		.api = (enum aios_api)((group >> 8) & 0xff),
		.state = (enum aios_state)((group >> 16) & 0xff),
	};

	return k;
}


struct tracer_opts {
	/* filters, evaluated in the kernel (0 / NULL: none) */
	int pid;			/* submitter tgid */
	const char *cgroup;		/* cgroup v2 directory path */
	const char *dev;		/* a path: char/block device -> its rdev,
					 * regular file -> that file (st_dev + inode) */
	const char *comm;		/* exact comm of the submitter */
	uint64_t min_lat_ns;		/* only requests at least this slow (events, hists) */
	unsigned int sample;		/* keep 1 request in @sample, chosen at random in
					 * the kernel (0, 1: every request) */

	/* outputs: enable only what you use, the rest costs nothing */
	bool events;			/* per-request events: tracer_poll() */
	bool event_reap;		/* events wait for their reap (reap_ns) */
	bool hist;			/* in-kernel latency histograms: tracer_hist_read() */
	enum aios_group hist_by;
	bool hist_reap;			/* also AIOS_H_REAP */
	bool hist_syscalls;		/* also the two batch histograms */
	bool inflight;			/* keep the in-flight table with full detail (comm) */
	bool qd;			/* queue depth counters: tracer_qd_read() */
	bool stacks;			/* record each request's submitting kernel and user
					 * stacks (fentry/kprobe modes): tracer_stack_read() */
	bool pid_counts;		/* requests and bytes per process: tracer_pid_foreach() */
	bool unreaped;			/* finished requests kept until their application
					 * reaps them: tracer_unreaped_foreach() */
	bool stages;			/* the block layer's and the driver's times of each
					 * request (events: queue_ts, issue_ts, device_ts,
					 * bios): tracer_stage_joins() says which joins */

	enum tracer_mode mode;		/* TRACER_MODE_AUTO unless forced */
	unsigned int ringbuf_mb;	/* 0: default (16) */
	unsigned int max_inflight;	/* 0: default (65536) */
	bool verbose;			/* libbpf debug output on stderr */
};


/* Queue depth of one device / context / process (opts.qd). */

struct tracer_qd {
	enum aios_qd_kind kind;
	uint64_t key;			/* 0 for total, dev_t, ctx id or tgid */
	int64_t now;			/* requests in flight now */
	uint64_t max;			/* maximum reached by a submit since the last
					 * tracer_qd_reset_max(); 0 if none since */
};

/* Drop counters, cumulative since open. */
struct tracer_drops {
	uint64_t ringbuf_lost;		/* events not written: ring buffer full */
	uint64_t inflight_full;		/* submits not tracked: in-flight map full */
	uint64_t hist_full;		/* histogram updates lost: hist map full */
	uint64_t qd_full;		/* queue depth updates lost: qd map full */
	uint64_t reap_full;		/* reap joins lost: done map full */
	uint64_t join_lost;		/* user-space join table full (events dropped) */
	uint64_t unmatched_complete;	/* completions of requests submitted before start */
	uint64_t unmatched_reap;	/* reaped events with no completion record
					 * (filtered out, or completed before start) */
	uint64_t prog_misses;		/* BPF program runs skipped by the kernel
					 * (recursion: a completion interrupting one) */
	uint64_t stack_lost;		/* opts.stacks: submit stacks not recorded */
	uint64_t rescued;		/* completions the twin hook took after the first
					 * one's run was skipped (not lost) */
	uint64_t pid_full;		/* opts.pid_counts: requests not counted per process
					 * (per-process map full) */
	uint64_t twin_skips;		/* skipped runs of a submit/reap twin that the
					 * other program took (not lost; prog_misses
					 * holds the bound on calls both skipped) */
	uint64_t reap_unread;		/* reaped events whose ids the reap hook could
					 * not read from the application's buffer */
	uint64_t reconciled;		/* pending requests whose completion was not
					 * seen (a skipped program run), taken out when
					 * their kiocb was reused, at their reap,
					 * process exit or io_destroy */
	uint64_t sample_seen;		/* opts.sample > 1: requests that passed the
					 * filters, sampled or not */
	uint64_t sample_kept;		/* of those, the ones followed */
};

/* Cumulative histogram of one (kind, group); buckets as in bpf/buckets.h. */
struct tracer_hist {
	enum aios_hist_kind kind;
	uint64_t group;			/* key as described by enum aios_group */
	uint64_t count;
	uint64_t sum;			/* sum of values (ns or counts) */
	uint64_t max;			/* exact maximum value */
	const __u64 *buckets;		/* nbuckets counts (valid during the callback) */
	size_t nbuckets;
};

struct tracer;

typedef int (*tracer_inflight_fn)(void *ctx, const struct pending_req *r);
typedef int (*tracer_qd_fn)(void *ctx, const struct tracer_qd *q);
typedef int (*tracer_hist_fn)(void *ctx, const struct tracer_hist *h);

/*
 * Check privileges and BTF, choose the mode, load and attach.
 * On failure returns -errno (and *out = NULL) with a one-line reason in @err.
 * -EINVAL means a bad option (a usage error: exit 2); anything else is a runtime
 * failure (exit 1).
 */
int tracer_open(struct tracer **out, const struct tracer_opts *opts, char *err, size_t errlen);
void tracer_close(struct tracer *t);

/* "fentry", "kprobe" or "syscalls" */
const char *tracer_mode_name(const struct tracer *t);
bool tracer_has_uring(const struct tracer *t);
/* -v: the attach mode, the completion hook, the hooks attached and missing */
void tracer_describe(const struct tracer *t, FILE *f);
/*
 * The @i-th hook (from 0) the mode and options wanted that the kernel refused, with
 * what it feeds and the -errno of its failure; NULL past the last. Only what a
 * missing hook feeds is missing (e.g. "io_uring": io_uring requests).
 */
const char *tracer_missing_hook(const struct tracer *t, int i, const char **feeds, int *err);
struct aio_json;
/* "hooks": [names attached], "missing_hooks": [{hook, feeds, error}] */
void tracer_hooks_json(const struct tracer *t, struct aio_json *j);

/*
 * Wait up to @timeout_ms for events and call @cb for each finished request.
 * Returns the number of events delivered, or -errno (-EINTR is returned as 0).
 * A non-zero return of @cb stops the poll and is returned.
 */
int tracer_poll(struct tracer *t, int timeout_ms, tracer_event_fn cb, void *ctx);
/* Deliver events still waiting for a reap (with reap_ns = TRACER_REAP_NONE). */
int tracer_flush(struct tracer *t, tracer_event_fn cb, void *ctx);

/*
 * Call @cb for each pending request (unordered): requests that were all pending at
 * one instant of the call, so never more than were in flight (tracer_maps.c).
 * Returns the count or -errno. ctx, obj and comm are filled only when the tracer
 * was opened with opts.inflight (or opts.qd); open with opts.inflight to use the
 * table at all (a hist-only tracer keeps just what its histograms need). api is
 * AIOS_API_AIO or AIOS_API_URING.
 */
int tracer_inflight_foreach(struct tracer *t, tracer_inflight_fn cb, void *ctx);

/*
 * Call @cb for each request that finished and was not reaped yet (opts.unreaped;
 * -EOPNOTSUPP without): stage PEND_STAGE_UNREAPED, stage_ns its completion. libaio
 * requests leave at their io_getevents, io_uring ones at the first io_uring_enter
 * on their ring after their application moved the CQ head past them (none when
 * the tracer lacks the io_uring_enter hook), both at their process's exit (libaio
 * also at io_destroy). Returns the count or -errno.
 */
int tracer_unreaped_foreach(struct tracer *t, tracer_inflight_fn cb, void *ctx);

/*
 * The frames (return addresses, innermost first) of stack @id of a pending request
 * (pending_req.kstack_id or .ustack_id) into @ips. Returns the number of frames
 * (at most @max and TRACER_STACK_DEPTH), -ENOENT for id -1 or an unknown id, or
 * -EOPNOTSUPP when the tracer was opened without opts.stacks. User addresses belong
 * to the submitting process (pending_req.pid).
 */
#define TRACER_STACK_DEPTH 32
int tracer_stack_read(struct tracer *t, int32_t id, uint64_t *ips, int max);

/* Queue depth counters; call reset_max at the start of each interval. */
int tracer_qd_foreach(struct tracer *t, tracer_qd_fn cb, void *ctx);
int tracer_qd_reset_max(struct tracer *t);

/* Cumulative histograms (summed over CPUs); diff two reads for an interval. */
int tracer_hist_foreach(struct tracer *t, tracer_hist_fn cb, void *ctx);

int tracer_drops(struct tracer *t, struct tracer_drops *d);

/*
 * opts.pid_counts: requests finished and bytes transferred per submitting process
 * (tgid), cumulative since open or since tracer_pid_forget() of that pid.
 */
struct tracer_pid_count {
	int32_t pid;
	uint64_t requests;
	uint64_t bytes;
};
typedef int (*tracer_pid_fn)(void *ctx, const struct tracer_pid_count *c);
/* Call @cb for each process counted (unordered). Returns the count or -errno. */
int tracer_pid_foreach(struct tracer *t, tracer_pid_fn cb, void *ctx);
/* Drop @pid's counters (a process that exited). 0, -ENOENT or -errno. */
int tracer_pid_forget(struct tracer *t, int32_t pid);

/*
 * The kernel's run statistics of each loaded program (bpf_prog_info run_time_ns and
 * run_cnt: non-zero only while the kernel.bpf_stats_enabled sysctl is 1, and
 * recursion_misses). Returns the number of programs or -errno.
 */
struct tracer_prog_stats {
	const char *name;		/* the program's name in bpf/aioscope.bpf.c */
	uint64_t run_time_ns;
	uint64_t run_cnt;
	uint64_t recursion_misses;
};
typedef int (*tracer_prog_fn)(void *ctx, const struct tracer_prog_stats *p);
int tracer_prog_stats_foreach(struct tracer *t, tracer_prog_fn cb, void *ctx);

/* CLOCK_MONOTONIC in ns: the clock of every *_ns timestamp above */
uint64_t tracer_now_ns(void);
/* When every hook was attached: requests submitted later are the tracer's to know */
uint64_t tracer_attached_ns(const struct tracer *t);

/* The paths whose bios --stages joins to their request (bits of 1 << enum tracer_join). */
enum tracer_join {
	TRACER_JOIN_BLKDEV_ASYNC,	/* block device, one bio (block/fops.c) */
	TRACER_JOIN_BLKDEV,		/* block device, several bios */
	TRACER_JOIN_IOMAP,		/* iomap filesystems: ext4, xfs, ... */
	TRACER_JOIN_IOWQ,		/* io_uring's punts to io-wq */
	TRACER_JOIN_URING_REAP,		/* io_uring's reaps: the CQ head at io_uring_enter */
	TRACER_JOIN_NR
};
/* Which joins are in place (0 unless opts.stages and the block hooks attached). */
unsigned int tracer_stage_joins(const struct tracer *t);
const char *tracer_join_name(enum tracer_join j);

const char *tracer_group_name(enum aios_group g);
/* "op", "pid", ... -> group; -1 when unknown */
int tracer_group_parse(const char *s);

#endif
