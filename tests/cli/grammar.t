#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Singular and plural right in everything sonde prints: every golden case
# (tests/checks/*/*, the deterministic captures of the scenario suite) is
# rendered through sonde analyze (the terminal summary), report.md, sonde
# show, and sonde diff against the case before it (text and Markdown), plus
# sonde list; no "1 checks"-like phrase may appear: a 1 followed by a plural
# noun (a word ending in s that is not a unit, a rate or a singular noun).
# The report.md files rendered are also held to the plain-text target.
. tests/lib/tap.sh

for tool in jq tar xz perl; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

T=$(mktemp -d /tmp/sonde-grammar.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"

n=0 prev=
for d in tests/checks/*/*/; do
	[ -d "$d/raw" ] || continue
	n=$((n + 1))
	o=$T/$n
	mkdir -p "$o"
	mapfile -t args < <(jq -r '.args // [] | .[]' "$d/expected.json" 2>/dev/null)
	"$SONDE" analyze "$d" "${args[@]}" --out "$o" >"$o/analyze.txt" 2>&1
	b=$(ls "$o"/sonde-*.tar.xz 2>/dev/null | head -1)
	[ -n "$b" ] || continue
	tar -xJf "$b" -C "$o" report.md 2>/dev/null
	"$SONDE" show "$b" >"$o/show.txt" 2>&1
	if [ -n "$prev" ]; then
		"$SONDE" diff "$prev" "$b" >"$o/diff.txt" 2>&1
		"$SONDE" diff "$prev" "$b" --md >"$o/diff.md" 2>&1
	fi
	prev=$b
done
"$SONDE" list --no-bpf --no-perf >"$T/list.txt" 2>&1
ok "every case rendered ($n cases)" test "$n" -gt 10

# "1 CPUs", "1 checks", "(1 cgroups": not after a digit, a decimal point or a
# letter ("10.1 s", "cpu1 is"), not a unit ("1 s", "1 ms"), a rate
# ("1 packets/s") or a singular noun ending in s ("1 process").
bad=$(find "$T" -type f \( -name '*.txt' -o -name '*.md' \) -print0 |
	xargs -0 perl -ne '
		while (/(?:^|[^0-9.,A-Za-z_])1 ([A-Za-z]+s)\b(?!\/)/g) {
			next if $1 =~ /^(s|ms|us|ns|process|class|status|bus|analysis|access|address|alias|this|is|was|has|less|plus|yes|bytes)$/;
			print "$ARGV: $_";
		}' | sort -u | head -20)
is "$bad" "" "no \"1 <plural>\" phrase in any output"

# report.md reads as plain text: over every case but the one made of hostile
# names (whose escapes are the point), at most one backslash per 20 lines.
# One report alone may have more: a table of kernel stacks ("__schedule_[k]")
# needs its '_' escaped where CommonMark would read emphasis.
lines=0 slashes=0
for f in "$T"/*/report.md; do
	grep -q 'a) S 1 (b' "$f" && continue
	lines=$((lines + $(wc -l <"$f")))
	slashes=$((slashes + $(tr -cd '\\' <"$f" | wc -c)))
done
diag "report.md: $slashes backslashes in $lines lines"
ok "report.md: at most one backslash per 20 lines ($slashes in $lines)" \
	test $((slashes * 20)) -le "$lines" -a "$lines" -gt 1000

# the phrases this test was written for, made once more with a count of one
ok "a one-CPU remainder reads \"the other CPU averages\"" \
	grep -rqh "the other CPU averages" "$T"

done_testing
