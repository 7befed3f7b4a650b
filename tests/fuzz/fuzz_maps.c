// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_maps - the /proc/PID/maps reader and the user frame formatter used by
 * `aioscope stuck --stack` (cli/collect/parse.c: umaps_read, umaps_fmt). File names are
 * chosen by other users: the frame text must stay terminal-safe.
 */
#include <inttypes.h>

#include "fuzz.h"
#include "collect/parse.h"

static void fmt(const struct umap *m, size_t n, uint64_t ip)
{
	char buf[STUCK_PATH_LEN + 64];
	const char *s = umaps_fmt(m, n, ip, buf, sizeof(buf));

	FUZZ_CHECK(s == buf && memchr(buf, '\0', sizeof(buf)), "unterminated");
	FUZZ_CHECK(utf8_valid(buf, strlen(buf)), "frame is not valid UTF-8: %s", buf);
	for (const char *p = buf; *p; p++)
		FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f, "control byte in a frame");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct umap *m;
	size_t n = 0;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	FUZZ_CHECK(f, "fmemopen");
	m = umaps_read(f, &n);
	fclose(f);
	FUZZ_CHECK(n == 0 || m, "%zu mappings, no array", n);
	/*
	 * One mapping per line of the file, as the kernel wrote it: a file name may be
	 * up to PATH_MAX long, and what follows the first 511 bytes of a line must not
	 * be read as a line of its own (a name could forge a mapping there).
	 */
	{
		const char *p = (const char *)data, *e = p + size;
		size_t want = 0;

		while (p < e) {
			const char *nl = memchr(p, '\n', (size_t)(e - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(e - p);
			char line[512];
			struct umap r;

			/* the line's first 511 bytes, as a line reader with 512 bytes sees them */
			snprintf(line, sizeof(line), "%.*s", (int)(len < 511 ? len : 511), p);
			if (!memchr(p, '\0', len) && umap_parse_line(line, &r)) {
				FUZZ_CHECK(want < n, "line at byte %zu: mapping missing",
					   (size_t)(p - (const char *)data));
				FUZZ_CHECK(m[want].start == r.start && m[want].end == r.end &&
					   m[want].off == r.off && !strcmp(m[want].path, r.path),
					   "mapping %zu is not the one of its line", want);
				want++;
			} else if (memchr(p, '\0', len)) {
				break;	/* a NUL byte: a line reader stops making sense of it */
			}
			p += len + 1;
		}
		FUZZ_CHECK(want == n || (p < e), "%zu mappings from %zu lines", n, want);
	}
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(m[i].path[0] == '/', "mapping %zu is no file", i);
		FUZZ_CHECK(memchr(m[i].path, '\0', sizeof(m[i].path)), "path unterminated");
		if (i < 64) {
			fmt(m, n, m[i].start);
			fmt(m, n, m[i].end - 1);
			fmt(m, n, m[i].end);
		}
	}
	fmt(m, n, 0);
	fmt(m, n, UINT64_MAX);
	free(m);
	return 0;
}
