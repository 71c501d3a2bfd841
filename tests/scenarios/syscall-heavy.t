#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: a syscall storm. scn-syscalls, a copy of dd, copies /dev/zero to
# /dev/null one byte at a time: two syscalls per byte, hundreds of thousands a
# second, all of its CPU time spent crossing into the kernel and back. The first
# finding must be the syscall rate (workload.syscall-what, syscall.what) with
# scn-syscalls as its culprit, from the read and write syscalls the kernel
# counts per process (/proc/PID/io: nothing traced in the first window): the
# CPU it keeps busy is a consequence, and the syscall finding names the cause.
# The drill-down then traces scn-syscalls' every syscall (syscount, filtered
# in the kernel to it) for the part of its window the budget allows, its cost
# weighed against scn-syscalls' own CPU time (every run lands on its one
# thread), and its syscall table names it again.
. tests/lib/tap.sh

COMM=scn-syscalls
for tool in jq dd; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF (the drill-down's syscount)"

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
"$SONDE" run --window 8 --no-progress --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 8 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity) culprit \(.culprits[0].comm // "-")\(if .explained_by then " (explained by \(.explained_by.check))" else "" end)")' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'

is "$(jq -r '.findings[0] | "\(.resource).\(.metric)"' "$T/findings.json")" syscall.what \
	"the first finding is the syscall rate (syscall.what)"
is "$(jq -r '.findings[0].culprits[0].comm' "$T/findings.json")" "$COMM" "its culprit is $COMM"
is "$(jq -r '.findings[0].culprits[0].pid' "$T/findings.json")" "$LOAD" "the culprit's pid is $LOAD"
is "$(jq -r '[.tools[] | select(.name == "syscount")] | length' "$T/findings.json")" 0 \
	"the first window traced no syscall"

sc=$(jq -c '.drilldown.tools[]? | select(.name == "syscount")' "$T/findings.json")
diag "drill-down syscount: $sc"
case "$(jq -r .status <<<"$sc" 2>/dev/null)" in
ok)
	is "$(jq -r .filtered_to <<<"$sc")" "$LOAD" "the drill-down's syscount traced $COMM alone"
	is "$(jq -r '.checks[] | select(.id == "drilldown.syscall-who") | .culprits[0].comm' "$T/findings.json")" \
		"$COMM" "the drill-down's syscall table names $COMM"
	# Filtered to one single-threaded process, syscount's whole cost lands on
	# that process's one CPU: weighed against its own CPU time, not the host's.
	load=$(jq -r '.predicted_load_pct // 0' <<<"$sc")
	pct=$(jq -r '.predicted_cpu_pct // 0' <<<"$sc")
	duty=$(jq -r '.duty // 1' <<<"$sc")
	if [ "$(nproc)" -ge 2 ]; then
		ok "its cost was weighed against $COMM's own CPU time: $load% more, against $pct% of the host" \
			awk -v l="$load" -v p="$pct" 'BEGIN { exit !(l > 1.5 * p) }'
	else
		skip "its cost weighed against $COMM's own CPU time" "one CPU: the host's share is the process's"
	fi
	ok "it traced the share of the window the default budget (2%) holds at that cost (duty $duty)" \
		awk -v l="$load" -v d="$duty" 'BEGIN { exit !(d * l <= 2.01) }'
	;;
over_budget | "")
	[ -n "$sc" ] && ok "refused: the reason weighs it against the work it traces" \
		sh -c 'jq -e ".reason | test(\"more CPU time for the work it traces\")" >/dev/null' <<<"$sc"
	skip "the drill-down's syscall table" "syscount did not run in the drill-down: $(jq -r '.reason // "no drill-down"' <<<"${sc:-{\}}")"
	skip "its culprit" "no syscall table"
	;;
*) ok "the drill-down's syscount ran or was refused by its cost ($sc)" false ;;
esac

done_testing
