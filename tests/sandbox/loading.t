#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A --checks file's top-level code runs when the catalog is loaded (list,
# analyze, run), before any check's run(). Issue 18, item 13: a pathological
# pattern match there is C code the instruction hook never interrupts, and
# loading in the parent hung all three for good, --timeout included. Loading
# runs in a child under a watchdog now: each command ends, in bounded time,
# with one line naming the file; --timeout cuts it shorter; well-behaved user
# checks (lib modules, args, --set) load through the child as before.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v timeout >/dev/null || skip_all "timeout (coreutils) is not installed"
command -v jq >/dev/null || skip_all "jq is not installed"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bad/use" "$T/good/use" "$T/good/lib" "$T/out"

cat >"$T/bad/use/cpu-backtrack.lua" <<'EOF'
-- top-level code: minutes of backtracking inside the C pattern matcher
local s = string.rep("a", 40)
string.find(s, string.rep("a-", 40) .. "b")
return { id = "use.cpu-backtrack", title = "backtracking at load time", methodology = "use",
  resource = "cpu", metric = "errors", collect = {}, run = function(ctx) end }
EOF
cat >"$T/good/lib/helper.lua" <<'EOF'
return { twice = function(x) return 2 * x end }
EOF
cat >"$T/good/use/cpu-twice.lua" <<'EOF'
--- a user check with a lib module and an argument
local helper = require("helper")
return { id = "use.cpu-twice", title = "Twice the argument", methodology = "use",
  resource = "cpu", metric = "errors", tags = { "default" }, collect = { "proc.stat" },
  args = { x = { type = "number", default = 2, help = "what to double" },
           label = { type = "string", default = "two words" } },
  run = function(ctx, args) ctx:metric("twice", helper.twice(args.x), { warn = 100 }) end }
EOF

# time_of CMD...: runs CMD under a hard limit; sets RC, MS (elapsed) and ERR (stderr)
time_of() {
	local s
	s=$(date +%s%N)
	timeout -k 2 40 "$@" >"$T/out.txt" 2>"$T/err.txt"
	RC=$?
	MS=$((($(date +%s%N) - s) / 1000000))
	ERR=$(cat "$T/err.txt")
}

time_of "$SONDE" list --checks "$T/bad"
diag "list: exit $RC in $MS ms: $ERR"
is "$RC" 2 "list --checks with a backtracking file: a usage error (exit 2), not a hang"
ok "list: within the per-file budget (took $MS ms)" test "$MS" -lt 15000
is "$(wc -l <"$T/err.txt")" 1 "list: one line"
ok "list: it names the file and says why" \
	grep -q "cpu-backtrack.lua: loading it took longer than .* pattern match" "$T/err.txt"

"$SONDE" run --window 1 --interval 0.5 --out "$T/out" --no-progress --check use.cpu-errors \
	>/dev/null 2>&1
B=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
if [ -n "$B" ]; then
	time_of "$SONDE" analyze "$B" --checks "$T/bad"
	is "$RC" 2 "analyze --checks with it: exit 2 ($ERR)"
	ok "analyze: within the per-file budget (took $MS ms)" test "$MS" -lt 15000
else
	skip "analyze --checks with it" "sonde run wrote no bundle here"
	skip "analyze within the budget" "sonde run wrote no bundle here"
fi

time_of "$SONDE" run --checks "$T/bad" --timeout 2 --window 1 --out "$T/out" --no-progress
diag "run --timeout 2: exit $RC in $MS ms: $ERR"
ok "run --timeout 2: stopped at the deadline, loading included (took $MS ms)" \
	test "$RC" -ne 0 -a "$MS" -lt 4000
ok "run --timeout 2: says so, naming the file" grep -q "cpu-backtrack.lua: still loading at the --timeout deadline" "$T/err.txt"
is "$(ls -A "$T/out" | grep -c '^\.sonde-')" 0 "run --timeout 2: nothing left in --out"

# Well-behaved user checks come through the loading process whole.
time_of "$SONDE" list --checks "$T/good"
is "$RC" 0 "list --checks with a good user check: exit 0"
ok "list: the user check is listed" grep -q "^use.cpu-twice " "$T/out.txt"
if [ -n "$B" ]; then
	"$SONDE" analyze "$B" --checks "$T/good" --check use.cpu-twice --set use.cpu-twice.x=21 \
		--json >"$T/twice.json" 2>"$T/err.txt"
	is "$(jq '.checks[] | select(.id == "use.cpu-twice") | .metrics[0].value' "$T/twice.json")" 42 \
		"analyze: its lib module and --set argument work (2 x 21)"
	is "$(jq -r '.checks[] | select(.id == "use.cpu-twice") | .title' "$T/twice.json")" \
		"Twice the argument" "analyze: its title came through"
else
	skip "the user check runs" "sonde run wrote no bundle here"
	skip "the user check's title" "sonde run wrote no bundle here"
fi
if [ -n "$B" ]; then
	time_of "$SONDE" analyze "$B" --checks "$T/good" --check use.cpu-twice --set use.cpu-twice.label=x
	is "$RC" 0 "--set of a string argument declared by a user check: accepted ($ERR)"
	time_of "$SONDE" analyze "$B" --checks "$T/good" --check use.cpu-twice --set use.cpu-twice.nope=1
	is "$RC" 2 "--set of an argument it does not declare: a usage error ($ERR)"
fi

# A check's id is its file's name: one with escape sequences in it is listed
# as text (util/tty.h), not acted on by the terminal.
mkdir -p "$T/esc/use"
name=$'cpu-x\x1b]0;pwned\x07\xc2\x9b2J'
printf 'return { id = "use.%s", title = "t", methodology = "use", resource = "cpu",\n  metric = "errors", collect = {}, run = function(ctx) end }\n' \
	"$name" >"$T/esc/use/$name.lua"
time_of "$SONDE" list --checks "$T/esc" --no-bpf --no-perf
is "$RC" 0 "list --checks with an escape sequence in a file name: exit 0 ($ERR)"
ok "list: the check is listed, as text" grep -aq '^use\.cpu-x?\]0;pwned??2J ' "$T/out.txt"
ok "list: no control character reaches the terminal" \
	perl -e 'local $/; my $s = <STDIN>; utf8::decode($s) or exit 1;
		exit($s =~ /[\x00-\x09\x0b-\x1f\x7f-\x9f]/ ? 1 : 0)' <"$T/out.txt"

done_testing
