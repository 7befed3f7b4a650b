// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope.bpf.c - follow each asynchronous request (libaio and io_uring) from
 * submission to completion and reap: one BPF object, its parts by concern.
 *
 * Three attach modes for libaio, chosen by user space (cli/collect/tracer.c), one handler
 * body each (libaio.bpf.h):
 *   fentry    fentry aio_read/aio_write/aio_fsync (submit), fentry aio_complete
 *             (completion: the moment the event enters the context's ring),
 *             fexit do_io_getevents (reap)                    libaio_fentry.bpf.h
 *   kprobe    kprobes on the same functions; reap from the syscall tracepoints
 *                                                             libaio_kprobe.bpf.h
 *   syscalls  sys_{enter,exit}_io_submit and sys_{enter,exit}_io_{,p}getevents only:
 *             requests are read from the syscalls' arguments, lat = submit -> reap
 *                                                             libaio_tp.bpf.h
 * io_uring from its own tracepoints in every mode (uring.bpf.h); when aiodev is
 * loaded, its tracepoints for the driver's own time (driver.bpf.h); for snoop
 * --stages, the block layer's tracepoints (stages.bpf.h).
 *
 * Below them: one request's record, built at submit and finished at completion
 * (request.bpf.h), the in-flight table (inflight.bpf.h), the ring buffer's records
 * (records.bpf.h), histograms (hist.bpf.h), queue depth (qd.bpf.h) and small
 * helpers (common.bpf.h). Each part uses only the ones included before it.
 *
 * Per request the fast path does one hash update at submit and one lookup + delete
 * at completion; everything else is switched off by rodata (const volatile) so the
 * verifier prunes it.
 */
#include "vmlinux_arch.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "aioscope.h"
#include "buckets.h"

#define ECANCELED	125
#define EEXIST		17
#define ENOMEM		12
#define S_IFMT		00170000
#define S_IFBLK		0060000
#define S_IFCHR		0020000

/* ---- configuration, written by user space before load ---- */
const volatile __u32 targ_tgid = 0;
const volatile bool filter_cg = false;
const volatile bool filter_dev = false;
const volatile __u32 targ_dev = 0;
const volatile bool filter_ino = false;
const volatile __u64 targ_ino = 0;
const volatile bool filter_comm = false;
const volatile char targ_comm[AIOS_COMM_LEN] = {};
const volatile __u64 min_lat_ns = 0;
const volatile __u32 sample_n = 0;		/* keep 1 request in sample_n (0, 1: all) */

const volatile bool want_events = false;	/* DONE records */
const volatile bool want_event_reap = false;	/* REAP records (user-space join) */
const volatile bool want_hist = false;
const volatile __u32 hist_by = AIOS_BY_NONE;
const volatile bool want_hist_reap = false;	/* kernel join via the done map */
/* io_uring's reaps: the CQ ring's head sampled at io_uring_enter (uring.bpf.h) */
const volatile bool want_uring_reap = false;
/* finished requests kept until their reap, for stuck's "completed, not reaped" */
const volatile bool want_unreaped = false;
const volatile bool want_hist_syscalls = false;
const volatile bool want_comm = false;
const volatile bool want_qd = false;
const volatile bool want_ids = false;		/* ctx/obj/data at submit */
const volatile bool want_cancel = false;	/* io_cancel calls are hooked */
const volatile bool want_stages = false;	/* block layer and driver times (stages.bpf.h) */
/*
 * lean: only latency histograms by nothing or by op, no filter that needs the file
 * or the comm: submit and completion touch just the slot's ts, op and flags.
 */
const volatile bool lean = false;
/* record the submitting kernel and user stacks of each request (stuck --stack) */
const volatile bool targ_stacks = false;
const volatile bool mode_syscalls = false;
/*
 * Fault injection for the tests (AIOSCOPE_FAULT_LOSE_DATA): completions of libaio
 * requests whose user data (aio_data) is at least this are not seen, as when the
 * kernel skips a program run. 0: off, and the check is compiled out.
 */
const volatile __u64 fault_lose_data = 0;

/* ---- the parts, each using only the ones before it ---- */
#include "common.bpf.h"
#include "qd.bpf.h"
#include "hist.bpf.h"
#include "inflight.bpf.h"
#include "records.bpf.h"
#include "stages.bpf.h"
#include "request.bpf.h"
#include "libaio.bpf.h"
#include "libaio_fentry.bpf.h"
#include "libaio_kprobe.bpf.h"
#include "libaio_tp.bpf.h"
#include "uring.bpf.h"
#include "driver.bpf.h"

char LICENSE[] SEC("license") = "GPL";
