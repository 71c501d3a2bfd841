#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctx:heatmap end to end (issue 13): a check from a --checks DIR of this test
# hands over a latency map (ragged rows, one outlier), a subsecond map and bad
# input; `sonde analyze` over a committed capture tree must give the maps in
# findings.json in the captures' "intervals" shape, the errors as one line
# (one caught by the check, one ending it in error), report.md's p50/p99/max
# per interval and report.html's SVG with a tooltip per cell, no script.
. tests/lib/tap.sh

for tool in jq tar xz xmllint; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

D=tests/cli/heatmap
CASE=tests/checks/use.cpu-saturation/hog
T=$(mktemp -d /tmp/sonde-heatmap.XXXXXX)
tap_kill_at_exit
mkdir -p "$T/out" "$T/x"

"$SONDE" analyze "$CASE" --checks "$D/checks" --check workload.signal-what \
	--check workload.signal-why -o "$T/out" \
	>"$T/stdout" 2>"$T/stderr"
ok "analyze with the test check runs" test -s "$T/stdout"
tar -xJf "$T"/out/sonde-*.tar.xz -C "$T/x" findings.json report.md report.html 2>/dev/null
J=$T/x/findings.json
C='.checks[] | select(.id == "workload.signal-what")'

W='.checks[] | select(.id == "workload.signal-why")'
is "$(jq -r "$C | .status" "$J")" ok "the check with good maps and a caught error is ok"
is "$(jq -r "$W | .status" "$J")" error "an uncaught bad map ends the check in error"
is "$(jq -r "$W | .error | split(\"\n\")[0]" "$J" | grep -o 'heatmap: interval_ms must be a whole number of milliseconds from 1 to 86400000')" \
	"heatmap: interval_ms must be a whole number of milliseconds from 1 to 86400000" \
	"its error says why in one line"
ok "the caught one names the element" \
	grep -q 'caught: .*heatmap: counts\[1\]\[2\] must be a whole number from 0 to 2^64' \
	<(jq -r "$C | .evidence[] | select(.kind == \"note\") | .title" "$J")
is "$(jq -r "[$C | .evidence[] | select(.kind == \"heatmap\")] | length" "$J")" 2 \
	"two heat maps kept (the bad ones are not)"
is "$(jq -c "$C | .evidence[] | select(.kind == \"heatmap\" and .title == \"Offsets\") | [.unit, .interval_ms, .row_ms, .counts]" "$J")" \
	'["%",1000,50,[[100,0,50],[100]]]' "the subsecond map in the captures' shape"
is "$(jq -c "$C | .evidence[] | select(.kind == \"heatmap\" and .row_ms == null) | [.unit, .interval_ms, (.counts | length), .counts[11][19], .counts[12], .counts[0]]" "$J")" \
	'["us",200,30,1,[],[0,100]]' "the latency map: every interval, the outlier, the empty one as []"

md=$T/x/report.md
ok "report.md: the quantile table" grep -q '^| time in the window | events | p50 | p99 | max |$' "$md"
ok "report.md: the outlier's column" grep -qF '| 1.8-2.4 s | 301 | 2-4 us | 2-4 us | 524 ms-1.05 s |' "$md"
ok "report.md: the subsecond rows" grep -qF '| 0-50 ms | 100 |' "$md"
ok "report.md: the span a duty-cycled tool traced, under the map's title" \
	perl -0ne 'exit !/\*\*Offsets\*\*\n\n\*traced 1\.0 s of the 3\.0 s window \(0\.0 to 1\.0 s\)\*\n/' "$md"
is "$(jq -c "$C | .evidence[] | select(.title == \"Offsets\") | .traced | [.to_s, .window_s, .drilldown, .covers]" "$J")" \
	'[1.02,3,false,"traced 1.0 s of the 3.0 s window (0.0 to 1.0 s)"]' "findings.json: the span and its sentence"
ok "a traced option that is no tool's info is refused in one line" \
	grep -q "caught: .*option 'traced' must be a BPF tool's info" \
	<(jq -r "$C | .evidence[] | select(.kind == \"note\") | .title" "$J")

html=$T/x/report.html
n=$(grep -o '<figure class="heatmap">' "$html" | wc -l)
is "$n" 2 "report.html draws both"
ok "a tooltip per cell: the outlier's" grep -qF '<title>1.8-2.4 s · 524 ms-1.05 s: 1</title>' "$html"
ok "the title is text" grep -qF 'Latency &lt;b&gt;of&lt;/b&gt; the test' "$html"
ok "no <b> from the check" test "$(grep -c '<b>of</b>' "$html")" -eq 0
perl -ne 'while (/(<svg class="heatmap-svg".*?<\/svg>)/g) { print "$1\n" }' "$html" >"$T/svgs"
ok "every map's SVG parses" sh -c 'while read -r l; do echo "$l" | xmllint --noout - || exit 1; done <"$1"' _ "$T/svgs"
ok "no script in the maps" test "$(grep -c '<script' "$T/svgs")" -eq 0

done_testing
