// SPDX-License-Identifier: GPL-2.0
/*
 * aiodev bad input: every knob fed garbage (must be -EINVAL and leave the value
 * alone), and requests with bad buffers, lengths, offsets, iovec counts and O_DIRECT
 * alignment through the synchronous path, libaio and io_uring (refused with the
 * right errno, or completed cleanly, never writing past a fault), plus reads and
 * writes racing `abort`. Run in the VM with aiodev loaded.
 *
 *   badinput [-t RACE_SECONDS]
 */
#define _GNU_SOURCE
#include <libaio.h>
#include <limits.h>
#include <liburing.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "../stress/common.h"

#define DEV	0
#define PAGE	4096
#define TIMEOUT_RES	(-100000)	/* no completion within the timeout */

static int failures, slow;
static io_context_t actx;
static struct io_uring ring;
static const char *const api_name[] = { "sync", "libaio", "io_uring" };
enum { API_SYNC, API_AIO, API_URING, NAPI };

static void result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - badinput: ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

static void set(const char *knob, const char *val)
{
	int rc = aiodev_knob_write(DEV, knob, val);

	if (rc) {
		fprintf(stderr, "badinput: cannot set %s=%s: %s\n", knob, val, strerror(-rc));
		exit(1);
	}
}

static void defaults(void)
{
	set("stall_every", "0");
	set("fail_every", "0");
	set("latency_ns", "0");
	set("jitter_ns", "0");
	set("queue_depth", "128");
	set("completion", "hrtimer");
}

/* ---- knobs ---- */

struct bad {
	const char *name;
	const char *val;
	size_t len;		/* 0: strlen(val) */
};

static void knob_bad_values(const char *knob, const char *good, const struct bad *extra, int nextra)
{
	static char big_digits[PAGE + 1], big_alpha[PAGE + 1], huge[PAGE + 64];
	const struct bad common[] = {
		{ "empty line", "\n", 0 },
		{ "space", " ", 0 },
		{ "whitespace", " \t \n", 0 },
		{ "leading space", " 5", 0 },
		{ "negative", "-1", 0 },
		{ "negative newline", "-7\n", 0 },
		{ "plus sign", "+5", 0 },
		{ "plus sign newline", "+7\n", 0 },
		{ "non-numeric", "abc", 0 },
		{ "hex", "0x10", 0 },
		{ "float", "1.5", 0 },
		{ "exponent", "1e3", 0 },
		{ "trailing garbage", "5abc", 0 },
		{ "two numbers", "5 6", 0 },
		{ "two newlines", "5\n\n", 0 },
		{ "overflow 2^64", "18446744073709551616", 0 },
		{ "overflow 30 digits", "999999999999999999999999999999", 0 },
		{ "4 KiB of digits", big_digits, PAGE },
		{ "4 KiB of letters", big_alpha, PAGE },
		{ "4 KiB + 64 bytes", huge, sizeof(huge) },
	};
	char before[128], after[128];
	int bad = 0, n = 0;
	char why[512] = "";
	int zrc;

	memset(big_digits, '7', PAGE);
	memset(big_alpha, 'z', PAGE);
	memset(huge, '9', sizeof(huge));
	set(knob, good);
	aiodev_knob_value(DEV, knob, before, sizeof(before));

	for (int pass = 0; pass < 2; pass++) {
		const struct bad *list = pass ? extra : common;
		int cnt = pass ? nextra : (int)(sizeof(common) / sizeof(common[0]));

		for (int i = 0; i < cnt; i++) {
			size_t len = list[i].len ? list[i].len : strlen(list[i].val);
			int rc = aiodev_knob_write_raw(DEV, knob, list[i].val, len);

			n++;
			aiodev_knob_value(DEV, knob, after, sizeof(after));
			if (rc != -EINVAL || strcmp(before, after)) {
				size_t l = strlen(why);

				bad++;
				snprintf(why + l, sizeof(why) - l, "%s%s: %s, value '%s'",
					 l ? "; " : "", list[i].name,
					 rc ? strerror(-rc) : "accepted", after);
				set(knob, good);	/* do not let one failure hide others */
			}
		}
	}
	/* A zero-length write never reaches the driver (sysfs returns 0). */
	zrc = aiodev_knob_write_raw(DEV, knob, "", 0);
	aiodev_knob_value(DEV, knob, after, sizeof(after));
	if ((zrc != 0 && zrc != -EINVAL) || strcmp(before, after)) {
		bad++;
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "; zero-length write: %d, value '%s'",
			 zrc, after);
	}
	if (bad)
		result(false, "knob %s: %d of %d bad values misbehaved: %s", knob, bad, n + 1, why);
	else
		result(true, "knob %s: %d bad values refused with EINVAL, value stays %s", knob, n + 1,
		       before);
}

