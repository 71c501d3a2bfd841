#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: the drill-down. Four busy loops named ddspin, two pinned to each of the
# first two CPUs, saturate them; `sonde run --check use.cpu-saturation` must
# fire the rule use.cpu-saturation -> drilldown.cpu-why, observe a second
# window about half as long, name ddspin as the thread that waited longest for
# a CPU, and say so in report.md. With --no-drilldown the rule is listed with
# that note and no drill-down check runs; `sonde analyze BUNDLE` replays the
# drill-down window the bundle recorded. On this shared host we assert on our
# own loops only (4 loops on 2 CPUs each wait about half the time).
. tests/lib/tap.sh

for tool in jq tar xz taskset perl; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF (running as uid $(id -u))"
[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs to pin the loops (have $(nproc))"

T=$(mktemp -d /tmp/sonde-live-drilldown.XXXXXX)
[ -n "$KEEP" ] && echo "# keeping $T"
tap_kill_at_exit

# the comm of an exec is the name it was run by: a symlink named ddspin
ln -s "$(command -v perl)" "$T/ddspin"
for cpu in 0 0 1 1; do
	taskset -c $cpu "$T/ddspin" -e 'while (1) {}' &
	PIDS+=($!)
done
sleep 0.5

W=4
mkdir "$T/a" "$T/b" "$T/c"
"$SONDE" run --window $W --interval 1 --check use.cpu-saturation -o "$T/a" --json >"$T/a.json" 2>"$T/a.err"
is "$?" 0 "sonde run exits 0"
B=$(ls "$T"/a/*.tar.xz 2>/dev/null | head -1)
J="$T/a.json"
ST=$(jq -r '.checks[] | select(.id == "use.cpu-saturation") | .status' "$J")
ok "use.cpu-saturation is warn or crit under four loops on two CPUs (got $ST)" \
	test "$ST" = warn -o "$ST" = crit ||
	jq -r '.checks[] | select(.id == "use.cpu-saturation") | .summary' "$J" | sed 's/^/# /'
is "$(jq -r '[.drilldown.fired[] | select(.trigger == "use.cpu-saturation") | .run[]] | join(",")' "$J")" \
	drilldown.cpu-why "drilldown.fired names use.cpu-saturation, running drilldown.cpu-why"
S=$(jq -r '.drilldown.window.seconds // 0' "$J")
ok "drilldown.window.seconds is about half the window ($S s of $W s)" \
	awk -v s="$S" -v w=$W 'BEGIN { exit !(s >= w / 2 * 0.8 && s <= w / 2 * 1.5) }'
is "$(jq -r '[.checks[] | select(.id == "drilldown.cpu-why")] | length' "$J")" 1 \
	"drilldown.cpu-why ran once"
is "$(jq -r '.checks[] | select(.id == "drilldown.cpu-why") | .culprits[0].comm' "$J")" ddspin \
	"drilldown.cpu-why names ddspin as the thread that waited longest for a CPU"
ok "its runqlat table lists the four ddspin threads" \
	test "$(jq '[.checks[] | select(.id == "drilldown.cpu-why") | .evidence[] | select(.kind == "table")
		| .rows[] | select(.[2] == "ddspin")] | length' "$J")" -ge 4
ok "the bundle holds raw/drilldown" sh -c "tar -tJf '$B' | grep -q '^raw/drilldown/'"
tar -xJf "$B" -C "$T/a" report.md 2>/dev/null
ok "report.md has the Drill-down section" grep -q '^## Drill-down$' "$T/a/report.md"
ok "report.md says why: the rule's trigger and its deeper check" \
	grep -qF "use.cpu-saturation ($ST): CPU saturated" "$T/a/report.md"
ok "report.md has the deeper check's evidence" \
	grep -qF '(drilldown.cpu-why, ' "$T/a/report.md"

# the same, without the second window
"$SONDE" run --window 2 --interval 1 --check use.cpu-saturation --no-drilldown -o "$T/b" --json \
	>"$T/b.json" 2>"$T/b.err"
is "$?" 0 "sonde run --no-drilldown exits 0"
is "$(jq -r '[.drilldown.fired[].trigger] | join(",")' "$T/b.json")" use.cpu-saturation \
	"--no-drilldown: the fired rule is still listed"
is "$(jq -r '.drilldown.note' "$T/b.json")" --no-drilldown "--no-drilldown: with that note"
is "$(jq -r '[.checks[] | select(.methodology == "drilldown")] | length' "$T/b.json")" 0 \
	"--no-drilldown: no drill-down check ran"
is "$(jq -r '.drilldown.window // "none"' "$T/b.json")" none "--no-drilldown: no second window"

# replay: analyze the first bundle
"$SONDE" analyze "$B" --check use.cpu-saturation --json >"$T/c.json" 2>"$T/c.err"
is "$?" 0 "sonde analyze BUNDLE exits 0"
is "$(jq -c '[.drilldown.fired[] | [.trigger, .run]]' "$T/c.json")" \
	"$(jq -c '[.drilldown.fired[] | [.trigger, .run]]' "$J")" "analyze: the same rules fire"
is "$(jq -r '.checks[] | select(.id == "drilldown.cpu-why") | .culprits[0].comm' "$T/c.json")" ddspin \
	"analyze: drilldown.cpu-why replayed from raw/drilldown, same culprit"
done_testing
