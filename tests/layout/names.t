#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# A check's name says where it stands (issue 28, item 4): the file
# checks/<methodology>/<name>.lua declares id "<methodology>.<name>" and a
# resource and metric from its methodology's vocabulary, and its name is
#   <resource>-<metric>   the check of that cell (use.cpu-saturation,
#                         workload.process-who, drilldown.disk-who), or
#   <resource>-<view>     another view of the same resource, where a view is
#                         one of the families below, each placed in the cell
#                         of the metric it declares.
# docs/writing-a-check.md ("The file") states the same rule.
use strict;
use warnings;

require "./tests/lib/tap.pl";

# The views, what each looks at, and the metric (cell) its checks declare.
my %views = (
	'runout'              => 'utilization', # time to exhaustion of a finite resource, from its trend
	'waits'               => 'saturation',  # thread time blocked on the resource (thread states)
	'listen'              => 'saturation',  # the listen queues of the network's sockets
	'utilization-percpu'  => 'utilization', # a per-CPU view of the CPUs' utilization
);

my @files = grep { !m{^checks/lib/} } sort glob("checks/*/*.lua");
ok_line(@files > 0, "checks/ has checks");
my %seen_view;
for my $f (@files) {
	my ($meth, $name) = $f =~ m{^checks/([^/]+)/(.+)\.lua$};
	open(my $fh, '<', $f) or die "$f: $!";
	my $src = do { local $/; <$fh> };
	close $fh;
	my ($id) = $src =~ /^\s*id = "([^"]+)"/m;
	my ($res) = $src =~ /\bresource = "([^"]+)"/;
	my ($met) = $src =~ /\bmetric = "([^"]+)"/;
	my $ok = defined $id && $id eq "$meth.$name" && defined $res && defined $met;
	my $why = $ok ? "" : "id, resource or metric missing or not \"$meth.$name\"";
	if ($ok && $name ne "$res-$met") {
		my $view = index($name, "$res-") == 0 ? substr($name, length($res) + 1) : undef;
		if (!defined $view) {
			$ok = 0;
			$why = "the name does not start with its resource \"$res-\"";
		} elsif (!exists $views{$view}) {
			$ok = 0;
			$why = "\"$view\" is neither its metric \"$met\" nor a view of tests/layout/names.t";
		} elsif ($views{$view} ne $met) {
			$ok = 0;
			$why = "a $view check declares metric \"$views{$view}\", not \"$met\"";
		} else {
			$seen_view{$view}++;
		}
	}
	ok_line($ok, "$f: <resource>-<metric> or <resource>-<view>", $why);
}
for my $v (sort keys %views) {
	ok_line($seen_view{$v}, "the view \"$v\" names a check (or leaves this list)");
}
done_testing();