/*
 * A NUL byte inside the written bytes: "5\0" "9" is trailing garbage the C-string
 * parsers never see. Every knob must refuse it.
 */
static void knob_nul_test(void)
{
	static const char *const knobs[][2] = {
		{ "latency_ns", "12345" }, { "jitter_ns", "678" }, { "queue_depth", "77" },
		{ "fail_every", "1000" }, { "stall_every", "1000" }, { "completion", "workqueue" },
		{ "abort", NULL },
	};
	char why[512] = "", after[64];

	for (unsigned int i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		const char *val = strcmp(knobs[i][0], "completion") ? "1\0" "9" : "inline\0x";
		size_t len = strcmp(knobs[i][0], "completion") ? 3 : 8;
		int rc;

		if (knobs[i][1])
			set(knobs[i][0], knobs[i][1]);
		rc = aiodev_knob_write_raw(DEV, knobs[i][0], val, len);
		if (knobs[i][1])
			aiodev_knob_value(DEV, knobs[i][0], after, sizeof(after));
		if (rc != -EINVAL || (knobs[i][1] && strcmp(after, knobs[i][1])))
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s: %s",
				 why[0] ? "; " : "", knobs[i][0], rc ? strerror(-rc) : "accepted");
	}
	result(!why[0], "knobs: a NUL byte inside the value is refused with EINVAL%s%s",
	       why[0] ? ": " : "", why);
	defaults();
}

static void knob_tests(void)
{
	const struct bad u32_over[] = {
		{ "2^32", "4294967296", 0 },
		{ "2^63", "9223372036854775808", 0 },
	};
	const struct bad qd[] = {
		{ "zero", "0", 0 },
		{ "65537", "65537", 0 },
		{ "2^32+1", "4294967297", 0 },
	};
	const struct bad delay[] = {
		{ "2^64-1", "18446744073709551615", 0 },
	};
	const struct bad comp[] = {
		{ "unknown", "polling", 0 },
		{ "prefix", "hrtime", 0 },
		{ "suffix", "inlinex", 0 },
		{ "upper case", "HRTIMER", 0 },
		{ "number", "1", 0 },
		{ "two words", "inline hrtimer", 0 },
	};
	const struct bad ab[] = {
		{ "zero", "0", 0 },
		{ "two", "2", 0 },
	};
	char back[64];
	int rc;

	knob_nul_test();
	knob_bad_values("latency_ns", "12345", delay, 1);
	knob_bad_values("jitter_ns", "6789", delay, 1);
	knob_bad_values("queue_depth", "77", qd, 3);
	knob_bad_values("fail_every", "1000", u32_over, 2);
	knob_bad_values("stall_every", "1000", u32_over, 2);

	/* completion: the same garbage (its own value is a word) */
	{
		const struct bad all[] = {
			{ "empty line", "\n", 0 }, { "space", " ", 0 },
			{ "negative", "-1", 0 }, { "trailing garbage", "inline abc", 0 },
			{ "leading space", " inline", 0 },
			comp[0], comp[1], comp[2], comp[3], comp[4], comp[5],
		};

		knob_bad_values("completion", "workqueue", all, sizeof(all) / sizeof(all[0]));
	}

	/* abort: write-only, only "1" */
	{
		int bad = 0, n = 0;
		const struct bad list[] = {
			{ "empty line", "\n", 0 }, { "space", " ", 0 }, { "negative", "-1", 0 },
			{ "plus sign", "+1", 0 }, { "non-numeric", "yes", 0 }, { "trailing garbage", "1x", 0 },
			{ "overflow", "18446744073709551617", 0 }, ab[0], ab[1],
		};

		for (unsigned int i = 0; i < sizeof(list) / sizeof(list[0]); i++, n++) {
			rc = aiodev_knob_write(DEV, "abort", list[i].val);
			if (rc != -EINVAL) {
				bad++;
				fprintf(stderr, "badinput: abort '%s': %d\n", list[i].name, rc);
			}
		}
		rc = aiodev_knob_value(DEV, "abort", back, sizeof(back));
		result(!bad && rc, "knob abort: %d bad values refused with EINVAL, not readable (%s)",
		       n, rc ? strerror(-rc) : "readable!");
	}

	/* stats: read-only */
	rc = aiodev_knob_write(DEV, "stats", "0");
	result(rc == -EACCES || rc == -EPERM || rc == -EINVAL || rc == -EIO,
	       "stats is read-only (write: %s)", rc ? strerror(-rc) : "accepted");
	defaults();
}

