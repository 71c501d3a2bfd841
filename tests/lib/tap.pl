# SPDX-License-Identifier: GPL-2.0-or-later
# TAP helpers for the Perl tests (run through prove from the top of the tree):
#   require "./tests/lib/tap.pl"; ok_line(COND, NAME, DIAG...); ...; done_testing();
use strict;
use warnings;

my ($tap_n, $tap_failed) = (0, 0);

# ok_line COND NAME DIAG...: one test; the diagnostics are shown when it fails
sub ok_line {
	my ($ok, $name, @diag) = @_;
	$tap_n++;
	print(($ok ? "ok" : "not ok") . " $tap_n - $name\n");
	if (!$ok) {
		print "#   $_\n" for @diag;
		$tap_failed++;
	}
}

# skip_line REASON: one skipped test, counted and visible
sub skip_line {
	$tap_n++;
	print "ok $tap_n # SKIP $_[0]\n";
}

sub done_testing {
	print "1..$tap_n\n";
	exit($tap_failed ? 1 : 0);
}

1;
