#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The man pages (docs/man/*.scd, built by scdoc): one per command of
# `sonde --help`, and sonde(1) lists them all; every option a command's --help
# lists is in its page (with its short form and argument), and every option
# its page documents is one --help lists: a new option or command without its
# documentation fails here. Each page has an EXIT STATUS section, builds with
# scdoc and reads with man.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
M=docs/man
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# The options of a --help text or of a page, one "SHORT LONG ARG" a line, sorted.
from_help() {
	sed -nE 's/^  (-([A-Za-z]), |    )--([a-z][a-z-]*)( ([A-Z][A-Z.=]*|[a-z]+(\|[a-z]+)+))?( .*)?$/\2 \3 \5/p' |
		sed 's/^ /- /; s/ $/ -/' | sort
}
# scdoc: an option is a line "*-x*, *--name* _ARG_" or "*--name* _ARG_" (-h/--help is every command's).
from_page() {
	sed -nE 's/^\*(-([A-Za-z])\*, \*)?--([a-z][a-z-]*)\*( _([^_ ]+)_)?$/\2 \3 \5/p' "$1" |
		sed 's/^ /- /; s/ $/ -/' | grep -v ' help -$' | sort
}

mapfile -t CMDS < <("$SONDE" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p')
ok "sonde --help lists the commands (${#CMDS[*]})" test "${#CMDS[@]}" -ge 10
for c in "${CMDS[@]}"; do
	# help and version are sonde(1)'s, not commands with options of their own.
	if [ "$c" = help ] || [ "$c" = version ]; then
		ok "sonde(1) documents '$c'" grep -q "^\*$c\*" "$M/sonde.1.scd"
		continue
	fi
	page=$M/sonde-$c.1.scd
	if ! ok "sonde $c has a man page ($page)" test -f "$page"; then
		continue
	fi
	ok "sonde(1) lists '$c' among its commands" grep -q "^\*$c\*$" "$M/sonde.1.scd"
	ok "sonde(1) refers to sonde-$c(1)" grep -q "\*sonde-$c\*(1)" "$M/sonde.1.scd"
	ok "sonde-$c(1) names itself" grep -q "^sonde-$c(1)$" "$page"
	"$SONDE" "$c" --help | from_help >"$T/help"
	from_page "$page" >"$T/page"
	while read -r line; do
		ok "sonde-$c(1) documents '$line' of its --help" grep -qxF -- "$line" "$T/page"
	done <"$T/help"
	while read -r line; do
		ok "sonde $c --help lists '$line' of its man page" grep -qxF -- "$line" "$T/help"
	done <"$T/page"
	ok "sonde-$c(1) has an EXIT STATUS section" grep -q '^# EXIT STATUS$' "$page"
done
# Every page belongs to a command (or is sonde(1) or sonde.conf(5)).
for page in "$M"/*.scd; do
	name=$(basename "$page" .scd)
	case $name in
	sonde.1 | sonde.conf.5) continue ;;
	esac
	c=${name#sonde-}
	c=${c%.1}
	ok "$name is the page of a command sonde --help lists" grep -qxF -- "$c" <<<"$(printf '%s\n' "${CMDS[@]}")"
done
ok "sonde(1) has an EXIT STATUS section" grep -q '^# EXIT STATUS$' "$M/sonde.1.scd"
for s in 0 1 2 3; do
	ok "sonde(1)'s exit status $s" grep -q "^\*$s\*$" "$M/sonde.1.scd"
done
# sonde.conf(5) names the environment variables as conf.c reads them.
ok "sonde.conf(5) documents SONDE_<COMMAND>_<OPTION>" grep -qF 'SONDE\_<COMMAND>\_<OPTION>' "$M/sonde.conf.5.scd"

# Each page builds, and man shows it.
if command -v scdoc >/dev/null; then
	for page in "$M"/*.scd; do
		name=$(basename "$page" .scd)
		scdoc <"$page" >"$T/$name" 2>"$T/err"
		ok "scdoc builds $name ($(head -1 "$T/err"))" test $? = 0 -a -s "$T/$name"
		if command -v man >/dev/null; then
			MANWIDTH=100 man -l "$T/$name" 2>"$T/err" | col -b >"$T/$name.txt"
			ok "man shows $name ($(head -1 "$T/err"))" grep -q '^NAME' "$T/$name.txt"
		fi
	done
	ok "man sonde-run shows --window" grep -q -- '--window SECONDS' "$T/sonde-run.1.txt"
else
	skip "the pages build" "scdoc is not installed (make deps)"
fi
done_testing
