/* SPDX-License-Identifier: GPL-2.0 */
/* common.bpf.h - small helpers every part uses: drop counters, the task and file filters (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_COMMON_BPF_H
#define AIOSCOPE_COMMON_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AIOS_DROP_NR);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_map SEC(".maps");

static __always_inline void drop_n(__u32 what, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&drops, &what);

	if (c)
		__sync_fetch_and_add(c, n);
}

static __always_inline void drop(__u32 what)
{
	drop_n(what, 1);
}

/*
 * Sampling (--sample N): keep one request in sample_n, chosen at random where the
 * request has passed every filter, so that the sample is of what was asked for and
 * never in step with a workload's own period. What was seen and what was kept are
 * counted: the coverage user space shows.
 */
static __always_inline bool sample_keep(void)
{
	if (sample_n <= 1)
		return true;
	drop(AIOS_CNT_SAMPLE_SEEN);
	if (bpf_get_prandom_u32() % sample_n)
		return false;
	drop(AIOS_CNT_SAMPLE_KEPT);
	return true;
}

/*
 * A completion or reap with no record: while sampling, most likely a request not
 * sampled, which is not a fault to count.
 */
static __always_inline void unmatched(__u32 what)
{
	if (sample_n <= 1)
		drop(what);
}

/*
 * No wakeups: user space drains the ring buffer on a timer (every 100 ms), which
 * costs the producer nothing; 16 MiB hold more than 100 ms of any event rate the
 * rest of the path can sustain.
 */
static __always_inline __u64 rb_flags(void)
{
	return BPF_RB_NO_WAKEUP;
}

static __always_inline bool comm_ok(char *comm)
{
	int i;

	if (!filter_comm)
		return true;
#pragma unroll
	for (i = 0; i < AIOS_COMM_LEN; i++) {
		if (comm[i] != targ_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/*
 * The current task's comm: two plain loads from the task (the kernel pads it with
 * zeros) instead of bpf_get_current_comm's string copy, 80 ns less per request in
 * the VM.
 */
static __always_inline void current_comm(char *dst)
{
	struct task_struct *task = bpf_get_current_task_btf();

	__builtin_memcpy(dst, task->comm, AIOS_COMM_LEN);
}

/* Filters that depend only on the current task. */
static __always_inline bool task_ok(__u32 tgid)
{
	if (targ_tgid && tgid != targ_tgid)
		return false;
	if (filter_cg && !bpf_current_task_under_cgroup(&cgroup_map, 0))
		return false;
	return true;
}

/*
 * Device and inode of a file. @btf: @f is a BTF pointer of an fentry program, read
 * with plain loads (checked by the verifier, no helper call); otherwise through
 * bpf_probe_read_kernel (kprobe and tracepoint programs).
 */
static __always_inline void file_ids(struct file *f, __u32 *dev, __u64 *ino, bool btf)
{
	struct inode *inode;
	umode_t mode;

	if (btf) {
		inode = f->f_inode;
		mode = inode->i_mode;
		if ((mode & S_IFMT) == S_IFCHR || (mode & S_IFMT) == S_IFBLK)
			*dev = inode->i_rdev;
		else
			*dev = inode->i_sb->s_dev;
		*ino = inode->i_ino;
		return;
	}
	inode = BPF_CORE_READ(f, f_inode);
	mode = BPF_CORE_READ(inode, i_mode);
	if ((mode & S_IFMT) == S_IFCHR || (mode & S_IFMT) == S_IFBLK)
		*dev = BPF_CORE_READ(inode, i_rdev);
	else
		*dev = BPF_CORE_READ(inode, i_sb, s_dev);
	*ino = BPF_CORE_READ(inode, i_ino);
}

static __always_inline bool file_ok(__u32 dev, __u64 ino)
{
	if (filter_dev && dev != targ_dev)
		return false;
	if (filter_ino && ino != targ_ino)
		return false;
	return true;
}

#endif /* AIOSCOPE_COMMON_BPF_H */
