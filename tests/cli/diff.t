#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sonde diff between bundles made from recorded captures (deterministic):
# the golden cases of an idle host and the same host with four CPU hogs; and
# tests/cli/diff's recordings of one VM (tests/cli/diff/record.sh): two quiet
# audits (of one window, started together), and a pair with known changes (a function made
# slower, a process added, a disk made slower), compared as two bundles and
# against a baseline of audits.
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
is "$(jq -r .schema "$T/d.json")" "sonde.diff/2" "json: versioned schema"
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
"$SONDE" diff "$IDLE" "$HOG" --html "$T/d.html"
ok "--html: a table" grep -q "<table" "$T/d.html"
ok "--html: no script" sh -c "! grep -qi '<script' '$T/d.html'"

ok "text: values in their units" \
	grep -Eq '^  use.cpu-utilization busy_pct: [0-9.]+% -> [0-9.]+% up(, worse)? \(old window [0-9.]+%\.\.[0-9.]+%, new ' <<<"$out"

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

# ---- recorded pairs: what changed, and nothing where nothing did ----
D=tests/cli/diff
mkdir -p "$T/rec" "$T/dir"
for c in quiet-1 quiet-2 before after; do
	mkdir -p "$T/rec/$c"
	"$SONDE" analyze "$D/$c" --out "$T/rec/$c" >/dev/null 2>&1
	# --baseline DIR takes the sonde-*.tar.xz in it (the quiet pair started in one second)
	cp "$T/rec/$c"/sonde-*.tar.xz "$T/dir/sonde-$c.tar.xz"
	eval "$(echo "$c" | tr -d '-' | tr a-z A-Z)=\$(ls \"\$T/rec/\$c\"/sonde-*.tar.xz)"
done
ok "four recorded bundles" test -f "$QUIET1" -a -f "$QUIET2" -a -f "$BEFORE" -a -f "$AFTER"

# two quiet audits: no change beyond noise, in any part
"$SONDE" diff "$QUIET1" "$QUIET2" --json >"$T/q.json"
is "$?" 0 "quiet: compared"
is "$(jq '[.findings[] | select(.change != "persisting")] | length' "$T/q.json")" 0 \
	"quiet: every finding persists, no host change"
is "$(jq '[.metrics[] | select(.verdict == "up" or .verdict == "down")] | length' "$T/q.json")" 0 \
	"quiet: no metric beyond noise"
is "$(jq '.processes.compared' "$T/q.json")" true "quiet: the processes were compared"
is "$(jq '.processes.changes | length' "$T/q.json")" 0 "quiet: no process group new, gone or changed"
ok "quiet: latency histograms compared ($(jq '.latency.histograms | length' "$T/q.json"))" \
	test "$(jq '.latency.histograms | length' "$T/q.json")" -gt 0
is "$(jq '[.latency.histograms[].percentiles[] | select(.verdict == "up" or .verdict == "down")] | length' "$T/q.json")" \
	0 "quiet: no percentile beyond its confidence interval"
is "$(jq '.code.profiles[0].kind' "$T/q.json")" '"on-CPU"' "quiet: the on-CPU profiles were compared"
is "$(jq '[.code.profiles[] | .functions[], .stacks[]] | length' "$T/q.json")" 0 \
	"quiet: no function or stack beyond sampling noise"
is "$(jq .regressions "$T/q.json")" 0 "quiet: no regression"
"$SONDE" diff "$QUIET1" "$QUIET2" --fail-on regression >/dev/null 2>&1
is "$?" 0 "quiet: --fail-on regression exits 0"

# the known changes
"$SONDE" diff "$BEFORE" "$AFTER" --json >"$T/c.json"
is "$?" 0 "changed: compared"
fn() { jq -r --arg f "$1" '.code.profiles[] | select(.kind == "on-CPU") | .functions[] | select(.function == $f) | "\(.self.verdict) \(.total.verdict)"' "$T/c.json"; }
is "$(fn sonde_slow_path)" "up up" "code: the function made slower takes more of the profile, beyond noise"
is "$(fn sonde_fast_path)" "down down" "code: the fast one less"
# (sonde_request calls it as a tail call: main is the frame above it)
ok "code: and the stack into it (sondebench;...;sonde_slow_path)" \
	test "$(jq '[.code.profiles[0].stacks[] | select((.stack | startswith("sondebench;")) and (.stack | endswith(";sonde_slow_path"))) | .share.verdict] | first' "$T/c.json")" = '"up"'
is "$(jq -r '.processes.changes[] | select(.command == "sondeadded") | "\(.change) \(.new.processes)"' "$T/c.json")" \
	"new 24" "processes: 24 sondeadded are new, matched by command, not pid"
# (its context switches are the other work's: a shared VM preempts it more or less)
is "$(jq -r '[.processes.changes[] | select(.command == "sondebench") | .beyond_noise[]? |
	select(.quantity != "context_switches_per_s") | .quantity] | join(",")' "$T/c.json")" "" \
	"processes: sondebench, as busy before and after, the same CPU, memory, threads, fds"
LOOPDEV=$(jq -r '[.latency.histograms[].name | select(test("^biolatency loop[0-9]+$"))] | first' "$T/c.json")
ok "latency: the loop disk's histogram was compared ($LOOPDEV)" test "$LOOPDEV" != null
is "$(jq -r --arg n "$LOOPDEV" '.latency.histograms[] | select(.name == $n) | [.percentiles[].verdict] | join(",")' "$T/c.json")" \
	"up,up,up" "latency: the disk made slower: p50, p90, p99 up beyond their confidence"