/* ---- requests ---- */

enum { OP_READ, OP_WRITE };

/*
 * One request through api. iov != NULL: vectored (niov entries). Returns the result or
 * -errno (submission errors and completion results look the same), TIMEOUT_RES if
 * nothing completed in time.
 */
static long do_io(int api, int fd, int op, void *buf, size_t len, long long off,
		  const struct iovec *iov, int niov)
{
	long rc;

	if (api == API_SYNC) {
		if (iov)
			rc = op == OP_READ ? preadv(fd, iov, niov, off) : pwritev(fd, iov, niov, off);
		else
			rc = op == OP_READ ? pread(fd, buf, len, off) : pwrite(fd, buf, len, off);
		return rc < 0 ? -errno : rc;
	}
	if (api == API_AIO) {
		struct iocb cb, *cbs[1] = { &cb };
		struct io_event ev;
		struct timespec ts = { 5 * slow, 0 };

		if (iov && op == OP_READ)
			io_prep_preadv(&cb, fd, iov, niov, off);
		else if (iov)
			io_prep_pwritev(&cb, fd, iov, niov, off);
		else if (op == OP_READ)
			io_prep_pread(&cb, fd, buf, len, off);
		else
			io_prep_pwrite(&cb, fd, buf, len, off);
		rc = io_submit(actx, 1, cbs);
		if (rc != 1)
			return rc < 0 ? rc : -EIO;
		rc = io_getevents(actx, 1, 1, &ev, &ts);
		if (rc != 1) {
			aiodev_knob_write(DEV, "abort", "1");
			io_getevents(actx, 1, 1, &ev, NULL);
			return TIMEOUT_RES;
		}
		return (long)ev.res;
	}
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;
		struct __kernel_timespec ts = { 5 * slow, 0 };

		if (iov && op == OP_READ)
			io_uring_prep_readv(sqe, fd, iov, niov, off);
		else if (iov)
			io_uring_prep_writev(sqe, fd, iov, niov, off);
		else if (op == OP_READ)
			io_uring_prep_read(sqe, fd, buf, len, off);
		else
			io_uring_prep_write(sqe, fd, buf, len, off);
		rc = io_uring_submit(&ring);
		if (rc != 1)
			return rc < 0 ? rc : -EIO;
		if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts)) {
			aiodev_knob_write(DEV, "abort", "1");
			if (io_uring_wait_cqe(&ring, &cqe))
				return TIMEOUT_RES;
			io_uring_cqe_seen(&ring, cqe);
			return TIMEOUT_RES;
		}
		rc = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		return rc;
	}
}

static const char *res_str(long r)
{
	static char b[4][64];
	static int i;

	i = (i + 1) % 4;
	if (r == TIMEOUT_RES)
		snprintf(b[i], 64, "no completion (hang)");
	else if (r < 0)
		snprintf(b[i], 64, "-%s", strerrorname_np(-r) ? strerrorname_np(-r) : "?");
	else
		snprintf(b[i], 64, "%ld", r);
	return b[i];
}

static bool in(long r, const long *set, int n)
{
	for (int i = 0; i < n; i++)
		if (r == set[i])
			return true;
	return false;
}

