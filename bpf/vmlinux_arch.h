/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmlinux_arch.h - the kernel's types for the programs, for the architecture the
 * object is compiled for.
 *
 * vmlinux.h is dumped from the build machine's kernel BTF. Every kernel type the
 * programs read (kiocb, aio_kiocb, io_kiocb, file, inode, task_struct, ...) is read
 * through CO-RE: its layout comes from the running kernel's BTF at load time, so
 * these definitions serve any architecture. The register set is the exception: it
 * is architecture-specific, and libbpf's PT_REGS_* macros read it at fixed offsets.
 *
 * The build compiles the object a second time for another architecture as a check
 * (cli/Makefile, AIOS_CROSS_ARCH). There the build machine's struct pt_regs is
 * renamed out of the way and replaced by the target's, from its kernel headers, so
 * that a program reading x86's registers by name (regs->di) fails to compile
 * instead of reading garbage on arm64. Only the leading members libbpf uses are
 * given; a native build uses vmlinux.h as it is.
 */
#ifndef AIOSCOPE_VMLINUX_ARCH_H
#define AIOSCOPE_VMLINUX_ARCH_H

#ifndef AIOS_CROSS_ARCH

#include "vmlinux.h"

#else /* a compile check for another architecture */

#define pt_regs pt_regs___build_machine
#include "vmlinux.h"
#undef pt_regs

#if defined(__TARGET_ARCH_arm64)
/* arch/arm64/include/uapi/asm/ptrace.h */
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};

/* arch/arm64/include/asm/ptrace.h (leading members) */
struct pt_regs {
	union {
		struct user_pt_regs user_regs;
		struct {
			__u64 regs[31];
			__u64 sp;
			__u64 pc;
			__u64 pstate;
		};
	};
	__u64 orig_x0;
};
#else
#error "no register set given for this cross-architecture check"
#endif

#endif /* AIOS_CROSS_ARCH */

#endif /* AIOSCOPE_VMLINUX_ARCH_H */
