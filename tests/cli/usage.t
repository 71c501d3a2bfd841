#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The command line: exit statuses (0 done, 2 usage, 3 --fail-on), one-line
# usage errors that start with "sonde: " and name the offending value, help
# and version, --fail-on with a user check, and the bundle a run leaves.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"

T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
mkdir -p "$T/out" "$T/ro"
touch "$T/regular-file"

# usage_error NAME NEEDLE CMD...: exit 2, nothing on stdout, one stderr line
# starting with "sonde: " that contains NEEDLE (a fixed string).
usage_error() {
	local name=$1 needle=$2 rc
	shift 2
	timeout -k 2 30 "$@" >"$T/stdout" 2>"$T/stderr"
	rc=$?
	is "$rc" 2 "$name: exits 2"
	is "$(wc -l <"$T/stderr")" 1 "$name: one line on stderr"
	ok "$name: it names '$needle': $(head -c 200 "$T/stderr")" \
		grep -qF -- "$needle" "$T/stderr"
	ok "$name: it starts with 'sonde: '" grep -q '^sonde: ' "$T/stderr"
	is "$(cat "$T/stdout")" "" "$name: nothing on stdout"
}

S=$SONDE
R=(--window 1 --interval 0.5 --no-progress)

# ---- no arguments ----
timeout 10 "$S" >"$T/stdout" 2>"$T/stderr"
is "$?" 2 "no arguments: exits 2"
ok "no arguments: prints the usage" grep -q 'usage: sonde' "$T/stdout" "$T/stderr"

# ---- one-line usage errors ----
usage_error "unknown command" "'bogus'" "$S" bogus
usage_error "unknown flag" "--bogus" "$S" run --bogus --out "$T/out" "${R[@]}"
usage_error "unexpected argument" "stray" "$S" run stray --out "$T/out" "${R[@]}"
usage_error "--window 0" "--window 0" "$S" run --window 0 --out "$T/out"
usage_error "--window -1" "--window -1" "$S" run --window -1 --out "$T/out"
usage_error "--window abc" "'abc'" "$S" run --window abc --out "$T/out"
usage_error "--window inf" "'inf'" "$S" run --window inf --out "$T/out"
usage_error "--window 4000 (above the maximum)" "--window 4000" "$S" run --window 4000 --out "$T/out"
usage_error "--window without a value" "--window" "$S" run --out "$T/out" --window
usage_error "--interval 0" "--interval 0" "$S" run --interval 0 --window 1 --out "$T/out"
usage_error "interval longer than window" "--interval 2" "$S" run --window 1 --interval 2 --out "$T/out"
usage_error "--out /nonexistent" "/nonexistent" "$S" run --out /nonexistent "${R[@]}"
usage_error "--out a regular file" "$T/regular-file" "$S" run --out "$T/regular-file" "${R[@]}"
usage_error "--fail-on bogus" "'bogus'" "$S" run --fail-on bogus --out "$T/out" "${R[@]}"
usage_error "--check no.such" "no.such" "$S" run --check no.such --out "$T/out" "${R[@]}"
usage_error "--set unknown argument" "nope" \
	"$S" run --set use.cpu-saturation.nope=1 --out "$T/out" "${R[@]}"
usage_error "--set not a number" "'abc'" \
	"$S" run --set use.cpu-saturation.warn_runnable=abc --out "$T/out" "${R[@]}"
usage_error "--set on no such check" "no.such" "$S" run --set no.such.x=1 --out "$T/out" "${R[@]}"
usage_error "analyze without a directory" "analyze" "$S" analyze
usage_error "analyze a missing directory" "$T/missing" "$S" analyze "$T/missing"
usage_error "analyze a directory without captures" "$T/out" "$S" analyze "$T/out"
# list takes --checks only: the message must name the option, not its value.
usage_error "list --window (an option list does not take)" "--window" "$S" list --window 1

# --out a read-only directory: root bypasses modes, so run as nobody.
chmod 755 "$T"
chmod 555 "$T/ro"
if [ "$(id -u)" != 0 ]; then
	usage_error "--out a read-only dir" "$T/ro" "$S" run --out "$T/ro" "${R[@]}"
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups \
	test -x "$S" 2>/dev/null; then
	usage_error "--out a read-only dir (as uid 65534)" "$T/ro" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$S" run --out "$T/ro" "${R[@]}"
