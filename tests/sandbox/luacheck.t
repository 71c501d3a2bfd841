#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# luacheck over every Lua file sonde embeds (checks/ with checks/lib,
# methodologies/, ranking/), with the tree's .luacheckrc: only the globals the
# sandbox gives, no global set, no unused local, require or value.
. tests/lib/tap.sh

command -v luacheck >/dev/null ||
	skip_all "luacheck is not installed (Debian package lua-check: make deps)"
cd "$TOP" || exit 1
[ -f .luacheckrc ] || skip_all "no .luacheckrc at the top of the tree"

for dir in checks methodologies ranking; do
	out=$(luacheck --config .luacheckrc --no-color --formatter plain --codes "$dir" 2>&1)
	rc=$?
	ok "luacheck finds nothing in $dir/" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
done

done_testing
