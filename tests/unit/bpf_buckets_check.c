// SPDX-License-Identifier: GPL-2.0
/* Compile check: bpf/buckets.h under clang -target bpf (see Makefile). */
#ifdef USE_VMLINUX
#include "vmlinux.h"
#endif
#include "bpf/buckets.h"

__u32 bucket_of(__u64 ns)
{
	return aio_bucket(ns);
}

__u64 bucket_edges(__u32 i)
{
	return aio_bucket_lower(i) ^ aio_bucket_upper(i);
}
