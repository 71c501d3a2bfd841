#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: an exec storm. A parent, scn-execstorm (a copy of bash), starts
# /bin/true in a loop: hundreds of processes a second, each living about a
# millisecond, too short for top or /proc sampling to see. The CPU they burn
# shows up as CPU busy with no process to blame; the first finding must be the
# exec storm (workload.process-what, process.what) and its culprit the parent.
. tests/lib/tap.sh

COMM=scn-execstorm
for tool in jq; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF (execsnoop)"
TRUE=$(command -v true) # the external command, not the builtin
[ -x /bin/true ] && TRUE=/bin/true

T=$(mktemp -d /tmp/sonde-scn-exec.XXXXXX)
LOAD=
cleanup() {
	[ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null && wait "$LOAD" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cp "$(command -v bash)" "$T/$COMM"
"$T/$COMM" -c "while :; do $TRUE; done" &
LOAD=$!
diag "$COMM (pid $LOAD) runs $TRUE in a loop"
sleep 1

mkdir -p "$T/out"
"$SONDE" run --window 5 --no-progress --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 5 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity) culprit \(.culprits[0].comm // "-")\(if .explained_by then " (explained by \(.explained_by.check))" else "" end)")' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'

tool=$(jq -r '.tools[] | select(.name == "execsnoop") | "\(.status) \(.reason // "")"' "$T/findings.json")
case $tool in
ok*) ;;
*) skip_all "execsnoop did not run: $tool" ;;
esac
rate=$(jq -r '.checks[] | select(.id == "workload.process-what") | .metrics[]
	| select(.name == "execs_per_s") | .value' "$T/findings.json")
diag "execs/s: $rate"
ok "the load is there: $rate execs/s (>= 100, the warning)" \
	awk -v v="$rate" 'BEGIN { exit !(v != "" && v >= 100) }'
is "$(jq -r '.findings[0] | "\(.resource).\(.metric)"' "$T/findings.json")" process.what \
	"the first finding is the exec storm (process.what)"
is "$(jq -r '.findings[0].culprits[0].comm' "$T/findings.json")" "$COMM" "its culprit is the parent, $COMM"
is "$(jq -r '.findings[0].culprits[0].pid' "$T/findings.json")" "$LOAD" "the culprit's pid is the parent's ($LOAD)"

done_testing
