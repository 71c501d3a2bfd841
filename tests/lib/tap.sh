# SPDX-License-Identifier: GPL-2.0-or-later
# TAP helpers for the shell tests (run through prove from the top of the tree).
# Usage: . tests/lib/tap.sh; ok COND-CMD... ; is GOT WANT NAME; skip_all REASON; done_testing

TAP_N=0
TAP_FAILED=0
SONDE=${SONDE:-$PWD/sonde}
TOP=${TOP:-$PWD}
# The tests run sonde with its defaults: a host's /etc/sonde/sonde.conf (an
# output directory, thresholds) must not change what they see. tests/cli/config.t
# sets its own.
export SONDE_CONFIG=${SONDE_CONFIG:-/dev/null}

# ok NAME CMD...: passes when CMD exits 0
ok() {
	local name=$1
	shift
	TAP_N=$((TAP_N + 1))
	if "$@"; then
		echo "ok $TAP_N - $name"
	else
		echo "not ok $TAP_N - $name"
		echo "#   command: $*"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

# is GOT WANT NAME
is() {
	TAP_N=$((TAP_N + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $TAP_N - $3"
	else
		echo "not ok $TAP_N - $3"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

# skip NAME REASON: one skipped test, counted and visible
skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N # SKIP $1: $2"
}

# skip_all REASON: the whole file cannot run on this host
skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

diag() {
	echo "# $*"
}

done_testing() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

# tap_check_file DIR NAME BODY: a check DIR/use/NAME.lua (id use.NAME, the CPU
# errors cell, collecting nothing) whose run() is the Lua lines BODY, then the
# metric reached_end = 1, for the tests of the sandbox and the engine
tap_check_file() {
	mkdir -p "$1/use"
	cat >"$1/use/$2.lua" <<EOF
--- test check: $2
return {
  id = "use.$2", title = "test $2",
  methodology = "use", resource = "cpu", metric = "errors",
  tags = { "default" }, collect = {},
  run = function(ctx, args)
$3
    ctx:metric("reached_end", 1)
  end,
}
EOF
}

# Background processes a test starts (PIDS+=($!)) are killed at exit, and the
# test's directory $T removed (kept with KEEP=1); tap_cleanup_extra, when the
# test defines it, runs first. Process groups (PGROUPS+=($!) after `setsid CMD &`,
# whose pid is its group's) are killed whole. Call after T is set.
PIDS=()
PGROUPS=()
tap_cleanup() {
	declare -F tap_cleanup_extra >/dev/null && tap_cleanup_extra
	for g in "${PGROUPS[@]}"; do
		kill -- -"$g" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "$KEEP" ] || rm -rf "$T"
}
tap_kill_at_exit() {
	trap tap_cleanup EXIT
	trap 'exit 130' INT TERM
}
