// SPDX-License-Identifier: GPL-2.0
/*
 * t_aio - a small libaio client for the tracer tests: submits N 4 KiB reads in one
 * io_submit, optionally io_cancels the first C of them, reaps everything with
 * io_getevents and prints what it got:
 *   pid=P submitted=N done=D eio=E ecanceled=X other=O cancel_inprogress=I
 *
 *   t_aio [-n N] [-c C] [-d DATA] [-w FILE] [-W] [-x exit|destroy] PATH
 *     -d DATA   user data (aio_data) of the first request, DATA + i of the others
 *               (default 1)
 *     -w FILE   wait until FILE exists before submitting (lets a tracer attach first)
 *     -W        open for writing and submit writes instead of reads
 *     -x exit     exit right after submitting, without reaping anything
 *     -x destroy  io_destroy right after submitting, then sleep 3 s and exit
 */
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define USAGE "usage: t_aio [-n N] [-c C] [-d DATA] [-w FILE] [-W] [-x exit|destroy] PATH\n"

struct opts {
	int n, ncancel, write_mode;
	unsigned long long data0;
	const char *waitfile, *unreaped, *path;
};

/* What the events said: 4096 (done), -EIO, -ECANCELED or anything else. */
struct counts {
	int done, eio, ecanceled, other;
};

static bool parse_args(int argc, char **argv, struct opts *o)
{
	int opt;

	while ((opt = getopt(argc, argv, "n:c:d:w:Wx:")) != -1) {
		switch (opt) {
		case 'n': o->n = atoi(optarg); break;
		case 'c': o->ncancel = atoi(optarg); break;
		case 'd': o->data0 = strtoull(optarg, NULL, 0); break;
		case 'w': o->waitfile = optarg; break;
		case 'W': o->write_mode = 1; break;
		case 'x': o->unreaped = optarg; break;
		default:
			fprintf(stderr, USAGE);
			return false;
		}
	}
	if (optind >= argc || o->n <= 0 || o->ncancel < 0 || o->ncancel > o->n ||
	    (o->unreaped && strcmp(o->unreaped, "exit") && strcmp(o->unreaped, "destroy"))) {
		fprintf(stderr, USAGE);
		return false;
	}
	o->path = argv[optind];
	return true;
}

/* Request i: 4 KiB at 4 KiB * i, into its own part of buf, aio_data data0 + i. */
static void prep_requests(const struct opts *o, int fd, char *buf, struct iocb *iocbs,
			  struct iocb **pp)
{
	for (int i = 0; i < o->n; i++) {
		if (o->write_mode)
			io_prep_pwrite(&iocbs[i], fd, buf + 4096 * (size_t)i, 4096, 4096LL * i);
		else
			io_prep_pread(&iocbs[i], fd, buf + 4096 * (size_t)i, 4096, 4096LL * i);
		iocbs[i].data = (void *)(unsigned long)(o->data0 + i);
		pp[i] = &iocbs[i];
	}
}

/* -x: leave every request unreaped, by exiting at once or after io_destroy and 3 s. */
static void exit_unreaped(const struct opts *o, io_context_t ctx)
{
	printf("pid=%d submitted=%d unreaped\n", getpid(), o->n);
	fflush(stdout);
	if (!strcmp(o->unreaped, "destroy")) {
		io_destroy(ctx);
		sleep(3);
	}
	_exit(0);
}

/* io_cancel the first ncancel requests: how many the driver agreed to cancel. */
static int cancel_first(io_context_t ctx, struct iocb *iocbs, int ncancel)
{
	int inprogress = 0;

	for (int i = 0; i < ncancel; i++) {
		struct io_event r;
		int ret = io_cancel(ctx, &iocbs[i], &r);

		if (ret == -EINPROGRESS || ret == 0)
			inprogress++;
	}
	return inprogress;
}

/* Reap all n events, counting them by result: false when io_getevents fails. */
static bool reap_all(io_context_t ctx, int n, struct io_event *ev, struct counts *c)
{
	for (int got = 0; got < n;) {
		int ret = io_getevents(ctx, 1, n - got, ev, NULL);

		if (ret < 0) {
			if (ret == -EINTR)
				continue;
			fprintf(stderr, "io_getevents: %s\n", strerror(-ret));
			return false;
		}
		for (int i = 0; i < ret; i++) {
			long res = (long)ev[i].res;

			if (res == 4096)
				c->done++;
			else if (res == -EIO)
				c->eio++;
			else if (res == -ECANCELED)
				c->ecanceled++;
			else
				c->other++;
		}
		got += ret;
	}
	return true;
}

int main(int argc, char **argv)
{
	struct opts o = { .n = 16, .data0 = 1 };
	struct counts c = { 0 };
	struct iocb *iocbs, **pp;
	struct io_event *ev;
	io_context_t ctx = 0;
	int fd, ret, inprogress;
	char *buf;

	if (!parse_args(argc, argv, &o))
		return 2;
	fd = open(o.path, o.write_mode ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		perror(o.path);
		return 1;
	}
	iocbs = calloc(o.n, sizeof(*iocbs));
	pp = calloc(o.n, sizeof(*pp));
	ev = calloc(o.n, sizeof(*ev));
	if (!iocbs || !pp || !ev || posix_memalign((void **)&buf, 4096, 4096 * (size_t)o.n))
		return 1;
	memset(buf, 'a', 4096 * (size_t)o.n);
	ret = io_setup(o.n, &ctx);
	if (ret) {
		fprintf(stderr, "io_setup: %s\n", strerror(-ret));
		return 1;
	}
	while (o.waitfile && access(o.waitfile, F_OK))
		usleep(10000);
	prep_requests(&o, fd, buf, iocbs, pp);
	ret = io_submit(ctx, o.n, pp);
	if (ret != o.n) {
		fprintf(stderr, "io_submit: %d\n", ret);
		return 1;
	}
	if (o.unreaped)
		exit_unreaped(&o, ctx);
	inprogress = cancel_first(ctx, iocbs, o.ncancel);
	if (!reap_all(ctx, o.n, ev, &c))
		return 1;
	io_destroy(ctx);
	printf("pid=%d submitted=%d done=%d eio=%d ecanceled=%d other=%d cancel_inprogress=%d\n",
	       getpid(), o.n, c.done, c.eio, c.ecanceled, c.other, inprogress);
	return 0;
}
