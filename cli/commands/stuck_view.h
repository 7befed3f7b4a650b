/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stuck_view.h - pending requests as text and JSON (stuck_view.c), for stuck and
 * top's batch view.
 */
#ifndef AIOSCOPE_STUCK_VIEW_H
#define AIOSCOPE_STUCK_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "request/pending.h"

/* The list as a table, oldest first as given; with @stacks each request's stacks. */
void stuck_print_plain(FILE *f, const struct stuck_list *l, bool stacks);
struct aio_json;
/* One request as a JSON object (fields documented in docs/usage.md). */
void stuck_json_req(struct aio_json *j, const struct stuck_req *r, bool stacks);

#endif
