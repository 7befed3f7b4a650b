# SPDX-License-Identifier: GPL-2.0
# tests/lib/tap.sh - what every suite's run script shares (source it):
# result lines "ok - NAME" / "not ok - NAME: why" (tests/lib/report counts them),
# aiodev's knobs and counters, and aioscope tracers in the background.

FAILS=0		# failed checks so far; a script ends with: tap_exit
TPIDS=()	# tracers started by start_tracer, for the script's cleanup

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1: $2"; FAILS=$((FAILS + 1)); }
# expect NAME ACTUAL EXPECTED
expect() { if [ "$2" = "$3" ]; then ok "$1"; else nok "$1" "got '$2', expected '$3'"; fi; }
# check NAME STATUS WHY: ok when STATUS is 0
check() { if [ "$2" = 0 ]; then ok "$1"; else nok "$1" "$3"; fi; }
# expect_true NAME COMMAND...: ok when COMMAND succeeds
expect_true() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else nok "$name" "failed: $*"; fi
}
tap_exit() { exit $((FAILS > 0)); }

# aiodev: knob DEV NAME VALUE; stat_of DEV KEY (a line of its stats file)
knob() { echo "$3" >"/sys/class/aiodev/$1/$2"; }
stat_of() { awk -v k="$2" '$1 == k { print $2 }' "/sys/class/aiodev/$1/stats"; }

# wait_until CMD...: until CMD succeeds, for at most WAIT_S seconds (default 60; a
# suite sets more for the debug kernel, whose every step is many times slower).
# Returns CMD's last status.
wait_until() {
	local end=$((SECONDS + ${WAIT_S:-60}))
	until "$@"; do
		[ $SECONDS -ge $end ] && { "$@"; return; }
		sleep 0.1
	done
}

# start_tracer OUT ARGS...: aioscope ARGS in the background ($A, pid in TPID), its
# stdout in OUT and stderr in OUT.err; returns once it says it is tracing (1 if it
# ended first, or after 60 s, with its stderr on ours)
start_tracer() {
	local out=$1 i t0=$SECONDS
	shift
	"$A" "$@" >"$out" 2>"$out.err" &
	TPID=$!
	TPIDS+=("$TPID")
	for i in $(seq 600); do
		if grep -q '^Tracing' "$out.err" 2>/dev/null; then
			# when, and how long loading took: where a slow kernel's hour goes
			echo "# ${SECONDS} s into the suite: aioscope $1 tracing after $((SECONDS - t0)) s"
			return 0
		fi
		kill -0 "$TPID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# aioscope $* did not start:" >&2
	sed 's/^/#   /' "$out.err" >&2
	return 1
}

# stop_tracer PID: SIGINT, wait, return its exit status
stop_tracer() {
	kill -INT "$1" 2>/dev/null
	wait "$1"
}
