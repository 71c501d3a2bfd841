#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The conventions of a command-line tool: --color=auto|always|never and
# NO_COLOR (on a terminal, through script(1)), --fail-on naming on stderr the
# finding that tripped it, and --keep N (retention) removing only this host's
# older bundles, with their redaction maps, never the new one.
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

# ---- --keep N ----
host=$(cat /proc/sys/kernel/hostname | sed 's/[^A-Za-z0-9.-]/_/g')
O=$T/keep
mkdir -p "$O"
for t in 20200101T000000Z 20200102T000000Z 20200103T000000Z 20200104T000000Z-1; do
	touch "$O/sonde-$host-$t.tar.xz"
done
touch "$O/sonde-$host-20200101T000000Z.redaction-map.json"
touch "$O/sonde-other$host-20190101T000000Z.tar.xz" "$O/sonde-$host-x-20190101T000000Z.tar.xz"
touch "$O/sonde-$host-notatime.tar.xz" "$O/unrelated.tar.xz"
ln -s /etc/hostname "$O/sonde-$host-20180101T000000Z.tar.xz"
timeout 60 "$SONDE" run --window 1 --interval 1 --no-bpf --no-perf --no-progress --out "$O" --keep 3 \
	--check use.cpu-utilization >"$T/out" 2>"$T/err"
is "$?" 0 "run --keep 3: exit 0"
new=$(sed -n 's/^Bundle: //p' "$T/out")
ok "the new bundle is there" test -f "$new"
ok "it says what it removed" grep -q '^Retention (--keep 3): 2 older bundles removed$' "$T/out"
ls "$O" | sort >"$T/left"
for f in "sonde-$host-20200104T000000Z-1.tar.xz" "sonde-$host-20200103T000000Z.tar.xz" \
	"sonde-other$host-20190101T000000Z.tar.xz" "sonde-$host-x-20190101T000000Z.tar.xz" \
	"sonde-$host-notatime.tar.xz" "unrelated.tar.xz" "sonde-$host-20180101T000000Z.tar.xz"; do
	ok "kept: $f" grep -qxF "$f" "$T/left"
done
for f in "sonde-$host-20200101T000000Z.tar.xz" "sonde-$host-20200102T000000Z.tar.xz" \
	"sonde-$host-20200101T000000Z.redaction-map.json"; do
	ok "removed: $f" sh -c "! grep -qxF '$f' '$T/left'"
done
# The new bundle is kept even when its name sorts before the others (a clock set back).
touch "$O/sonde-$host-29990101T000000Z.tar.xz"
timeout 60 "$SONDE" run --window 1 --interval 1 --no-bpf --no-perf --no-progress --out "$O" --keep 1 \
	--check use.cpu-utilization >"$T/out" 2>"$T/err"
new=$(sed -n 's/^Bundle: //p' "$T/out")
ok "--keep 1 with a newer name: the new bundle stays" test -f "$new"
is "$(find "$O" -type f -name "sonde-$host-[0-9]*Z*.tar.xz" | wc -l)" 1 "... and only it, of this host's (the link is not a bundle sonde wrote)"
done_testing
