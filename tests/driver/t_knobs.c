// SPDX-License-Identifier: GPL-2.0
/* Every knob: default, good values read back, bad values refused with EINVAL. */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static char huge[4097];

static const char *const bad_numbers[] = {
	"", " ", "\n", "-1", "abc", "1x", "12 ", " 12", "1.5", "0x10", "1\n\n",
	"18446744073709551616", "99999999999999999999999", huge, NULL,
};

struct knob {
	const char *name;
	const char *def;
	const char *good[4];
	const char *bad[6];	/* beyond the common bad_numbers */
};

static const struct knob knobs[] = {
	{ "latency_ns", "0", { "1", "50000000", "3600000000000", "0" },
	  { "3600000000001", "18446744073709551615" } },
	{ "jitter_ns", "0", { "1", "1000000", "3600000000000", "0" },
	  { "3600000000001", "18446744073709551615" } },
	{ "queue_depth", "128", { "1", "65536", "64", "128" }, { "0", "65537", "4294967296" } },
	{ "fail_every", "0", { "1", "7", "4294967295", "0" }, { "4294967296" } },
	{ "stall_every", "0", { "1", "3", "4294967295", "0" }, { "4294967296" } },
	{ "seed", "0", { "1", "42", "18446744073709551615", "0" }, { NULL } },
};

static void strip(char *s)
{
	size_t n = strlen(s);

	if (n && s[n - 1] == '\n')
		s[n - 1] = '\0';
}

static void test_numeric(const struct knob *k)
{
	char got[64], name[160], set[32];
	int i, err, refused = 0, changed = 0;
	char first_bad[64] = "";

	read_knob(k->name, got, sizeof(got));
	strip(got);
	snprintf(name, sizeof(name), "knob %s: default is %s", k->name, k->def);
	check(!strcmp(got, k->def), name, "read '%s'", got);

	for (i = 0; i < 4; i++) {
		err = write_knob(k->name, k->good[i]);
		read_knob(k->name, got, sizeof(got));
		strip(got);
		snprintf(name, sizeof(name), "knob %s: '%s' accepted and read back", k->name,
			 k->good[i]);
		check(!err && !strcmp(got, k->good[i]), name, "err=%d read '%s'", err, got);
	}
	/* the newline that echo adds is fine */
	snprintf(set, sizeof(set), "%s\n", k->good[1]);
	err = write_knob(k->name, set);
	read_knob(k->name, got, sizeof(got));
	strip(got);
	snprintf(name, sizeof(name), "knob %s: '%s\\n' accepted", k->name, k->good[1]);
	check(!err && !strcmp(got, k->good[1]), name, "err=%d read '%s'", err, got);

	for (int pass = 0; pass < 2; pass++) {
		const char *const *list = pass ? k->bad : bad_numbers;

		for (i = 0; list[i]; i++) {
			err = write_knob(k->name, list[i]);
			read_knob(k->name, got, sizeof(got));
			strip(got);
			/* a 0-byte write(2) never reaches the driver: it returns 0 */
			if (err == -EINVAL || (!list[i][0] && !err))
				refused++;
			else if (!first_bad[0])
				snprintf(first_bad, sizeof(first_bad), "'%.20s' gave %d", list[i], err);
			if (strcmp(got, k->good[1]))
				changed++;
		}
	}
	snprintf(name, sizeof(name), "knob %s: bad values refused with EINVAL", k->name);
	check(!first_bad[0], name, "%s", first_bad);
	snprintf(name, sizeof(name), "knob %s: value unchanged after bad writes", k->name);
	check(!changed, name, "%d writes changed it", changed);
	(void)refused;
	set_knob(k->name, k->def);
}

static void test_completion(void)
{
	static const char *const bad[] = {
		"", "\n", "foo", "hrtimer ", " hrtimer", "HRTIMER", "hrtimerx", "inline\n\n",
		"work", "0", huge, NULL,
	};
	static const char *const good[] = { "workqueue", "inline\n", "hrtimer" };
	char got[64];
	int i, err, wrong = 0, changed = 0;

	read_knob("completion", got, sizeof(got));
	check(!strcmp(got, "hrtimer\n"), "knob completion: default is hrtimer", "read '%s'", got);
	for (i = 0; i < 3; i++) {
		char want[32], name[96];

		err = write_knob("completion", good[i]);
		read_knob("completion", got, sizeof(got));
		snprintf(want, sizeof(want), "%.*s\n", (int)strcspn(good[i], "\n"), good[i]);
		snprintf(name, sizeof(name), "knob completion: '%.*s' accepted and read back",
			 (int)strcspn(good[i], "\n"), good[i]);
		check(!err && !strcmp(got, want), name, "err=%d read '%s'", err, got);
	}
	set_knob("completion", "workqueue");
	for (i = 0; bad[i]; i++) {
		err = write_knob("completion", bad[i]);
		read_knob("completion", got, sizeof(got));
		if (err != -EINVAL && !(!bad[i][0] && !err))
			wrong++;
		if (strcmp(got, "workqueue\n"))
			changed++;
	}
	check(!wrong, "knob completion: bad values refused with EINVAL", "%d not refused", wrong);
	check(!changed, "knob completion: value unchanged after bad writes", "%d changed it",
	      changed);
	set_knob("completion", "hrtimer");
}

