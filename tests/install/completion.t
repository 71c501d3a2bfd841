#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shell completion (core/cmd/completion.c): bash through bash-completion's own
# functions (_init_completion, _filedir), zsh through its _describe/_files
# interface, and a real TAB in an interactive bash and zsh in tmux (with a
# hostile --checks DIR whose words are shell code: never run). Every option of
# every command's --help completes from a prefix: an option added to a table
# is covered here without a line added.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
BC=/usr/share/bash-completion/bash_completion
[ -r "$BC" ] || skip_all "bash-completion is not installed (make deps)"

T=$(mktemp -d)
TMUX_SOCK=$T/tmux.sock
cleanup() {
	tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/bin" "$T/b" "$T/checks/use"
ln -s "$SONDE" "$T/bin/sonde"
export PATH="$T/bin:$PATH"
"$SONDE" completion bash >"$T/sonde.bash"

# bash: COMP_* as bash sets them for LINE (words broken at blanks and at '=', as
# COMP_WORDBREAKS does), the function called, COMPREPLY printed one a line.
cat >"$T/comp.sh" <<'EOF'
source /usr/share/bash-completion/bash_completion
source "$1"
line=$2
COMP_LINE=$line
COMP_POINT=${#line}
COMP_WORDS=()
w=""
for ((i = 0; i < ${#line}; i++)); do
	c=${line:i:1}
	if [[ $c == " " ]]; then
		[[ -n $w ]] && COMP_WORDS+=("$w")
		w=""
	elif [[ $c == "=" ]]; then
		[[ -n $w ]] && COMP_WORDS+=("$w")
		COMP_WORDS+=("=")
		w=""
	else
		w+=$c
	fi
done
COMP_WORDS+=("$w")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
_sonde sonde "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}" | sort
EOF
comp() { bash --norc --noprofile "$T/comp.sh" "$T/sonde.bash" "$1" 2>&1; }
# has LINE WORD...: completing LINE offers every WORD
has() {
	local line=$1 got
	shift
	got=$(comp "$line")
	for w in "$@"; do
		ok "'$line<TAB>' offers '$w'" grep -qxF -- "$w" <<<"$got"
	done
}

# ---- the issue's two cases, then the rest ----
has "sonde r" run redact
is "$(comp "sonde r" | wc -l)" 2 "'sonde r<TAB>': run and redact only"
is "$(comp "sonde run --w")" "--window" "'sonde run --w<TAB>': --window"
has "sonde " run analyze verify redact diff show list explain config completion help version
has "sonde run --fail-on " warn crit
has "sonde run --color=" auto always never
has "sonde run --color=al" always
has "sonde analyze x --color " auto always never
has "sonde run --priority " low normal
has "sonde run --methodology " use workload drilldown
has "sonde run --tag " default
has "sonde run --check use.cpu-s" use.cpu-saturation
has "sonde run -c workload.process-w" workload.process-who
has "sonde run --set use.cpu-saturation.warn_r" use.cpu-saturation.warn_runnable=1.5
has "sonde explain use.disk-" use.disk-utilization use.disk-saturation use.disk-errors
has "sonde completion " bash zsh
has "sonde config " run analyze diff list
has "sonde help " run analyze
has "sonde list --" --checks --no-bpf --no-perf --json --config --help
# A --checks DIR earlier on the line: its checks complete too.
cat >"$T/checks/use/my-check.lua" <<'EOF'
return { id = "use.my-check", title = "mine", methodology = "use", resource = "cpu",
  metric = "errors", collect = {}, run = function(ctx) end }
EOF
has "sonde run --checks $T/checks --check use.my" use.my-check
is "$(comp "sonde run --check use.my")" "" "without --checks it does not"
# A hostile --checks DIR: a check id (from its file name) and a --set default
# that are shell code. Completing them must not run it (compgen -W would: it
# expands $(...)), and each goes on the line quoted, inert. The code, if it
# ran, would create a file in the shell's directory, $T.
mkdir -p "$T/evil/use"
cat >"$T/evil/use/zz\$(touch pwned-id).lua" <<'LUA'
return { id = "use.zz$(touch pwned-id)", title = "evil", methodology = "use", resource = "cpu",
  metric = "errors", collect = {}, run = function(ctx) end,
  args = { who = { type = "string", default = "$(touch pwned-set)", help = "x" } } }
LUA
# A title with an escape sequence (it would retitle the terminal), a file name with a newline.
mkdir -p "$T/ctl/use"
cat >"$T/ctl/use/zzesc.lua" <<'LUA'
return { id = "use.zzesc", title = "a title \27]2;retitled\7 and more", methodology = "use",
  resource = "cpu", metric = "errors", collect = {}, run = function(ctx) end }
LUA
cat >"$T/ctl/use/zznl"$'\n'":files.lua" <<'LUA'
return { id = "use.zznl\n:files", title = "two lines", methodology = "use",
  resource = "cpu", metric = "errors", collect = {}, run = function(ctx) end }
LUA
evil() { (cd "$T" && comp "$1"); }
is "$(evil "sonde run --checks $T/evil --check use.zz\$")" 'use.zz\$\(touch\ pwned-id\)' \
	"a check id that is shell code is offered quoted"
is "$(evil "sonde run --checks $T/evil --set use.zz\$")" \
	'use.zz\$\(touch\ pwned-id\).who=\$\(touch\ pwned-set\)' "a --set default that is shell code too"
ok "... and completing them ran none of it" test ! -e "$T/pwned-id" -a ! -e "$T/pwned-set"
is "$("$SONDE" completion complete -- sonde run --checks "$T/ctl" --check use.zze)" \
	"use.zzesc$(printf '\t')a title " "a description ends before its first control character"
is "$("$SONDE" completion complete -- sonde run --checks "$T/ctl" --check use.zzn)" "" \
	"a check id with a newline is not offered (it would be two lines, one a directive)"
# Files: directories for DIR, bundles for BUNDLE (and directories: extracted bundles).
touch "$T/b/one.tar.xz" "$T/b/two.tar.gz" "$T/b/notes.txt" "$T/b/plain.tar"
mkdir "$T/b/extracted"
has "sonde run --out $T/b/" "$T/b/extracted"
is "$(comp "sonde run --out $T/b/" | grep -c 'one.tar.xz')" 0 "--out DIR: no file offered"
has "sonde diff $T/b/" "$T/b/one.tar.xz" "$T/b/two.tar.gz" "$T/b/extracted"
is "$(comp "sonde diff $T/b/" | grep -c notes.txt)" 0 "a bundle argument: not notes.txt"
is "$(comp "sonde diff $T/b/" | grep -c plain.tar)" 0 \
	"nor a plain .tar (sonde reads no uncompressed tar: bundle/bundle.h)"
has "sonde diff $T/b/one.tar.xz $T/b/t" "$T/b/two.tar.gz"
has "sonde analyze $T/b/o" "$T/b/one.tar.xz"
has "sonde run --config $T/b/n" "$T/b/notes.txt"
is "$(comp "sonde bogus ")" "" "an unknown command: nothing"

# Every option of every command's --help completes from its prefix.
mapfile -t CMDS < <("$SONDE" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p')
for c in "${CMDS[@]}"; do
	for o in $("$SONDE" "$c" --help 2>/dev/null |
		sed -nE 's/^  (-[A-Za-z], |    )(--[a-z][a-z-]*).*/\2/p'); do
		prefix=${o:0:4}
		ok "sonde $c ${prefix}<TAB> offers $o" grep -qxF -- "$o" <<<"$(comp "sonde $c $prefix")"
	done
done

# The build's and the install's script is the one the binary prints.
if [ -f build/completion/sonde.bash ]; then
	ok "build/completion/sonde.bash is 'sonde completion bash'" cmp -s build/completion/sonde.bash "$T/sonde.bash"
else
	skip "build/completion/sonde.bash" "not built (make completion)"
fi

# ---- zsh: the script's answers through zsh's completion interface ----
if command -v zsh >/dev/null; then
	"$SONDE" completion zsh >"$T/_sonde"
	zcomp() { # WORD...: the candidates zsh's _describe gets, or the _files call
		zsh -f -c '
			_describe() { local a=${@[-1]}; print -rl -- ${(P)a} }
			_files() { print -r -- "_files $*" }
			words=("${@:2}"); CURRENT=$#words
			source "$1"' zcomp "$T/_sonde" "$@" 2>&1
	}
	is "$(zcomp sonde r | cut -d: -f1 | sort | tr '\n' ' ')" "redact run " "zsh: sonde r<TAB>: run and redact"
	ok "zsh: each with its description" grep -q '^run:observe this host' <<<"$(zcomp sonde r)"
	is "$(zcomp sonde run --w | cut -d: -f1)" "--window" "zsh: sonde run --w<TAB>: --window"
	is "$(zcomp sonde run --color= | cut -d: -f1 | tr '\n' ' ')" '--color=auto --color=always --color=never ' \
		"zsh: --color=<TAB> (one word in zsh): the choices, with the prefix"
	is "$(zcomp sonde run --out '')" "_files -/" "zsh: --out DIR: directories"
	ok "zsh: a bundle: files by extension" grep -q "^_files -g .*tar.xz" <<<"$(zcomp sonde diff '')"
	ok "zsh: a colon in a candidate is escaped for _describe" \
		test "$(zcomp sonde explain use.cpu-sat)" = 'use.cpu-saturation:CPU saturation'
else
	skip "zsh completion" "zsh is not installed (make deps)"
fi

# ---- a real TAB, in an interactive bash, in tmux ----
if command -v tmux >/dev/null; then
	cat >"$T/rc" <<EOF
PS1='\$ '
export PATH="$T/bin:\$PATH"
source $BC
source $T/sonde.bash
EOF
	tmux -S "$TMUX_SOCK" new-session -d -x 200 -y 40 "bash --rcfile $T/rc -i"
	screen() { tmux -S "$TMUX_SOCK" capture-pane -p; }
	wait_for() { # TEXT: until the screen shows it (5 s)
		for _ in $(seq 50); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
		return 1
	}
	wait_for '$ '
	tmux -S "$TMUX_SOCK" send-keys 'sonde r' Tab Tab
	ok "a real TAB: 'sonde r' TAB TAB lists run and redact" wait_for 'redact'
	ok "a real TAB: ... and run" sh -c "tmux -S '$TMUX_SOCK' capture-pane -p | grep -Eq '(^| )run( |$)'"
	tmux -S "$TMUX_SOCK" send-keys C-u C-l
	tmux -S "$TMUX_SOCK" send-keys 'sonde run --w' Tab
	ok "a real TAB: 'sonde run --w' TAB becomes 'sonde run --window '" wait_for 'sonde run --window'
	tmux -S "$TMUX_SOCK" send-keys C-u C-l
	tmux -S "$TMUX_SOCK" send-keys 'sonde run --fail-on c' Tab
	ok "a real TAB: '--fail-on c' TAB becomes '--fail-on crit'" wait_for '--fail-on crit'
	tmux -S "$TMUX_SOCK" send-keys C-u C-l
	# The hostile --checks DIR above, at a real TAB, in bash and in zsh: the words
	# are inserted quoted and nothing runs. The shells run in $T, where the code
	# would create its files.
	tmux -S "$TMUX_SOCK" send-keys -l "cd $T"
	tmux -S "$TMUX_SOCK" send-keys Enter C-l
	tmux -S "$TMUX_SOCK" send-keys -l "sonde run --checks $T/evil --set use.zz"
	tmux -S "$TMUX_SOCK" send-keys Tab
	ok "a real TAB in bash: the hostile --set word is inserted quoted" \
		wait_for 'use.zz\$\(touch\ pwned-id\).who=\$\(touch\ pwned-set\)'
	tmux -S "$TMUX_SOCK" send-keys C-u C-l
	tmux -S "$TMUX_SOCK" send-keys -l "sonde explain --checks $T/evil use.zz"
	tmux -S "$TMUX_SOCK" send-keys Tab
	ok "a real TAB in bash: the hostile check id too" wait_for 'use.zz\$\(touch\ pwned-id\)'
	ok "a real TAB in bash: none of their code ran" test ! -e "$T/pwned-id" -a ! -e "$T/pwned-set"
	tmux -S "$TMUX_SOCK" send-keys C-u C-l
	if command -v zsh >/dev/null; then
		rm -f "$T/pwned-id" "$T/pwned-set" # zsh's own verdict, whatever bash did
		mkdir -p "$T/zfunc"
		"$SONDE" completion zsh >"$T/zfunc/_sonde"
		cat >"$T/.zshrc" <<EOF
PS1='%% '
export PATH="$T/bin:\$PATH"
fpath=($T/zfunc \$fpath)
autoload -U compinit && compinit -u -D
EOF
		tmux -S "$TMUX_SOCK" new-window -c "$T" "ZDOTDIR=$T zsh -i"
		wait_for '% '
		tmux -S "$TMUX_SOCK" send-keys -l "sonde run --checks $T/evil --set use.zz"
		tmux -S "$TMUX_SOCK" send-keys Tab
		ok "a real TAB in zsh: the hostile --set word is inserted quoted" \
			wait_for 'use.zz\$\(touch\ pwned-id\).who=\$\(touch\ pwned-set\)'
		tmux -S "$TMUX_SOCK" send-keys C-u C-l
		tmux -S "$TMUX_SOCK" send-keys -l "sonde explain --checks $T/evil use.zz"
		tmux -S "$TMUX_SOCK" send-keys Tab
		ok "a real TAB in zsh: the hostile check id too" wait_for 'use.zz\$\(touch\ pwned-id\)'
		ok "a real TAB in zsh: none of their code ran" test ! -e "$T/pwned-id" -a ! -e "$T/pwned-set"
	else
		skip "a real TAB in zsh" "zsh is not installed (make deps)"
	fi
else
	skip "a real TAB in bash" "tmux is not installed (make deps)"
fi
done_testing
