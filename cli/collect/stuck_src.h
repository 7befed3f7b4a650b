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

/*
 * The listing kept between reads (top reads it at every interval end): read again
 * only when some device's pending list changed since the last read. Every field of an
 * entry but its age is fixed at submit, so an unchanged pending set is the same
 * listing with older ages; with thousands of requests stuck that is most of the
 * listing's cost (the kernel formats every line, we parse it back) saved.
 */
struct aiodev_listing {
	struct stuck_list l;	/* the entries, ages as of the last refresh */
	char sig[1024];		/* each device's name, pending_gen, inode before that read */
	bool valid;		/* sig describes l */
};

/*
 * aiodev_listing_refresh - make @c->l the listing now, at tracer time @now_ns:
 * every device's listing generation (debugfs pending_gen, bumped at each change of
 * the pending list) is read first; when all equal those read before the last
 * listing, nothing came or went since, and the entries are kept with their ages
 * advanced; else the listing is read again (aiodev_pending_read). Returns 1 (read),
 * 0 (kept) or aiodev_pending_read's error (@c->l then empty, its debugfs_err set).
 */
int aiodev_listing_refresh(struct aiodev_listing *c, uint64_t now_ns);
void aiodev_listing_free(struct aiodev_listing *c);
/*
 * aiodev_listing_error - 0, or the -errno of a listing that no device could give
 * (aiodev not loaded, debugfs not mounted), as aiodev_pending_read() returned it.
 */
int aiodev_listing_error(const struct aiodev_listing *c);
/*
 * stuck_list_add_listing - append the listing's entries to @l (their stacks, which
 * a listing never has, not copied), and take its device count and error.
 * Returns 0 or -ENOMEM.
 */
int stuck_list_add_listing(struct stuck_list *l, const struct aiodev_listing *c);

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
