/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pending ("stuck") requests, one model for `aioscope stuck` and top's stuck list,
 * from two sources: aiodev's debugfs listing and the tracer's in-flight table
 * (stuck_src.c). Their plain and JSON forms: commands/stuck_view.h.
 */
#ifndef AIOSCOPE_STUCK_SRC_H
#define AIOSCOPE_STUCK_SRC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "request/pending.h"

void stuck_list_reset(struct stuck_list *l);
void stuck_list_free(struct stuck_list *l);
struct stuck_req *stuck_list_add(struct stuck_list *l);
/* Oldest first, ties by id: the order of every stuck listing. */
void stuck_list_sort(struct stuck_list *l);
/* Drop entries younger than @older_than_ns. */
void stuck_list_filter_age(struct stuck_list *l, uint64_t older_than_ns);
/* Keep only the entries of process @pid. */
void stuck_list_filter_pid(struct stuck_list *l, int32_t pid);
/*
 * Sort @l, debugfs entries only, by the key that stuck_same_request() compares, so
 * that stuck_add_tracer() finds a request's debugfs entry by binary search rather
 * than by reading them all (thousands of pending requests: top at every interval).
 */
void stuck_list_index(struct stuck_list *l, bool by_user_iocb);

/*
 * Read every /sys/kernel/debug/aiodev/aiodevN/pending under @root (NULL: the
 * default debugfs path) and append all entries to @l.
 * Returns the number of devices read, or -errno when none could be read.
 */
int aiodev_pending_read(const char *root, struct stuck_list *l);

/* A file as a recording names it: "MAJ:MIN ino N", or "MAJ:MIN" when no inode. */
const char *recorded_file_name(uint32_t kdev, uint64_t ino, char *buf, size_t len);

/*
 * A pending request of a recording (no tracer, no aiodev listing: the machine may be
 * another): its device and file as "MAJ:MIN" or "MAJ:MIN ino N", stalled unknown, no
 * stacks. 0 or -ENOMEM.
 */
int stuck_add_recorded(struct stuck_list *l, const struct pending_req *q, uint64_t age_ns);

struct tracer;
/*
 * Append the tracer's pending requests older than @older_than_ns that the list
 * does not hold yet (aiodev requests come from debugfs). Returns 0 or -errno.
 */
int stuck_from_tracer(struct tracer *t, struct stuck_list *l, uint64_t older_than_ns);

/*
 * One of the tracer's pending requests, pending @age_ns, into @l: its stacks onto the
 * debugfs entry already listed for the same request (stuck_same_request()), else a
 * new tracer entry (a copy of @q, with its file's path). For a caller that scans the
 * in-flight table itself (top, once per sample). Returns 0 or -ENOMEM.
 */
int stuck_add_tracer(struct stuck_list *l, struct tracer *t, const struct pending_req *q,
		     uint64_t age_ns, bool by_user_iocb);
/* Are @t's request ids user iocb pointers (syscalls mode) rather than kiocbs? */
bool stuck_by_user_iocb(const struct tracer *t);

/* Names: "aiodev0" (or "M:m") for a kernel dev_t; a file's path via /proc/PID/fd. */
const char *top_dev_name(uint32_t kdev, char *buf, size_t len);
const char *top_file_name(int32_t pid, uint32_t kdev, uint64_t ino, char *buf, size_t len);

#endif
