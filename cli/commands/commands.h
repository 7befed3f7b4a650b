/* SPDX-License-Identifier: GPL-2.0 */
/*
 * commands.h - the aioscope subcommands and helpers shared by their parsers.
 *
 * Exit status of every command: 0 ok, 1 runtime failure, 2 usage error
 * (argp errors exit 2 too: main() sets argp_err_exit_status).
 */
#ifndef AIOSCOPE_COMMANDS_H
#define AIOSCOPE_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* AIOSCOPE_VERSION comes from the top-level VERSION file (cli/Makefile) */
#ifndef AIOSCOPE_VERSION
#error "AIOSCOPE_VERSION is not defined: build with cli/Makefile"
#endif

#define EXIT_OK		0
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2
#define EXIT_STUCK	3	/* stuck, report FILE stuck: something is stuck */

int cmd_snoop(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_top(int argc, char **argv);
/* report FILE top: top's batch view of a recording, on its clock (top.c) */
int cmd_report_top(const char *file, int argc, char **argv);
int cmd_stuck(int argc, char **argv);
int cmd_exporter(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_heatmap(int argc, char **argv);

/* parse_u64(), parse_int(), parse_seconds(), parse_mode() */
#include "collect/parse.h"

/*
 * The filter options that snoop and hist share (-p, -v, --dev, --comm, --cgroup,
 * --min-lat-us, --mode, --sample): their argp keys, and one parser for them. A command's own
 * keys start at OPT_CMD_BASE. filter_opt_parse() returns ARGP_ERR_UNKNOWN for any
 * other key.
 */
enum { OPT_FILTER_DEV = 256, OPT_FILTER_COMM, OPT_FILTER_CGROUP, OPT_FILTER_MINLAT,
       OPT_FILTER_MODE, OPT_FILTER_SAMPLE, OPT_TRACE_NOREAP, OPT_TRACE_RINGBUF, OPT_CMD_BASE };
struct argp_state;
struct tracer_opts;
int filter_opt_parse(int key, char *arg, struct argp_state *state, struct tracer_opts *o);

/*
 * What snoop and record share: the filters above, --mode, -v, --no-reap, --ringbuf-mb
 * and -d, as an argp child (snoop.c): a command lists snoop_trace_argp among its
 * children and points state->child_inputs[i] at its struct snoop_trace at
 * ARGP_KEY_INIT; then sets o.events and o.event_reap = !no_reap itself.
 */
#include "collect/tracer.h"
struct snoop_trace {
	struct tracer_opts o;
	bool no_reap;
	double duration;		/* -d: seconds, 0 until a signal */
};
struct argp;
extern const struct argp snoop_trace_argp;

/*
 * --sample N (snoop, hist): the coverage, as a line (nothing when every request is
 * followed) and as JSON fields: sample (N, 1 for all), sample_seen, sample_kept,
 * coverage (kept / seen, 1 for all).
 */
struct aio_json;
/* the share of the requests that passed the filters that were followed (1: none seen) */
double sample_coverage(const struct tracer_drops *d);
void sample_report(FILE *f, unsigned int n, const struct tracer_drops *d);
void sample_json(struct aio_json *j, unsigned int n, const struct tracer_drops *d);

/*
 * The options several commands share, parsed one way, with one message on a bad
 * value: "invalid WHAT 'ARG' (what is valid)", and exit 2 (argp_error).
 */
void opt_invalid(struct argp_state *state, const char *what, const char *arg,
		 const char *valid);
/* seconds (a decimal number) in [min, max] */
double opt_seconds(struct argp_state *state, const char *what, const char *arg, double min,
		   double max);
/* an unsigned number in [min, max]; @unit (or NULL) names what it counts */
uint64_t opt_u64(struct argp_state *state, const char *what, const char *arg, uint64_t min,
		 uint64_t max, const char *unit);
/* -p PID: 1 .. 4194304 (the kernel's PID_MAX_LIMIT) */
int opt_pid(struct argp_state *state, const char *arg);
/* -n COUNT: 1 .. 10^9 */
long opt_count(struct argp_state *state, const char *arg);
/* --mode: auto, fentry, kprobe, syscalls */
struct tracer_opts;
enum tracer_mode;
void opt_mode(struct argp_state *state, const char *arg, enum tracer_mode *m);
/* a positional argument where a command takes none */
void opt_unexpected(struct argp_state *state, const char *arg);

/*
 * A device as the kernel's dev_t in the events (major << 20 | minor), from a device
 * node or "MAJ:MIN": 0, or -1 for anything else. For the commands that read
 * recordings, where the device may not exist on this machine.
 */
int parse_dev_t(const char *s, uint32_t *dev);

/*
 * The commands that turn a recording into a file (profile, export, heatmap): the
 * positional FILE (once) and, at the end, a required output (@out_opt names it in
 * the message). ARGP_ERR_UNKNOWN for other keys.
 */
int opt_file_out(int key, char *arg, struct argp_state *state, const char **file,
		 const char **out, const char *out_opt);
/* @out opened for writing ("-": stdout), or NULL after a one-line error */
FILE *out_open(const char *out);
/* Closes @f (flushes stdout); EXIT_OK, or EXIT_RUNTIME after saying @err or the close's */
int out_close(FILE *f, const char *out, int err);
/*
 * stdout for a command that prints as it goes: a terminal gets each line at once; a
 * pipe or file gets 64 KiB writes, the caller flushing at the end of each print
 * (thousands of stuck requests a second are thousands of write calls otherwise).
 */
void out_stream(void);

/* --by (op, pid, dev, ctx, qd), --comm (1 to 15 characters), --min-lat-us (in ns) */
enum aios_group opt_group(struct argp_state *state, const char *arg);
const char *opt_comm(struct argp_state *state, const char *arg);
uint64_t opt_min_lat(struct argp_state *state, const char *arg);

/* "Error: ..." on stderr (one line) */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
