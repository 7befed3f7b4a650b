// SPDX-License-Identifier: GPL-2.0
/*
 * privs.c - check the capabilities aioscope needs, instead of euid 0.
 *
 * capget(2) directly (no libcap): the effective set of this thread. The kernel's
 * highest capability (/proc/sys/kernel/cap_last_cap) tells whether CAP_BPF and
 * CAP_PERFMON exist (5.8 and later).
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "privs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

bool privs_have(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (cap < 0 || cap >= 32 * _LINUX_CAPABILITY_U32S_3)
		return false;
	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

/* The highest capability this kernel knows, or -1 */
static int cap_last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = -1;

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = -1;
		fclose(f);
	}
	return last;
}

int privs_check_bpf(char *msg, size_t len)
{
	bool bpf, perfmon;
	int last;

	if (privs_have(CAP_SYS_ADMIN))
		return 0;
	last = cap_last_cap();
	if (last >= 0 && last < CAP_BPF) {
		snprintf(msg, len, "missing CAP_SYS_ADMIN: this kernel has no CAP_BPF and "
			 "CAP_PERFMON, so loading BPF programs needs CAP_SYS_ADMIN (or root)");
		return -EPERM;
	}
	bpf = privs_have(CAP_BPF);
	perfmon = privs_have(CAP_PERFMON);
	if (bpf && perfmon)
		return 0;
	snprintf(msg, len, "missing %s%s%s: aioscope needs CAP_BPF and CAP_PERFMON to load "
		 "its BPF programs (run as root, or see PRIVILEGES in aioscope(8))",
		 bpf ? "" : "CAP_BPF", !bpf && !perfmon ? " and " : "",
		 perfmon ? "" : "CAP_PERFMON");
	return -EPERM;
}
