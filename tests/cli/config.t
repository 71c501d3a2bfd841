#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The config file and the environment (core/cmd/conf.c, man sonde.conf): read
# into the same fields as the command line, by the same option tables;
# precedence command line > environment > file > defaults, lists replaced by a
# higher source but KEY=VALUE lists merged by key; `sonde config` says where
# every value came from; every bad line is one usage error naming file and line.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
S=$SONDE
unset SONDE_CONFIG
for v in $(env | sed -n 's/^\(SONDE_[A-Z_]*_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

# value CMD OPTION [ARGS...]: the value `sonde config CMD` prints for OPTION, and where from
value() {
	local cmd=$1 opt=$2
	shift 2
	"$S" config "$cmd" "$@" |
		OPT=$opt perl -ne 'if (/^(?:# )?\Q$ENV{OPT}\E =\s*(.*?)\s*# ([^#]*?)\s*$/) { print "$1|$2\n"; exit }'
}

# ---- the default file is optional; a named one is not ----
"$S" config run --config "$T/missing.conf" >"$T/out" 2>"$T/err"
is "$?" 2 "--config FILE that does not exist: exit 2"
ok "it names the file: $(cat "$T/err")" grep -q "$T/missing.conf: No such file" "$T/err"
SONDE_CONFIG=$T/missing.conf "$S" config run >/dev/null 2>"$T/err"
is "$?" 2 "SONDE_CONFIG naming a missing file: exit 2"
if [ ! -e /etc/sonde/sonde.conf ]; then
	"$S" config run >"$T/out" 2>"$T/err"
	is "$?" 0 "no /etc/sonde/sonde.conf: the defaults, exit 0"
	ok "and sonde config says the file is absent" grep -q '^# file: /etc/sonde/sonde.conf (absent' "$T/out"
else
	skip "no /etc/sonde/sonde.conf" "this host has one"
	skip "sonde config says the file is absent" "this host has one"
fi
is "$(value run window --config /dev/null)" "10|default" "an empty file: window is the default"

# ---- precedence ----
cat >"$T/c.conf" <<'EOF'
# a comment
; another

[run]
window = 5   # five seconds
out = /var/tmp#not-a-comment
tag = proc
tag = tracing
set = use.cpu-saturation.warn_runnable=2
set = use.cpu-saturation.crit_runnable=4
redact = yes
no-bpf = no
keep = 3
color = never

[diff]
fail-on = warn
EOF
is "$(value run window --config "$T/c.conf")" "5|$T/c.conf:5" "the file sets window, and says its line"
is "$(value run out --config "$T/c.conf")" "/var/tmp#not-a-comment|$T/c.conf:6" \
	"a '#' without a blank before it is part of the value"
is "$(value run redact --config "$T/c.conf")" "yes|$T/c.conf:11" "a flag set by yes"
is "$(value run keep --config "$T/c.conf")" "3|$T/c.conf:13" "a count"
is "$(value diff fail-on --config "$T/c.conf")" "warn|$T/c.conf:17" "another command's section"
is "$(value analyze fail-on --config "$T/c.conf")" "|default: not set" \
	"a section sets its own command only"
is "$(SONDE_RUN_WINDOW=3 value run window --config "$T/c.conf")" "3|environment SONDE_RUN_WINDOW" \
	"the environment over the file"
is "$(SONDE_RUN_NO_BPF=yes value run no-bpf --config "$T/c.conf")" "yes|environment SONDE_RUN_NO_BPF" \
	"an option with dashes: SONDE_RUN_NO_BPF"
"$S" config run --config "$T/c.conf" >"$T/out"
is "$(grep -c '^tag = ' "$T/out")" 2 "the file's list: two tags"
SONDE_RUN_TAG="default io" "$S" config run --config "$T/c.conf" >"$T/out"
is "$(grep '^tag = ' "$T/out" | sed 's/ *#.*//' | tr '\n' ' ')" "tag = default tag = io " \
	"the environment replaces the file's list"
SONDE_RUN_SET="use.cpu-saturation.warn_runnable=9" "$S" config run --config "$T/c.conf" >"$T/out"
is "$(grep -c '^set = ' "$T/out")" 3 "KEY=VALUE lists add up across sources"
ok "each item says where it came from" \
	grep -q '^set = use.cpu-saturation.warn_runnable=9 *# environment SONDE_RUN_SET' "$T/out"

# The command line over all: a real run (the window it asked for is in findings.json).
mkdir -p "$T/out1"
cat >"$T/run.conf" <<EOF
[run]
window = 30
interval = 0.5
out = $T/out1
tag = no-such-tag
EOF
SONDE_RUN_INTERVAL=0.25 timeout 60 "$S" run --config "$T/run.conf" --window 1 --no-bpf --no-perf \
	--no-progress --tag default --json >"$T/f.json" 2>"$T/err"
is "$?" 0 "a run with a config file, the environment and the command line"
is "$(jq -r '.window.requested_seconds' "$T/f.json")" 1 "--window on the command line wins over the file"
is "$(jq -r '.window.interval_seconds' "$T/f.json")" 0.25 "the environment wins over the file"
is "$(ls "$T/out1" | grep -c '^sonde-.*\.tar\.xz$')" 1 "the file's out is used (nothing else set it)"
ok "--tag on the command line replaced the file's tag (checks ran)" \
	test "$(jq '.checks | length' "$T/f.json")" -gt 0

# --set: the file's thresholds stay, the command line's win per key.
cat >"$T/set.conf" <<'EOF'
[analyze]
set = use.cpu-saturation.warn_runnable=0.001
set = use.cpu-saturation.crit_runnable=1000
EOF
B=$(ls "$T/out1"/sonde-*.tar.xz)
"$S" analyze "$B" --config "$T/set.conf" --check use.cpu-saturation --json >"$T/a.json" 2>/dev/null
is "$(jq -r '.checks[0].metrics[] | select(.name == "runnable_per_cpu") | .warn' "$T/a.json")" 0.001 \
	"analyze: the file's threshold applies"
"$S" analyze "$B" --config "$T/set.conf" --check use.cpu-saturation --json \
	--set use.cpu-saturation.warn_runnable=7 >"$T/a.json" 2>/dev/null
is "$(jq -r '.checks[0].metrics[] | select(.name == "runnable_per_cpu") | [.warn, .crit] | @csv' "$T/a.json")" \
	"7,1000" "the command line's --set wins for its key, the file's other key stays"

# ---- bad lines: exit 2, one line on stderr naming file and line ----
bad() { # NAME NEEDLE LINE TEXT
	local name=$1 needle=$2 line=$3
	printf '%b' "$4" >"$T/bad.conf"
	for cmd in "config" "run --window 1" "list"; do
		# shellcheck disable=SC2086
		timeout 20 "$S" $cmd --config "$T/bad.conf" >"$T/out" 2>"$T/err"
		local rc=$?
		ok "$name: sonde ${cmd%% *} exits 2 (got $rc)" test "$rc" = 2
		is "$(wc -l <"$T/err")" 1 "$name: sonde ${cmd%% *}: one line on stderr"
		ok "$name: sonde ${cmd%% *}: names $T/bad.conf:$line and '$needle': $(cat "$T/err")" \
			grep -qF -- "$T/bad.conf:$line: " "$T/err"
		ok "$name: sonde ${cmd%% *}: says what is wrong" grep -qF -- "$needle" "$T/err"
		is "$(cat "$T/out")" "" "$name: sonde ${cmd%% *}: nothing on stdout"
	done
}
bad "a value run refuses" "window 'abc': not a number of seconds" 2 '[run]\nwindow = abc\n'
bad "a value out of range" "window 4000: at most 3600 seconds" 3 '# c\n[run]\nwindow = 4000\n'
bad "a bad choice" "'sometimes': expected auto, always or never" 2 '[run]\ncolor = sometimes\n'
bad "a flag given something else" "'maybe': expected yes or no" 2 '[run]\nredact = maybe\n'
bad "a negative count" "'-1': not a whole number" 2 '[run]\nkeep = -1\n'
bad "an unknown option" "'sonde run' has no option 'bogus'" 2 '[run]\nbogus = 1\n'
bad "a test hook is not an option" "'sonde run' has no option 'root'" 2 '[run]\nroot = /\n'
bad "--config cannot be set" "has no option 'config'" 2 '[run]\nconfig = /x\n'
bad "an option of another command" "'sonde diff' has no option 'window'" 2 '[diff]\nwindow = 1\n'
bad "a line outside a section" "'window' is outside a section" 1 'window = 3\n'
bad "an unknown section" "[bogus]: not a command with options" 1 '[bogus]\n'
bad "a section without options" "[verify]: not a command with options" 1 '[verify]\n'
bad "an unterminated section" "a section is '[COMMAND]'" 1 '[run\n'
bad "a line without =" "expected 'OPTION = VALUE'" 2 '[run]\njust words\n'
bad "an empty value" "window: no value" 2 '[run]\nwindow =\n'
bad "a bad line in a later section" "'sonde list' has no option 'nope'" 4 '[run]\nwindow = 1\n[list]\nnope = 1\n'

printf '[run]\nwindow = 1\n\0\n' >"$T/nul.conf"
"$S" config --config "$T/nul.conf" >/dev/null 2>"$T/err"
is "$?" 2 "a NUL byte: exit 2"
ok "it says it is not a text file" grep -q "not a text file" "$T/err"
head -c 1100000 /dev/zero | tr '\0' '#' >"$T/big.conf"
"$S" config --config "$T/big.conf" >/dev/null 2>"$T/err"
is "$?" 2 "a file over 1 MiB: exit 2"
ok "it says it is too large" grep -q "larger than" "$T/err"
"$S" config --config "$T" >/dev/null 2>"$T/err"
is "$?" 2 "a directory as --config: exit 2 ($(cat "$T/err"))"
SONDE_RUN_WINDOW=abc "$S" run --config /dev/null >/dev/null 2>"$T/err"
is "$?" 2 "a bad environment value: exit 2"
ok "it names the variable: $(cat "$T/err")" grep -q "environment SONDE_RUN_WINDOW: 'abc'" "$T/err"

# ---- whose file it is: root takes no orders from a file another user can change ----
# The config file, the --checks DIR it names or the command line gives, and each
# check in it: owned by root or the user, writable by no one else, and so every
# directory above (a sticky one, /tmp, may be writable). As sshd's StrictModes.
# refused WHAT NEEDLE CMD...: exit 2, one line on stderr naming WHAT and why, nothing run
refused() {
	local what=$1 needle=$2
	shift 2
	timeout 20 "$S" "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	ok "$what: sonde $1 exits 2 (got $rc)" test "$rc" = 2
	is "$(wc -l <"$T/err")" 1 "$what: sonde $1: one line on stderr"
	ok "$what: sonde $1: says why: $(cat "$T/err")" grep -qF -- "$needle" "$T/err"
}
mkdir -p "$T/own"
printf '[run]\nwindow = 1\n[list]\nno-bpf = yes\n' >"$T/own/c.conf"
is "$(value run window --config "$T/own/c.conf")" "1|$T/own/c.conf:2" "root's own file, 0644: read"
chmod 0666 "$T/own/c.conf"
for cmd in config "run --window 1 --no-bpf --no-perf --out $T/own" list; do
	# shellcheck disable=SC2086
	refused "a world-writable config file" "$T/own/c.conf: writable by others (mode 0666): refused" \
		$cmd --config "$T/own/c.conf"
done
SONDE_CONFIG=$T/own/c.conf refused "one named by SONDE_CONFIG" "writable by others" list
is "$(ls "$T/own" | grep -c '^sonde-')" 0 "the refused run wrote no bundle"
chmod 0664 "$T/own/c.conf"
refused "a group-writable config file" "writable by its group (mode 0664)" list --config "$T/own/c.conf"
chmod 0644 "$T/own/c.conf"
chmod 0777 "$T/own"
refused "a config file in a world-writable directory" \
	"its directory $T/own is writable by others (mode 0777)" list --config "$T/own/c.conf"
chmod 0755 "$T/own"
ln -s "$T/own/c.conf" "$T/link.conf"
is "$(value run window --config "$T/link.conf")" "1|$T/link.conf:2" "a symlink to a good file: read"
# The checks: a --checks DIR another user owns, a check in it others may write.
mkdir -p "$T/uc/use"
printf '%s\n' 'return { id = "use.zz-mine", title = "mine", methodology = "use", resource = "cpu",' \
	'  metric = "errors", collect = {}, run = function(ctx) end }' >"$T/uc/use/zz-mine.lua"
printf '[list]\nchecks = %s\n' "$T/uc" >"$T/own/checks.conf"
ok "a --checks DIR of root's, from the file: its check is listed" \
	sh -c "'$S' list --config '$T/own/checks.conf' --no-bpf --no-perf | grep -q '^use.zz-mine '"
chmod 0646 "$T/uc/use/zz-mine.lua"
refused "a world-writable check (--checks on the command line)" \
	"$T/uc/use/zz-mine.lua: writable by others (mode 0646): refused" list --checks "$T/uc"
refused "... and from the file's checks =" "$T/uc/use/zz-mine.lua: writable by others" \
	list --config "$T/own/checks.conf"
chmod 0644 "$T/uc/use/zz-mine.lua"
printf '%s\n' 'return { id = "use.zz-linked", title = "linked", methodology = "use", resource = "cpu",' \
	'  metric = "errors", collect = {}, run = function(ctx) end }' >"$T/zz-linked.lua"
chmod 0666 "$T/zz-linked.lua"
ln -s "$T/zz-linked.lua" "$T/uc/use/zz-linked.lua"
refused "a check symlinked to a world-writable file" "$T/uc/use/zz-linked.lua: writable by others" \
	list --checks "$T/uc"
rm "$T/uc/use/zz-linked.lua"
if [ "$(id -u)" = 0 ]; then
	chown 65534:65534 "$T/own/c.conf"
	refused "another user's config file (0644)" "owned by uid 65534, not by root or uid 0" \
		list --config "$T/own/c.conf"
	chown 0:0 "$T/own/c.conf"
	chown 65534:65534 "$T/uc"
	refused "another user's --checks DIR" "--checks $T/uc: owned by uid 65534, not by root or uid 0" \
		run --checks "$T/uc" --window 1 --no-bpf --no-perf --out "$T/own"
	refused "... named by the config file" "--checks $T/uc: owned by uid 65534" \
		list --config "$T/own/checks.conf"
	is "$("$S" completion complete -- sonde run --checks "$T/uc" --check use.zz-m 2>&1)" "" \
		"... nor at a TAB: its checks do not complete"
	chown 0:0 "$T/uc"
	# As that user: its own file is its to trust, and root's too.
	if command -v setpriv >/dev/null &&
		setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$S"; then
		chmod 0755 "$T"
		cp "$T/own/c.conf" "$T/nobody.conf" && chown 65534:65534 "$T/nobody.conf"
		is "$(setpriv --reuid=65534 --regid=65534 --clear-groups "$S" config run \
			--config "$T/nobody.conf" | grep '^window')" \
			"window = 1                               # $T/nobody.conf:2" "a user's own file: read"
		is "$(setpriv --reuid=65534 --regid=65534 --clear-groups "$S" config run \
			--config "$T/own/c.conf" | grep -c '^window = 1 ')" 1 "root's file, by that user: read"
		chmod 0700 "$T"
	else
		skip "a user's own file" "no setpriv, or $S is not executable by uid 65534"
		skip "root's file, by that user" "no setpriv, or $S is not executable by uid 65534"
	fi
else
	skip "another user's files" "chown needs root"
fi

# ---- sonde config itself ----
"$S" config --config "$T/c.conf" >"$T/all"
is "$?" 0 "sonde config: exit 0"
for c in $("$S" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p'); do
	if "$S" "$c" --help 2>/dev/null | grep -Eq '^  (-[A-Za-z], |    )--[a-z]' &&
		[ "$c" != config ] && [ "$c" != completion ] &&
		"$S" "$c" --help | grep -E '^  (-[A-Za-z], |    )--' | grep -vq -- '--config'; then
		ok "sonde config has a [$c] section" grep -qx "\[$c\]" "$T/all"
	fi
done
# Every option --help lists (but --config) is a line of its section: one table.
for c in run analyze list diff; do
	for o in $("$S" "$c" --help | sed -nE 's/^  (-[A-Za-z], |    )--([a-z][a-z-]*).*/\2/p' | grep -vx config); do
		ok "sonde config [$c] has '$o'" \
			sh -c "sed -n '/^\[$c\]/,/^\$/p' '$T/all' | grep -Eq '^(# )?$o ='"
	done
done
# The output is a config file that gives the same values again.
"$S" config run --config "$T/c.conf" | sed 's/ *#.*//' >"$T/again.conf"
"$S" config run --config "$T/again.conf" >"$T/again.out" 2>"$T/err"
is "$?" 0 "sonde config's output reads back as a config file ($(head -1 "$T/err"))"
is "$(value run window --config "$T/again.conf")" "5|$T/again.conf:5" "with the same values"
"$S" config bogus >/dev/null 2>"$T/err"
is "$?" 2 "sonde config bogus: exit 2"
"$S" config verify >/dev/null 2>"$T/err"
is "$?" 2 "sonde config verify (no options): exit 2"
ok "it says why: $(cat "$T/err")" grep -q "no options" "$T/err"

# The shipped sample (contrib/sonde.conf) reads, and so does every example line uncommented.
"$S" config --config "$TOP/contrib/sonde.conf" >/dev/null 2>"$T/err"
is "$?" 0 "contrib/sonde.conf reads ($(cat "$T/err"))"
mkdir -p "$T/checks"
sed -E -e 's/^# ([a-z-]+ = )/\1/' -e "s|/etc/sonde/checks|$T/checks|" "$TOP/contrib/sonde.conf" >"$T/sample.conf"
"$S" config --config "$T/sample.conf" >/dev/null 2>"$T/err"
is "$?" 0 "contrib/sonde.conf with its examples uncommented reads ($(cat "$T/err"))"
done_testing
