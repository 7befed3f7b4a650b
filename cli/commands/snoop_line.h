/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snoop_line.h - snoop's output line for one finished request, built without printf
 * (a printf per field is too slow for 100,000 requests per second): the JSON line by
 * the core's JSON writer in buffer mode, the text columns on its buffer. No libbpf:
 * tests/unit/test_snoop_line.c pins both forms byte for byte, and the fuzz target
 * tests/fuzz/fuzz_record.c checks every line it makes.
 */
#ifndef AIOSCOPE_SNOOP_LINE_H
#define AIOSCOPE_SNOOP_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "request/event.h"

#define SNOOP_LINE_MAX 1024	/* room for the longest line of any form */

/*
 * snoop_line - the line of @e, newline included, into @buf (NUL-terminated): a JSON
 * object (@json; "ts_ns" is @e's time + @mono_to_real, wrapping) or the text columns
 * (time since @start_mono; comm terminal-safe). Returns its length. A @buf too
 * small for the line (SNOOP_LINE_MAX never is) holds a prefix of it cut between
 * whole pieces; @cap 0 writes nothing.
 */
size_t snoop_line(char *buf, size_t cap, const struct tracer_event *e, bool json,
		  uint64_t mono_to_real, uint64_t start_mono);

/* the text form's column header line (live snoop and report FILE snoop) */
void snoop_header(FILE *f);

/*
 * snoop --stages: the same line with the request's stages (core/stages.h): in JSON a
 * "stages" object (submit_ns, iowq_ns, queue_ns, device_ns, complete_ns, reap_ns,
 * bios; null where one does not apply or was not seen); in text one column per
 * stage in microseconds ("-" for those) and the bios, instead of ino and offset.
 */
size_t snoop_stage_line(char *buf, size_t cap, const struct tracer_event *e, bool json,
			uint64_t mono_to_real, uint64_t start_mono);
void snoop_stage_header(FILE *f);

#endif /* AIOSCOPE_SNOOP_LINE_H */
