#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The conventions of a command-line tool: --color=auto|always|never and
# NO_COLOR (on a terminal, through script(1)), --fail-on naming on stderr the
# finding that tripped it. (--keep N, retention: tests/cli/keep.t.)
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ESC=$(printf '\033')

# A bundle to analyze: a golden case with findings (no live window needed).
CASE=$TOP/tests/checks/use.cpu-saturation/hog
[ -d "$CASE/raw" ] || skip_all "no golden case at $CASE"
colored() { grep -q "$ESC\[" "$1"; }

# ---- colour ----
"$SONDE" analyze "$CASE" >"$T/out" 2>&1
ok "auto, not a terminal: no colour" sh -c "! grep -q '$ESC\[' '$T/out'"
"$SONDE" analyze "$CASE" --color always >"$T/out" 2>&1
ok "--color always: colour even into a file" colored "$T/out"
NO_COLOR=1 "$SONDE" analyze "$CASE" --color always >"$T/out" 2>&1
ok "--color always wins over NO_COLOR" colored "$T/out"
if command -v script >/dev/null; then
	script -qec "'$SONDE' analyze '$CASE'" /dev/null >"$T/out" 2>&1
	ok "auto on a terminal: colour" colored "$T/out"
	NO_COLOR=1 script -qec "'$SONDE' analyze '$CASE'" /dev/null >"$T/out" 2>&1
	ok "auto on a terminal with NO_COLOR=1: none" sh -c "! grep -q '$ESC\[[0-9;]*m' '$T/out'"
	NO_COLOR= script -qec "'$SONDE' analyze '$CASE'" /dev/null >"$T/out" 2>&1
	ok "NO_COLOR set but empty: colour (no-color.org)" colored "$T/out"
	script -qec "'$SONDE' analyze '$CASE' --color never" /dev/null >"$T/out" 2>&1
	ok "--color never on a terminal: none" sh -c "! grep -q '$ESC\[[0-9;]*m' '$T/out'"
	TERM=dumb script -qec "'$SONDE' analyze '$CASE'" /dev/null >"$T/out" 2>&1
	ok "TERM=dumb: none" sh -c "! grep -q '$ESC\[[0-9;]*m' '$T/out'"
else
	skip "colour on a terminal" "script(1) is not installed (util-linux)"
fi
"$SONDE" analyze "$CASE" --color sometimes >/dev/null 2>"$T/err"
is "$?" 2 "--color sometimes: exit 2"
ok "it names the choices: $(cat "$T/err")" grep -q "expected auto, always or never" "$T/err"

# ---- --fail-on names the finding ----
worst=$(jq -r '.findings[0] | "\(.check) is \(.severity)"' "$CASE/snapshot.json")
"$SONDE" analyze "$CASE" --fail-on warn >/dev/null 2>"$T/err"
is "$?" 3 "analyze --fail-on warn: exit 3"
ok "stderr names the first finding at the level: $(cat "$T/err")" grep -qF -- "--fail-on warn: $worst: " "$T/err"
is "$(wc -l <"$T/err")" 1 "one line"
"$SONDE" analyze "$CASE" --json --fail-on warn >"$T/f.json" 2>"$T/err"
is "$?" 3 "with --json too: exit 3"
ok "... and the line on stderr, stdout JSON only" sh -c "jq -e . '$T/f.json' >/dev/null && grep -q -- '--fail-on warn' '$T/err'"

done_testing
