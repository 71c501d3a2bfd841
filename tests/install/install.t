#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make install and make uninstall (build-aux/install.mk) into a staging
# DESTDIR, for two PREFIXes: the binary, every man page, both completions,
# the systemd units (naming where this install put the binary and the audit
# script), the audit script, the docs and the config file; the installed
# binary and pages work from there; an operator's changed config survives a
# second install and an uninstall; uninstall removes everything else.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v scdoc >/dev/null || skip_all "scdoc is not installed (make deps)"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

for PREFIX in /usr/local /opt/sonde; do
	D=$T/d$(echo "$PREFIX" | tr / _)
	make -s install DESTDIR="$D" PREFIX="$PREFIX" >"$T/log" 2>&1
	ok "make install PREFIX=$PREFIX DESTDIR=...: exit 0 ($(tail -1 "$T/log"))" test $? = 0
	P=$D$PREFIX
	ok "$PREFIX: bin/sonde, executable" test -x "$P/bin/sonde"
	is "$("$P/bin/sonde" --version)" "$("$SONDE" --version)" "$PREFIX: the installed binary runs"
	for page in docs/man/*.scd; do
		name=$(basename "$page" .scd)
		ok "$PREFIX: man page $name" test -f "$P/share/man/man${name##*.}/$name"
	done
	if command -v man >/dev/null; then
		MANWIDTH=100 man -M "$P/share/man" sonde-run 2>/dev/null | col -b >"$T/man.txt"
		ok "$PREFIX: man -M ... sonde-run shows the page" grep -q -- '--window SECONDS' "$T/man.txt"
		MANWIDTH=100 man -M "$P/share/man" 5 sonde.conf 2>/dev/null | col -b >"$T/man.txt"
		ok "$PREFIX: man 5 sonde.conf shows the page" grep -q 'PRECEDENCE' "$T/man.txt"
	fi
	ok "$PREFIX: bash completion" cmp -s "$P/share/bash-completion/completions/sonde" <("$SONDE" completion bash)
	ok "$PREFIX: zsh completion" cmp -s "$P/share/zsh/vendor-completions/_sonde" <("$SONDE" completion zsh)
	ok "$PREFIX: the audit script" test -x "$P/libexec/sonde/sonde-audit"
	U=$P/lib/systemd/system
	ok "$PREFIX: sonde-audit.service" test -f "$U/sonde-audit.service"
	ok "$PREFIX: sonde-audit.timer" test -f "$U/sonde-audit.timer"
	ok "$PREFIX: the service runs this install's sonde" grep -qx "Environment=SONDE=$PREFIX/bin/sonde" "$U/sonde-audit.service"
	ok "$PREFIX: ... through this install's audit script" \
		grep -qx "ExecStart=$PREFIX/libexec/sonde/sonde-audit" "$U/sonde-audit.service"
	ok "$PREFIX: no /usr/local path left in the units" \
		sh -c "! grep -h '/usr/local' '$U'/sonde-audit.* | grep -qv '^#' || [ '$PREFIX' = /usr/local ]"
	for doc in README.md docs/*.md; do
		ok "$PREFIX: doc $(basename "$doc")" test -f "$P/share/doc/sonde/$(basename "$doc")"
	done
	ok "$PREFIX: the config file goes to /etc, whatever the prefix" cmp -s "$D/etc/sonde/sonde.conf" contrib/sonde.conf
	"$P/bin/sonde" config --config "$D/etc/sonde/sonde.conf" >/dev/null 2>&1
	ok "$PREFIX: the installed config file reads" test $? = 0

	# An operator's config is theirs: not overwritten, not removed.
	echo "[run]" >>"$D/etc/sonde/sonde.conf"
	make -s install DESTDIR="$D" PREFIX="$PREFIX" >"$T/log" 2>&1
	ok "$PREFIX: a second install keeps a changed config" grep -q '^\[run\]$' <(tail -1 "$D/etc/sonde/sonde.conf")
	make -s uninstall DESTDIR="$D" PREFIX="$PREFIX" >"$T/log" 2>&1
	ok "make uninstall PREFIX=$PREFIX: exit 0" test $? = 0
	is "$(find "$D" -type f -o -type l | sort | tr '\n' ' ')" "$D/etc/sonde/sonde.conf " \
		"$PREFIX: uninstall leaves only the changed config"
	cp contrib/sonde.conf "$D/etc/sonde/sonde.conf"
	make -s uninstall DESTDIR="$D" PREFIX="$PREFIX" >/dev/null 2>&1
	is "$(find "$D" -type f | wc -l)" 0 "$PREFIX: an unchanged config is removed with the rest"
done
done_testing
