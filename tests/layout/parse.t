#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# Text becomes numbers in one layer (issue 28, item 1; core/util/parse.h):
# /proc and /sys text, and the records sonde composes in its captures, are
# parsed by core/util/parse_*.c, bounded and unit-tested against real and
# truncated input. The collectors (core/collect) and the Lua bindings
# (core/lua) only convert parsed structs, so neither calls sscanf, strto*
# or ato* (which read past a cut line and take "12x" for 12).
#
# The allow-list below names the few calls that read no such text: each by
# file and enclosing function, with the reason. An entry that matches no call
# any more fails too, so the list cannot grow stale.
use strict;
use warnings;

require "./tests/lib/tap.pl";

my %allowed = (
	# `sonde run --set CHECK.ARG=VALUE`: a number typed on the command line
	'core/lua/catalog.c catalog__set_arg' => 1,
	# SONDE_BENCH_CHECK_JOBS, the environment bench/tasks.sh sets
	'core/lua/engine.c engine__jobs' => 1,
);

my $call = qr/\b(sscanf|vsscanf|strto(?:l|ll|ul|ull|d|f|ld|imax|umax)|ato(?:i|l|ll|f))\s*\(/;
my (@bad, %used);
my @files = sort(glob("core/lua/*.[ch]"), glob("core/collect/*.[ch]"));
for my $f (@files) {
	open(my $fh, '<', $f) or die "$f: $!";
	local $/;
	my $src = <$fh>;
	close $fh;
	my @orig = split /\n/, $src, -1;
	# comments and string literals are no calls (keep the newlines: line numbers)
	$src =~ s{/\*.*?\*/}{(my $c = $&) =~ s/[^\n]//g; $c}gse;
	$src =~ s{//[^\n]*}{}g;
	$src =~ s{"(?:\\.|[^"\\\n])*"}{""}g;
	my $fn = '(file scope)';
	my $n = 0;
	for my $l (split /\n/, $src, -1) {
		$n++;
		$fn = $1 if $l =~ /^[A-Za-z_][^;]*?\b(\w+)\s*\(/;
		next unless $l =~ $call;
		my ($what, $key) = ($1, "$f $fn");
		if ($allowed{$key}) {
			$used{$key} = 1;
			next;
		}
		(my $t = $orig[$n - 1]) =~ s/^\s+//;
		push @bad, "$f:$n: $what in $fn(): $t";
	}
}
ok_line(@files > 20, "core/lua and core/collect have their C files (" . scalar(@files) . ")");
ok_line(!@bad, "core/lua and core/collect make no numbers of text themselves (a parser of "
	. "core/util/parse_*.c does)", @bad);
my @stale = grep { !$used{$_} } sort keys %allowed;
ok_line(!@stale, "every allow-list entry still names a call", @stale);
done_testing();
