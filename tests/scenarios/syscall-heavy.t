#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: a syscall storm. scn-syscalls, a copy of dd, copies /dev/zero to
# /dev/null one byte at a time: two syscalls per byte, hundreds of thousands a
# second, all of its CPU time spent crossing into the kernel and back. The first
# finding must be the syscall rate (workload.syscall-what, syscall.what) with
# scn-syscalls as its culprit: the CPU it keeps busy is a consequence, and the
# syscall finding names the cause.
. tests/lib/tap.sh

COMM=scn-syscalls
for tool in jq dd; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF (syscount)"

T=$(mktemp -d /tmp/sonde-scn-syscalls.XXXXXX)
LOAD=
cleanup() {
	[ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null && wait "$LOAD" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cp "$(command -v dd)" "$T/$COMM"
"$T/$COMM" if=/dev/zero of=/dev/null bs=1 status=none &
LOAD=$!
diag "$COMM (pid $LOAD): dd bs=1 from /dev/zero to /dev/null"
sleep 1

mkdir -p "$T/out"
"$SONDE" run --window 5 --no-progress --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 5 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity) culprit \(.culprits[0].comm // "-")\(if .explained_by then " (explained by \(.explained_by.check))" else "" end)")' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'

tool=$(jq -r '.tools[] | select(.name == "syscount") | "\(.status) \(.reason // "")"' "$T/findings.json")
case $tool in
ok*) ;;
*) skip_all "syscount did not run: $tool" ;;
esac
is "$(jq -r '.findings[0] | "\(.resource).\(.metric)"' "$T/findings.json")" syscall.what \
	"the first finding is the syscall rate (syscall.what)"
is "$(jq -r '.findings[0].culprits[0].comm' "$T/findings.json")" "$COMM" "its culprit is $COMM"
is "$(jq -r '.findings[0].culprits[0].pid' "$T/findings.json")" "$LOAD" "the culprit's pid is $LOAD"

done_testing
