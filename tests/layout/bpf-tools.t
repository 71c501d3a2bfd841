#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The table of BPF tools (core/trace/tools.h) is the one list of them: each
# tool of it has bpf/<tool>.bpf.c, bpf/<tool>.h and core/trace/<tool>.c (which
# defines trace_<tool> named "<tool>") and a section in docs/bpf-tools.md;
# none of those exists without its line in the table; `sonde list` shows
# exactly the table's tools, in its order; core/trace/README.md names every
# file of the folder.
. tests/lib/tap.sh

TABLE=core/trace/tools.h
DOC=docs/bpf-tools.md

# The Makefile reads the table with the same expression.
mapfile -t TOOLS < <(sed -n 's/^TRACE_TOOL(\([a-z0-9_]*\))$/\1/p' "$TABLE")
ok "the table lists tools" [ "${#TOOLS[@]}" -gt 0 ]
is "$(grep '^TRACE_TOOL' "$TABLE" | grep -cv '^TRACE_TOOL([a-z0-9_]*)$')" 0 \
	"every TRACE_TOOL line of the table is one tool, as the Makefile reads it"
is "$(printf '%s\n' "${TOOLS[@]}" | sort | uniq -d | tr '\n' ' ')" "" "no tool twice in the table"

# BPF programs that are not tools of the window (the task iterator): the
# Makefile's BPF_ITERS line names them; each has bpf/<name>.bpf.c,
# bpf/<name>.h and core/trace/<name>.c, and no line in the table.
mapfile -t ITERS < <(sed -n 's/^BPF_ITERS := //p' Makefile | tr ' ' '\n' | sed '/^$/d')

in_table() {
	local t
	for t in "${TOOLS[@]}"; do
		[ "$t" = "$1" ] && return 0
	done
	return 1
}

is_iter() {
	local t
	for t in "${ITERS[@]}"; do
		[ "$t" = "$1" ] && return 0
	done
	return 1
}

for t in "${ITERS[@]}"; do
	missing=""
	for f in "bpf/$t.bpf.c" "bpf/$t.h" "core/trace/$t.c"; do
		[ -f "$f" ] || missing="$missing $f"
	done
	is "$missing" "" "iterator $t: bpf/$t.bpf.c, bpf/$t.h and core/trace/$t.c exist"
	ok "iterator $t: not also a tool of the table" eval '! in_table "$t"'
done

# The "### <tool>" sections of the doc's "## The tools".
mapfile -t SECTIONS < <(awk '/^## / { in_tools = ($0 == "## The tools") }
	in_tools && /^### / { sub(/^### /, ""); print }' "$DOC")
ok "$DOC has a \"## The tools\" part with sections" [ "${#SECTIONS[@]}" -gt 0 ]

for t in "${TOOLS[@]}"; do
	missing=""
	for f in "bpf/$t.bpf.c" "bpf/$t.h" "core/trace/$t.c"; do
		[ -f "$f" ] || missing="$missing $f"
	done
	is "$missing" "" "$t: bpf/$t.bpf.c, bpf/$t.h and core/trace/$t.c exist"
	ok "$t: core/trace/$t.c defines trace_$t named \"$t\"" \
		grep -q "^const struct trace_tool trace_$t = {" "core/trace/$t.c"
	ok "$t: its .name is \"$t\"" grep -q "^	\.name = \"$t\",$" "core/trace/$t.c"
	found=0
	for s in "${SECTIONS[@]}"; do
		[ "$s" = "$t" ] && found=1
	done
	ok "$t: $DOC has a section \"### $t\"" [ "$found" = 1 ]
done

# Nothing of a tool without its line in the table.
orphans=""
for f in bpf/*.bpf.c; do
	t=$(basename "$f" .bpf.c)
	in_table "$t" || is_iter "$t" || orphans="$orphans $f"
done
for f in bpf/*.h; do
	t=$(basename "$f" .h)
	case "$t" in sonde.bpf | vmlinux) continue ;; esac
	in_table "$t" || is_iter "$t" || orphans="$orphans $f"
done
for f in core/trace/*.c; do
	t=$(basename "$f" .c)
	if grep -q '^const struct trace_tool trace_' "$f" && ! in_table "$t"; then
		orphans="$orphans $f"
	fi
done
for s in "${SECTIONS[@]}"; do
	in_table "$s" || orphans="$orphans $DOC:### $s"
done
is "$orphans" "" "no tool file or doc section without its line in $TABLE"

# The folder's README names every file of it.
unlisted=""
for f in core/trace/*.[ch]; do
	grep -qF "$(basename "$f")" core/trace/README.md || unlisted="$unlisted $f"
done
is "$unlisted" "" "core/trace/README.md names every file of core/trace"

if [ -x "$SONDE" ]; then
	listed=$("$SONDE" list --no-bpf 2>/dev/null | sed -n 's/^bpf\.\([a-z0-9_]*\) .*/\1/p')
	is "$(echo $listed)" "${TOOLS[*]}" "sonde list shows every tool of the table, in its order"
else
	skip "sonde list" "no sonde binary at $SONDE (make sonde)"
fi

done_testing
