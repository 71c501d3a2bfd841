#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: an idle host. Nothing of ours runs: sonde must find no bottleneck,
# no warn or crit finding at all, and say so in its verdict. This holds only on
# a quiet machine (CI runs alone); on a shared one the findings it lists name
# the other loads, printed below for that reason.
. tests/lib/tap.sh

command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF"

T=$(mktemp -d /tmp/sonde-scn-idle.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

mkdir -p "$T/out"
"$SONDE" run --window 5 --no-progress --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 5 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity): \(.summary) | culprits: \([.culprits[] | "\(.comm) (pid \(.pid))"] | join(", "))")' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'

is "$(jq '.findings | length' "$T/findings.json")" 0 "no warn or crit finding"
is "$(jq -r .worst "$T/findings.json")" ok "worst is ok"
ok "the verdict says no bottleneck was found" grep -q "^No bottleneck found" <(jq -r .verdict "$T/findings.json")

done_testing
