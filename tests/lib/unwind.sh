# SPDX-License-Identifier: GPL-2.0-or-later
# What the live tests of the profile's CFI unwinding share (tests/live/unwind*.t).
# Usage: . tests/lib/tap.sh; . tests/lib/unwind.sh; unwind_needs TOOL...

# unwind_needs TOOL...: skip the whole file unless the tools, sonde, root (BPF)
# and x86_64 (the registers the profile copies) are here
unwind_needs() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
	done
	[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
	[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF (running as uid $(id -u))"
	[ "$(uname -m)" = x86_64 ] || skip_all "CFI unwinding is implemented for x86_64 only"
}

# unwind_chain_c FILE: a C program whose hot loop is four calls deep
# (main > sonde_one > sonde_two > sonde_three > sonde_leaf), forever
unwind_chain_c() {
	cat >"$1" <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void sonde_leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}
__attribute__((noinline)) void sonde_three(unsigned long n) { sonde_leaf(n); sink++; }
__attribute__((noinline)) void sonde_two(unsigned long n) { sonde_three(n); sink++; }
__attribute__((noinline)) void sonde_one(unsigned long n) { sonde_two(n); sink++; }
int main(void) { for (;;) sonde_one(100000000UL); return 0; }
C
}

# unwind_as_nobody CMD: CMD as a local user (nobody) in its own process group,
# killed whole at exit; its pid in UNWIND_PID
unwind_as_nobody() {
	setsid setpriv --reuid=65534 --regid=65534 --clear-groups "$@" &
	UNWIND_PID=$!
	PGROUPS+=("$UNWIND_PID")
}
