#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bundles as a support engineer gets them: show and analyze a bundle file
# (verify: tests/cli/verify.t); nothing is left in the private directory.
. tests/lib/tap.sh

for tool in jq tar xz; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-cli-bundle.XXXXXX)
cleanup() { rm -rf "$T"; }
trap cleanup EXIT

export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR" "$T/out"
"$SONDE" run --window 1 --interval 0.5 --out "$T/out" --no-progress --json >"$T/run.json" 2>/dev/null
B=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
ok "a run wrote a bundle to work with" test -f "$B"

# show
out=$("$SONDE" show "$B"); rc=$?
is "$rc" 0 "show: exit 0"
ok "show: prints the verdict" grep -q "^Verdict: " <<<"$out"
ok "show: prints the USE matrix" grep -q "^  cpu" <<<"$out"
"$SONDE" show "$B" --json >"$T/show.json"
ok "show --json: findings.json, as run --json printed it" cmp -s "$T/show.json" "$T/run.json"
ok "show --md: report.md" sh -c "'$SONDE' show '$B' --md | head -1 | grep -q '^# sonde report'"
ok "show MEMBER: a capture stream" sh -c "'$SONDE' show '$B' raw/sonde.cap | head -1 | grep -q '^sonde-capture 1'"
"$SONDE" show "$B" raw/proc.pids.cap 2>/dev/null | head -c 1 >/dev/null
is "$(ls -A "$TMPDIR" | wc -l)" 0 "show MEMBER | head: a reader that stops early leaves no private directory"
"$SONDE" show "$B" ../../etc/passwd >/dev/null 2>&1; rc=$?
is "$rc" 2 "show: a member name leaving the bundle is a usage error"

# analyze a bundle file: same checks, same findings, no live host access needed
"$SONDE" analyze "$B" --json >"$T/analyze.json" 2>/dev/null; rc=$?
is "$rc" 0 "analyze BUNDLE: exit 0"
is "$(jq -c '[.checks[] | [.id, .status]]' "$T/analyze.json")" \
	"$(jq -c '[.checks[] | [.id, .status]]' "$T/run.json")" "analyze BUNDLE: the run's checks and statuses"
is "$(jq -c '[.findings[] | .check]' "$T/analyze.json")" \
	"$(jq -c '[.findings[] | .check]' "$T/run.json")" "analyze BUNDLE: the run's findings, in order"
out=$("$SONDE" analyze "$B" 2>/dev/null)
ok "analyze BUNDLE: says the findings are the same as recorded" grep -q "^Same findings as recorded in the bundle" <<<"$out"
mkdir -p "$T/newer/use"
cat >"$T/newer/use/always-warn.lua" <<'LUA'
return { id = "use.always-warn", title = "Always warn", methodology = "use", resource = "cpu",
  metric = "errors", collect = {}, run = function(ctx) ctx:metric("x", 5, { warn = 1 }) end }
LUA
out=$("$SONDE" analyze "$B" --checks "$T/newer" 2>/dev/null)
ok "analyze with a newer check: says what changed" grep -Eq "^  new .*use.always-warn" <<<"$out"
mkdir "$T/re"
"$SONDE" analyze "$B" --out "$T/re" >/dev/null 2>&1
R=$(ls "$T"/re/sonde-*.tar.xz 2>/dev/null | head -1)
ok "analyze --out: a new bundle" test -f "$R"
ok "the new bundle verifies" "$SONDE" verify "$R"
is "$(ls -A "$TMPDIR" | wc -l)" 0 "analyze: the private directory is removed"

# analyze --out keeps all of raw/, not only the streams it parses: the BPF
# tools' documents and the folded profiles are what the report draws and what
# sonde diff compares (a golden case with both, and a drill-down's captures).
for c in workload.cpu-why/hog drilldown.cpu-who/one-hot-cpu; do
	rm -rf "$T/wh" && mkdir -p "$T/wh"
	"$SONDE" analyze "tests/checks/$c" --out "$T/wh" >/dev/null 2>&1
	is "$(tar -tJf "$T"/wh/sonde-*.tar.xz | grep '^raw/.' | grep -v '/$' | sort)" \
		"$(cd "tests/checks/$c" && find raw -type f | sort)" "analyze --out $c: every file of raw/ in the new bundle"
done

done_testing
