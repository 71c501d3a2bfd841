#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: whole user stacks without frame pointers (issue 14). The profile copies
# the user stack of each sample and unwinds it with libdw after the window.
# Two loads: a C program built here with -O2 -fomit-frame-pointer whose hot
# loop is four calls deep (sonde_one > sonde_two > sonde_three > sonde_leaf),
# and a Debian-packaged program under load (xz -9 on /dev/zero: a stripped
# binary and a stripped library, no frame pointers). For each, at least 90%
# of its samples must unwind to a thread-start frame (_start,
# __libc_start_call_main, start_thread, clone3), the C program's chain must
# be in the folded stacks, raw/profile.folded and the flame graph, and the
# report must name the causes of what is still unknown with their remedies
# (xz's -dbgsym package). Then the same with SONDE_PROFILE_CFI=0: frame
# pointers only, the chain broken, said so with the reason.
. tests/lib/tap.sh
. tests/lib/unwind.sh

unwind_needs jq tar xz cc

T=$(mktemp -d /tmp/sonde-live-unwind.XXXXXX)
[ -n "$KEEP" ] && echo "# keeping $T"
tap_kill_at_exit

unwind_chain_c "$T/chain.c"
cc -O2 -fomit-frame-pointer -o "$T/chain" "$T/chain.c" || skip_all "cc could not build the test program"
# the same without unwind tables for its own functions: no frame pointers, no .eh_frame entries
cc -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables -o "$T/nocfi" "$T/chain.c" ||
	skip_all "cc could not build the test program without unwind tables"
# the binary really has no frame pointer setup in the chain's functions
if objdump -d "$T/chain" 2>/dev/null | grep -A3 '<sonde_two>:' | grep -q 'push *%rbp'; then
	skip_all "cc -fomit-frame-pointer still set up frame pointers"
fi

"$T/chain" & CHAIN=$!; PIDS+=($CHAIN)
xz -9 -c </dev/zero >/dev/null & XZ=$!; PIDS+=($XZ)
"$T/nocfi" & NOCFI=$!; PIDS+=($NOCFI)
sleep 0.5

# jq_true FILTER FILE... [jq options]: jq -e, quiet
jq_true() {
	jq -e "$@" >/dev/null 2>&1
}

mkdir "$T/out" "$T/x"
"$SONDE" run --window 4 --check workload.cpu-why --out "$T/out" --no-progress --json \
	>"$T/findings.json" 2>"$T/stderr"
rc=$?
is "$rc" 0 "sonde run with the profile exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
tar -xJf "$T"/out/sonde-*.tar.xz -C "$T/x" raw report.html 2>/dev/null
P=$T/x/raw/bpf/profile.json
status=$(jq -r .status "$P" 2>/dev/null)
[ "$status" = ok ] || skip_all "the profile tool did not run here: $(jq -r .reason "$P" 2>/dev/null)"
cfi=$(jq -r '.data.cfi.status' "$P")
[ "$cfi" = on ] || skip_all "CFI unwinding did not run here: $cfi"

# samples of a process; those whose user stack reaches a thread start
samples() { jq --argjson p "$1" '[.data.stacks[] | select(.tgid == $p) | .count] | add // 0' "$P"; }
whole() {
	jq --argjson p "$1" '[.data.stacks[] | select(.tgid == $p and .stop == "thread_start"
		and (.folded | test(";(_start|__libc_start_call_main|start_thread|clone3|__clone3);")))
		| .count] | add // 0' "$P"
}
for which in CHAIN XZ; do
	pid=${!which}
	n=$(samples "$pid")
	w=$(whole "$pid")
	c=$(jq --argjson p "$pid" '[.data.stacks[] | select(.tgid == $p and .unwinder == "cfi") | .count] | add // 0' "$P")
	diag "$which (pid $pid): $w of $n samples whole, $c unwound by CFI"
	ok "$which sampled (at least 20 samples in 4 s at 49 Hz)" test "$n" -ge 20
	ok "$which: at least 90% of its samples unwound to a thread-start frame" \
		test $((w * 100)) -ge $((n * 90))
	ok "$which: its stacks came from CFI (no frame pointers to walk)" test $((c * 100)) -ge $((n * 90))
done
chain_re=';main;sonde_one;sonde_two;sonde_three;sonde_leaf($|;| )'
in_chain=$(jq --argjson p "$CHAIN" --arg re "$chain_re" \
	'[.data.stacks[] | select(.tgid == $p and (.folded | test($re))) | .count] | add // 0' "$P")
