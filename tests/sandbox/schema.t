#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Load-time validation of user checks (--checks DIR): each broken check, alone
# in its own DIR, makes `sonde list` and `sonde run` exit 2 with exactly one
# line on stderr naming the file and the field. DIR/lib modules load through
# require(); a missing module fails at run time only (status error).
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/out"

# broken CASE [SUBPATH] < LUA: write DIR=$T/CASE/SUBPATH (default use/x.lua)
broken() {
	mkdir -p "$(dirname "$T/$1/${2:-use/x.lua}")"
	cat >"$T/$1/${2:-use/x.lua}"
}

# A valid check with the fields given in $1 replaced/added (Lua table fields).
fields() {
	printf 'return { id = "use.x", title = "t", methodology = "use", resource = "cpu",\n'
	printf '  metric = "errors", tags = { "default" }, collect = {},\n'
	printf '  run = function(ctx, args) end, %s }\n' "$1"
}
# A table without the listed default fields: $1 = fields to write verbatim.
bare() {
	printf 'return { %s }\n' "$1"
}

broken syntax <<<'return { id = "use.x", title = "t" ,, }'
broken number <<<'return 42'
bare 'title = "t", methodology = "use", resource = "cpu", metric = "errors", run = function() end' |
	broken missing-id
bare 'id = "use.y", title = "t", methodology = "use", resource = "cpu", metric = "errors", run = function() end' |
	broken id-path
bare 'id = "foo.x", title = "t", methodology = "foo", resource = "cpu", metric = "errors", run = function() end' |
	broken methodology foo/x.lua
bare 'id = "use.x", title = "t", methodology = "use", resource = "gpu", metric = "errors", run = function() end' |
	broken resource
bare 'id = "use.x", title = "t", methodology = "use", resource = "cpu", metric = "latency", run = function() end' |
	broken metric
bare 'id = "use.x", title = "t", methodology = "use", resource = "cpu", metric = "errors", tags = { "bogus" }, run = function() end' |
	broken tag
bare 'id = "use.x", title = "t", methodology = "use", resource = "cpu", metric = "errors", collect = { "proc.nothing" }, run = function() end' |
	broken collect
fields 'colect = { "proc.stat" }' | broken unknown-field
bare 'id = "use.x", title = "t", methodology = "use", resource = "cpu", metric = "errors", run = "go"' |
	broken run
fields 'args = { lim = { type = "integer", default = 1 } }' | broken arg-type
fields 'args = 5' | broken args-not-table
fields 'args = { lim = { type = "number", default = "5" } }' | broken arg-default
bare 'id = "use.cpu-errors", title = "t", methodology = "use", resource = "cpu", metric = "errors", run = function() end' |
	broken duplicate use/cpu-errors.lua
bare 'id = "use.x", methodology = "use", resource = "cpu", metric = "errors", run = function() end' |
	broken missing-title
fields 'tags = "default"' | broken tags-not-list
broken top-level-error <<<'error("boom at load time")'
broken top-level-loop <<<'while true do end'
broken lib-name lib/Bad.lua <<<'return {}'
broken lib-duplicate lib/fmt.lua <<<'return {}'

# case | regex the stderr line must match (after the file name)
CASES=$(cat <<'EOF'
syntax|use/x\.lua:1: .*near
number|use/x\.lua: .*must return a table
missing-id|use/x\.lua: .*field 'id'.*missing
id-path|use/x\.lua: .*field 'id'.*'use\.y'.*use\.x
methodology|foo/x\.lua: .*field 'methodology'.*'foo'
resource|use/x\.lua: .*field 'resource'.*'gpu'.*cpu, memory, disk, network, storage-controller, network-controller, fd, task
metric|use/x\.lua: .*field 'metric'.*'latency'.*utilization, saturation, errors
tag|use/x\.lua: .*field 'tags'.*'bogus'.*default, proc
collect|use/x\.lua: .*field 'collect'.*'proc\.nothing'.*proc\.stat
unknown-field|use/x\.lua: .*unknown field 'colect'
run|use/x\.lua: .*field 'run'.*function
arg-type|use/x\.lua: .*field 'args\.lim\.type'
args-not-table|use/x\.lua: .*field 'args'
arg-default|use/x\.lua: .*field 'args\.lim\.default'.*number
duplicate|use/cpu-errors\.lua: .*'use\.cpu-errors'.*already defined
missing-title|use/x\.lua: .*field 'title'.*missing
tags-not-list|use/x\.lua: .*field 'tags'.*list
top-level-error|use/x\.lua:1: .*boom at load time
top-level-loop|use/x\.lua: .*(stopped|budget exceeded)
lib-name|lib/Bad\.lua: .*module name
lib-duplicate|lib/fmt\.lua: .*'fmt'.*already defined
EOF
)

