#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: an application blocked in fsync. scn-fsync writes 4 KiB to a file
# and fsyncs it, in a loop, on the file system of a temporary directory under
# /var/tmp (the root disk here). drilldown.filesystem-why, selected for the
# first window, must name it with its fsync latency: fslatency's table has
# scn-fsync's fsync calls on that mount with a histogram and a maximum, the
# check's file_p99_ms names scn-fsync, fsync and the mount, and its summary
# gives one of the three answers (the disk, the file system, or not waiting
# because fsync answers fast) with scn-fsync in it. The budget is off
# (--max-overhead 0): the first window traces every process here, and what is
# tested is the measurement, not the admission (the drill-down tests and
# syscall-heavy.t test that).
. tests/lib/tap.sh
. tests/lib/fslatency.sh

COMM=scn-fsync
for tool in jq perl tar; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF (fslatency)"
"$SONDE" list 2>/dev/null | grep -q '^bpf.fslatency .* yes' ||
	skip_all "fslatency cannot run here: $("$SONDE" list 2>&1 | grep '^bpf.fslatency')"

T=$(mktemp -d /var/tmp/sonde-scn-fsync.XXXXXX)
LOAD=
cleanup() {
	[ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null && wait "$LOAD" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# jq -e, quietly: 0 when the filter's last output is true
jq_true() { jq -e "$@" >/dev/null 2>&1; }

# $0 names the process (perl sets the comm from it), so no copy of perl is needed.
perl -e '$0 = shift; use IO::Handle; open(my $f, ">", shift) or die "$!";
	while (1) { print $f "x" x 4096; $f->flush; $f->sync or die "fsync: $!"; }' \
	"$COMM" "$T/$COMM.dat" &
LOAD=$!
diag "$COMM (pid $LOAD): write 4 KiB and fsync, in a loop, in $T ($(stat -f -c %T "$T"))"
sleep 0.5

fslat_observe

row=$(jq -c --argjson p "$LOAD_PID" '.data.by_process[] | select(.pid == $p and .syscall == "fsync")' \
	"$T/fslatency.json")
diag "fslatency, $COMM's fsync: $row"
is "$(jq -r .comm <<<"$row")" "$COMM" "fslatency has $COMM's fsync calls, by name"
ok "... many of them (at least 10 in 4 s)" test "$(jq -r '.count // 0' <<<"$row")" -ge 10
ok "... with their time and largest latency" jq_true '.total_us > 0 and .max_us > 0' <<<"$row"
ok "... and a latency histogram of as many calls" \
	jq_true '(.hist | add) == .count' <<<"$row"
mnt=$(jq -r --argjson p "$LOAD_PID" \
	'[.data.by_process_mount[] | select(.pid == $p and .syscall == "fsync")][0].mount' "$T/fslatency.json")
is "$mnt" "$(stat -c %m "$T")" "its mount is the temporary directory's"
ok "the histogram per interval has the shared shape (interval_ms, unit us, counts)" \
	jq_true '.data.intervals | (.interval_ms > 0) and .unit == "us" and (.counts | length >= 4)' \
	"$T/fslatency.json"
# the shared plan (docs/bpf-tools.md "intervals"): a 4 s window is 40 of 100 ms,
# rows from the window's start to the detach only (a few more for the attach
# and read, never the 64 of the array)
is "$(jq -r .data.intervals.interval_ms "$T/fslatency.json")" 100 "... on the shared plan: 100 ms for a 4 s window"
ok "... one row per interval of the window up to the detach (40 to 50)" \
	jq_true '.data.intervals.counts | length >= 40 and length <= 50' "$T/fslatency.json"
ok "... the fsyncs in most of them (no row left empty by a wrong origin)" \
	jq_true '[.data.intervals.counts[] | select(add // 0 > 0)] | length >= 30' "$T/fslatency.json"
ok "the slowest calls' at_s fall in the traced time (seconds after the attach)" \
	jq_true '(.traced_to_s - .traced_from_s + 1) as $d | .data.slowest | length > 0 and
		all(.[]; .at_s >= 0 and .at_s <= $d)' "$T/fslatency.json"

c=$(jq -c '.checks[] | select(.id == "drilldown.filesystem-why")' "$T/findings.json")
diag "drilldown.filesystem-why: $(jq -r '"\(.status): \(.summary)"' <<<"$c")"
like_summary=$(jq -r .summary <<<"$c")
case "$like_summary" in
*"$COMM (pid $LOAD_PID)"*fsync*) ok "the check names $COMM and fsync in its answer" true ;;
*) ok "the check names $COMM and fsync in its answer: $like_summary" false ;;
esac
inst=$(jq -r '.metrics[] | select(.name == "file_p99_ms") | .instance' <<<"$c")
is "$inst" "$COMM (pid $LOAD_PID) fsync $mnt" "its file_p99_ms is $COMM's fsync on $mnt"
ok "... a latency above 0" jq_true '.metrics[] | select(.name == "file_p99_ms") | .value > 0' <<<"$c"
ok "it draws the calls per interval as a latency heat map of the capture's intervals" \
	jq_true --slurpfile f "$T/fslatency.json" '[.evidence[] | select(.kind == "heatmap")] | length == 1 and
		.[0].unit == "us" and .[0].interval_ms == $f[0].data.intervals.interval_ms and
		(.[0].counts | length) == ($f[0].data.intervals.counts | length)' <<<"$c"

done_testing