n=$(samples "$CHAIN")
ok "the four-deep chain main > sonde_one > sonde_two > sonde_three > sonde_leaf in >= 90% of its samples" \
	test $((in_chain * 100)) -ge $((n * 90))
ok "raw/profile.folded has the chain" grep -Eq "^chain;_start;.*;main;sonde_one;sonde_two;sonde_three;sonde_leaf [0-9]+$" \
	"$T/x/raw/profile.folded"
ok "the flame graph in findings.json has the chain" jq_true --arg re "$chain_re" '.checks[]
	| select(.id == "workload.cpu-why") | .evidence[] | select(.kind == "flamegraph")
	| .folded | map(select(test($re))) | length > 0' "$T/findings.json"
ok "report.html draws sonde_three in the flame graph" \
	sh -c "grep -q '<svg' '$T/x/report.html' && grep -q 'sonde_three' '$T/x/report.html'"
ok "every stack says its unwinder and why it stopped" jq_true '.data.stacks | all(
	(.unwinder == "fp" or .unwinder == "cfi") and (.stop | type == "string" and length > 0))' "$P"
ok "the CFI figures: copies, at most 8 KB each, none kept in the bundle" jq_true '.data.cfi
	| .copies > 0 and .bytes_per_copy <= 8192 and .stack_bytes_max == 8192 and .unwound > 0
	and .raw_copies_kept == false' "$P"
ok "the bundle holds no raw stack copy" sh -c "! tar -tJf $T/out/sonde-*.tar.xz | grep -qi 'ustack\|stack.*copy'"
diag "unwinding: $(jq -c '.data.cfi | {unwound, unwind_cpu_ms, bytes_per_copy, stops}' "$P")"

# no unwind table and no frame pointers: the samples are kept with what the FP walk found,
# and the cause says the file has no unwind table, with its remedy
n=$(samples "$NOCFI")
ok "a binary without unwind tables: its samples are kept ($n)" test "$n" -ge 10
ok "a binary without unwind tables: the cause names it, no_unwind_table, -fasynchronous-unwind-tables" \
	jq_true --arg c "$T/nocfi" '[.data.unknown_causes[] | select(.cause == "no_unwind_table" and .where == $c
	and (.remedy | test("-fasynchronous-unwind-tables")))] | length > 0' "$P"

# xz is stripped and from a Debian package: the cause names its -dbgsym
if command -v dpkg >/dev/null && dpkg -S "$(readlink -f "$(command -v xz)")" >/dev/null 2>&1; then
	pkg=$(dpkg -S "$(readlink -f "$(command -v xz)")" | cut -d: -f1)
	ok "the unknown frames of xz name the package to install ($pkg-dbgsym)" jq_true --arg d "$pkg-dbgsym" \
		'[.data.unknown_causes[] | select(.cause == "stripped" and (.remedy | contains($d)))] | length > 0' \
		"$P"
else
	skip "dbgsym name" "xz is not from a Debian package here"
fi
ok "workload.cpu-why lists the causes with their remedies" jq_true '.checks[] | select(.id == "workload.cpu-why")
	| .evidence[] | select(.title | test("by cause")) | .rows | length > 0' "$T/findings.json"

# frame pointers only: the chain is broken, and the report says why with the remedy
rm -f "$T"/out/*
SONDE_PROFILE_CFI=0 "$SONDE" run --window 2 --check workload.cpu-why --out "$T/out" --no-progress \
	--json >"$T/f0.json" 2>/dev/null
rm -rf "$T/x0" && mkdir "$T/x0" && tar -xJf "$T"/out/sonde-*.tar.xz -C "$T/x0" raw 2>/dev/null
P0=$T/x0/raw/bpf/profile.json
ok "SONDE_PROFILE_CFI=0: the status says CFI is off" jq_true '.data.cfi.status | test("SONDE_PROFILE_CFI=0")' "$P0"
ok "SONDE_PROFILE_CFI=0: frame-pointer stacks only" jq_true '[.data.stacks[] | select(.unwinder != "fp")] | length == 0' "$P0"
ok "SONDE_PROFILE_CFI=0: the chain's binary is a no_frame_pointers cause, remedy with the reason" \
	jq_true --arg c "$T/chain" '[.data.unknown_causes[] | select(.cause == "no_frame_pointers" and .where == $c
	and (.remedy | test("-fno-omit-frame-pointer")) and (.remedy | test("SONDE_PROFILE_CFI=0")))] | length > 0' "$P0"
done_testing
