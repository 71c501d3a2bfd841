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
