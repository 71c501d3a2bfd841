#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sonde diff between bundles made from the golden captures (deterministic):
# an idle host and the same host with four CPU hogs.
. tests/lib/tap.sh

command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
T=$(mktemp -d /tmp/sonde-cli-diff.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR" "$T/idle" "$T/hog"
"$SONDE" analyze tests/checks/all/idle --out "$T/idle" >/dev/null 2>&1
"$SONDE" analyze tests/checks/use.cpu-saturation/hog --out "$T/hog" >/dev/null 2>&1
IDLE=$(ls "$T"/idle/sonde-*.tar.xz 2>/dev/null | head -1)
HOG=$(ls "$T"/hog/sonde-*.tar.xz 2>/dev/null | head -1)
ok "two bundles to compare" test -f "$IDLE" -a -f "$HOG"

out=$("$SONDE" diff "$IDLE" "$HOG"); rc=$?
is "$rc" 0 "diff: exit 0 without --fail-on"
ok "diff: the CPU saturation finding is new" grep -Eq "^  new .*use.cpu-saturation" <<<"$out"

"$SONDE" diff "$IDLE" "$HOG" --json >"$T/d.json"
is "$(jq -r .schema "$T/d.json")" "sonde.diff/1" "json: versioned schema"
is "$(jq -r '.findings[] | select(.check=="use.cpu-saturation") | .change' "$T/d.json")" new \
	"json: use.cpu-saturation is new"
is "$(jq -r '.metrics[] | select(.check=="use.cpu-utilization" and .name=="busy_pct") | .verdict' "$T/d.json")" \
	up "json: CPU busy went up beyond the noise of both windows"
ok "json: worst is warn or crit" sh -c "jq -r .worst '$T/d.json' | grep -Eq 'warn|crit'"

"$SONDE" diff "$IDLE" "$HOG" --fail-on warn >/dev/null; rc=$?
is "$rc" 3 "--fail-on warn: exit 3 on a new finding"

back=$("$SONDE" diff "$HOG" "$IDLE" --json)
is "$(jq -r '.findings[] | select(.check=="use.cpu-saturation") | .change' <<<"$back")" resolved \
	"reversed: the finding is resolved"
"$SONDE" diff "$HOG" "$IDLE" --fail-on warn >/dev/null; rc=$?
is "$rc" 0 "--fail-on warn: a resolved finding is not a failure"

same=$("$SONDE" diff "$HOG" "$HOG" --json)
is "$(jq '[.findings[] | select(.change != "persisting")] | length' <<<"$same")" 0 \
	"a bundle against itself: every finding persists"
is "$(jq '[.metrics[] | select(.verdict != "same")] | length' <<<"$same")" 0 \
	"a bundle against itself: no metric changed"

ok "--md: a Markdown report" sh -c "'$SONDE' diff '$IDLE' '$HOG' --md | head -1 | grep -q '^# sonde diff'"
"$SONDE" diff "$IDLE" "$HOG" --html >"$T/d.html"
ok "--html: a table" grep -q "<table" "$T/d.html"
ok "--html: no script" sh -c "! grep -qi '<script' '$T/d.html'"

ok "text: values in their units" \
	grep -Eq '^  use.cpu-utilization busy_pct: [0-9.]+% -> [0-9.]+% up \(old window [0-9.]+%\.\.[0-9.]+%, new ' <<<"$out"

# A change the shown precision hides is no change: two copies of one bundle,
# one metric moved by 1e-7 beyond both windows' (zero) spread.
mkdir -p "$T/a" "$T/b"
tar -xJf "$HOG" -C "$T/a" && tar -xJf "$HOG" -C "$T/b"
for side in a:17.28 b:17.2800001; do
	jq --argjson v "${side#*:}" '(.checks[] | select(.id == "use.cpu-utilization") | .metrics[] |
		select(.name == "busy_pct")) |= (.value = $v | .range = [$v, $v])' \
		"$T/${side%%:*}/findings.json" >"$T/f.json" && mv "$T/f.json" "$T/${side%%:*}/findings.json"
done
tiny=$("$SONDE" diff "$T/a" "$T/b" --json 2>&1)
is "$(jq -r '.metrics[] | select(.check=="use.cpu-utilization" and .name=="busy_pct") | .verdict' <<<"$tiny")" \
	same "17.28 -> 17.2800001 is the same to the shown precision, not up"

# --fail-on names the finding on stderr: bundle text, so a terminal's controls
# (ESC, C1 CSI U+009B, a bidi override) never reach it as they are.
mkdir -p "$T/c"
tar -xJf "$HOG" -C "$T/c"
jq '(.findings[] | select(.check == "use.cpu-saturation") | .summary) =
	"sat\u001b[2Jx\u009b31my\u202ez"' "$T/c/findings.json" >"$T/f.json" &&
	mv "$T/f.json" "$T/c/findings.json"
"$SONDE" diff "$IDLE" "$T/c" --fail-on warn >/dev/null 2>"$T/fail.err"; rc=$?
is "$rc" 3 "--fail-on warn over a summary with terminal controls: exit 3"
ok "the message names the finding" grep -q 'use.cpu-saturation' "$T/fail.err"
ok "no ESC, C1 control or bidi override in it" \
	perl -ne 'BEGIN { $bad = 0 } $bad = 1 if /\x1b|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]/; END { exit $bad }' \
	"$T/fail.err"

# A bundle that cannot be read is named on stderr: its name (a file name that may come
# from a glob) is cleaned too.
E="$T/"$'e\e]0;title\a\xc2\x9b31m'
mkdir -p "$E" && printf '{not json' >"$E/findings.json"
"$SONDE" diff "$T/a" "$E" >/dev/null 2>"$T/bad.err"; rc=$?
is "$rc" 1 "a bundle whose findings.json is not JSON: exit 1"
ok "the error names it without ESC, BEL or C1" \
	perl -ne 'BEGIN { $bad = 1 } $bad = 0 if /findings\.json/; $bad = 2 if /\x1b|\x07|\xc2[\x80-\x9f]/; END { exit $bad }' \
	"$T/bad.err"

# A severity that is not ok, warn or crit (a crafted findings.json) is no
# severity: it ranks below ok (status__severity, as sonde fleet and --metrics
# read it), so "ok" then "severe" is better, not persisting.
mkdir -p "$T/o" "$T/n"
tar -xJf "$HOG" -C "$T/o" && tar -xJf "$HOG" -C "$T/n"
for side in o:ok n:severe; do
	jq --arg s "${side#*:}" '(.findings[] | select(.check == "use.cpu-saturation") | .severity) = $s' \
		"$T/${side%%:*}/findings.json" >"$T/f.json" && mv "$T/f.json" "$T/${side%%:*}/findings.json"
done
is "$("$SONDE" diff "$T/o" "$T/n" --json 2>/dev/null |
	jq -r '.findings[] | select(.check == "use.cpu-saturation") | .change')" better \
	"a finding from ok to an unknown severity: better (below ok)"

"$SONDE" diff "$IDLE" >/dev/null 2>&1; rc=$?
is "$rc" 2 "one bundle is a usage error"
"$SONDE" diff "$IDLE" "$T/nope.tar.xz" >/dev/null 2>&1; rc=$?
is "$rc" 2 "a missing bundle is a usage error"
is "$(ls -A "$TMPDIR" | wc -l)" 0 "no private directory left behind"

done_testing