static const char *const modes[] = { "hrtimer", "workqueue", "inline" };

/* Run one case through each API and completion mode; results must be in allowed. */
#define CASE(name, op, buf, len, off, iov, niov, ...) do {				\
	const long allowed_[] = { __VA_ARGS__ };					\
	for (int a_ = 0; a_ < NAPI; a_++) {						\
		char why_[256] = "";							\
		for (int m_ = 0; m_ < 3 && !why_[0]; m_++) {				\
			long r_;							\
			set("completion", modes[m_]);					\
			r_ = do_io(a_, fd, op, buf, len, off, iov, niov);		\
			if (!in(r_, allowed_, sizeof(allowed_) / sizeof(long)))	\
				snprintf(why_, sizeof(why_), "%s: %s", modes[m_], res_str(r_)); \
		}									\
		result(!why_[0], "%s %s%s%s", api_name[a_], name, why_[0] ? ": " : "", why_); \
	}										\
} while (0)

static void fill_dev(int fd, long off, size_t len, unsigned char c)
{
	char *b = malloc(len);

	memset(b, c, len);
	if (pwrite(fd, b, len, off) != (ssize_t)len) {
		fprintf(stderr, "badinput: fill_dev: %s\n", strerror(errno));
		exit(1);
	}
	free(b);
}

static bool dev_is(int fd, long off, size_t len, unsigned char c)
{
	unsigned char *b = malloc(len);
	bool ok = pread(fd, b, len, off) == (ssize_t)len;

	for (size_t i = 0; ok && i < len; i++)
		ok = b[i] == c;
	free(b);
	return ok;
}

static bool mem_is(const unsigned char *p, size_t len, unsigned char c)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != c)
			return false;
	return true;
}

/*
 * A buffer running into a guard page: [A rw][B none][C rw]. A read into A+half
 * of 3 pages must return the bytes before the fault (or -EFAULT) and leave the
 * rest of A before the buffer and all of C alone; a write from it must not put
 * anything past the fault on the device.
 */
static void guard_tests(int fd)
{
	unsigned char *m = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const long off = 1 << 20;

	mprotect(m + PAGE, PAGE, PROT_NONE);
	for (int a = 0; a < NAPI; a++) {
		char why[256] = "";

		for (int md = 0; md < 3 && !why[0]; md++) {
			long r;

			set("completion", modes[md]);
			/* read */
			memset(m, 0xaa, PAGE);
			memset(m + 2 * PAGE, 0xaa, PAGE);
			fill_dev(fd, off, 3 * PAGE, 0x11);
			r = do_io(a, fd, OP_READ, m + PAGE / 2, 3 * PAGE, off, NULL, 0);
			if (r != PAGE / 2 && r != -EFAULT)
				snprintf(why, sizeof(why), "%s read: %s (want %d or -EFAULT)",
					 modes[md], res_str(r), PAGE / 2);
			else if (!mem_is(m, PAGE / 2, 0xaa))
				snprintf(why, sizeof(why), "%s read: wrote before the buffer", modes[md]);
			else if (r > 0 && !mem_is(m + PAGE / 2, PAGE / 2, 0x11))
				snprintf(why, sizeof(why), "%s read: wrong data before the fault", modes[md]);
			else if (!mem_is(m + 2 * PAGE, PAGE, 0xaa))
				snprintf(why, sizeof(why), "%s read: wrote past the guard page", modes[md]);
			if (why[0])
				break;
			/* write */
			memset(m, 0x22, PAGE);
			memset(m + 2 * PAGE, 0x33, PAGE);
			fill_dev(fd, off, 3 * PAGE, 0x11);
			r = do_io(a, fd, OP_WRITE, m + PAGE / 2, 3 * PAGE, off, NULL, 0);
			if (r != PAGE / 2 && r != -EFAULT)
				snprintf(why, sizeof(why), "%s write: %s (want %d or -EFAULT)",
					 modes[md], res_str(r), PAGE / 2);
			else if (!dev_is(fd, off + PAGE / 2, 3 * PAGE - PAGE / 2, 0x11))
				snprintf(why, sizeof(why), "%s write: device changed past the fault",
					 modes[md]);
			else if (r > 0 && !dev_is(fd, off, PAGE / 2, 0x22))
				snprintf(why, sizeof(why), "%s write: wrong data before the fault", modes[md]);
		}
		result(!why[0], "%s buffer running into a guard page: short or -EFAULT, nothing past it%s%s",
		       api_name[a], why[0] ? ": " : "", why);
	}
	munmap(m, 3 * PAGE);
}

