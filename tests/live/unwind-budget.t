#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: the CFI unwinding's budget (issue 27, item 1). A local user's busy
# program whose unwind tables are legal but very costly to evaluate: its
# function's CFA is computed by a loop of 1,000 rounds and fifteen of its
# register rules loop 680 times over DW_OP_call_frame_cfa, about 41 million
# DWARF steps a frame (libdw caps each expression at 4,096 steps, not the
# evaluations one nests), twenty such frames deep. Before the budget, a root
# sonde unwound it until its --timeout: exit 1, no bundle. Now the run ends
# in time with its bundle, those samples keep their frame-pointer stacks, and
# the profile, the check and the report count them by cause.
. tests/lib/tap.sh
. tests/lib/unwind.sh

unwind_needs jq tar xz cc setpriv

T=$(mktemp -d /tmp/sonde-live-unwind-budget.XXXXXX)
[ -n "$KEEP" ] && echo "# keeping $T"
tap_kill_at_exit
chmod 755 "$T"

# sonde_costly(n) calls itself n times, then spins; its rules (after its subq):
# CFA = rsp + 16 by a loop (DW_CFA_def_cfa_expression: breg7 16; constu 1000;
# L: lit1; minus; dup; bra L; drop), and each register but rsp its own value
# after a loop that evaluates the CFA (DW_CFA_val_expression: constu 680;
# L: call_frame_cfa; drop; lit1; minus; dup; bra L; drop; bregN 0).
cat >"$T/costly.s" <<'EOF'
	.text
	.globl	main
	.type	main, @function
main:
	.cfi_startproc
	subq	$8, %rsp
	.cfi_def_cfa_offset 16
1:	movl	$20, %edi
	call	sonde_costly
	jmp	1b
	.cfi_endproc
	.size	main, .-main

	.globl	sonde_costly
	.type	sonde_costly, @function
sonde_costly:
	.cfi_startproc
	subq	$8, %rsp
	.cfi_escape 0x0f, 12, 0x77, 0x10, 0x10, 0xe8, 0x07, 0x31, 0x1c, 0x12, 0x28, 0xfa, 0xff, 0x13
	.irp reg, 0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15
	.cfi_escape 0x16, \reg, 14, 0x10, 0xa8, 0x05, 0x9c, 0x13, 0x31, 0x1c, 0x12, 0x28, 0xf8, 0xff, 0x13, 0x70 + \reg, 0x00
	.endr
	testl	%edi, %edi
	jz	2f
	decl	%edi
	call	sonde_costly
	addq	$8, %rsp
	ret
2:	movl	$200000000, %ecx
3:	decl	%ecx
	jnz	3b
	addq	$8, %rsp
	ret
	.cfi_endproc
	.size	sonde_costly, .-sonde_costly
	.section	.note.GNU-stack,"",@progbits
EOF
cc -o "$T/costly" "$T/costly.s" || skip_all "cc could not assemble the test program"
chmod 755 "$T/costly"
command -v readelf >/dev/null && { readelf --debug-dump=frames "$T/costly" 2>/dev/null |
	grep -q 'DW_CFA_val_expression' || skip_all "the assembler dropped the .cfi_escape rules"; }

# a local user's program: nobody's, in its own process group
unwind_as_nobody "$T/costly"
COSTLY=$UNWIND_PID
sleep 0.5
kill -0 "$COSTLY" 2>/dev/null || skip_all "the test program did not start as nobody"

mkdir "$T/out" "$T/x"
start=$(date +%s)
"$SONDE" run --window 2 --check workload.cpu-why --no-drilldown --timeout 45 --out "$T/out" \
	--no-progress --json >"$T/findings.json" 2>"$T/stderr"
rc=$?
took=$(($(date +%s) - start))
is "$rc" 0 "sonde run exits 0 while a user's program has costly unwind rules"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
ok "the run ends in time: ${took} s, well before its 45 s --timeout" test "$took" -le 30
ok "its bundle is written" sh -c "ls $T/out/sonde-*.tar.xz >/dev/null 2>&1"
if ! ls "$T"/out/sonde-*.tar.xz >/dev/null 2>&1; then
	sed 's/^/#   stderr: /' "$T/stderr"
	done_testing
	exit
fi
tar -xJf "$T"/out/sonde-*.tar.xz -C "$T/x" raw report.md 2>/dev/null
P=$T/x/raw/bpf/profile.json
status=$(jq -r .status "$P" 2>/dev/null)
[ "$status" = ok ] || skip_all "the profile tool did not run here: $(jq -r .reason "$P" 2>/dev/null)"
[ "$(jq -r .data.cfi.status "$P")" = on ] || skip_all "CFI unwinding did not run: $(jq -r .data.cfi.status "$P")"

n=$(jq --argjson p "$COSTLY" '[.data.stacks[] | select(.tgid == $p) | .count] | add // 0' "$P")
diag "the costly program: $n samples; budget $(jq -c .data.cfi.budget "$P"); unwinding $(jq -c \
	'.data.cfi | {unwound, unwind_ms, unwind_cpu_ms}' "$P")"
ok "the costly program was sampled ($n)" test "$n" -ge 5
ok "its samples were over the sample's budget, and counted" jq -e --argjson n "$n" \
	'.data.cfi.budget.over >= 1 and .data.cfi.budget.over_by.sample >= 1
	and .data.cfi.stops.over_sample_budget >= 1' "$P"
ok "they kept their frame-pointer stacks (no CFI stack of it)" jq -e --argjson p "$COSTLY" \
	'[.data.stacks[] | select(.tgid == $p and .unwinder != "fp")] | length == 0' "$P"
ok "the causes name the program's file: unwind_over_budget" jq -e --arg f "$T/costly" \
	'[.data.unknown_causes[] | select(.cause == "unwind_over_budget" and .where == $f
	and (.remedy | test("budget")))] | length == 1' "$P"
ok "the steps spent stay within the run's budget" jq -e \
	'.data.cfi.budget.steps <= .data.cfi.budget.run_steps' "$P"
ok "workload.cpu-why notes the samples over the budget, by budget" jq -e \
	'[.checks[] | select(.id == "workload.cpu-why") | .evidence[] | select(.kind == "note")
	| select(.title | test("over its budget \\(per sample [1-9]"))] | length == 1' "$T/findings.json"
ok "report.md counts them by cause" grep -q 'unwind_over_budget' "$T/x/report.md"
done_testing
