#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: the two sources of proc.pids agree (issue 18, item 15). A process with
# 31 threads holding 45 open files under RLIMIT_NOFILE 50, and a CPU hog, then
# two runs over the same checks: one where the BPF task iterator gives the
# processes (the default), one with --no-bpf (the /proc walk). Each run
# records its source; both name our process with the same threads, open fds
# and limit, and the hog among the top CPU users. The captures differ in kind
# (sonde:task/PID against /proc/PID/*), the findings do not.
. tests/lib/tap.sh

jq_true() { jq -e "$@" >/dev/null 2>&1; }
for tool in jq tar xz cc; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF (running as uid $(id -u))"

T=$(mktemp -d /tmp/sonde-live-tasks.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$T/holder.c" <<'EOF'
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
static void *nap(void *a) { (void)a; pause(); return 0; }
int main(void)
{
	struct rlimit rl = { 50, 50 };
	pthread_t t;
	for (int i = 0; i < 45; i++)
		if (open("/dev/null", O_RDONLY) < 0)
			return 1;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 1;
	for (int i = 0; i < 30; i++)
		pthread_create(&t, 0, nap, 0);
	puts("ready");
	fflush(stdout);
	pause();
	return 0;
}
EOF
cc -O1 -pthread -o "$T/sondeholder" "$T/holder.c" || skip_all "cc could not build the test program"
"$T/sondeholder" >"$T/holder.out" &
HOLDER=$!
PIDS+=($HOLDER)
sh -c 'while :; do :; done' &
HOG=$!
PIDS+=($HOG)
for _ in $(seq 50); do grep -q ready "$T/holder.out" 2>/dev/null && break; sleep 0.1; done
FDS=$(ls /proc/$HOLDER/fd | wc -l)
diag "holder $HOLDER: $FDS open fds, $(awk '/Threads/ {print $2}' /proc/$HOLDER/status) threads; hog $HOG"

CHECKS=(--check use.fd-utilization --check use.task-utilization --check workload.process-who)
for src in iter proc; do
	extra=()
	[ "$src" = proc ] && extra=(--no-bpf)
	mkdir -p "$T/$src"
	"$SONDE" run --window 3 --interval 1 --out "$T/$src" --no-progress --json --no-drilldown \
		"${CHECKS[@]}" "${extra[@]}" >"$T/$src.json" 2>"$T/$src.err"
	rc=$?
	is "$rc" 0 "$src: sonde run exits 0"
	[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/$src.err"
	tar -xJOf "$T/$src"/sonde-*.tar.xz raw/sonde.cap >"$T/$src.facts" 2>/dev/null
	tar -xJOf "$T/$src"/sonde-*.tar.xz raw/proc.pids.cap >"$T/$src.pids" 2>/dev/null
done

source_of() { sed -n 's/^tasks_source: //p' "$T/$1.facts" | head -1; }
iter=$(source_of iter)
if [ "$iter" != bpf_iter_task ]; then
	why=$(sed -n 's/^tasks_source_why: //p' "$T/iter.facts" | head -1)
	skip "the task iterator's findings" "it did not serve here: ${why:-no reason recorded}"
else
	ok "the default run took its processes from the task iterator" true
	ok "... and wrote sonde:task records" grep -aq "sonde:task/$HOLDER\$" "$T/iter.pids"
fi
is "$(source_of proc)" proc "--no-bpf: the /proc walk"
ok "--no-bpf: the run facts say why" grep -aq '^tasks_source_why: BPF disabled (--no-bpf)' "$T/proc.facts"
ok "--no-bpf: /proc/PID records, no task records" \
	sh -c "grep -aq '/proc/$HOLDER/stat\$' '$T/proc.pids' && ! grep -aq 'sonde:task/' '$T/proc.pids'"

for src in iter proc; do
	[ "$src" = iter ] && [ "$iter" != bpf_iter_task ] && continue
	F=$T/$src.json
	# the rounds' CPU time, what make bench divides per process: within the run's own
	rounds=$(sed -n 's/^rounds_cpu_ns: //p' "$T/$src.facts")
	diag "$src: the sampling rounds took ${rounds:-?} ns of CPU"
	ok "$src: the run facts hold the rounds' CPU time, more than 0, less than the run's" \
		jq_true --argjson r "${rounds:-0}" '$r > 0 and $r / 1e9 < .cost.cpu_seconds' "$F"
	ok "$src: fd-utilization's top process is ours, $FDS fds of 50" jq_true --argjson p "$HOLDER" \
		--argjson n "$FDS" '.checks[] | select(.id == "use.fd-utilization") | .evidence[]
		| select(.title? | test("nearest")) | .rows[0] | .[0] == ($p | tostring) and .[2] == ($n | tostring) and .[3] == "50"' "$F"
	ok "$src: task-utilization's top process is ours, 31 threads" jq_true --argjson p "$HOLDER" \
		'.checks[] | select(.id == "use.task-utilization") | .evidence[]
		| select(.title? | test("most threads")) | .rows[0] | .[0] == ($p | tostring) and .[2] == "31"' "$F"
	ok "$src: the hog is among the top CPU users" jq_true --argjson p "$HOG" \
		'.checks[] | select(.id == "workload.process-who") | .evidence[]
		| select(.title? | test("By CPU")) | [.rows[:3][] | .[0]] | index($p | tostring) != null' "$F"
done
done_testing