/* Buffers the request cases point into (and past). */
struct req_bufs {
	char *buf;		/* 1 MiB, page-aligned */
	char *unmapped;		/* a page that was unmapped again */
	char *hb;		/* one page, then 128 MiB of PROT_NONE */
	struct iovec *many;	/* IOV_MAX + 1 one-byte iovecs into buf */
};

static void req_bufs_map(struct req_bufs *rb)
{
	static struct iovec many[IOV_MAX + 1];

	rb->buf = aligned_alloc(PAGE, 1 << 20);
	memset(rb->buf, 0, 1 << 20);
	rb->unmapped = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(rb->unmapped, PAGE);
	/*
	 * Huge lengths get clamped (MAX_RW_COUNT, io_uring's u32 length) before
	 * access_ok() sees them, so the device may copy up to its capacity: give
	 * those requests one page followed by 128 MiB of PROT_NONE. The answer is
	 * then a short count up to the fault, -EFAULT or -EINVAL.
	 */
	rb->hb = mmap(NULL, PAGE + (128 << 20), PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	mprotect(rb->hb, PAGE, PROT_READ | PROT_WRITE);
	for (int i = 0; i <= IOV_MAX; i++) {
		many[i].iov_base = rb->buf + i;
		many[i].iov_len = 1;
	}
	rb->many = many;
}

/* Buffers that fault, and lengths so large they must be clamped or refused. */
static void bad_buffer_cases(int fd, const struct req_bufs *rb)
{
	char *buf = rb->buf, *unmapped = rb->unmapped, *hb = rb->hb;
	struct iovec iv[3];

	CASE("read into NULL", OP_READ, NULL, PAGE, 0, NULL, 0, -EFAULT);
	CASE("write from NULL", OP_WRITE, NULL, PAGE, 0, NULL, 0, -EFAULT);
	CASE("read into an unmapped page", OP_READ, unmapped, PAGE, 0, NULL, 0, -EFAULT);
	CASE("write from an unmapped page", OP_WRITE, unmapped, PAGE, 0, NULL, 0, -EFAULT);
	CASE("read into a kernel address", OP_READ, (void *)0xffffffff81000000ul, PAGE, 0, NULL, 0,
	     -EFAULT);
	iv[0] = (struct iovec){ buf, 512 };
	iv[1] = (struct iovec){ NULL, 512 };
	iv[2] = (struct iovec){ buf + 1024, 512 };
	CASE("readv with a NULL iovec in the middle", OP_READ, NULL, 0, 0, iv, 3, 512, -EFAULT);
	CASE("writev with a NULL iovec in the middle", OP_WRITE, NULL, 0, 0, iv, 3, 512, -EFAULT);
	CASE("read of length SSIZE_MAX", OP_READ, hb, (size_t)SSIZE_MAX, 0, NULL, 0, -EFAULT,
	     -EINVAL, PAGE);
	CASE("write of length SSIZE_MAX", OP_WRITE, hb, (size_t)SSIZE_MAX, 0, NULL, 0, -EFAULT,
	     -EINVAL, PAGE);
	CASE("read of length SIZE_MAX", OP_READ, hb, SIZE_MAX, 0, NULL, 0, -EFAULT, -EINVAL, PAGE);
	CASE("write of length SIZE_MAX", OP_WRITE, hb, SIZE_MAX, 0, NULL, 0, -EFAULT, -EINVAL, PAGE);
	CASE("zero-length read", OP_READ, buf, 0, 0, NULL, 0, 0);
	CASE("zero-length write", OP_WRITE, buf, 0, 0, NULL, 0, 0);
}

/* Offsets and lengths at and past the device's ends. */
static void bad_range_cases(int fd, const struct req_bufs *rb, long cap)
{
	char *buf = rb->buf, *big;

	/* a 1 GiB read from offset 0 into a 1 GiB untouched mapping: clamped to capacity */
	big = mmap(NULL, 1ul << 30, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (big != MAP_FAILED) {
		CASE("1 GiB read at offset 0 (shortened to capacity)", OP_READ, big, 1ul << 30, 0,
		     NULL, 0, cap > (1l << 30) ? (1l << 30) : cap);
		munmap(big, 1ul << 30);
	}
	CASE("read at negative offset", OP_READ, buf, PAGE, -PAGE, NULL, 0, -EINVAL);
	CASE("write at negative offset", OP_WRITE, buf, PAGE, -PAGE, NULL, 0, -EINVAL);
	CASE("read at LLONG_MIN", OP_READ, buf, PAGE, LLONG_MIN, NULL, 0, -EINVAL);
	CASE("read where offset + length overflows", OP_READ, buf, PAGE, LLONG_MAX - 10, NULL, 0,
	     -EINVAL, 0);
	CASE("write where offset + length overflows", OP_WRITE, buf, PAGE, LLONG_MAX - 10, NULL, 0,
	     -EINVAL, -ENOSPC);
	CASE("read at capacity", OP_READ, buf, PAGE, cap, NULL, 0, 0);
	CASE("write at capacity", OP_WRITE, buf, PAGE, cap, NULL, 0, -ENOSPC);
	CASE("read crossing the end", OP_READ, buf, PAGE, cap - 100, NULL, 0, 100);
	CASE("write crossing the end", OP_WRITE, buf, PAGE, cap - 100, NULL, 0, 100);
}

/* iovec counts at and past IOV_MAX, and iovec lengths whose sum overflows. */
static void bad_iovec_cases(int fd, const struct req_bufs *rb)
{
	struct iovec iv[2], *many = rb->many;

	CASE("readv with IOV_MAX iovecs", OP_READ, NULL, 0, 0, many, IOV_MAX, IOV_MAX);
	CASE("readv with IOV_MAX+1 iovecs", OP_READ, NULL, 0, 0, many, IOV_MAX + 1, -EINVAL);
	CASE("writev with IOV_MAX+1 iovecs", OP_WRITE, NULL, 0, 0, many, IOV_MAX + 1, -EINVAL);
	iv[0] = (struct iovec){ rb->hb, SSIZE_MAX };
	iv[1] = (struct iovec){ rb->hb, SSIZE_MAX };
	CASE("readv whose lengths overflow ssize_t", OP_READ, NULL, 0, 0, iv, 2, -EINVAL, -EFAULT,
	     PAGE);
	CASE("readv with zero iovecs", OP_READ, NULL, 0, 0, iv, 0, 0, -EINVAL);
}

/* O_DIRECT with unaligned buffer, offset, length: refused or correct */
static void unaligned_direct_tests(char *buf)
{
	int fd = open("/dev/aiodev0", O_RDWR | O_DIRECT);

	if (fd < 0) {
		result(false, "open O_DIRECT: %s", strerror(errno));
		return;
	}
	for (int a = 0; a < NAPI; a++) {
		char why[256] = "";
		unsigned char *w = (unsigned char *)buf + 8192 + 1;
		unsigned char *r = (unsigned char *)buf + 65536 + 3;

		for (int i = 0; i < 1000; i++)
			w[i] = i * 7 + a;
		long x = do_io(a, fd, OP_WRITE, w, 1000, 4097, NULL, 0);

		if (x == 1000) {
			memset(r, 0, 1000);
			long y = do_io(a, fd, OP_READ, r, 1000, 4097, NULL, 0);

			if (y != 1000 || memcmp(r, w, 1000))
				snprintf(why, sizeof(why), "read back %s, data %s", res_str(y),
					 memcmp(r, w, 1000) ? "differs" : "same");
		} else if (x != -EINVAL) {
			snprintf(why, sizeof(why), "write %s", res_str(x));
		}
		result(!why[0], "%s unaligned O_DIRECT: refused with EINVAL or correct%s%s",
		       api_name[a], why[0] ? ": " : "", why);
	}
	close(fd);
}

/* things the device does not do */
static void unsupported_tests(void)
{
	int fd = open("/dev/aiodev0", O_RDWR);
	void *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	int e = p == MAP_FAILED ? errno : 0;
	int rc = ioctl(fd, 0x1234, 0);

	result(rc < 0 && (errno == ENOTTY || errno == EINVAL) && e,
	       "unknown ioctl (%s) and mmap (%s) refused", rc < 0 ? strerrorname_np(errno) : "accepted",
	       e ? strerrorname_np(e) : "accepted");
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	close(fd);
}

static void request_tests(void)
{
	int fd = open("/dev/aiodev0", O_RDWR);
	long cap = capacity_bytes();
	struct req_bufs rb;
	int rc;

	if (fd < 0) {
		result(false, "open /dev/aiodev0: %s", strerror(errno));
		return;
	}
	rc = io_setup(8, &actx);
	if (rc || io_uring_queue_init(8, &ring, 0)) {
		result(false, "io_setup/io_uring_queue_init failed");
		return;
	}
	req_bufs_map(&rb);
	bad_buffer_cases(fd, &rb);
	bad_range_cases(fd, &rb, cap);
	bad_iovec_cases(fd, &rb);
	guard_tests(fd);
	close(fd);

	unaligned_direct_tests(rb.buf);
	unsupported_tests();
	io_destroy(actx);
	io_uring_queue_exit(&ring);
	munmap(rb.hb, PAGE + (128 << 20));
	set("completion", "hrtimer");
}

/* ---- reads and writes racing abort ---- */

static volatile int race_stop;

struct racer {
	int api;
	uint64_t n, cancelled, bad, hang;
	char err[128];
};

/* One request's result: -ECANCELED (an abort won) or the whole length, nothing else. */
static void race_count(struct racer *rc, long r, size_t len, const char *api)
{
	rc->n++;
	if (r == -ECANCELED)
		rc->cancelled++;
	else if (r != (long)len) {
		rc->bad++;
		snprintf(rc->err, sizeof(rc->err), "%s %s", api, res_str(r));
	}
}

/* A batch of nr requests of len bytes, all at off, each into its own part of the buffer. */
struct race_batch {
	int fd, op, nr;
	size_t len;
	long off;
	char *b;
};

static void race_sync(struct racer *rc, const struct race_batch *q)
{
	long r = q->op ? pwrite(q->fd, q->b, q->len, q->off) : pread(q->fd, q->b, q->len, q->off);

	r = r < 0 ? -errno : r;
	race_count(rc, r, q->len, "sync");
}

/* No event within 10 s (times the slow factor) despite the aborts is a hang: every racer stops. */
static void race_aio(struct racer *rc, io_context_t ctx, const struct race_batch *q)
{
	struct iocb cbs[16], *p[16];
	struct io_event ev[16];
	int got = 0, s;

	for (int i = 0; i < q->nr; i++) {
		if (q->op)
			io_prep_pwrite(&cbs[i], q->fd, q->b + i * q->len, q->len, q->off);
		else
			io_prep_pread(&cbs[i], q->fd, q->b + i * q->len, q->len, q->off);
		p[i] = &cbs[i];
	}
	s = io_submit(ctx, q->nr, p);
	if (s < 0)
		s = 0;
	while (got < s) {
		struct timespec ts = { 10 * slow, 0 };
		int k = io_getevents(ctx, 1, s - got, ev, &ts);

		if (k <= 0) {
			rc->hang++;
			snprintf(rc->err, sizeof(rc->err), "libaio: no event in %d s", 10 * slow);
			race_stop = 1;
			break;
		}
		for (int i = 0; i < k; i++)
			race_count(rc, (long)ev[i].res, q->len, "libaio");
		got += k;
	}
}

static void race_uring(struct racer *rc, struct io_uring *rg, const struct race_batch *q)
{
	int s, got = 0;

	for (int i = 0; i < q->nr; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(rg);

		if (q->op)
			io_uring_prep_write(sqe, q->fd, q->b + i * q->len, q->len, q->off);
		else
			io_uring_prep_read(sqe, q->fd, q->b + i * q->len, q->len, q->off);
	}
	s = io_uring_submit(rg);
	while (got < s) {
		struct io_uring_cqe *cqe;
		struct __kernel_timespec ts = { 10 * slow, 0 };
		long r;

		if (io_uring_wait_cqe_timeout(rg, &cqe, &ts)) {
			rc->hang++;
			snprintf(rc->err, sizeof(rc->err), "io_uring: no CQE in %d s", 10 * slow);
			race_stop = 1;
			break;
		}
		r = cqe->res;
		io_uring_cqe_seen(rg, cqe);
		got++;
		race_count(rc, r, q->len, "io_uring");
	}
}

static void *race_io(void *arg)
{
	struct racer *rc = arg;
	struct race_batch q = { .fd = open("/dev/aiodev0", O_RDWR), .b = malloc(65536) };
	io_context_t ctx = 0;
	struct io_uring rg;
	uint64_t seed = 0x9e3779b97f4a7c15ull + rc->api;

	io_setup(64, &ctx);
	io_uring_queue_init(64, &rg, 0);
	while (!race_stop) {
		q.op = rnd_below(&seed, 2);
		q.nr = 1 + rnd_below(&seed, 16);
		q.len = 1 + rnd_below(&seed, 65536 / q.nr);
		q.off = rnd_below(&seed, 1 << 20);
		if (rc->api == API_SYNC)
			race_sync(rc, &q);
		else if (rc->api == API_AIO)
			race_aio(rc, ctx, &q);
		else
			race_uring(rc, &rg, &q);
	}
	io_destroy(ctx);
	io_uring_queue_exit(&rg);
	close(q.fd);
	free(q.b);
	return NULL;
}

static void race_tests(int seconds)
{
	struct racer r[NAPI] = { { .api = API_SYNC }, { .api = API_AIO }, { .api = API_URING } };
	pthread_t th[NAPI];
	uint64_t end, aborts = 0, seed = 42;
	struct aiodev_stats st;

	for (int m = 0; m < 3; m++) {
		set("completion", modes[m]);
		set("latency_ns", m == 2 ? "0" : "100000");
		set("jitter_ns", "50000");
		set("stall_every", "5");
		set("queue_depth", "8");
		race_stop = 0;
		for (int i = 0; i < NAPI; i++)
			pthread_create(&th[i], NULL, race_io, &r[i]);
		end = now_ns() + (uint64_t)seconds * 1000000000ull / 3;
		while (now_ns() < end && !race_stop) {
			aiodev_knob_write(DEV, "abort", "1");
			aborts++;
			usleep(rnd_below(&seed, 2000));
		}
		race_stop = 1;
		/* keep aborting until the I/O threads are out (stalled requests) */
		for (int i = 0; i < NAPI; i++) {
			while (pthread_tryjoin_np(th[i], NULL)) {
				aiodev_knob_write(DEV, "abort", "1");
				usleep(1000);
			}
		}
	}
	defaults();
	for (int a = 0; a < NAPI; a++)
		result(!r[a].bad && !r[a].hang && r[a].n,
		       "%s reads/writes racing abort: %llu requests, %llu cancelled, %llu bad, %llu hung%s%s",
		       api_name[a], (unsigned long long)r[a].n, (unsigned long long)r[a].cancelled,
		       (unsigned long long)r[a].bad, (unsigned long long)r[a].hang,
		       r[a].err[0] ? ": " : "", r[a].err);
	aiodev_knob_write(DEV, "abort", "1");
	aiodev_stats_read(DEV, &st, NULL);
	result(aiodev_stats_consistent(&st) && st.inflight == 0,
	       "after %llu aborts: inflight %llu, stats invariant %s", (unsigned long long)aborts,
	       (unsigned long long)st.inflight, aiodev_stats_consistent(&st) ? "holds" : "broken");
}

int main(int argc, char **argv)
{
	int race_seconds = 6, opt;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt == 't')
			race_seconds = atoi(optarg);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	slow = slow_factor();
	if (nr_devices() < 1) {
		result(false, "aiodev not loaded");
		return 1;
	}
	defaults();
	knob_tests();
	request_tests();
	race_tests(race_seconds);
	return failures ? 1 : 0;
}
