#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The terminal explains itself and degrades cleanly: after the verdict, one
# line per kind of known unknown with how to get it (here: --no-bpf, so
# "run without --no-bpf"); on a terminal the progress line and colours, on
# a dumb terminal (TERM=dumb, under script(1)) and on a pipe neither an
# escape sequence nor a carriage return that redraws a line.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v script >/dev/null || skip_all "script (util-linux) is not installed (make deps)"

T=$(mktemp -d /tmp/sonde-terminal.XXXXXX)
trap 'rm -rf "$T"' EXIT
RUN=(run -w 2 -i 1 --no-drilldown --no-bpf -o "$T")

# on a pipe
"$SONDE" "${RUN[@]}" >"$T/pipe.out" 2>"$T/pipe.err"
is "$?" 0 "a run on a pipe"
ok "pipe: no escape sequence" sh -c "! grep -q \$(printf '\\033') '$T/pipe.out' '$T/pipe.err'"
ok "pipe: no carriage return" sh -c "! grep -q \$(printf '\\r') '$T/pipe.out' '$T/pipe.err'"
ok "after the verdict: the kind of unknown --no-bpf makes, and how to get it" \
	grep -qE '^ +[0-9]+ BPF tools off: run without --no-bpf$' "$T/pipe.out"
ok "the count of unknowns says which are which" \
	grep -qE '^[0-9]+ checks?; [0-9]+ known unknowns? \(metrics this host cannot show; each reason is in the report\):$' \
	"$T/pipe.out"

# on a terminal that can redraw: the progress line, and colours
TERM=xterm script -qec "'$SONDE' ${RUN[*]}" "$T/xterm.typescript" >/dev/null 2>&1
ok "xterm: colours and the progress line's erase-to-end" grep -q $'\033\\[' "$T/xterm.typescript"

# on a dumb terminal: the same text, no control sequence
TERM=dumb script -qec "'$SONDE' ${RUN[*]}" "$T/dumb.typescript" >/dev/null 2>&1
ok "dumb: the summary is there" grep -q '^Verdict: ' "$T/dumb.typescript"
ok "dumb: no escape sequence" sh -c "! grep -q \$(printf '\\033') '$T/dumb.typescript'"
# script(1) writes each newline as \r\n: only a \r before something else redraws
ok "dumb: no carriage return that redraws a line" \
	sh -c "! grep -q \$(printf '\\r')'[^\$]' '$T/dumb.typescript'"

NO_COLOR=1 TERM=xterm script -qec "'$SONDE' ${RUN[*]} --no-progress" "$T/nocolor.typescript" \
	>/dev/null 2>&1
ok "NO_COLOR: no colour" sh -c "! grep -q \$(printf '\\033') '$T/nocolor.typescript'"

done_testing
