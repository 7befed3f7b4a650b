/* SPDX-License-Identifier: GPL-2.0 */
/* driver.bpf.h - aiodev's tracepoints: the driver's own time, and its cancels (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_DRIVER_BPF_H
#define AIOSCOPE_DRIVER_BPF_H

/*
 * Raw tracepoints rather than classic ones: a classic tracepoint program is skipped
 * silently when another kprobe/tracepoint program runs on the CPU (bpf_prog_active),
 * e.g. when the driver's hrtimer interrupts a syscall tracepoint program. Raw
 * tracepoint programs only skip their own recursion, and count it (recursion_misses).
 * Arguments: TP_PROTO(u64 id, s64 offset, u64 len, s64 res, u64 lat_ns, u32 minor,
 * u32 op, u32 api, u32 flags) of aiodev's event class (docs/design.md).
 */
static __always_inline int on_driver(__u64 id, __s64 res, __u64 lat_ns, __u32 api, bool cancel)
{
	struct aios_key key = { .id = id };
	struct aios_req *r;

	/* io_uring's kiocb is the first member of its io_kiocb: the same id */
	if (api != AIOS_API_AIO && !(api == AIOS_API_URING && want_uring))
		return 0;
	r = inflight_find(&key);
	if (!r)
		return 0;
	r->driver_ns = lat_ns;
	/*
	 * The completion as the driver saw it, should the completion hook be skipped,
	 * and where its device stage ends: only reconcile() and --stages read it, and
	 * the clock read is a third of this program.
	 */
	if (want_reconcile || want_stages) {
		r->done_ts = bpf_ktime_get_ns();
		r->done_res = cancel ? -ECANCELED : res;
	}
	r->flags |= AIOS_F_DRIVER | (cancel ? AIOS_F_CANCELLED : 0);
	return 0;
}

/* --stages: where aiodev starts a request (its device stage, for pending ones) */
SEC("?raw_tp/aiodev_submit")
int BPF_PROG(raw_aiodev_submit, __u64 id, __s64 offset, __u64 len, __s64 res, __u64 lat_ns,
	     __u32 minor, __u32 op, __u32 api)
{
	struct aios_key key = { .id = id };
	struct aios_req *r;

	if (api != AIOS_API_AIO && !(api == AIOS_API_URING && want_uring))
		return 0;
	r = inflight_find(&key);
	if (r && !r->issue_ts)
		r->issue_ts = bpf_ktime_get_ns();
	return 0;
}

SEC("?raw_tp/aiodev_complete")
int BPF_PROG(raw_aiodev_complete, __u64 id, __s64 offset, __u64 len, __s64 res, __u64 lat_ns,
	     __u32 minor, __u32 op, __u32 api)
{
	return on_driver(id, res, lat_ns, api, false);
}

SEC("?raw_tp/aiodev_cancel")
int BPF_PROG(raw_aiodev_cancel, __u64 id, __s64 offset, __u64 len, __s64 res, __u64 lat_ns,
	     __u32 minor, __u32 op, __u32 api)
{
	return on_driver(id, res, lat_ns, api, true);
}

#endif /* AIOSCOPE_DRIVER_BPF_H */
