# SPDX-License-Identifier: GPL-2.0-or-later
# What the benchmarks share, sourced by bench/*.sh after they set BENCH_NAME:
# die, bench_start (the sonde binary, the commands needed, the temporary
# directory $T, and the traps that run the script's own bench_cleanup) and
# wait_links.
TOP=$(cd "$(dirname "$0")/.." && pwd)
SONDE=${SONDE:-$TOP/sonde}

die() {
	echo "$BENCH_NAME: $*" >&2
	exit 1
}

bench_start() { # COMMAND...
	local tool
	[ -x "$SONDE" ] || die "no sonde binary at $SONDE (make sonde)"
	for tool in "$@"; do
		command -v "$tool" >/dev/null || die "$tool is not installed (make deps)"
	done
	T=$(mktemp -d "/tmp/sonde-$BENCH_NAME.XXXXXX") || die "mktemp failed"
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

# Wait until process $1 holds $2 BPF links (its probes are attached); 0 when it does.
wait_links() {
	local n
	for _ in $(seq 300); do
		n=$(ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'anon_inode:bpf_link')
		[ "${n:-0}" -ge "$2" ] && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}
