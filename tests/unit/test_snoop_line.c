// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of cli/commands/snoop_line.c: snoop's two line forms, byte for byte. The
 * expected lines were captured from snoop_line.c's own hand-written builder
 * (jl_*), and pin the output scripts parse: numbers at their limits, negative
 * results, hostile comm bytes, no reap or driver time, cancelled requests, values
 * outside the enums.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "commands/snoop_line.h"
#include "unit.h"

#define DEV(maj, min) ((uint32_t)(maj) << 20 | (uint32_t)(min))

struct golden {
	struct tracer_event e;
	uint64_t mono_to_real, start_mono;
	const char *json, *text;
};

static const struct golden cases[] = {
	{	/* an ordinary libaio read */
		.e = { .ts_ns = 5000123456789ULL, .submit_ns = 5000123000000ULL,
		       .lat_ns = 456789, .reap_ns = 1234, .driver_ns = TRACER_DRIVER_NONE,
		       .id = 0xffff888012345678ULL, .ctx = 0x7f12a0001000ULL,
		       .obj = 0x55d0c0de0000ULL, .data = 42, .ino = 131075, .offset = 4096,
		       .bytes = 4096, .res = 4096, .dev = DEV(8, 16), .pid = 1234,
		       .tid = 1235, .api = AIOS_API_AIO, .op = AIOS_OP_READ,
		       .state = AIOS_DONE, .comm = "fio" },
		.mono_to_real = 1700000000000000000ULL, .start_mono = 5000000000000ULL,
	},
	{	/* an error: negative result, no reap, the driver's own time */
		.e = { .ts_ns = 10, .lat_ns = 0, .reap_ns = TRACER_REAP_NONE,
		       .driver_ns = 777, .id = 1, .ctx = 0, .data = 0, .ino = 0,
		       .offset = -1, .bytes = 0, .res = -5, .dev = DEV(259, 3),
		       .pid = 1, .tid = 1, .api = AIOS_API_URING, .op = AIOS_OP_WRITE,
		       .state = AIOS_ERROR, .comm = "kworker/u16:2" },
		.mono_to_real = 0, .start_mono = 20,	/* before the start: time 0 */
	},
	{	/* every number at its limit; ts_ns + mono_to_real wraps */
		.e = { .ts_ns = UINT64_MAX, .lat_ns = UINT64_MAX,
		       .reap_ns = UINT64_MAX - 1, .driver_ns = UINT64_MAX - 1,
		       .id = UINT64_MAX, .ctx = UINT64_MAX, .data = UINT64_MAX,
		       .ino = UINT64_MAX, .offset = INT64_MIN, .bytes = UINT64_MAX,
		       .res = INT64_MIN, .dev = UINT32_MAX, .pid = INT32_MIN,
		       .tid = INT32_MAX, .api = AIOS_API_SYNC, .op = AIOS_OP_FDSYNC,
		       .state = AIOS_CANCELLED, .comm = "123456789012345",
		       .cancel_pid = INT32_MAX, .cancel_tid = INT32_MIN,
		       .cancel_ret = INT64_MIN, .cancel_ns = UINT64_MAX },
		.mono_to_real = 2, .start_mono = 0,
	},
	{	/* positive limits of the signed fields */
		.e = { .ts_ns = 999999999, .lat_ns = 999949, .reap_ns = 999950,
		       .driver_ns = 0, .id = 0, .ctx = 0xa, .data = 1, .ino = 1,
		       .offset = INT64_MAX, .bytes = 1, .res = INT64_MAX,
		       .dev = DEV(4095, 0xfffff), .pid = INT32_MAX, .tid = 0,
		       .api = AIOS_API_OTHER, .op = AIOS_OP_OTHER,
		       .state = AIOS_DONE, .comm = "" },
		.mono_to_real = 1, .start_mono = 0,
	},
	{	/* hostile comm: quotes, backslash, controls, ESC, DEL */
		.e = { .ts_ns = 2000000000, .lat_ns = 1500, .reap_ns = TRACER_REAP_NONE,
		       .driver_ns = TRACER_DRIVER_NONE, .id = 0xdeadbeef, .ctx = 0xbeef,
		       .data = 0x1234, .ino = 12, .offset = 512, .bytes = 512, .res = 0,
		       .dev = DEV(0, 45), .pid = 77, .tid = 78, .api = AIOS_API_AIO,
		       .op = AIOS_OP_FSYNC, .state = AIOS_DONE,
		       .comm = "a\"b\\c\n\t\x1b[2J\x7f\x01" },
		.mono_to_real = 1000, .start_mono = 1000000000,
	},
	{	/* hostile comm: ill-formed UTF-8, C1 controls, a cut character, and a
		 * 15-byte comm of control bytes, the longest escape of all */
		.e = { .ts_ns = 3000000001ULL, .lat_ns = 1, .reap_ns = 0,
		       .driver_ns = TRACER_DRIVER_NONE, .id = 0x10, .ctx = 0x20,
		       .data = 3, .ino = 4, .offset = 0, .bytes = 65536, .res = 65536,
		       .dev = DEV(8, 0), .pid = 4194304, .tid = 4194303,
		       .api = AIOS_API_AIO, .op = AIOS_OP_POLL, .state = AIOS_DONE,
		       .comm = "\xc3\xa9\xff\xc2\x85\xe2\x82\xac\xf0\x9f\x98\x80x\xe2\x82" },
		.mono_to_real = 0, .start_mono = 1,
	},
	{
		.e = { .ts_ns = 7, .lat_ns = 7, .reap_ns = 7, .driver_ns = 7, .id = 7,
		       .ctx = 7, .data = 7, .ino = 7, .offset = 7, .bytes = 7, .res = 7,
		       .dev = 7, .pid = 7, .tid = 7, .api = AIOS_API_AIO,
		       .op = AIOS_OP_READ, .state = AIOS_DONE,
		       .comm = "\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x1e\x1f" },
	},
	{	/* cancelled: io_cancel's pid, tid, return value and time */
		.e = { .ts_ns = 123456789012ULL, .lat_ns = 2000000000, .reap_ns = 50,
		       .driver_ns = 1999000000, .id = 0xffff8881deadc0deULL,
		       .ctx = 0x7fabcdef0000ULL, .data = 99, .ino = 5555, .offset = 8192,
		       .bytes = 4096, .res = -125, .dev = DEV(252, 1), .pid = 300,
		       .tid = 301, .api = AIOS_API_AIO, .op = AIOS_OP_READ,
		       .state = AIOS_CANCELLED, .comm = "stuck-test",
		       .cancel_pid = 300, .cancel_tid = 302, .cancel_ret = -115,
		       .cancel_ns = 1000000000 },
		.mono_to_real = 100, .start_mono = 123000000000ULL,
	},
	{	/* cancelled, but it completed before io_cancel returned: ret null */
		.e = { .ts_ns = 50, .lat_ns = 40, .reap_ns = TRACER_REAP_NONE,
		       .driver_ns = 30, .id = 2, .ctx = 3, .data = 4, .ino = 5,
		       .offset = 6, .bytes = 7, .res = 7, .dev = DEV(1, 2), .pid = 8,
		       .tid = 9, .api = AIOS_API_AIO, .op = AIOS_OP_WRITE,
		       .state = AIOS_CANCELLED, .comm = "c",
		       .cancel_pid = 8, .cancel_tid = 8,
		       .cancel_ret = TRACER_CANCEL_RET_PENDING, .cancel_ns = 0 },
	},
	{	/* values outside the enums print as the fallback names */
		.e = { .ts_ns = 1, .lat_ns = 1, .reap_ns = 1, .driver_ns = 1, .id = 1,
		       .ctx = 1, .data = 1, .ino = 1, .offset = 1, .bytes = 1, .res = 1,
		       .dev = 1, .pid = -1, .tid = -2, .api = (enum aios_api)99,
		       .op = (enum aios_op)77, .state = (enum aios_state)55,
		       .comm = "x", .cancel_pid = -3, .cancel_tid = 0, .cancel_ret = 0,
		       .cancel_ns = 0 },
	},
	{	/* the longest lines: every number at its widest, every comm byte escaped */
		.e = { .ts_ns = UINT64_MAX - 1, .lat_ns = UINT64_MAX - 1,
		       .reap_ns = UINT64_MAX - 1, .driver_ns = UINT64_MAX - 1,
		       .id = UINT64_MAX, .ctx = UINT64_MAX, .data = UINT64_MAX,
		       .ino = UINT64_MAX, .offset = INT64_MIN, .bytes = UINT64_MAX,
		       .res = INT64_MIN, .dev = UINT32_MAX, .pid = INT32_MIN,
		       .tid = INT32_MIN, .api = AIOS_API_URING, .op = AIOS_OP_FDSYNC,
		       .state = AIOS_CANCELLED,
		       .comm = "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01",
		       .cancel_pid = INT32_MIN, .cancel_tid = INT32_MIN,
		       .cancel_ret = INT64_MIN, .cancel_ns = UINT64_MAX - 1 },
		.mono_to_real = 0, .start_mono = 0,
	},
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* snoop_line's output for cases[i]: the JSON line, then the text line */
static const char *const expected[NCASES][2] = {
	{	/* 0 */
		"{\"ts_ns\":1700005000123456789,\"pid\":1234,\"tid\":1235,\"comm\":\"fio\",\"api\":\"aio\",\"op\":\"read\",\"dev\":\"8:16\",\"ino\":131075,\"offset\":4096,\"bytes\":4096,\"res\":4096,\"lat_ns\":456789,\"reap_ns\":1234,\"driver_ns\":null,\"state\":\"done\",\"id\":\"0xffff888012345678\",\"ctx\":\"0x7f12a0001000\",\"data\":42,\"cancel\":null}\n",
		"0.123457     fio                 1234 aio   read   8:16          131075         4096     4096     4096      456.8        1.2 done\n"
	},
	{	/* 1 */
		"{\"ts_ns\":10,\"pid\":1,\"tid\":1,\"comm\":\"kworker/u16:2\",\"api\":\"uring\",\"op\":\"write\",\"dev\":\"259:3\",\"ino\":0,\"offset\":-1,\"bytes\":0,\"res\":-5,\"lat_ns\":0,\"reap_ns\":null,\"driver_ns\":777,\"state\":\"error\",\"id\":\"0x1\",\"ctx\":\"0x0\",\"data\":0,\"cancel\":null}\n",
		"0.000000     kworker/u16:2          1 uring write  259:3              0           -1        0       -5        0.0          - error\n"
	},
	{	/* 2 */
		"{\"ts_ns\":1,\"pid\":-2147483648,\"tid\":2147483647,\"comm\":\"123456789012345\",\"api\":\"sync\",\"op\":\"fdsync\",\"dev\":\"4095:1048575\",\"ino\":18446744073709551615,\"offset\":-9223372036854775808,\"bytes\":18446744073709551615,\"res\":-9223372036854775808,\"lat_ns\":18446744073709551615,\"reap_ns\":18446744073709551614,\"driver_ns\":18446744073709551614,\"state\":\"cancelled\",\"id\":\"0xffffffffffffffff\",\"ctx\":\"0xffffffffffffffff\",\"data\":18446744073709551615,\"cancel\":{\"pid\":2147483647,\"tid\":-2147483648,\"ret\":-9223372036854775808,\"after_ns\":18446744073709551615}}\n",
		"18446744073.709552 123456789012345  -2147483648 sync  fdsync 4095:1048575 18446744073709551615 -9223372036854775808 18446744073709551615 -9223372036854775808 18446744073709551.6 18446744073709551.6 cancelled\n"
	},
	{	/* 3 */
		"{\"ts_ns\":1000000000,\"pid\":2147483647,\"tid\":0,\"comm\":\"\",\"api\":\"other\",\"op\":\"other\",\"dev\":\"4095:1048575\",\"ino\":1,\"offset\":9223372036854775807,\"bytes\":1,\"res\":9223372036854775807,\"lat_ns\":999949,\"reap_ns\":999950,\"driver_ns\":0,\"state\":\"done\",\"id\":\"0x0\",\"ctx\":\"0xa\",\"data\":1,\"cancel\":null}\n",
		"1.000000                      2147483647 other other  4095:1048575          1 9223372036854775807        1 9223372036854775807      999.9     1000.0 done\n"
	},
	{	/* 4 */
		"{\"ts_ns\":2000001000,\"pid\":77,\"tid\":78,\"comm\":\"a\\\"b\\\\c\\n\\t\\u001b[2J\x7f" "\\u0001\",\"api\":\"aio\",\"op\":\"fsync\",\"dev\":\"0:45\",\"ino\":12,\"offset\":512,\"bytes\":512,\"res\":0,\"lat_ns\":1500,\"reap_ns\":null,\"driver_ns\":null,\"state\":\"done\",\"id\":\"0xdeadbeef\",\"ctx\":\"0xbeef\",\"data\":4660,\"cancel\":null}\n",
		"1.000000     a\"b\\\\c\\x0a\\x09\\x1b[2J\\x7f\\x01      77 aio   fsync  0:45              12          512      512        0        1.5          - done\n"
	},
	{	/* 5 */
		"{\"ts_ns\":3000000001,\"pid\":4194304,\"tid\":4194303,\"comm\":\"\xc3" "\xa9" "\\ufffd\xc2" "\x85" "\xe2" "\x82" "\xac" "\xf0" "\x9f" "\x98" "\x80" "x\\ufffd\\ufffd\",\"api\":\"aio\",\"op\":\"poll\",\"dev\":\"8:0\",\"ino\":4,\"offset\":0,\"bytes\":65536,\"res\":65536,\"lat_ns\":1,\"reap_ns\":0,\"driver_ns\":null,\"state\":\"done\",\"id\":\"0x10\",\"ctx\":\"0x20\",\"data\":3,\"cancel\":null}\n",
		"3.000000     \xc3" "\xa9" "\\xff\\xc2\\x85\xe2" "\x82" "\xac" "\xf0" "\x9f" "\x98" "\x80" "x\\xe2\\x82 4194304 aio   poll   8:0                4            0    65536    65536        0.0        0.0 done\n"
	},
	{	/* 6 */
		"{\"ts_ns\":7,\"pid\":7,\"tid\":7,\"comm\":\"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\u000b\\f\\u000e\\u000f\\u0010\\u001e\\u001f\",\"api\":\"aio\",\"op\":\"read\",\"dev\":\"0:7\",\"ino\":7,\"offset\":7,\"bytes\":7,\"res\":7,\"lat_ns\":7,\"reap_ns\":7,\"driver_ns\":7,\"state\":\"done\",\"id\":\"0x7\",\"ctx\":\"0x7\",\"data\":7,\"cancel\":null}\n",
		"0.000000     \\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x0b\\x0c\\x0e\\x0f\\x10\\x1e\\x1f       7 aio   read   0:7                7            7        7        7        0.0        0.0 done\n"
	},
	{	/* 7 */
		"{\"ts_ns\":123456789112,\"pid\":300,\"tid\":301,\"comm\":\"stuck-test\",\"api\":\"aio\",\"op\":\"read\",\"dev\":\"252:1\",\"ino\":5555,\"offset\":8192,\"bytes\":4096,\"res\":-125,\"lat_ns\":2000000000,\"reap_ns\":50,\"driver_ns\":1999000000,\"state\":\"cancelled\",\"id\":\"0xffff8881deadc0de\",\"ctx\":\"0x7fabcdef0000\",\"data\":99,\"cancel\":{\"pid\":300,\"tid\":302,\"ret\":-115,\"after_ns\":1000000000}}\n",
		"0.456789     stuck-test           300 aio   read   252:1           5555         8192     4096     -125  2000000.0        0.1 cancelled\n"
	},
	{	/* 8 */
		"{\"ts_ns\":50,\"pid\":8,\"tid\":9,\"comm\":\"c\",\"api\":\"aio\",\"op\":\"write\",\"dev\":\"1:2\",\"ino\":5,\"offset\":6,\"bytes\":7,\"res\":7,\"lat_ns\":40,\"reap_ns\":null,\"driver_ns\":30,\"state\":\"cancelled\",\"id\":\"0x2\",\"ctx\":\"0x3\",\"data\":4,\"cancel\":{\"pid\":8,\"tid\":8,\"ret\":null,\"after_ns\":0}}\n",
		"0.000000     c                      8 aio   write  1:2                5            6        7        7        0.0          - cancelled\n"
	},
	{	/* 9 */
		"{\"ts_ns\":1,\"pid\":-1,\"tid\":-2,\"comm\":\"x\",\"api\":\"other\",\"op\":\"other\",\"dev\":\"0:1\",\"ino\":1,\"offset\":1,\"bytes\":1,\"res\":1,\"lat_ns\":1,\"reap_ns\":1,\"driver_ns\":1,\"state\":\"done\",\"id\":\"0x1\",\"ctx\":\"0x1\",\"data\":1,\"cancel\":{\"pid\":-3,\"tid\":0,\"ret\":0,\"after_ns\":0}}\n",
		"0.000000     x                     -1 other other  0:1                1            1        1        1        0.0        0.0 done\n"
	},
	{	/* 10 */
		"{\"ts_ns\":18446744073709551614,\"pid\":-2147483648,\"tid\":-2147483648,\"comm\":\"\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\",\"api\":\"uring\",\"op\":\"fdsync\",\"dev\":\"4095:1048575\",\"ino\":18446744073709551615,\"offset\":-9223372036854775808,\"bytes\":18446744073709551615,\"res\":-9223372036854775808,\"lat_ns\":18446744073709551614,\"reap_ns\":18446744073709551614,\"driver_ns\":18446744073709551614,\"state\":\"cancelled\",\"id\":\"0xffffffffffffffff\",\"ctx\":\"0xffffffffffffffff\",\"data\":18446744073709551615,\"cancel\":{\"pid\":-2147483648,\"tid\":-2147483648,\"ret\":-9223372036854775808,\"after_ns\":18446744073709551614}}\n",
		"18446744073.709552 \\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01 -2147483648 uring fdsync 4095:1048575 18446744073709551615 -9223372036854775808 18446744073709551615 -9223372036854775808 18446744073709551.6 18446744073709551.6 cancelled\n"
	},
};

/* every case in both forms, byte for byte, and the length returned */
static void test_snoop_line_golden(void)
{
	char line[SNOOP_LINE_MAX];

	for (size_t i = 0; i < NCASES; i++) {
		const struct golden *g = &cases[i];

		for (int json = 1; json >= 0; json--) {
			const char *want = expected[i][!json];
			size_t n = snoop_line(line, sizeof(line), &g->e, json,
					      g->mono_to_real, g->start_mono);

			UASSERT(!strcmp(line, want), "case %zu %s:\n got  %s want %s", i,
				json ? "json" : "text", line, want);
			UASSERT(n == strlen(want), "case %zu %s: returned %zu for %zu bytes",
				i, json ? "json" : "text", n, strlen(want));
		}
	}
}

/* SNOOP_LINE_MAX holds the longest line of either form (the last case) */
static void test_snoop_line_longest_fits(void)
{
	size_t longest = 0;

	for (size_t i = 0; i < NCASES; i++)
		for (int k = 0; k < 2; k++)
			if (strlen(expected[i][k]) > longest)
				longest = strlen(expected[i][k]);
	UASSERT(longest == strlen(expected[NCASES - 1][0]), "the last case is not the longest");
	UASSERT(longest < SNOOP_LINE_MAX, "%zu bytes do not fit in %d", longest,
		SNOOP_LINE_MAX);
}

/*
 * A buffer too small for the line (snoop's never is): at every size, a buffer of
 * exactly that many bytes on the heap (ASan sees a byte past it) holds a
 * NUL-terminated prefix of the line, and its length is returned.
 */
static void test_snoop_line_truncated(void)
{
	const struct golden *g = &cases[NCASES - 1];

	for (int json = 1; json >= 0; json--) {
		const char *want = expected[NCASES - 1][!json];

		for (size_t cap = 1; cap <= strlen(want) + 1; cap++) {
			char *buf = malloc(cap);
			size_t n;
			bool ok;

			UASSERT(buf, "malloc");
			n = snoop_line(buf, cap, &g->e, json, g->mono_to_real, g->start_mono);
			ok = n < cap && n == strlen(buf) && !strncmp(buf, want, n) &&
			     (cap <= strlen(want) || n == strlen(want));
			free(buf);
			UASSERT(ok, "%s, capacity %zu: %zu bytes", json ? "json" : "text",
				cap, n);
		}
	}
}

static void test_snoop_line_no_room(void)
{
	char c = 'x';

	UASSERT(snoop_line(&c, 0, &cases[0].e, true, 0, 0) == 0 && c == 'x',
		"capacity 0 wrote");
	UASSERT(snoop_line(&c, 0, &cases[0].e, false, 0, 0) == 0 && c == 'x',
		"capacity 0 wrote");
}

/* snoop --stages: a block request, aiodev, io-wq, and a request with no stage seen */
static const struct tracer_event stage_cases[] = {
	{	/* O_DIRECT read of a block device: every stage, reaped 50 us later */
		.ts_ns = 2000000, .submit_ns = 1000000, .lat_ns = 1000000, .reap_ns = 50000,
		.driver_ns = TRACER_DRIVER_NONE, .queue_ts = 1000300, .issue_ts = 1000700,
		.device_ts = 1999000, .bios = 2, .dev = DEV(254, 0), .pid = 7, .tid = 7,
		.bytes = 8192, .res = 8192, .api = AIOS_API_AIO, .op = AIOS_OP_READ,
		.state = AIOS_DONE, .comm = "db" },
	{	/* aiodev: the driver's own time, no block layer, io_uring: no reap */
		.ts_ns = 3000100, .submit_ns = 1000000, .lat_ns = 2000100,
		.reap_ns = TRACER_REAP_NONE, .driver_ns = 2000000, .issue_ts = 1000050,
		.device_ts = 3000050, .dev = DEV(246, 0), .pid = 8, .tid = 9, .bytes = 4096,
		.res = 4096, .api = AIOS_API_URING, .op = AIOS_OP_WRITE, .state = AIOS_DONE,
		.comm = "fio" },
	{	/* io_uring punted to io-wq */
		.ts_ns = 900, .submit_ns = 100, .lat_ns = 800, .reap_ns = TRACER_REAP_NONE,
		.driver_ns = TRACER_DRIVER_NONE, .punt_ts = 150, .worker_ts = 450,
		.queue_ts = 500, .issue_ts = 510, .device_ts = 850, .bios = 1,
		.api = AIOS_API_URING, .op = AIOS_OP_READ, .state = AIOS_DONE, .comm = "w" },
	{	/* buffered: no stage seen */
		.ts_ns = 500, .submit_ns = 100, .lat_ns = 400, .reap_ns = TRACER_REAP_NONE,
		.driver_ns = TRACER_DRIVER_NONE, .api = AIOS_API_AIO, .op = AIOS_OP_WRITE,
		.state = AIOS_ERROR, .res = -5, .comm = "b" },
};

static const char *const stage_expected[][2] = {
	{ "{\"ts_ns\":2000000,\"pid\":7,\"tid\":7,\"comm\":\"db\",\"api\":\"aio\",\"op\":\"read\","
	  "\"dev\":\"254:0\",\"ino\":0,\"offset\":0,\"bytes\":8192,\"res\":8192,"
	  "\"lat_ns\":1000000,\"reap_ns\":50000,\"driver_ns\":null,\"state\":\"done\","
	  "\"id\":\"0x0\",\"ctx\":\"0x0\",\"data\":0,\"cancel\":null,\"stages\":"
	  "{\"submit_ns\":300,\"iowq_ns\":null,\"queue_ns\":400,\"device_ns\":998300,"
	  "\"complete_ns\":1000,\"reap_ns\":50000,\"bios\":2}}\n",
	  "0.002000     db                     7 aio   read   254:0         8192     8192"
	  "     1000.0       0.3         -       0.4     998.3       1.0      50.0    2 done\n" },
	{ "{\"ts_ns\":3000100,\"pid\":8,\"tid\":9,\"comm\":\"fio\",\"api\":\"uring\","
	  "\"op\":\"write\",\"dev\":\"246:0\",\"ino\":0,\"offset\":0,\"bytes\":4096,"
	  "\"res\":4096,\"lat_ns\":2000100,\"reap_ns\":null,\"driver_ns\":2000000,"
	  "\"state\":\"done\",\"id\":\"0x0\",\"ctx\":\"0x0\",\"data\":0,\"cancel\":null,"
	  "\"stages\":{\"submit_ns\":50,\"iowq_ns\":null,\"queue_ns\":null,"
	  "\"device_ns\":2000000,\"complete_ns\":50,\"reap_ns\":null,\"bios\":null}}\n",
	  "0.003000     fio                    8 uring write  246:0         4096     4096"
	  "     2000.1       0.1         -         -    2000.0       0.1         -    - done\n" },
	{ "{\"ts_ns\":900,\"pid\":0,\"tid\":0,\"comm\":\"w\",\"api\":\"uring\",\"op\":\"read\","
	  "\"dev\":\"0:0\",\"ino\":0,\"offset\":0,\"bytes\":0,\"res\":0,\"lat_ns\":800,"
	  "\"reap_ns\":null,\"driver_ns\":null,\"state\":\"done\",\"id\":\"0x0\","
	  "\"ctx\":\"0x0\",\"data\":0,\"cancel\":null,\"stages\":{\"submit_ns\":100,"
	  "\"iowq_ns\":300,\"queue_ns\":10,\"device_ns\":340,\"complete_ns\":50,"
	  "\"reap_ns\":null,\"bios\":1}}\n",
	  "0.000001     w                      0 uring read   0:0              0        0"
	  "        0.8       0.1       0.3       0.0       0.3       0.1         -    1 done\n" },
	{ "{\"ts_ns\":500,\"pid\":0,\"tid\":0,\"comm\":\"b\",\"api\":\"aio\",\"op\":\"write\","
	  "\"dev\":\"0:0\",\"ino\":0,\"offset\":0,\"bytes\":0,\"res\":-5,\"lat_ns\":400,"
	  "\"reap_ns\":null,\"driver_ns\":null,\"state\":\"error\",\"id\":\"0x0\","
	  "\"ctx\":\"0x0\",\"data\":0,\"cancel\":null,\"stages\":{\"submit_ns\":null,"
	  "\"iowq_ns\":null,\"queue_ns\":null,\"device_ns\":null,\"complete_ns\":null,"
	  "\"reap_ns\":null,\"bios\":null}}\n",
	  "0.000001     b                      0 aio   write  0:0              0       -5"
	  "        0.4         -         -         -         -         -         -    - error\n" },
};

/* every stage case in both forms, byte for byte; the stages sum to the latency */
static void test_snoop_line_stages(void)
{
	char line[SNOOP_LINE_MAX];

	for (size_t i = 0; i < sizeof(stage_cases) / sizeof(stage_cases[0]); i++) {
		for (int json = 1; json >= 0; json--) {
			const char *want = stage_expected[i][!json];
			size_t n = snoop_stage_line(line, sizeof(line), &stage_cases[i], json,
						    0, 0);

			UASSERT(!strcmp(line, want), "case %zu %s:\n got  %s want %s", i,
				json ? "json" : "text", line, want);
			UASSERT(n == strlen(want), "case %zu %s: length", i,
				json ? "json" : "text");
		}
	}
}

int main(void)
{
	RUN(test_snoop_line_golden);
	RUN(test_snoop_line_longest_fits);
	RUN(test_snoop_line_truncated);
	RUN(test_snoop_line_no_room);
	RUN(test_snoop_line_stages);
	return unit_done("snoop_line");
}
