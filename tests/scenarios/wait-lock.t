#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: threads fighting over one pthread mutex (issue 26). scn-lockfight
# runs 12 threads that each take one mutex, work under it, and let it go, in
# a loop: one runs, the others queue on the mutex's futex. Nothing else on
# the host is busy, yet the process crawls. The thread states must say so:
# use.user-mutex-waits warns or is critical with scn-lockfight as culprit and
# the futex named as a contended mutex, at most one thread running at a time;
# the user-mutex saturation cell is no longer unknown; and the drill-down it
# fires (futexctn and offcputime, filtered in the kernel to the culprit)
# draws the culprit's off-CPU flame graph.
. tests/lib/tap.sh

COMM=scn-lockfight
for tool in jq cc tar; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for the task iterator (BPF)"

T=$(mktemp -d /tmp/sonde-scn-lock.XXXXXX)
LOAD=
cleanup() {
	[ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null && wait "$LOAD" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$T/lock.c" <<'C'
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long counter;
static void *worker(void *arg)
{
	for (;;) {
		pthread_mutex_lock(&mu);
		for (int i = 0; i < 20000; i++)
			counter++;
		pthread_mutex_unlock(&mu);
		for (int i = 0; i < 200; i++)
			__asm__ volatile("");
	}
	return arg;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 12;
	pthread_t t;
	for (int i = 0; i < n; i++)
		pthread_create(&t, NULL, worker, NULL);
	pause();
	return 0;
}
C
cc -O2 -pthread -o "$T/$COMM" "$T/lock.c" 2>"$T/cc.err" ||
	skip_all "cannot build the load: $(head -c 200 "$T/cc.err")"
"$T/$COMM" 12 &
LOAD=$!
diag "$COMM (pid $LOAD): 12 threads, one mutex"
sleep 1

mkdir -p "$T/out"
"$SONDE" run --window 4 --no-progress --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 4 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity) culprit \(.culprits[0].comm // "-"): \(.summary)")' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'

f=$(jq -c '[.findings[] | select(.check == "use.user-mutex-waits")][0] // empty' "$T/findings.json")
ok "use.user-mutex-waits is a finding (warn or crit)" test -n "$f"
is "$(jq -r '.resource' <<<"$f")" user-mutex "... on the user-mutex resource"
is "$(jq -r '.culprits[0].comm' <<<"$f")" "$COMM" "... its culprit is $COMM"
is "$(jq -r '.culprits[0].pid' <<<"$f")" "$LOAD" "... by its pid"
ok "... the wait is named: a futex, a contended mutex" grep -q "futex 0x[0-9a-f]* (a contended mutex)" <<<"$(jq -r .summary <<<"$f")"
ok "... at most one of its threads runs at a time" grep -q "at most one runs at a time" <<<"$(jq -r .summary <<<"$f")"
is "$(jq -r '.use_matrix["user-mutex"].saturation.status' "$T/findings.json")" "$(jq -r .severity <<<"$f")" \
	"the user-mutex saturation cell has the finding's status, not unknown"
ok "the verdict mentions the lock" grep -q "$COMM" <(jq -r .verdict "$T/findings.json")

# the drill-down: the culprit's futex waits and its off-CPU flame graph
ok "the finding fired the drill-down of user locks" \
	jq -e '.drilldown.fired | any(.trigger == "use.user-mutex-waits")' "$T/findings.json"
tw=$(jq -c '.checks[] | select(.id == "drilldown.task-why")' "$T/findings.json")
diag "drilldown.task-why: $(jq -r '"\(.status): \(.summary)"' <<<"$tw")"
if jq -e '.unknowns | length > 0' <<<"$tw" >/dev/null; then
	skip "the off-CPU flame graph" "offcputime did not run: $(jq -r '.unknowns[0].reason' <<<"$tw")"
else
	is "$(jq -r '.culprits[0].comm' <<<"$tw")" "$COMM" "drilldown.task-why names $COMM"
	ok "... with an off-CPU flame graph" jq -e '.evidence | any(.kind == "flamegraph")' <<<"$tw"
	ok "... traced in the kernel for the culprit alone" \
		jq -e --arg p "$LOAD" '.drilldown.tools[] | select(.name == "offcputime") | .filtered_to | tostring | contains($p)' "$T/findings.json"
fi

# the workload's view: the table and the stacked bars
pw=$(jq -c '.checks[] | select(.id == "workload.process-how")' "$T/findings.json")
ok "workload.process-how lists $COMM first, blocked on the user lock" \
	jq -e --arg c "$COMM" '.evidence[0].rows[0][1] == $c and (.evidence[0].rows[0][7] | startswith("user lock"))' <<<"$pw"
ok "... and draws its stacked bar" jq -e '.evidence | any(.kind == "bars")' <<<"$pw"

ok "the report says how the states were read (the task iterator)" \
	grep -q "thread states from the bpf_iter_task pass" <<<"$(jq -r '.checks[] | select(.id == "use.user-mutex-waits") | .evidence[] | select(.kind == "note") | .title' "$T/findings.json")"

# the same without BPF: /proc/PID/task/TID/{stat,schedstat,syscall} (the fallback)
"$SONDE" run --window 4 --no-progress --no-drilldown --no-bpf --json --out "$T/out" \
	>"$T/nobpf.json" 2>"$T/sonde.err"
is "$?" 0 "sonde run --no-bpf exits 0"
f=$(jq -c '[.findings[] | select(.check == "use.user-mutex-waits")][0] // empty' "$T/nobpf.json")
diag "--no-bpf: $(jq -r .summary <<<"$f")"
is "$(jq -r '.culprits[0].comm' <<<"$f")" "$COMM" "--no-bpf: use.user-mutex-waits still names $COMM"
ok "... and the contended mutex" grep -q "(a contended mutex)" <<<"$(jq -r .summary <<<"$f")"
ok "... and says the states came from /proc, and why" \
	grep -q "thread states from /proc/PID/task (BPF disabled (--no-bpf))" \
	<<<"$(jq -r '.checks[] | select(.id == "use.user-mutex-waits") | .evidence[] | select(.kind == "note") | .title' "$T/nobpf.json")"

done_testing
