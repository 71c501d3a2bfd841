#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sandbox: hostile user checks (--checks DIR) each end as status "error" with a
# message that says why, while normal checks in the same run still run and end
# "ok", the run exits 0, nothing escapes to the host, and the run stays bounded.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"

T=$(mktemp -d)
PWNED=/tmp/sonde-pwned-$$
trap 'rm -rf "$T" "$PWNED" "$PWNED".*' EXIT
D=$T/checks
mkdir -p "$D/use" "$T/out"

IDS=()
# check NAME BODY: DIR/use/NAME.lua whose run() is BODY
check() {
	IDS+=("use.$1")
	cat >"$D/use/$1.lua" <<EOF
--- sandbox test: $1
return {
  id = "use.$1", title = "sandbox $1",
  methodology = "use", resource = "cpu", metric = "errors",
  tags = { "default" }, collect = {},
  run = function(ctx, args)
$2
  end,
}
EOF
}

# Two normal checks, one sorted before every hostile one and one after.
check aa-normal '    ctx:metric("normal", 1, { warn = 10 })'
check zz-normal '    ctx:metric("normal", 2, { warn = 10 })'

# name | body | regex the error message must match
CASES=$(cat <<EOF
os-execute|os.execute("touch $PWNED")|attempt to call a nil value \(field 'execute'\)
os-exit|os.exit(0)|attempt to call a nil value \(field 'exit'\)
os-remove|os.remove("$PWNED")|attempt to call a nil value \(field 'remove'\)
os-getenv|return os.getenv("PATH") .. nil|attempt to call a nil value \(field 'getenv'\)
io-open|io.open("$PWNED.io", "w"):write("x")|undeclared global 'io'
io-popen|io.popen("touch $PWNED.popen")|undeclared global 'io'
require-os|local m = require("os"); m.execute("touch $PWNED.req")|require 'os': no such module
require-io|local m = require("io"); m.open("$PWNED.reqio", "w")|require 'io': no such module
require-path|require("../../etc/passwd")|not a checks/lib module name
load-binary|local f, e = load("\\27Lua\\84\\0\\25\\147\\13\\10\\26\\10\\4\\8\\8\\120\\86"); error("load gave " .. tostring(f) .. ": " .. tostring(e))|load gave nil: .*binary chunk
load-binary-mode-b|local f, e = load("\\27Lua\\84\\0\\25\\147\\13\\10\\26\\10", "x", "b"); error("load gave " .. tostring(f) .. ": " .. tostring(e))|load gave nil: .*binary chunk
load-env|load("io.open('$PWNED.load', 'w')")()|undeclared global 'io'
load-write|load("x = 1")()|assignment to undeclared global 'x'
string-dump|local s = string.dump(function() end)|attempt to call a nil value \(field 'dump'\)
meta-dump|local s = getmetatable("").__index.dump(function() end)|attempt to call a nil value \(field 'dump'\)
method-dump|local s = (""):dump()|attempt to call a nil value \(method 'dump'\)
debug-getinfo|local i = debug.getinfo(1)|undeclared global 'debug'
package-loaded|local l = package.loaded|undeclared global 'package'
collectgarbage|local n = collectgarbage("count")|undeclared global 'collectgarbage'
dofile|dofile("/etc/passwd")|undeclared global 'dofile'
loadfile|local f = loadfile("/etc/passwd")|undeclared global 'loadfile'
print|print("hello")|undeclared global 'print'
global-g|local g = _G|undeclared global '_G'
global-write|x = 1|assignment to undeclared global 'x'
global-read|local y = not_declared_anywhere|undeclared global 'not_declared_anywhere'
setmetatable-env|setmetatable(_ENV, nil)|cannot change a protected metatable
rawset-env|rawset(_ENV, "x", 1)|rawset on the global environment is not allowed
coroutine|local co = coroutine.create(function() end)|undeclared global 'coroutine'
loop|while true do end|stopped|budget exceeded
pcall-loop|while true do pcall(function() while true do end end) end|stopped|budget exceeded
memory-bomb|local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 1024) .. i end|memory
pcall-memory-bomb|while true do pcall(function() local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 1024) .. i end end) end|memory
rep-bomb|local s = string.rep("x", 1e9)|memory
tostring-loop|error(setmetatable({}, { __tostring = function() while true do end end }))|error object is a table value
EOF
)

while IFS='|' read -r name body _; do
	check "$name" "    $body"
done <<<"$CASES"

SEL=()
for id in "${IDS[@]}"; do SEL+=(--check "$id"); done

t0=$(date +%s%N)
timeout -k 5 90 "$SONDE" run --window 1 --interval 0.5 --out "$T/out" --no-progress --json \
	--checks "$D" "${SEL[@]}" --check use.cpu-errors >"$T/findings.json" 2>"$T/stderr"
rc=$?
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))

is "$rc" 0 "the run with every hostile check exits 0"
ok "the run ends in under 60 s (took ${ms} ms)" [ "$ms" -lt 60000 ]
# jqt FILTER: the filter is true on findings.json (quietly)
jqt() { jq -e "$1" "$T/findings.json" >/dev/null 2>&1; }
ok "findings.json is a JSON object" jqt 'type == "object"'
st() { jq -r --arg id "$1" '.checks[] | select(.id == $id) | .status' "$T/findings.json"; }
msg() { jq -r --arg id "$1" '.checks[] | select(.id == $id) | .error // ""' "$T/findings.json"; }

is "$(jq '.checks | length' "$T/findings.json")" "$((${#IDS[@]} + 1))" "every selected check has a result"
is "$(st use.aa-normal)" ok "a normal check before the hostile ones ends ok"
is "$(st use.zz-normal)" ok "a normal check after the hostile ones ends ok"
is "$(jq -r '.checks[] | select(.id == "use.zz-normal") | .metrics[0].value' "$T/findings.json")" 2 \
	"the normal check after them reported its metric"
ok "the embedded check still runs" \
	jqt '.checks[] | select(.id == "use.cpu-errors") | .status != "error"'

while IFS='|' read -r name _ want; do
	id=use.$name
	is "$(st "$id")" error "$id ends as error"
	m=$(msg "$id")
	if printf '%s' "$m" | grep -Eq -- "$want"; then
		ok "$id error says why: $m" true
	else
		ok "$id error says why (want /$want/, got '$m')" false
	fi
done <<<"$CASES"

ok "an error carries a traceback" \
	jqt '.checks[] | select(.id == "use.global-write") | .traceback | test("stack traceback")'
ok "the time budget is per check: every check took under 7 s" \
	jqt '[.checks[].elapsed_ms] | max < 7000'
ok "the memory budget holds: no check peaked above 66 MiB" \
	jqt '[.checks[].mem_peak_bytes] | max < 66 * 1048576'

left=$(ls -d "$PWNED"* 2>/dev/null)
is "$left" "" "no file was created or touched by a check"
bundles() { compgen -G "$T/out/sonde-*.tar.xz" | wc -l; }
is "$(bundles)" 1 "one bundle was written"

done_testing