else
	skip "--out a read-only dir" "running as root without setpriv (or $S not executable by uid 65534): root bypasses file modes"
fi
is "$(ls -A "$T/out")" "" "no usage error left anything in --out"

# ---- version and help ----
v=$("$S" --version)
is "$?" 0 "--version exits 0"
ok "--version prints 'sonde X.Y.Z' (got '$v')" grep -Eqx 'sonde [0-9]+\.[0-9]+\.[0-9]+' <<<"$v"
is "$("$S" version)" "$v" "'sonde version' prints the same"

"$S" --help >"$T/help" 2>"$T/stderr"
is "$?" 0 "--help exits 0"
ok "--help lists the run command" grep -Eq '^ +run ' "$T/help"
ok "--help mentions --window or points to 'sonde run --help'" \
	grep -Eq -- '--window|run --help' "$T/help"
for args in "run --help" "help run" "run -h"; do
	# shellcheck disable=SC2086
	"$S" $args >"$T/help" 2>"$T/stderr"
	is "$?" 0 "sonde $args exits 0"
	ok "sonde $args mentions --window" grep -q -- '--window' "$T/help"
	is "$(cat "$T/stderr")" "" "sonde $args prints nothing on stderr"
done
for c in analyze verify redact diff show list; do
	"$S" help "$c" >"$T/help"
	ok "sonde help $c prints its usage" grep -q "^usage: sonde $c" "$T/help"
	"$S" "$c" --help | cmp -s - "$T/help"
	ok "sonde $c --help prints the same" test $? = 0
done

# ---- options belong to their command ----
# Every command listed by --help (help and version take no options), and every
# option each one's --help lists ("  -w, --window SECONDS   ..." or
# "      --no-bpf           ..."): a new option or command is covered here
# without a line added.
mapfile -t CMDS < <("$S" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p' |
	grep -vx 'help\|version')
ok "sonde --help lists the commands (${CMDS[*]})" test "${#CMDS[@]}" -ge 7
declare -A TAKES ARG
for c in "${CMDS[@]}"; do
	while read -r short long arg; do
		TAKES[$c --$long]=1
		ARG[--$long]=$arg
		if [ "$short" != - ]; then
			TAKES[$c -$short]=1
			ARG[-$short]=$arg
		fi
	done < <("$S" "$c" --help | sed -nE \
		's/^  (-([A-Za-z]), |    )--([a-z][a-z-]*)( ([A-Z][A-Z.=]*|[a-z]+(\|[a-z]+)+))?( .*)?$/\2 \3 \5/p' |
		sed 's/^ /- /')
done
ok "the commands' --help list options (${#ARG[@]} forms)" test "${#ARG[@]}" -ge 20

# a value each option's parser takes, by the name of its argument
value_for() {
	case $1 in
	"") ;;
	*'|'*) echo "${1%%|*}" ;;
	SECONDS | PCT | N) echo 1 ;;
	LEVEL) echo warn ;;
	FILE) echo /dev/null ;;
	*) echo "$T" ;;
	esac
}

# With --help after it, an option a command takes ends in its help (exit 0),
# and one it does not take is a usage error before --help is reached.
for c in "${CMDS[@]}"; do
	for opt in "${!ARG[@]}"; do
		val=$(value_for "${ARG[$opt]}")
		timeout -k 2 30 "$S" "$c" "$opt" ${val:+"$val"} --help >"$T/stdout" 2>"$T/stderr"
		rc=$?
		if [ -n "${TAKES[$c $opt]:-}" ]; then
			ok "sonde $c takes $opt${val:+ $val}" \
				test "$rc" = 0 -a ! -s "$T/stderr" -a -s "$T/stdout"
		else
			ok "sonde $c refuses $opt: exit 2, one line naming both: $(head -c 120 "$T/stderr")" \
				test "$rc" = 2 -a ! -s "$T/stdout" -a "$(wc -l <"$T/stderr")" = 1 -a \
				"$(grep -cF -e "'sonde $c' does not take $opt " "$T/stderr")" = 1
		fi
	done
done
# The issue's examples, as a user types them.
usage_error "verify --no-bpf" "'sonde verify' does not take --no-bpf" "$S" verify --no-bpf "$T/b"
usage_error "verify --max-overhead 3" "'sonde verify' does not take --max-overhead" \
	"$S" verify --max-overhead 3 "$T/b"
