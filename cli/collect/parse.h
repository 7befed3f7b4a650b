/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h - parsers of text that comes from outside aioscope: command-line numbers
 * and modes, the aiodev debugfs listing (aiodev_pending_parse_line),
 * /proc/kallsyms and /proc/PID/maps. No libbpf, no curses: the fuzz targets under
 * tests/fuzz/ run them as they are.
 */
#ifndef AIOSCOPE_PARSE_H
#define AIOSCOPE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "request/pending.h"
#include "tracer.h"

/*
 * Strict number parsing: the whole string must be a number in range
 * (no sign for unsigned, no trailing junk, no empty string). Return 0 or -EINVAL.
 */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int parse_int(const char *s, int min, int max, int *out);
/* seconds, a decimal number ("0.5", "2e-3"; not hexadecimal), finite, > 0 unless
 * allow_zero, <= 1e6 */
int parse_seconds(const char *s, bool allow_zero, double *out);
/* "auto", "fentry", "kprobe", "syscalls" -> *m; -EINVAL otherwise */
int parse_mode(const char *s, enum tracer_mode *m);

/*
 * Parse one line of an aiodev pending listing into @r (its age into age_ns; the
 * submit time, source and path are the caller's).
 * Returns 0, or -1 when the line is malformed.
 */
int aiodev_pending_parse_line(const char *line, struct stuck_req *r);

/* Kernel symbols: lines "ADDR TYPE NAME [module]" of /proc/kallsyms. */
struct ksym {
	uint64_t addr;
	char *name;
};

struct ksyms {
	struct ksym *v;		/* sorted by address */
	size_t n;
};

/*
 * ksyms_read - add the symbols of @f (kallsyms format; lines that do not parse and
 * address 0, as kallsyms shows them without privileges, are skipped) to @k, sorted
 * by address. Out of memory ends the reading early: what was read is kept.
 */
void ksyms_read(FILE *f, struct ksyms *k);
#define KSYM_NAME_MAX 256	/* longer names are cut */
/* One line: 1 with *addr and @name, 0 when it does not parse or the address is 0. */
int ksym_parse_line(const char *line, uint64_t *addr, char name[KSYM_NAME_MAX]);
/*
 * ksyms_lookup - the addresses of the @n symbols @names of the kernel itself (not
 * of modules) in @f, into @addrs (0: absent, or hidden from the unprivileged; the
 * first of two with one name). Returns how many were found.
 */
size_t ksyms_lookup(FILE *f, const char *const *names, uint64_t *addrs, size_t n);
/* ksyms_free - free what ksyms_read() added; @k is empty again. */
void ksyms_free(struct ksyms *k);
/* "name+0xoff" of the nearest symbol at or below @ip, or "0x..." */
const char *ksyms_fmt(const struct ksyms *k, uint64_t ip, char *buf, size_t len);

/* A file-backed mapping: a line "START-END PERMS OFF DEV INODE /path" of maps. */
struct umap {
	uint64_t start, end, off;
	char path[STUCK_PATH_LEN];
};

/* umaps_read - the file-backed mappings of @f (maps format): *n of them, malloc'd. */
struct umap *umaps_read(FILE *f, size_t *n);
/* One line (its newline or not): 1 with *m for a file-backed mapping, else 0. */
int umap_parse_line(const char *line, struct umap *m);
/* "0xADDR module+0xoff" (module: the file's base name, terminal-safe), or "0xADDR ?" */
const char *umaps_fmt(const struct umap *m, size_t n, uint64_t ip, char *buf, size_t len);

#endif /* AIOSCOPE_PARSE_H */
