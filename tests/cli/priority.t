#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sonde yields to the workload it observes: nice 10 and the lowest
# best-effort I/O priority (never the idle class, which starves) by default, its normal priority with --priority normal.
. tests/lib/tap.sh

command -v ionice >/dev/null || skip_all "ionice is not installed (util-linux)"
T=$(mktemp -d /tmp/sonde-cli-prio.XXXXXX)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

probe() { # ARGS...: start a run, read its nice value and I/O class mid-window
	"$SONDE" run --window 3 --out "$T" --no-progress "$@" >/dev/null 2>&1 &
	PID=$!
	sleep 1
	NICE=$(awk '{ print $19 }' /proc/$PID/stat 2>/dev/null)
	IOCLASS=$(ionice -p "$PID" 2>/dev/null)
	wait "$PID"
	RC=$?
	PID=
}
probe
is "$NICE" 10 "default: nice 10"
is "$IOCLASS" "best-effort: prio 7" "default: the lowest best-effort I/O priority"
is "$RC" 0 "default: the run completes"
probe --priority normal
is "$NICE" 0 "--priority normal: nice 0"
ok "--priority normal: not the lowest I/O priority (got '$IOCLASS')" test "$IOCLASS" != "best-effort: prio 7"
"$SONDE" run --priority high --out "$T" >/dev/null 2>&1
is "$?" 2 "--priority high is a usage error"
done_testing