usage_error "verify --window 3" "'sonde verify' does not take --window" "$S" verify --window 3 "$T/b"
usage_error "a flag given a value" "--json" "$S" show --json=yes "$T/b"
usage_error "--timeout without a value" "--timeout needs a value" "$S" run --timeout

# ---- --fail-on with a user check that always warns ----
C=$T/checks
mkdir -p "$C/use"
cat >"$C/use/always-warn.lua" <<'EOF'
--- Always one metric over its warn threshold (and under crit).
return {
  id = "use.always-warn", title = "always warn",
  methodology = "use", resource = "cpu", metric = "errors",
  tags = { "default" }, collect = {},
  run = function(ctx, args)
    ctx:metric("x", 5, { warn = 1, crit = 100 })
  end,
}
EOF

"$S" run --checks "$C" --check use.always-warn "${R[@]}" --out "$T/out" --json \
	>"$T/f.json" 2>"$T/stderr"
is "$?" 0 "without --fail-on a warn finding exits 0"
is "$(jq -r '.checks[] | select(.id == "use.always-warn") | .status' "$T/f.json")" warn \
	"the user check ends warn"
is "$(jq -r '.findings | length' "$T/f.json")" 1 "findings.json holds one finding"
is "$(jq -r '.findings[0].severity' "$T/f.json")" warn "the finding is a warn"

"$S" run --checks "$C" --check use.always-warn "${R[@]}" --out "$T/out" --fail-on warn \
	>/dev/null 2>&1
is "$?" 3 "--fail-on warn with a warn finding exits 3"
"$S" run --checks "$C" --check use.always-warn "${R[@]}" --out "$T/out" --fail-on crit \
	>/dev/null 2>&1
is "$?" 0 "--fail-on crit with only a warn finding exits 0"

# The same over the captures of the first bundle: analyze honours --fail-on too.
first=$(ls "$T"/out/sonde-*.tar.xz | head -1)
mkdir -p "$T/x"
tar -xJf "$first" -C "$T/x"
"$S" analyze "$T/x" --checks "$C" --check use.always-warn --fail-on warn >/dev/null 2>&1
is "$?" 3 "analyze --fail-on warn exits 3"
"$S" analyze "$T/x" --checks "$C" --check use.always-warn --fail-on crit >/dev/null 2>&1
is "$?" 0 "analyze --fail-on crit exits 0"
sed -e 's/always-warn/always-crit/g' -e 's/ctx:metric("x", 5,/ctx:metric("x", 500,/' \
	"$C/use/always-warn.lua" >"$C/use/always-crit.lua"
"$S" analyze "$T/x" --checks "$C" --check use.always-crit --fail-on crit >/dev/null 2>&1
is "$?" 3 "analyze --fail-on crit with a crit finding exits 3"
"$S" analyze "$T/x" --checks "$C" --check use.always-crit --fail-on warn >/dev/null 2>&1
is "$?" 3 "analyze --fail-on warn with a crit finding exits 3"

# ---- the bundle ----
B=$T/bundle
mkdir -p "$B"
"$S" run --check use.cpu-errors "${R[@]}" --out "$B" --json >"$T/f.json" 2>"$T/stderr"
is "$?" 0 "a run exits 0"
jqt() { jq -e "$1" "$2" >/dev/null 2>&1; }
ok "it prints findings.json on stdout" jqt '.schema and .checks' "$T/f.json"
n=$(ls -A "$B" | grep -c '^sonde-.*\.tar\.xz$')
is "$n" 1 "exactly one sonde-*.tar.xz in --out"
is "$(ls -A "$B" | grep -v '^sonde-.*\.tar\.xz$')" "" "nothing else in --out (no .sonde-* leftovers)"
bundle=$(ls "$B"/sonde-*.tar.xz 2>/dev/null | head -1)
is "$(stat -c %a "$bundle" 2>/dev/null)" 600 "the bundle is mode 0600"
tar -tJf "$bundle" >"$T/list" 2>/dev/null
for f in findings.json manifest.json report.md report.html raw/sonde.cap; do
	ok "the bundle holds $f" grep -Eq "^(\./)?$f\$" "$T/list"
done
ok "the bundle is named in the stderr line" grep -qF "$(basename "$bundle")" "$T/stderr"

done_testing