ok "latency: the new p50's interval lies above the old one's" test "$(jq -r --arg n "$LOOPDEV" \
	'.latency.histograms[] | select(.name == $n) | .percentiles[0] | .new_interval[0] >= .old_interval[1]' "$T/c.json")" = true
ok "regressions: at least the latency ($(jq .regressions "$T/c.json"))" \
	test "$(jq .regressions "$T/c.json")" -ge 1
"$SONDE" diff "$BEFORE" "$AFTER" --fail-on regression >/dev/null 2>"$T/reg.err"
is "$?" 3 "changed: --fail-on regression exits 3"
ok "and names the first on stderr" grep -q -- '--fail-on regression: [0-9]* regression' "$T/reg.err"

# text, Markdown, HTML of the changes
"$SONDE" diff "$BEFORE" "$AFTER" >"$T/c.txt"
ok "text: the new processes" grep -Eq '^  new +sondeadded  /.*: 24 processes' "$T/c.txt"
ok "text: the function" grep -Eq '^  function sonde_slow_path: total .* up' "$T/c.txt"
ok "text: the disk's p50" grep -A1 -E "^  $LOOPDEV \(" "$T/c.txt" | grep -Eq '^    p50 .* up'
"$SONDE" diff "$BEFORE" "$AFTER" --md >"$T/c.md"
ok "md: a code span for the function, never an escaped underscore" \
	sh -c "grep -qF '\`sonde_slow_path\`' '$T/c.md' && ! grep -qF 'sonde\\_slow' '$T/c.md'"
ok "md: both heat maps of the disk, old then new" grep -qF "*new: $LOOPDEV over the window*" "$T/c.md"
"$SONDE" diff "$BEFORE" "$AFTER" --html "$T/c.html"
is "$?" 0 "html: written"
ok "html: the report's content security policy, one script allowed by its hash" \
	grep -q "script-src 'sha256-" "$T/c.html"
is "$(grep -c '<script' "$T/c.html")" 1 "html: one script, the flame graph's"
ok "html: heat maps side by side" grep -q '<div class="hm-pair">' "$T/c.html"
ok "html: a differential flame graph, the slow path hotter" \
	grep -Eq '<g class="dp[34]" data-n="[0-9]+" data-was="[0-9.]+%"><title>sonde_slow_path</title>' "$T/c.html"
perl -0ne 'my $i = 0; while (/(<svg.*?<\/svg>)/sg) { open(my $f, ">", "'"$T"'/svg" . $i++ . ".xml"); print $f $1 }' "$T/c.html"
ok "html: every SVG parses as XML" sh -c 'for f in "$1"/svg*.xml; do xmllint --noout "$f" || exit 1; done' _ "$T"
# In a real browser (chromium over tests/lib/cdp.py), where there is one: a CSP
# violation or a failed script would be on the console.
if command -v chromium >/dev/null && command -v python3 >/dev/null &&
	python3 tests/lib/cdp.py "$T/c.html" "$T/c.png" 1280 light >"$T/cdp.json" 2>"$T/cdp.err"; then
	is "$(jq -r '.console | join(" | ")' "$T/cdp.json")" "" "html in chromium: nothing on the console"
	is "$(jq -r '.requests | join(" ")' "$T/cdp.json")" "" "html in chromium: nothing requested"
else
	skip "html in chromium" "chromium cannot run here: $(tr '\n' ' ' <"$T/cdp.err" 2>/dev/null)"
fi

# against a baseline: the quiet audits and the one before, in a directory
"$SONDE" diff --baseline "$T/dir" "$AFTER" --json >"$T/b.json" 2>"$T/b.err"
is "$?" 0 "baseline: compared"
is "$(jq '.baseline | length' "$T/b.json")" 3 "baseline: the three earlier audits of the host in the directory"
is "$(fn_b() { jq -r '.code.profiles[] | select(.kind == "on-CPU") | .functions[] | select(.function == "sonde_slow_path") | .total.verdict' "$T/b.json"; }; fn_b)" \
	up "baseline: the slow path up against the median of three"
is "$(jq -r '.processes.changes[] | select(.command == "sondeadded") | .change' "$T/b.json")" new \
	"baseline: sondeadded new (in none of the three)"
"$SONDE" diff --baseline "$BEFORE" "$AFTER" "$QUIET2" --json >"$T/bq.json"
is "$(jq -r '.processes.changes[] | select(.command == "sondebench") | .change' "$T/bq.json")" gone \
	"baseline of two named bundles: sondebench, in both, gone from the quiet audit"
is "$(jq '[.processes.changes[] | select(.command == "sondeadded")] | length' "$T/bq.json")" 0 \
	"sondeadded, in one of the two (the median: none), is not called gone"
"$SONDE" diff --baseline "$T/nowhere" "$AFTER" >/dev/null 2>&1
is "$?" 2 "baseline: a missing directory is a usage error"

"$SONDE" diff "$IDLE" >/dev/null 2>&1; rc=$?
is "$rc" 2 "one bundle is a usage error"
"$SONDE" diff "$IDLE" "$T/nope.tar.xz" >/dev/null 2>&1; rc=$?
is "$rc" 2 "a missing bundle is a usage error"
is "$(ls -A "$TMPDIR" | wc -l)" 0 "no private directory left behind"

done_testing