static void test_abort_stats(void)
{
	static const char *const bad[] = { "", "0", "2", "-1", "1x", "abc", huge, NULL };
	char got[1024];
	int i, err, wrong = 0;
	struct aiodev_stats a, b;

	check(write_knob("abort", "1") == 0 && write_knob("abort", "1\n") == 0,
	      "knob abort: '1' accepted", "refused");
	for (i = 0; bad[i]; i++) {
		err = write_knob("abort", bad[i]);
		if (err != -EINVAL && !(!bad[i][0] && !err))
			wrong++;
	}
	check(!wrong, "knob abort: anything but 1 refused with EINVAL", "%d not refused", wrong);
	err = read_knob("abort", got, sizeof(got));
	check(err != 0, "knob abort: write-only (read fails)", "read gave '%s'", got);

	read_stats(&a);
	err = write_knob("stats", "0");
	read_stats(&b);
	check(err != 0 && a.submitted == b.submitted, "knob stats: read-only (write fails)",
	      "err=%d", err);
	read_knob("stats", got, sizeof(got));
	check(!strncmp(got, "submitted ", 10) && strstr(got, "\nbytes_written "),
	      "knob stats: 'key value' lines from submitted to bytes_written", "'%s'", got);
}

/* queue_depth: IOCB_NOWAIT beyond it gets EAGAIN; others wait for room. */
static void test_queue_depth_behaviour(void)
{
	struct iocb cbs[8], *cbp[8];
	struct io_event ev[8];
	io_context_t ctx = 0;
	static char buf[8][4096];
	struct aiodev_stats st;
	int fd = open_dev(O_RDWR), i, got;
	uint64_t t0, dt;

	set_knob("queue_depth", "4");
	set_knob("latency_ns", "500000000");
	if (io_setup(8, &ctx))
		die("io_setup");
	for (i = 0; i < 8; i++) {
		io_prep_pread(&cbs[i], fd, buf[i], 4096, i * 4096);
		cbs[i].data = (void *)(long)i;
		cbp[i] = &cbs[i];
	}
	/* 4 fill the queue; a 5th with RWF_NOWAIT gets -EAGAIN as its event */
	submit_all(ctx, cbp, 4);
	cbs[4].aio_rw_flags = RWF_NOWAIT;
	submit_all(ctx, cbp + 4, 1);
	got = reap(ctx, ev, 1, 50);
	check(got == 1 && (long)ev[0].data == 4 && (long)ev[0].res == -EAGAIN,
	      "queue_depth=4: a 5th RWF_NOWAIT request gets -EAGAIN at once",
	      "got=%d data=%ld res=%ld", got, got ? (long)ev[0].data : -1,
	      got ? (long)ev[0].res : 0);
	read_stats(&st);
	check(st.inflight == 4, "queue_depth=4: 4 in flight", "inflight=%lu",
	      (unsigned long)st.inflight);
	/* a blocking 6th waits in io_submit until one of the 4 completes */
	t0 = now_ns();
	submit_all(ctx, cbp + 5, 1);
	dt = now_ns() - t0;
	check(dt >= 250000000ull, "queue_depth=4: a 5th blocking request waits for room",
	      "io_submit returned after %.1f ms", dt / 1e6);
	got = reap(ctx, ev, 5, 3000);
	read_stats(&st);
	check(got == 5 && st.max_inflight >= 4 && st.inflight == 0,
	      "queue_depth=4: all complete", "got=%d", got);
	io_destroy(ctx);
	close(fd);
	set_knob("queue_depth", "128");
	set_knob("latency_ns", "0");
}

int main(void)
{
	memset(huge, '9', sizeof(huge) - 1);
	reset_knobs();
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		test_numeric(&knobs[i]);
	test_completion();
	test_abort_stats();
	test_queue_depth_behaviour();
	reset_knobs();
	return failures() ? 1 : 0;
}
