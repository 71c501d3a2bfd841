#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# Sizes a newcomer can read (issue 19, docs/architecture.md): no C file of
# core/ over 1,000 lines, core/main.c under 150, and no function over 120
# lines unless the comment right above it has a sentence starting "Long:"
# that says why. A function is what starts at a line beginning with its
# signature and ends at the first "}" in column 0 (kernel style).
use strict;
use warnings;

require "./tests/lib/tap.pl";

my @files = sort(glob("core/*/*.[ch]"), glob("core/main.c"));
my (@big, @long);
for my $f (@files) {
	open(my $fh, '<', $f) or die "$f: $!";
	my @lines = <$fh>;
	close $fh;
	push @big, "$f: " . scalar(@lines) . " lines" if @lines > 1000;
	next unless $f =~ /\.c$/;
	my ($sig, $start);
	for my $i (0 .. $#lines) {
		my $l = $lines[$i];
		$sig = $i if !defined $start && $l =~ /^[A-Za-z_].*\(/ && $l !~ /;\s*$/;
		if ($l =~ /^\{/ && defined $sig) {
			$start = $i;
		} elsif ($l =~ /^\}/ && defined $start) {
			my $len = $i - $start + 1;
			if ($len > 120) {
				# the comment block that ends right above the signature
				my $j = $sig - 1;
				my $comment = '';
				while ($j >= 0 && $lines[$j] =~ m{^\s*(/\*|\*|//)}) {
					$comment = $lines[$j] . $comment;
					$j--;
				}
				(my $name = $lines[$sig]) =~ s/\s+$//;
				push @long, sprintf("%s:%d: %d lines, and no \"Long:\" comment says why: %s",
						    $f, $sig + 1, $len, $name)
					unless $comment =~ /\bLong:/;
			}
			undef $start;
			undef $sig;
		}
	}
}
ok_line(!@big, "no C file of core/ is over 1,000 lines", @big);
my $main = -f 'core/main.c' ? do { open(my $fh, '<', 'core/main.c'); my @l = <$fh>; scalar @l } : 0;
ok_line($main > 0 && $main < 150, "core/main.c is a page (under 150 lines; it has $main)");
ok_line(!@long, "no function over 120 lines without a \"Long:\" comment saying why", @long);
done_testing();
