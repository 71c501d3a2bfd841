#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: waiting is not always a problem (issue 26). On a host full of
# threads that wait for work: 20 daemons asleep (nanosleep) or in event loops
# (epoll, poll, select), an idle server in accept on loopback, a thread pool
# of 8 parked on its condition variable, a pipeline whose reader has nothing
# to read, and a batch job doing ordinary buffered I/O (writing 8 MiB files
# and reading them back from the page cache). None of the thread-state
# checks may warn: these waits are idle, shown by workload.process-how as
# idle, never judged.
. tests/lib/tap.sh

for tool in jq cc python3 dd; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for the task iterator (BPF)"

T=$(mktemp -d /var/tmp/sonde-scn-idle.XXXXXX)
cleanup() {
	# every load runs in its own process group (setsid): the group goes at once
	for g in $(cat "$T/pgids" 2>/dev/null); do kill -TERM -- "-$g" 2>/dev/null; done
	sleep 0.2
	for g in $(cat "$T/pgids" 2>/dev/null); do kill -KILL -- "-$g" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start CMD... in its own process group, remembered for the cleanup
start() {
	setsid "$@" </dev/null >/dev/null 2>&1 &
	echo $! >>"$T/pgids"
}

cat >"$T/pool.c" <<'C'
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int work;
static void *worker(void *arg)
{
	pthread_mutex_lock(&mu);
	while (!work)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return arg;
}
int main(void)
{
	pthread_t t;
	for (int i = 0; i < 8; i++)
		pthread_create(&t, NULL, worker, NULL);
	pause();
	return 0;
}
C
cc -O2 -pthread -o "$T/scn-pool" "$T/pool.c" 2>"$T/cc.err" ||
	skip_all "cannot build the pool: $(head -c 200 "$T/cc.err")"
cat >"$T/daemon.py" <<'PY'
import ctypes, select, socket, sys, time
ctypes.CDLL(None).prctl(15, b"scn-daemon", 0, 0, 0)
kind = sys.argv[1]
if kind == "accept":
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
    while True: s.accept()
a, b = socket.socketpair()
if kind == "epoll":
    e = select.epoll(); e.register(a, select.EPOLLIN)
    while True: e.poll(2.0)
if kind == "poll":
    p = select.poll(); p.register(a, select.POLLIN)
    while True: p.poll(2000)
if kind == "select":
    while True: select.select([a], [], [], 2.0)
while True: time.sleep(2)
PY
for kind in sleep sleep sleep sleep sleep epoll epoll epoll epoll epoll poll poll poll poll poll \
	select select select select select accept; do
	start python3 "$T/daemon.py" "$kind"
done
start "$T/scn-pool"
start sh -c 'sleep 1000 | cat'
start sh -c 'while :; do dd if=/dev/zero of="$0/batch" bs=1M count=8 status=none; cat "$0/batch" >/dev/null; sleep 0.5; done' "$T"
sleep 1.5
diag "$(wc -l <"$T/pgids") idle loads: daemons, an accept, a parked pool, a pipeline, a buffered batch job"

mkdir -p "$T/out"
"$SONDE" run --window 4 --no-progress --no-drilldown --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 4 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
jq -r '.checks[] | select(.id | test("-waits$|process-how")) | "\(.id) \(.status): \(.summary)"' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'

for c in user-mutex-waits kernel-mutex-waits disk-waits filesystem-waits network-waits memory-waits; do
	st=$(jq -r --arg c "use.$c" '.checks[] | select(.id == $c) | .status' "$T/findings.json")
	ok "use.$c raises nothing on idle waits (status $st)" test "$st" = ok
done
is "$(jq -r '.checks[] | select(.id == "workload.process-how") | .status' "$T/findings.json")" ok \
	"workload.process-how judges nothing"
ok "no finding names an idle load" \
	jq -e '[.findings[].culprits[]?.comm] | all(. != "scn-daemon" and . != "scn-pool" and . != "cat" and . != "sleep")' \
	"$T/findings.json"
idle=$(jq -c '.checks[] | select(.id == "workload.process-how") | .evidence[] | select(.kind == "table" and (.title | startswith("Idle waits"))) | [.rows[][0]]' "$T/findings.json")
diag "idle waits: $idle"
for w in epoll poll select sleep "accept on an empty queue" "futex (a condition variable"; do
	ok "the idle table shows $w" grep -qF "$w" <<<"$idle"
done

done_testing
