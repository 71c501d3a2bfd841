#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# One helper per job, each tested (issue 28): every module of checks/lib has
# its unit test tests/unit/test_<module>.lua, listed in the cases that
# tests/unit/test_checks_lib.c runs, and a row in checks/lib/README.md (what
# it is for, so a newcomer finds it before writing it again).
use strict;
use warnings;

require "./tests/lib/tap.pl";

open(my $fh, '<', "tests/unit/test_checks_lib.c") or die "test_checks_lib.c: $!";
my $c = do { local $/; <$fh> };
close $fh;
open($fh, '<', "checks/lib/README.md") or die "checks/lib/README.md: $!";
my $readme = do { local $/; <$fh> };
close $fh;

my @mods = map { m{checks/lib/(.+)\.lua$} ? $1 : () } sort glob("checks/lib/*.lua");
ok_line(@mods > 0, "checks/lib has modules");
for my $m (@mods) {
	my $t = "tests/unit/test_$m.lua";
	ok_line(-f $t && index($c, "\"$t\"") >= 0, "$m.lua: $t exists and test_checks_lib.c runs it",
		-f $t ? "not in the cases of tests/unit/test_checks_lib.c" : "no $t");
	ok_line(($readme =~ /^\| \Q$m\E\.lua \|/m) ? 1 : 0, "$m.lua: a row in checks/lib/README.md");
}
done_testing();
