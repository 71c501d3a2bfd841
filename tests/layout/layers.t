#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# The layers of core/ (docs/architecture.md), checked on every build:
#
#   util <- collect <- perf <- trace <- lua <- report <- bundle <- run <- cmd <- main.c
#
# 1. includes: a file of core/<layer>/ includes headers of its own layer and
#    of the layers below only, always by their layer ("util/json.h"); the only
#    other includes allowed are system headers and, in core/trace/, a tool's
#    bpf/<tool>.h and generated build/ headers (skeletons, syscall names), and
#    in core/util/waits.c the syscall names (every layer names a thread's syscall).
# 2. calls: from the objects the build made, every symbol a file uses that
#    another file of core/ defines must be defined in the same or a lower
#    layer (this catches what an extern declaration would hide from 1).
# 3. loops: no cycle among the headers' includes, and none among the files'
#    calls (file A uses B and B, through any path, uses A), inside a layer too.
use strict;
use warnings;

my @layers = qw(util collect perf trace lua report bundle run cmd);
my %rank;
@rank{@layers} = 0 .. $#layers;
$rank{main} = scalar @layers;

require "./tests/lib/tap.pl";

sub layer_of {
	my ($path) = @_;
	return 'main' if $path =~ m{^core/main\.[ch]$};
	return $1 if $path =~ m{^core/([a-z]+)/[^/]+$} && exists $rank{$1};
	return undef;
}

my @files = sort(glob("core/*/*.[ch]"), glob("core/main.c"));
my @strays = grep { !defined layer_of($_) } @files;
ok_line(!@strays, "every C file of core/ is in a layer's folder", map { "not in a layer: $_" } @strays);

# Each layer's folder says what it owns, what it may include, and its files.
my @undocumented;
for my $l (@layers) {
	my $readme = "core/$l/README.md";
	if (!-f $readme) {
		push @undocumented, "core/$l has no README.md";
		next;
	}
	my $text = do { local $/; open(my $fh, '<', $readme) or die "$readme: $!"; <$fh> };
	# every file: the C sources and headers, and the assets beside them (report.css)
	for my $f (grep { -f $_ && !m{/README\.md$} } glob("core/$l/*")) {
		(my $b = $f) =~ s{.*/}{};
		(my $stem = $b) =~ s/\.[ch]$//;
		push @undocumented, "$readme does not name $b"
			unless index($text, $b) >= 0 || index($text, "$stem.c/.h") >= 0;
	}
	push @undocumented, "$readme: no \"May include\" line" unless $text =~ /may include/i;
}
my @odd = grep { -d $_ && !defined $rank{ (split m{/}, $_)[1] } } glob("core/*");
push @undocumented, map { "$_ is not a layer (docs/architecture.md)" } @odd;
ok_line(!@undocumented, "every layer's folder has a README.md naming its files", @undocumented);

# ---- 1. includes ----
my (@bad_inc, %hdr_edges);
for my $f (@files) {
	my $l = layer_of($f) // next;
	open(my $fh, '<', $f) or die "$f: $!";
	while (my $line = <$fh>) {
		next unless $line =~ /^\s*#\s*include\s+"([^"]+)"/;
		my $inc = $1;
		if ($inc =~ m{^([a-z]+)/[^/]+\.h$} && exists $rank{$1}) {
			my $il = $1;
			push @bad_inc, "$f:$.: includes $inc: $l may not include $il (a higher layer)"
				if $rank{$il} > $rank{$l};
			push @bad_inc, "$f:$.: includes $inc, which does not exist" unless -f "core/$inc";
			$hdr_edges{$f}{"core/$inc"} = 1 if $f =~ /\.h$/;
		} elsif ($l eq 'trace' && $inc !~ m{/} && (-f "bpf/$inc" || $inc =~ /\.skel\.h$|^syscall_names\.h$/)) {
			# a tool's shared types (bpf/<tool>.h) and generated headers
		} elsif ($f eq 'core/util/waits.c' && $inc eq 'syscall_names.h') {
			# the build host's syscall names, for every layer that names a thread's syscall
		} else {
			push @bad_inc, "$f:$.: includes \"$inc\": name headers of core/ by their layer (\"util/json.h\")";
		}
	}
	close $fh;
}
ok_line(!@bad_inc, "includes go downward only, each by its layer", @bad_inc);

# ---- loops: strongly connected components (Tarjan) ----
sub cycles {
	my ($edges) = @_;
	my (%index, %low, %on, @stack, @found);
	my $i = 0;
	my $visit;
	$visit = sub {
		my ($v) = @_;
		$index{$v} = $low{$v} = $i++;
		push @stack, $v;
		$on{$v} = 1;
		for my $w (sort keys %{ $edges->{$v} // {} }) {
			if (!exists $index{$w}) {
				$visit->($w);
				$low{$v} = $low{$w} if $low{$w} < $low{$v};
			} elsif ($on{$w}) {
				$low{$v} = $index{$w} if $index{$w} < $low{$v};
			}
		}
		if ($low{$v} == $index{$v}) {
			my @scc;
			while (1) {
				my $w = pop @stack;
				$on{$w} = 0;
				push @scc, $w;
				last if $w eq $v;
			}
			push @found, join(' <-> ', sort @scc) if @scc > 1;
		}
	};
	$visit->($_) for grep { !exists $index{$_} } sort keys %$edges;
	return @found;
}

my @hloops = cycles(\%hdr_edges);
ok_line(!@hloops, "no loop among the headers' includes", map { "loop: $_" } @hloops);

# ---- 2. and 3. calls, from the objects of the last build ----
my $build = $ENV{BUILD} // 'build';
my %obj_of_src;
for my $f (grep { /\.c$/ } @files) {
	(my $o = $f) =~ s{^core/}{$build/};
	$o =~ s/\.c$/.o/;
	$obj_of_src{$f} = $o;
}
my @missing = grep { !-f $obj_of_src{$_} } sort keys %obj_of_src;
if (@missing) {
	skip_line("calls: no objects for @missing[0 .. ($#missing < 2 ? $#missing : 2)] (make sonde first)");
	skip_line("loops among calls: no objects (make sonde first)");
} else {
	my (%def, %uses);
	for my $src (sort keys %obj_of_src) {
		my $o = $obj_of_src{$src};
		for (`nm --defined-only -g "$o"`) {
			my @w = split;
			$def{ $w[2] } = $src if @w == 3;
		}
		for (`nm -u "$o"`) {
			my @w = split;
			$uses{$src}{ $w[-1] } = 1 if @w;
		}
	}
	my (@up, %call_edges);
	for my $src (sort keys %uses) {
		for my $sym (sort keys %{ $uses{$src} }) {
			my $to = $def{$sym} // next;
			next if $to eq $src;
			$call_edges{$src}{$to} = 1;
			my ($a, $b) = (layer_of($src), layer_of($to));
			push @up, "$src calls $sym of $to: $a may not call into $b" if $rank{$b} > $rank{$a};
		}
	}
	ok_line(!@up, "calls go downward only", @up);
	my @cloops = cycles(\%call_edges);
	ok_line(!@cloops, "no loop among the files' calls", map { "loop: $_" } @cloops);
}

done_testing();
