#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: CPU saturation. One process, scn-cpusat, runs 4 busy threads per
# CPU (more runnable threads than CPUs, so threads wait for a CPU). sonde's
# first finding must be CPU saturation and its culprit scn-cpusat: with 4x
# as many threads as CPUs the process gets most of the CPU time even on a
# host shared with other loads (CFS gives every runnable thread its share).
. tests/lib/tap.sh

COMM=scn-cpusat
for tool in jq cc; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF (run queue latency)"

T=$(mktemp -d /tmp/sonde-scn-cpusat.XXXXXX)
LOAD=
cleanup() {
	[ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null && wait "$LOAD" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

NCPU=$(nproc)
NTHREADS=$((4 * NCPU))
cat >"$T/spin.c" <<'C'
#include <pthread.h>
#include <stdlib.h>
static void *spin(void *arg)
{
	volatile unsigned long n = 0;
	for (;;)
		n++;
	return arg;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t t;
	for (int i = 1; i < n; i++)
		pthread_create(&t, NULL, spin, NULL);
	spin(NULL);
	return 0;
}
C
cc -O1 -pthread -o "$T/$COMM" "$T/spin.c" 2>"$T/cc.err" ||
	skip_all "cannot build the load: $(head -c 200 "$T/cc.err")"
"$T/$COMM" "$NTHREADS" &
LOAD=$!
diag "$COMM (pid $LOAD): $NTHREADS busy threads on $NCPU CPUs"
sleep 1

mkdir -p "$T/out"
"$SONDE" run --window 5 --no-progress --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 5 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity) culprit \(.culprits[0].comm // "-")\(if .explained_by then " (explained by \(.explained_by.check))" else "" end)")' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'

is "$(jq -r '.findings[0] | "\(.resource).\(.metric)"' "$T/findings.json")" cpu.saturation \
	"the first finding is CPU saturation"
is "$(jq -r '.findings[0].culprits[0].comm' "$T/findings.json")" "$COMM" \
	"its culprit is $COMM"
ok "the verdict names $COMM" grep -q "culprit: $COMM" <(jq -r .verdict "$T/findings.json")

done_testing
