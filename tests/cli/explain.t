#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sonde explain CHECK and sonde list --json (core/cmd/explain.c, list.c): for
# every check of the catalog, its purpose, what it reads, each --set argument
# with its default (the same as list --json's), and the metrics it judges,
# read from its source; a user check's too; the JSON parses and agrees with
# the text listing.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$SONDE" list --json --no-bpf --no-perf >"$T/list.json" 2>"$T/err"
is "$?" 0 "sonde list --json: exit 0"
ok "it parses as JSON" sh -c "jq -e . '$T/list.json' >/dev/null"
is "$(jq -r .schema "$T/list.json")" "sonde.list/1" "its schema"
"$SONDE" list --no-bpf --no-perf | awk 'NR > 1 && !NF { exit } NR > 1 { print $1 }' | sort >"$T/ids.txt"
jq -r '.checks[].id' "$T/list.json" | sort >"$T/ids.json"
ok "the same checks as the text listing ($(wc -l <"$T/ids.json"))" cmp -s "$T/ids.txt" "$T/ids.json"
is "$(jq '[.collectors[] | select(.name == "host.context")] | length' "$T/list.json")" 1 \
	"host.context is a collector"
is "$(jq -r '[.tools[] | select(.available)] | length' "$T/list.json")" 0 "--no-bpf: no tool available"
is "$(jq -r '[.tools[] | .why] | unique | join(",")' "$T/list.json")" "disabled (--no-bpf)" "... and why"
is "$(jq -r '.checks[] | select(.id == "use.cpu-saturation") | .metrics[] | select(.name == "runnable_per_cpu") | [.warn_arg, .crit_arg, .unit] | join(",")' "$T/list.json")" \
	"warn_runnable,crit_runnable,ratio" "use.cpu-saturation judges runnable_per_cpu by warn_runnable and crit_runnable"

# Every check explains itself, and every argument list --json gives is there with its default.
for id in $(jq -r '.checks[].id' "$T/list.json"); do
	"$SONDE" explain "$id" >"$T/e" 2>"$T/err"
	rc=$?
	missing=""
	for a in $(jq -r --arg id "$id" '.checks[] | select(.id == $id) | .args[] | "\(.name)=\(.default)"' "$T/list.json"); do
		grep -Eq "^  ${a%%=*} +${a#*=} " "$T/e" || missing="$missing $a"
	done
	for m in $(jq -r --arg id "$id" '.checks[] | select(.id == $id) | .metrics[] | select(.warn or .crit) | .name' "$T/list.json"); do
		grep -q ": $m[ ,]" "$T/e" || missing="$missing metric:$m"
	done
	ok "sonde explain $id: exit $rc, title, reads, thresholds, findings${missing:+; missing:$missing}" \
		test "$rc" = 0 -a -z "$missing" -a "$(grep -c '^Reads:$\|^Thresholds (--set\|^Findings it can raise' "$T/e")" = 3
done

# A user check: its metric with thresholds from its arguments, and one computed.
mkdir -p "$T/c/use"
cat >"$T/c/use/mine.lua" <<'EOF'
--- My check: is the widget saturated?
return {
  id = "use.mine", title = "Mine", methodology = "use", resource = "cpu", metric = "saturation",
  collect = { "proc.stat" },
  args = { warn_widgets = { type = "number", default = 7, help = "widgets that warn" },
           crit_widgets = { type = "number", default = 70, help = "widgets that are critical" } },
  run = function(ctx, args)
    -- ctx:metric("commented", 1, { warn = args.nope })
    local s = "ctx:metric(\"in a string\", 1, { warn = 2 })"
    ctx:metric("widgets", 3, { unit = "widgets", warn = args.warn_widgets, crit = args.crit_widgets })
    ctx:metric("gadgets", 1, { warn = ctx.host.cpus * 2 })
    ctx:metric("speed", 1, { unit = "Hz", warn = 10, lower_is_worse = true })
  end,
}
EOF
"$SONDE" explain use.mine --checks "$T/c" >"$T/e" 2>"$T/err"
is "$?" 0 "a user check: exit 0 ($(cat "$T/err"))"
ok "its purpose" grep -q 'My check: is the widget saturated?' "$T/e"
ok "what it reads" grep -q '^  proc.stat  *CPU time per CPU' "$T/e"
ok "its arguments with defaults and the unit of the metric they bound" grep -Eq '^  warn_widgets +7 +widgets +widgets that warn' "$T/e"
ok "the metric and its thresholds" grep -q 'cpu/saturation: widgets (widgets), warn at >= warn_widgets (7), crit at >= crit_widgets (70)' "$T/e"
ok "a computed threshold says so" grep -q 'gadgets, warn at a threshold the check computes (ctx.host.cpus \* 2)' "$T/e"
ok "lower is worse: <=" grep -q 'speed (Hz), warn at <= 10' "$T/e"
ok "a call in a comment is not a metric" sh -c "! grep -q commented '$T/e'"
ok "a call in a string is not a metric" sh -c "! grep -q 'in a string' '$T/e'"
ok "the source is the user's file" grep -q "source: $T/c/use/mine.lua (--checks)" "$T/e"
"$SONDE" list --json --checks "$T/c" --no-bpf --no-perf >"$T/l2.json"
is "$(jq -r '.checks[] | select(.id == "use.mine") | [.user, (.args | length), (.metrics | length)] | @csv' "$T/l2.json")" \
	"true,2,3" "list --json: the user check, its two arguments and three metrics"

# The purpose is the doc comment's first sentence, over as many lines as it takes
# (its first line alone cut many checks mid-sentence: "..., and with").
cat >"$T/c/use/long.lua" <<'EOF'
--- Long check: a purpose that goes on past
-- its first line, and ends here. This is the rest,
-- not the purpose.
return {
  id = "use.long", title = "Long", methodology = "use", resource = "cpu", metric = "errors",
  collect = { "proc.stat" }, run = function(ctx, args) end,
}
EOF
"$SONDE" explain use.long --checks "$T/c" >"$T/e" 2>"$T/err"
is "$(sed -n 2p "$T/e")" "  Long check: a purpose that goes on past its first line, and ends here." \
	"a purpose over two lines: its first sentence, joined"
is "$(jq -r '[.checks[] | select(.description | test("[.?!]$") | not) | .id] | join(" ")' "$T/list.json")" "" \
	"every built-in check's description is a whole sentence"

"$SONDE" explain no.such >"$T/out" 2>"$T/err"
is "$?" 2 "explain no.such: exit 2"
ok "it says so in one line: $(cat "$T/err")" test "$(wc -l <"$T/err")" = 1 -a "$(grep -c 'no such check' "$T/err")" = 1
"$SONDE" explain >/dev/null 2>&1
is "$?" 2 "explain without a check: exit 2"
done_testing
