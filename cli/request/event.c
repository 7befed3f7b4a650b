// SPDX-License-Identifier: GPL-2.0
/*
 * event.c - the names of what an event holds (event.h).
 */
#include <string.h>

#include "event.h"
#include "core/format.h"

static const char *const op_names[] = { "read", "write", "fsync", "fdsync", "poll", "other" };
static const char *const api_names[] = { "sync", "aio", "uring", "other" };

_Static_assert(sizeof(op_names) / sizeof(op_names[0]) == AIOS_OP_OTHER + 1,
	       "a name for every enum aios_op");
_Static_assert(sizeof(api_names) / sizeof(api_names[0]) == AIOS_API_OTHER + 1,
	       "a name for every enum aios_api");

const char *tracer_op_name(enum aios_op op)
{
	return (unsigned int)op <= AIOS_OP_OTHER ? op_names[op] : "other";
}

const char *tracer_api_name(enum aios_api api)
{
	return (unsigned int)api <= AIOS_API_OTHER ? api_names[api] : "other";
}

/* The index of the name [s, s + len) in @names, or -1. */
static int name_index(const char *const *names, int n, const char *s, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], s, len))
			return i;
	return -1;
}

int tracer_op_parse(const char *s, size_t len)
{
	return name_index(op_names, AIOS_OP_OTHER + 1, s, len);
}

int tracer_api_parse(const char *s, size_t len)
{
	return name_index(api_names, AIOS_API_OTHER + 1, s, len);
}

const char *tracer_state_name(enum aios_state s)
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
