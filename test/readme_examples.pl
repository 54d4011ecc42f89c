#!/usr/bin/perl
# Runs every ```sql example of README.md and docs/*.md against the server
# that the PG* variables reach and compares what psql prints with the output
# the document shows, so that the examples cannot drift from what the
# extension does.
#
# Each ```sql block runs in a fresh session of a fresh database that has
# only the extension, so a block must create the tables it uses.  Within a
# block, a statement ends with a line ending in ';'.  Its expected output is
# either
#   - comments at the end of its lines, one a column of a one-row result:
#         SELECT gpu_sort('{3,1,2,1}'::int4[]);   -- {1,1,2,3}
#   - or comment lines right below it (no blank line between), each '-- '
#     followed by a line as psql prints it (aligned, no header, errors with
#     their DETAIL and HINT):
#         SELECT * FROM gpu_join('{1,2,2,3,5}'::int4[], '{2,2,5,7}');
#         --      2 |     1
# '...' in an expected line stands for any text.  A statement with no
# expected output must still run without an error; a comment after a blank
# line is prose.
#
# usage: test/readme_examples.pl [FILE.md ...]   (default README.md docs/*.md;
#        exit 1 on any difference)
use strict;
use warnings;

my @files = @ARGV ? @ARGV : ('README.md', glob('docs/*.md'));
my $db = 'mergepath_readme_examples';

# The code of a line and its trailing comment ('--' outside quotes).
sub split_comment {
	my ($line) = @_;
	my $quoted = 0;
	for my $i (0 .. length($line) - 2) {
		my $c = substr($line, $i, 1);
		$quoted = !$quoted if $c eq "'";
		return (substr($line, 0, $i), substr($line, $i + 2))
			if !$quoted && substr($line, $i, 2) eq '--';
	}
	return ($line, undef);
}

# blocks: { file, line => first line number, stmts => [ { sql, line,
# inline => [], expect => [] } ] }
my @blocks;
for my $readme (@files) {
	open my $fh, '<', $readme or die "$readme: $!\n";
	my @lines = <$fh>;
	close $fh;
	chomp @lines;
	for (my $n = 0; $n < @lines; $n++) {
		next unless $lines[$n] =~ /^```sql\s*$/;
		my $block = { file => $readme, line => $n + 1, stmts => [] };
		my ($cur, $last, $gap) = (undef, undef, 1);
		for ($n++; $n < @lines && $lines[$n] !~ /^```/; $n++) {
			my $line = $lines[$n];
			my ($code, $comment) = split_comment($line);
			if ($line =~ /^\s*$/) {
				die "$readme:" . ($n + 1) . ": blank line inside a statement\n" if $cur;
				$gap = 1;
			} elsif ($code =~ /^\s*$/) {
				# a comment line: output of the statement just above, or prose
				if (!$cur && $last && !$gap) {
					die "$readme:" . ($n + 1) . ": output both inline and below\n"
						if @{$last->{inline}};
					$comment =~ s/^ //;
					push @{$last->{expect}}, $comment;
				} else {
					$gap = 1;
				}
			} else {
				$cur //= { sql => '', line => $n + 1, inline => [], expect => [] };
				$cur->{sql} .= "$line\n";
				if (defined $comment) {
					$comment =~ s/^\s+|\s+$//g;
					push @{$cur->{inline}}, $comment;
				}
				if ($code =~ /;\s*$/) {
					push @{$block->{stmts}}, $cur;
					($last, $cur, $gap) = ($cur, undef, 0);
				}
			}
		}
		die "$readme:$block->{line}: a statement without its ';'\n" if $cur;
		push @blocks, $block;
	}
}

sub psql {
	my ($dbname, $input) = @_;
	my $tmp = "/tmp/readme_examples.$$.sql";
	open my $out, '>', $tmp or die "$tmp: $!\n";
	print $out $input;
	close $out;
	my $res = `psql -X -q -t -P pager=off -P footer=off -d $dbname <$tmp 2>&1`;
	unlink $tmp;
	return $res;
}

# An expected line matches when equal, '...' standing for any text.
sub matches {
	my ($want, $got) = @_;
	my $re = join '.*', map { quotemeta } split /\.\.\./, $want, -1;
	return $got =~ /^$re$/s;
}

my $setup = psql('postgres', "DROP DATABASE IF EXISTS $db;\nCREATE DATABASE $db;\n");
die "cannot create the database $db:\n$setup" if $setup =~ /ERROR/;
my $ext = psql($db, "CREATE EXTENSION mergepath;\n");
die "CREATE EXTENSION mergepath failed:\n$ext" if $ext =~ /ERROR/;

my ($failed, $checked, $run) = (0, 0, 0);
for my $block (@blocks) {
	my $script = "\\set VERBOSITY default\n\\set SHOW_CONTEXT never\n";
	my $i = 0;
	for my $s (@{$block->{stmts}}) {
		my $fmt = @{$s->{inline}} ? "\\pset format unaligned\n\\pset fieldsep '\\037'\n"
			: "\\pset format aligned\n";
		$script .= "\\echo '\@\@statement $i'\n$fmt$s->{sql}";
		$i++;
	}
	$script .= "\\echo '\@\@statement $i'\n";
	my $out = psql($db, $script);
	my @parts = split /^\@\@statement \d+\n/m, $out, -1;
	shift @parts;	# before the first statement: nothing
	for my $k (0 .. $#{$block->{stmts}}) {
		my $s = $block->{stmts}[$k];
		my @got = split /\n/, $parts[$k] // '';
		s/\s+$// for @got;
		pop @got while @got && $got[-1] eq '';
		my (@want, $ok);
		$run++;
		if (@{$s->{inline}}) {
			@want = (join ' | ', @{$s->{inline}});
			@got = map { join ' | ', split /\037/, $_, -1 } @got;
		} else {
			@want = @{$s->{expect}};
			s/\s+$// for @want;
		}
		if (@want) {
			$checked++;
			$ok = @got == @want;
			for my $j (0 .. $#want) {
				last unless $ok;
				$ok = matches($want[$j], $got[$j]);
			}
		} else {
			$ok = !grep { /^(ERROR|FATAL|PANIC):/ } @got;
		}
		next if $ok;
		$failed++;
		my $what = @want ? 'shows' : 'expects no error';
		print "$block->{file}:$s->{line}: the document $what\n";
		print "    $_\n" for @want;
		print "  psql printed\n";
		print "    $_\n" for @got;
	}
}
psql('postgres', "DROP DATABASE IF EXISTS $db;\n");
printf "%d blocks of %d documents, %d statements run, %d outputs compared, %d differ\n",
	scalar @blocks, scalar @files, $run, $checked, $failed;
exit($failed ? 1 : 0);
