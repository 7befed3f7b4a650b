/* SPDX-License-Identifier: GPL-2.0 */
/*
 * privs.h - the capabilities aioscope needs, checked instead of euid 0.
 */
#ifndef AIOSCOPE_PRIVS_H
#define AIOSCOPE_PRIVS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Loading and attaching the tracer's BPF programs (fentry, kprobe, tracepoints)
 * needs CAP_BPF and CAP_PERFMON in the effective set; CAP_SYS_ADMIN stands for
 * both, and is the only one a kernel older than 5.8 (which has neither) accepts.
 * Returns 0 when they are there; otherwise -EPERM with one line in @msg naming
 * what is missing and how to grant it.
 */
int privs_check_bpf(char *msg, size_t len);

/* The effective set holds capability @cap (CAP_*) */
bool privs_have(int cap);

#endif
