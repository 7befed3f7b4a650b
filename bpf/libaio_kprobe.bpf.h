/* SPDX-License-Identifier: GPL-2.0 */
/* libaio_kprobe.bpf.h - kprobe mode: kprobes on the same functions (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_LIBAIO_KPROBE_BPF_H
#define AIOSCOPE_LIBAIO_KPROBE_BPF_H

/*
 * kprobe mode: the kretprobe no longer has the arguments; the entry probe leaves the
 * kiocb address by thread (only when the return probes are attached).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u64);
} submit_arg SEC(".maps");

const volatile bool want_submit_ret = false;

static __always_inline int kprobe_submit(void *ctx, struct kiocb *req, const struct iocb *iocb,
					 __u8 op)
{
	if (want_submit_ret) {
		__u64 pid_tgid = bpf_get_current_pid_tgid(), id = (__u64)req;

		bpf_map_update_elem(&submit_arg, &pid_tgid, &id, BPF_ANY);
	}
	return on_submit(ctx, req, iocb, op, false, (__u64)req);
}

static __always_inline int kretprobe_submit(long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 *id = bpf_map_lookup_elem(&submit_arg, &pid_tgid);

	if (!id)
		return 0;
	on_submit_ret(*id, ret);
	bpf_map_delete_elem(&submit_arg, &pid_tgid);
	return 0;
}

SEC("?kprobe/aio_read")
int BPF_KPROBE(kprobe_aio_read, struct kiocb *req, const struct iocb *iocb)
{
	return kprobe_submit(ctx, req, iocb, AIOS_OP_READ);
}

SEC("?kprobe/aio_write")
int BPF_KPROBE(kprobe_aio_write, struct kiocb *req, const struct iocb *iocb)
{
	return kprobe_submit(ctx, req, iocb, AIOS_OP_WRITE);
}

SEC("?kprobe/aio_fsync")
int BPF_KPROBE(kprobe_aio_fsync, struct fsync_iocb *req, const struct iocb *iocb, bool datasync)
{
	return kprobe_submit(ctx, (struct kiocb *)req, iocb,
			     datasync ? AIOS_OP_FDSYNC : AIOS_OP_FSYNC);
}

SEC("?kretprobe/aio_read")
int BPF_KRETPROBE(kretprobe_aio_read, int ret)
{
	return kretprobe_submit(ret);
}

SEC("?kretprobe/aio_write")
int BPF_KRETPROBE(kretprobe_aio_write, int ret)
{
	return kretprobe_submit(ret);
}

SEC("?kretprobe/aio_fsync")
int BPF_KRETPROBE(kretprobe_aio_fsync, int ret)
{
	return kretprobe_submit(ret);
}

SEC("?kprobe/aio_complete")
int BPF_KPROBE(kprobe_aio_complete, struct aio_kiocb *iocb)
{
	return on_complete(iocb, false, (__u64)iocb, false, 0, false);
}

SEC("?kprobe/aio_complete_rw")
int BPF_KPROBE(kprobe_aio_complete_rw, struct kiocb *kiocb, long res)
{
	return on_complete((struct aio_kiocb *)kiocb, false, (__u64)kiocb, true, res, false);
}

#endif /* AIOSCOPE_LIBAIO_KPROBE_BPF_H */
