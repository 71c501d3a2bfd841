#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A check's table (and bars) keep at most 100 rows (core/lua/ctx_report.c), and
# the rows past the cap do not vanish unsaid: a note beside the table gives how
# many there were. A per-CPU table of a 192-CPU host lost cpu100 to cpu191 that
# way, without a word. A table at the cap gets no note.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/checks/use"
cat >"$T/checks/use/rows.lua" <<'EOF2'
--- table-cap test: tables of 150 and 100 rows, bars of 120
return {
  id = "use.rows", title = "many rows",
  methodology = "use", resource = "cpu", metric = "errors",
  tags = { "default" }, collect = {},
  run = function(ctx, args)
    local function rows(n)
      local t = {}
      for i = 1, n do t[i] = { "cpu" .. (i - 1), i } end
      return t
    end
    ctx:table { title = "Per CPU", columns = { "CPU", "n" }, rows = rows(150) }
    ctx:table { title = "Exactly full", columns = { "CPU", "n" }, rows = rows(100) }
    local bars = {}
    for i = 1, 120 do bars[i] = { label = "cpu" .. (i - 1), values = { 50, 50 } } end
    ctx:bars { title = "Shares", categories = { "a", "b" }, rows = bars }
  end,
}
EOF2
CASE=$TOP/tests/checks/use.cpu-saturation/schedstat-handmade
"$SONDE" analyze "$CASE" --checks "$T/checks" --check use.rows --json >"$T/f.json" 2>"$T/err"
is "$?" 0 "sonde analyze with the check exits 0"
ev() { jq -r --arg t "$1" '.checks[] | select(.id == "use.rows") | .evidence[] | select(.title == $t) | '"$2" "$T/f.json"; }
notes() { jq -r '.checks[] | select(.id == "use.rows") | .evidence[] | select(.kind == "note") | .title // .text' "$T/f.json"; }
is "$(ev "Per CPU" '.rows | length')" 100 "a table of 150 rows keeps 100"
is "$(ev "Per CPU" '.rows[99][0]')" cpu99 "the first 100, in the check's order"
is "$(notes | grep -c '^Per CPU: the first 100 of 150 rows (a table keeps at most 100)$')" 1 \
	"a note says the table was cut, and how many rows it had"
is "$(notes | grep -c '^Shares: the first 100 of 120 rows')" 1 "bars cut at 100 rows say so too"
is "$(notes | grep -c '^Exactly full:')" 0 "a table of exactly 100 rows gets no note"
done_testing
