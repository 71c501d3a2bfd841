#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: the profile and offcputime BPF tools, symbolized.
# We build two CPU hogs (one PIE, one not) whose hot function is
# sonde_test_spin, and a sleeper that loops in nanosleep, then run sonde
# with workload.cpu-why and workload.process-why for 4 s. On this shared host
# we assert only on our own processes: most of each hog's samples are in
# sonde_test_spin, and the sleeper's off-CPU time is in a stack through the
# nanosleep syscall, about as long as the window.
. tests/lib/tap.sh

for tool in jq tar xz cc; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF (running as uid $(id -u))"

T=$(mktemp -d /tmp/sonde-live-profile.XXXXXX)
[ -n "$KEEP" ] && echo "# keeping $T"
tap_kill_at_exit

cat >"$T/spin.c" <<'EOF'
volatile unsigned long sink;
__attribute__((noinline)) void sonde_test_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}
__attribute__((noinline)) void sonde_test_work(void)
{
	for (;;)
		sonde_test_spin(100000000UL);
}
int main(void) { sonde_test_work(); return 0; }
EOF
cat >"$T/sleeper.c" <<'EOF'
#include <time.h>
__attribute__((noinline)) void sonde_test_nap(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	nanosleep(&ts, 0);
}
int main(void) { for (;;) sonde_test_nap(); return 0; }
EOF
FP="-O1 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
cc $FP -fPIE -pie -o "$T/spin_pie" "$T/spin.c" &&
	cc $FP -fno-pie -no-pie -o "$T/spin_nopie" "$T/spin.c" &&
	cc $FP -o "$T/sleeper" "$T/sleeper.c" || skip_all "cc could not build the test programs"

"$T/spin_pie" & PIE=$!; PIDS+=($PIE)
"$T/spin_nopie" & NOPIE=$!; PIDS+=($NOPIE)
"$T/sleeper" & SLEEPER=$!; PIDS+=($SLEEPER)
sleep 0.5

# jq_true FILTER FILE... [jq options]: jq -e, quiet
jq_true() {
	jq -e "$@" >/dev/null 2>&1
}

mkdir "$T/out" "$T/x"
"$SONDE" run --window 4 --check workload.cpu-why --check workload.process-why \
	--out "$T/out" --no-progress --json >"$T/findings.json" 2>"$T/stderr" &
SONDE_PID=$!
wait $SONDE_PID
rc=$?
is "$rc" 0 "sonde run with the profile exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
tar -xJf "$T"/out/sonde-*.tar.xz -C "$T/x" raw 2>/dev/null
P=$T/x/raw/bpf/profile.json
O=$T/x/raw/bpf/offcputime.json

status=$(jq -r .status "$P" 2>/dev/null)
if [ "$status" != "ok" ]; then
	skip_all "the profile tool did not run here: $(jq -r .reason "$P" 2>/dev/null)"
fi

# samples of one process, and those of them in sonde_test_spin (the leaf)
samples() { jq --argjson p "$1" '[.data.stacks[] | select(.tgid == $p) | .count] | add // 0' "$P"; }
in_spin() {
	jq --argjson p "$1" '[.data.stacks[] | select(.tgid == $p and (.folded | test(";sonde_test_spin$"))) | .count] | add // 0' "$P"
}
for which in PIE NOPIE; do
	pid=${!which}
	n=$(samples "$pid")
	s=$(in_spin "$pid")
	diag "$which hog (pid $pid): $s of $n samples in sonde_test_spin"
	ok "$which hog sampled (at least 20 samples in 4 s at 49 Hz)" test "$n" -ge 20
	ok "$which hog: at least 90% of its samples are in sonde_test_spin" \
		test $((s * 100)) -ge $((n * 90))
	# (the caller just below a leaf that sets up no frame is skipped by any
	# frame-pointer walk: main, not always sonde_test_work, is the one asserted)
	whole=$(jq --argjson p "$pid" '[.data.stacks[] | select(.tgid == $p and (.folded
		| test(";main;(.*;)?sonde_test_spin$"))) | .count] | add // 0' "$P")
	ok "$which hog: 90% of its stacks reach main (the frame-pointer walk works)" \
		test $((whole * 100)) -ge $((n * 90))
done
ok "frequency and totals recorded" jq_true '.data.frequency_hz == 49 and .data.samples >= .data.total
	and .data.cpus >= 1 and (.data.lost_samples | type == "number")
	and (.data.broken.fix | test("frame pointer"))' "$P"
ok "sonde itself is left out of profile" jq_true --argjson p "$SONDE_PID" \
	'[.data.stacks[] | select(.tgid == $p)] | length == 0' "$P"
ok "raw/profile.folded has the hogs' stacks in the folded format" \
	grep -Eq '^spin_pie;.*sonde_test_spin [0-9]+$' "$T/x/raw/profile.folded"
ok "workload.cpu-why names sonde_test_spin among the top functions" jq_true '.checks[]
	| select(.id == "workload.cpu-why") | .evidence[0].rows | map(.[0]) | index("sonde_test_spin")' \
	"$T/findings.json"

# the flame graph: in findings.json, and drawn in report.html with the hog's function
ok "workload.cpu-why carries an on-CPU flame graph with sonde_test_spin" jq_true '.checks[]
	| select(.id == "workload.cpu-why") | .evidence[] | select(.kind == "flamegraph")
	| .folded | map(select(test("sonde_test_spin"))) | length > 0' "$T/findings.json"
tar -xJOf "$T"/out/sonde-*.tar.xz report.html >"$T/report.html" 2>/dev/null
ok "report.html draws the flame graph (an <svg>) naming sonde_test_spin" \
	sh -c "grep -q '<svg' '$T/report.html' && grep -q 'sonde_test_spin' '$T/report.html'"
ok "report.html draws the off-CPU flame graph too" grep -q 'Off-CPU flame graph' "$T/report.html"

# offcputime: the sleeper blocks ~100% of the time, in nanosleep
if [ "$(jq -r .status "$O")" = ok ]; then
	win=$(jq '.traced_to_s - .traced_from_s' "$O")
	us=$(jq --argjson p "$SLEEPER" '[.data.stacks[] | select(.tgid == $p and (.folded
		| test(";main;.*nanosleep_\\[k\\]"))) | .us] | add // 0' "$O")
	diag "sleeper (pid $SLEEPER): $us us off CPU through nanosleep, tool saw $win s"
	ok "sleeper: off-CPU time in a stack through the nanosleep syscall, >= 70% of the window" \
		awk -v u="$us" -v w="$win" 'BEGIN { exit !(u >= 0.7 * w * 1e6) }'
	ok "sonde itself is left out of offcputime" jq_true --argjson p "$SONDE_PID" \
		'[.data.stacks[] | select(.tgid == $p)] | length == 0' "$O"
else
	skip "offcputime" "$(jq -r .reason "$O")"
fi

# a frequency sonde does not allow is refused with its reason, and the run goes on
SONDE_PROFILE_HZ=5000 "$SONDE" run --window 1 --check workload.cpu-why --out "$T/out" \
	--no-progress --json >"$T/f2.json" 2>/dev/null
ok "SONDE_PROFILE_HZ=5000: cpu-why is unknown with the reason" jq_true '.checks[]
	| select(.id == "workload.cpu-why") | .unknowns[] | .reason | test("SONDE_PROFILE_HZ=5000")' \
	"$T/f2.json"
done_testing
