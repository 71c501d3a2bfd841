#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A read that never returns cannot hang sonde. An LD_PRELOAD shim built here
# makes open("/proc/loadavg") block forever from its fourth call on (what a
# read of a process stuck on its memory, or a hung mount, looks like to
# sonde): the window gives the round up after 5 s, ends there, and the checks,
# the report and the bundle are made from what was captured, naming the read
# that hung. A round that is slow but moving (each read ends, just late: a
# host with 10,000 processes and no idle CPU) is not hung: it is waited for.
# And --timeout ends a long window at its deadline.
. tests/lib/tap.sh

jq_true() { jq -e "$@" >/dev/null 2>&1; }

for tool in jq cc tar; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

T=$(mktemp -d /tmp/sonde-safety-hung.XXXXXX)
trap 'rm -rf "$T"' EXIT

cat >"$T/shim.c" <<'SHIM'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int hits, slowed;
static void maybe_hang(const char *path)
{
	const char *h = getenv("HANG_PATH"), *a = getenv("HANG_AFTER");
	const char *sl = getenv("SLOW_FIRST"), *end;

	/* SLOW_FIRST=N: the first N opens of a /proc/PID/stat take 100 ms each */
	if (sl && path && !strncmp(path, "/proc/", 6) && (end = strchr(path + 6, '/')) &&
	    !strcmp(end, "/stat") && __atomic_add_fetch(&slowed, 1, __ATOMIC_SEQ_CST) <= atoi(sl))
		usleep(100000);
	if (h && path && !strcmp(path, h) &&
	    __atomic_add_fetch(&hits, 1, __ATOMIC_SEQ_CST) > (a ? atoi(a) : 0))
		for (;;)
			pause();
}
#define WRAP(name)                                                  \
	int name(const char *path, int flags, ...)                  \
	{                                                           \
		static int (*real)(const char *, int, ...);         \
		va_list ap;                                         \
		mode_t mode;                                        \
		va_start(ap, flags);                                \
		mode = va_arg(ap, mode_t);                          \
		va_end(ap);                                         \
		if (!real)                                          \
			real = dlsym(RTLD_NEXT, #name);             \
		maybe_hang(path);                                   \
		return real(path, flags, mode);                     \
	}
WRAP(open)
WRAP(open64)
SHIM
cc -shared -fPIC -O1 -o "$T/shim.so" "$T/shim.c" -ldl 2>"$T/cc.err" || skip_all "cannot build the shim: $(head -1 "$T/cc.err")"

mkdir "$T/out"
start=$(date +%s.%N)
LD_PRELOAD="$T/shim.so" HANG_PATH=/proc/loadavg HANG_AFTER=3 timeout 60 \
	"$SONDE" run --window 4 --interval 0.5 --out "$T/out" --no-progress --json >"$T/f.json" 2>"$T/err"
rc=$?
took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
diag "took $took s; stderr: $(head -1 "$T/err")"
is "$rc" 0 "the run completes (exit 0) despite the hung read"
ok "within the 5 s stall limit and the window (< 15 s, took $took s)" awk -v t="$took" 'BEGIN { exit !(t < 15) }'
reason=$(jq -r '.window.stop_reason' "$T/f.json")
case "$reason" in
*"timed out"*"/proc/loadavg"*) ok "the window's stop reason names the read that hung" true ;;
*) ok "the window's stop reason names the read that hung (got '$reason')" false ;;
esac
is "$(jq -r .window.partial "$T/f.json")" true "the window is marked partial"
ok "the terminal says what hung" grep -q "no answer in 5.0 s reading /proc/loadavg" "$T/err"
ok "the checks ran on what was captured (CPU utilization measured)" \
	sh -c "jq -e '.checks[] | select(.id == \"use.cpu-utilization\") | .metrics[] | select(.name == \"busy_pct\")' '$T/f.json' >/dev/null"
B=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
ok "a complete bundle was written" test -s "$B"
ok "the bundle verifies" "$SONDE" verify "$B"
ok "the report says what timed out" sh -c "tar -xJOf '$B' report.md | grep -q 'timed out'"

# Slow, not hung: the first 70 reads of a process's stat take 100 ms each, so
# the first round takes 7 s or more (over the 5 s stall limit) while a read
# ends every 100 ms. The /proc walk (--no-bpf) reads every process's stat.
rm -f "$T"/out/*
start=$(date +%s.%N)
LD_PRELOAD="$T/shim.so" SLOW_FIRST=70 timeout 90 "$SONDE" run --window 10 --no-bpf --no-drilldown \
	--check use.cpu-utilization --check workload.process-who --out "$T/out" --no-progress \
	--json >"$T/s.json" 2>"$T/s.err"
rc=$?
took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
diag "slow round: took $took s; stop reason: $(jq -r .window.stop_reason "$T/s.json" 2>/dev/null)"
is "$rc" 0 "a slow first round: the run completes"
is "$(jq -r .window.stop_reason "$T/s.json" 2>/dev/null)" complete "... the round was waited for, not given up"
ok "... the window has its samples" jq_true '.window.samples >= 3' "$T/s.json"
ok "... and the processes were seen" sh -c "jq -e '.checks[] | select(.id == \"workload.process-who\")
	| .status != \"error\"' '$T/s.json' >/dev/null"

# --timeout: a 60 s window ends at a 3 s deadline, and the run still reports.
rm -f "$T"/out/*
start=$(date +%s.%N)
"$SONDE" run --window 60 --timeout 3 --check use.cpu-utilization --out "$T/out" --no-progress --json >"$T/d.json" 2>/dev/null
rc=$?
took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
is "$rc" 0 "--timeout 3 with a 60 s window: the run completes"
ok "and ends near the deadline (took $took s)" awk -v t="$took" 'BEGIN { exit !(t < 10) }'
case "$(jq -r .window.stop_reason "$T/d.json")" in
*"--timeout deadline"*) ok "the stop reason names the deadline" true ;;
*) ok "the stop reason names the deadline" false ;;
esac

"$SONDE" run --window 5 --timeout 0 >/dev/null 2>"$T/u.err"
is "$?" 2 "--timeout 0 is a usage error"
diag "$(cat "$T/u.err")"

done_testing
