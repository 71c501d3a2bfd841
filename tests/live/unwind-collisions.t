#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: user stacks the kernel's stack map lost (issue 27, item 18). The
# profile's stack map keeps one stack per hash bucket: a stack whose bucket
# holds another is not stored (-EEXIST), and its sample was left as
# "[lost stack]" while the unwinder's copy of that very sample was thrown
# away (and the sample was not counted as broken either). Two programs here
# walk a random path through sixteen functions eight calls deep on every
# round, so nearly every sample is a new stack; at 499 Hz on every CPU the map
# fills and collides within seconds. Each lost user stack must come back from
# its copy's CFI unwinding, and what is still lost is counted.
. tests/lib/tap.sh
. tests/lib/unwind.sh

unwind_needs jq tar xz cc

T=$(mktemp -d /tmp/sonde-live-unwind-collisions.XXXXXX)
[ -n "$KEEP" ] && echo "# keeping $T"
tap_kill_at_exit

cat >"$T/paths.c" <<'EOF'
#include <unistd.h>
volatile unsigned long sink;
static void step(unsigned d, unsigned s);
#define F(i) __attribute__((noinline)) void sonde_path##i(unsigned d, unsigned s) \
	{ if (d) step(d - 1, s); else for (int k = 0; k < 3000; k++) sink += k; sink++; }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)
static void (*const fns[16])(unsigned, unsigned) = { sonde_path0, sonde_path1, sonde_path2,
	sonde_path3, sonde_path4, sonde_path5, sonde_path6, sonde_path7, sonde_path8, sonde_path9,
	sonde_path10, sonde_path11, sonde_path12, sonde_path13, sonde_path14, sonde_path15 };
__attribute__((noinline)) static void step(unsigned d, unsigned s)
{
	s = s * 1103515245u + 12345u;
	fns[(s >> 16) & 15](d, s);
	sink++;
}
int main(void)
{
	unsigned s = (unsigned)getpid();
	for (;;) {
		s = s * 69069u + 1u;
		step(8, s);
	}
}
EOF
cc -O2 -fno-omit-frame-pointer -o "$T/paths" "$T/paths.c" || skip_all "cc could not build the test program"
PIDS_=()
for i in 1 2; do
	setsid "$T/paths" &
	PIDS_+=("$!")
	PGROUPS+=("$!")
done
sleep 0.3

mkdir "$T/out" "$T/x"
# 499 Hz: many samples, so many stacks; --max-overhead 0: the guard must not detach the profile
SONDE_PROFILE_HZ=499 "$SONDE" run --window 4 --check workload.cpu-why --no-drilldown --max-overhead 0 \
	--out "$T/out" --no-progress --json >"$T/findings.json" 2>"$T/stderr"
rc=$?
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
tar -xJf "$T"/out/sonde-*.tar.xz -C "$T/x" raw 2>/dev/null
P=$T/x/raw/bpf/profile.json
status=$(jq -r .status "$P" 2>/dev/null)
[ "$status" = ok ] || skip_all "the profile tool did not run here: $(jq -r .reason "$P" 2>/dev/null)"
[ "$(jq -r .data.cfi.status "$P")" = on ] || skip_all "CFI unwinding did not run: $(jq -r .data.cfi.status "$P")"
lost=$(jq '.data.lost.user_stack' "$P")
diag "lost: $(jq -c .data.lost "$P"); still lost: $(jq -c '.data.lost_user_stacks | del(.what)' "$P");" \
	"cfi: $(jq -c '.data.cfi | {copies_kept, unwound, used, lost_recovered, not_better}' "$P")"
if [ "$lost" -eq 0 ]; then
	skip "recovery" "no user stack collided in the stack map in this window"
	done_testing
	exit
fi
ok "lost user stacks came back from their copies' unwinding ($lost lost)" jq -e \
	'.data.lost.user_stack_recovered >= 1 and .data.cfi.lost_recovered == .data.lost.user_stack_recovered' "$P"
ok "what is still lost is counted (lost_user_stacks)" jq -e \
	'(.data.lost_user_stacks.count | type == "number") and .data.lost_user_stacks.recovered
	 == .data.lost.user_stack_recovered' "$P"
ok "recovered and still lost add up to the kernel's count of lost user stacks" jq -e \
	'.data.lost.counts_full > 0 or
	 .data.lost.user_stack_recovered + .data.lost_user_stacks.count == .data.lost.user_stack' "$P"
ok "lost_samples leaves the recovered ones out" jq -e \
	'.data.lost_samples == .data.lost.kernel_stack + .data.lost.user_stack
	 - .data.lost.user_stack_recovered + .data.lost.counts_full' "$P"
# each program's lost stacks would fold into one "paths;[lost stack]" row: none is left
for pid in "${PIDS_[@]}"; do
	ok "paths (pid $pid): no sample left as [lost stack]" jq -e --argjson p "$pid" \
		'[.data.stacks[] | select(.tgid == $p and (.folded | startswith("paths;[lost stack]")))]
		| length == 0' "$P"
done
ok "workload.cpu-why's note says how many came back" jq -e --argjson n "$(jq .data.lost.user_stack_recovered "$P")" \
	'[.checks[] | select(.id == "workload.cpu-why") | .evidence[] | select(.kind == "note")
	| select(.title | test("\($n) recovered from their stack copies|^\($n) user stacks? lost in the stack map"))]
	| length == 1' "$T/findings.json"
ok "the still-lost ones are a cause in the report's table" jq -e \
	'.data.lost_user_stacks.count == 0 or
	 ([.data.unknown_causes[] | select(.cause == "user_stack_lost")] | length > 0)' "$P"
done_testing
