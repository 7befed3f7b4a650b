/* SPDX-License-Identifier: GPL-2.0 */
/* hist.bpf.h - latency histograms aggregated in the kernel, and requests per process (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_HIST_BPF_H
#define AIOSCOPE_HIST_BPF_H

struct {
	/*
	 * Preallocated: a new group must not need an atomic per-CPU allocation (those
	 * fail until the per-CPU allocator refills). User space sizes it to a memory
	 * budget: entries * 16 KiB * CPUs.
	 */
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 512);
	__type(key, struct aios_hkey);
	__type(value, struct aios_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct aios_hist);
} hist_zero SEC(".maps");

/*
 * Histograms whose groups are few and known (one group, by op, by queue depth):
 * a per-CPU array indexed by kind * hist_ngroups + group, a cheaper lookup than the
 * hash above, which serves the open-ended groupings (pid, dev, ctx).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct aios_hist);
} hist_arr SEC(".maps");

/* requests finished per process (the exporter's --top-pids); user space deletes
 * the entries of processes that exited */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct aios_pidc);
} pidc SEC(".maps");

const volatile bool want_pid_counts = false;

const volatile bool hist_direct = false;
const volatile __u32 hist_ngroups = 1;

static __always_inline void hist_add(__u32 kind, __u64 group, __u64 v)
{
	struct aios_hkey k = { .group = group, .kind = kind };
	struct aios_hist *h;
	__u32 zkey = 0, b;

	if (hist_direct) {
		__u32 idx = kind * hist_ngroups +
			    (group < hist_ngroups ? (__u32)group : hist_ngroups - 1);

		h = bpf_map_lookup_elem(&hist_arr, &idx);
		if (!h)
			return;
		goto add;
	}
	h = bpf_map_lookup_elem(&hists, &k);
	if (!h) {
		struct aios_hist *z = bpf_map_lookup_elem(&hist_zero, &zkey);

		if (!z)
			return;
		bpf_map_update_elem(&hists, &k, z, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&hists, &k);
		if (!h) {
			drop(AIOS_DROP_HIST);
			return;
		}
	}
add:
	/*
	 * Atomic although per-CPU: a program can be preempted (fentry runs with only
	 * migration disabled) or interrupted here by its twin on this CPU, and a plain
	 * increment would lose one of the two updates.
	 */
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum, v);
	b = aio_bucket(v);
	if (b < AIOS_HIST_SLOTS)
		__sync_fetch_and_add(&h->slots[b], 1);
	for (int i = 0; i < 4; i++) {
		__u64 max = h->max;

		if (v <= max || __sync_val_compare_and_swap(&h->max, max, v) == max)
			break;
	}
}

static __always_inline __u64 group_of(struct aios_req *r, __u32 state)
{
	switch (hist_by) {
	case AIOS_BY_METRIC:
		return aios_metric_group(r->dev, r->op, r->api, state);
	case AIOS_BY_OP:
		return r->op;
	case AIOS_BY_PID:
		return r->pid;
	case AIOS_BY_DEV:
		return r->dev;
	case AIOS_BY_CTX:
		return r->ctx;
	case AIOS_BY_QD:
		return aio_log2(r->qd ? r->qd : 1);
	case AIOS_BY_STAGE:
		return AIOS_SG_TOTAL;	/* the stages: hist_stages() */
	default:
		return 0;
	}
}

static __always_inline void pidc_add(__u32 tgid, __s64 res)
{
	struct aios_pidc *c = bpf_map_lookup_elem(&pidc, &tgid);

	if (!c) {
		struct aios_pidc z = {};

		bpf_map_update_elem(&pidc, &tgid, &z, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&pidc, &tgid);
		if (!c) {
			drop(AIOS_DROP_PIDC);
			return;
		}
	}
	__sync_fetch_and_add(&c->count, 1);
	if (res > 0)
		__sync_fetch_and_add(&c->bytes, res);
}

#endif /* AIOSCOPE_HIST_BPF_H */