while IFS='|' read -r name want; do
	dir=$T/$name
	re="^sonde: $(printf '%s' "$dir" | sed 's/[.[\*^$]/\\&/g')/$want"

	timeout -k 2 30 "$SONDE" list --checks "$dir" >"$T/list.out" 2>"$T/list.err"
	is "$?" 2 "$name: sonde list exits 2"
	is "$(wc -l <"$T/list.err")" 1 "$name: sonde list prints one line on stderr"
	ok "$name: it names the file and the field: $(head -c 300 "$T/list.err")" \
		grep -Eq -- "$re" "$T/list.err"

	timeout -k 2 30 "$SONDE" run --checks "$dir" --window 1 --interval 0.5 --out "$T/out" \
		--no-progress --json >"$T/run.out" 2>"$T/run.err"
	is "$?" 2 "$name: sonde run exits 2"
	is "$(wc -l <"$T/run.err")" 1 "$name: sonde run prints one line on stderr"
	ok "$name: sonde run names the file and the field" grep -Eq -- "$re" "$T/run.err"
	is "$(cat "$T/run.out")" "" "$name: sonde run prints nothing on stdout"
done <<<"$CASES"
is "$(ls -A "$T/out")" "" "no run with a broken check left a bundle or a staging dir"

# ---- valid user checks, a user lib module, a missing module ----
G=$T/good
mkdir -p "$G/use" "$G/lib"
cat >"$G/lib/answers.lua" <<'EOF'
local M = {}
function M.answer() return 42 end
return M
EOF
cat >"$G/use/lib-user.lua" <<'EOF'
--- Uses a module from DIR/lib, at load time and at run time.
local answers = require("answers")
return {
  id = "use.lib-user", title = "lib user",
  methodology = "use", resource = "fd", metric = "errors",
  tags = { "default" }, collect = {},
  args = { limit = { type = "number", default = 3, help = "a limit" } },
  run = function(ctx, args)
    local again = require("answers")
    ctx:metric("answer", answers.answer() + (again == answers and 0 or 1000))
    ctx:metric("limit", args.limit)
  end,
}
EOF
cat >"$G/use/needs-missing.lua" <<'EOF'
return {
  id = "use.needs-missing", title = "needs a missing module",
  methodology = "use", resource = "task", metric = "errors",
  tags = { "default" }, collect = {},
  run = function(ctx, args)
    local m = require("no-such-module")
    ctx:metric("unreachable", 1)
  end,
}
EOF

"$SONDE" list --checks "$G" >"$T/list.out" 2>"$T/list.err"
is "$?" 0 "sonde list with valid user checks exits 0"
is "$(cat "$T/list.err")" "" "and prints nothing on stderr"
ok "the user check is listed with its methodology, resource and metric" \
	grep -Eq '^use\.lib-user +use +fd +errors +default' "$T/list.out"
ok "the check that needs a missing module loads (the require is at run time)" \
	grep -Eq '^use\.needs-missing ' "$T/list.out"
ok "the embedded checks are still listed" grep -Eq '^use\.cpu-errors ' "$T/list.out"

"$SONDE" run --checks "$G" --check use.lib-user --check use.needs-missing \
	--set use.lib-user.limit=7 --window 1 --interval 0.5 --out "$T/out" --no-progress --json \
	>"$T/f.json" 2>"$T/run.err"
is "$?" 0 "a run with a user lib module and a missing module exits 0"
q() { jq -r --arg id "$1" ".checks[] | select(.id == \$id) | $2" "$T/f.json"; }
is "$(q use.lib-user .status)" ok "the check using DIR/lib/answers.lua ends ok"
is "$(q use.lib-user '.metrics[] | select(.name == "answer") | .value')" 42 \
	"require() returns the module (and the same table twice)"
is "$(q use.lib-user '.metrics[] | select(.name == "limit") | .value')" 7 \
	"--set reaches the user check's args"
is "$(q use.needs-missing .status)" error "require of a missing module: status error"
ok "its error names the module: $(q use.needs-missing .error)" \
	grep -q "no-such-module" <<<"$(q use.needs-missing .error)"
is "$(q use.needs-missing '.metrics | length')" 0 "nothing after the failed require ran"

done_testing
