// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_kallsyms - the /proc/kallsyms reader and the kernel frame formatter used by
 * `aioscope stuck --stack` (cli/collect/parse.c: ksyms_read, ksyms_fmt): any text, then
 * frames at, around and between the symbols it gave.
 */
#include <inttypes.h>

#include "fuzz.h"
#include "collect/parse.h"

static void fmt(const struct ksyms *k, uint64_t ip)
{
	char buf[STUCK_PATH_LEN + 64], small[8];
	const char *s = ksyms_fmt(k, ip, buf, sizeof(buf));

	FUZZ_CHECK(s == buf && memchr(buf, '\0', sizeof(buf)), "unterminated");
	ksyms_fmt(k, ip, small, sizeof(small));
	FUZZ_CHECK(memchr(small, '\0', sizeof(small)), "unterminated when truncated");
	FUZZ_CHECK(!strncmp(small, buf, strlen(small)), "truncation is no prefix");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms k = { 0 };
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	FUZZ_CHECK(f, "fmemopen");
	ksyms_read(f, &k);
	fclose(f);
	/* one symbol per line, a long line's rest is no line of its own (see fuzz_maps) */
	{
		const char *p = (const char *)data, *e = p + size;
		size_t want = 0;

		while (p < e) {
			const char *nl = memchr(p, '\n', (size_t)(e - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(e - p);
			char line[512], name[KSYM_NAME_MAX];
			uint64_t addr;

			if (memchr(p, '\0', len))
				break;	/* a line reader stops making sense of it */
			snprintf(line, sizeof(line), "%.*s", (int)(len < 511 ? len : 511), p);
			if (ksym_parse_line(line, &addr, name)) {
				bool found = false;

				for (size_t i = 0; i < k.n && !found; i++)
					found = k.v[i].addr == addr && !strcmp(k.v[i].name, name);
				FUZZ_CHECK(found, "symbol %s of a line missing", name);
				want++;
			}
			p += len + 1;
		}
		FUZZ_CHECK(p < e || want == k.n, "%zu symbols from %zu lines", k.n, want);
	}
	for (size_t i = 0; i < k.n; i++) {
		FUZZ_CHECK(k.v[i].addr, "address 0 kept");
		FUZZ_CHECK(i == 0 || k.v[i - 1].addr <= k.v[i].addr, "not sorted at %zu", i);
		FUZZ_CHECK(k.v[i].name && strlen(k.v[i].name) < 256, "bad name at %zu", i);
		if (i < 64) {
			fmt(&k, k.v[i].addr);
			fmt(&k, k.v[i].addr - 1);
			fmt(&k, k.v[i].addr + 1);
		}
	}
	fmt(&k, 0);
	fmt(&k, UINT64_MAX);
	ksyms_free(&k);
	return 0;
}
