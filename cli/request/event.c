// SPDX-License-Identifier: GPL-2.0
/*
 * event.c - the names of what an event holds (event.h).
 */
#include <string.h>

#include "event.h"
#include "core/format.h"

const char *tracer_op_name(enum tracer_op op)
{
	static const char *const n[] = { "read", "write", "fsync", "fdsync", "poll", "other" };

	return (unsigned int)op < sizeof(n) / sizeof(n[0]) ? n[op] : "other";
}

const char *tracer_api_name(enum tracer_api api)
{
	static const char *const n[] = { "sync", "aio", "uring", "other" };

	return (unsigned int)api < sizeof(n) / sizeof(n[0]) ? n[api] : "other";
}

const char *tracer_state_name(enum tracer_state s)
{
	static const char *const n[] = { "done", "error", "cancelled" };

	return (unsigned int)s < sizeof(n) / sizeof(n[0]) ? n[s] : "done";
}

const char *tracer_dev_str(uint32_t dev, char *buf, size_t len)
{
	/* "major:minor" without snprintf: snoop prints one per line */
	char tmp[24];
	int n = aio_fmt_fixed(tmp, sizeof(tmp), dev >> 20, 1, 0);

	tmp[n++] = ':';
	aio_fmt_fixed(tmp + n, sizeof(tmp) - n, dev & 0xfffff, 1, 0);
	if (len) {
		strncpy(buf, tmp, len - 1);
		buf[len - 1] = '\0';
	}
	return buf;
}
