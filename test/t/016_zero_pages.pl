# Pages that an extension left all zero are reused.
#
# A crash after the relation grew but before the record that initializes
# the new page (a split, a new leaf group) leaves zero pages in the index
# that no link leads to; so does an error between the extension and the
# first change.  VACUUM must hand them to the free space map, as it does
# deleted pages, except the side pages of the delta area, which stay zero
# until their first run and are found by their block numbers.  The test
# appends zero blocks to stopped indexes' files (the state such a crash
# leaves), and checks that after VACUUM new pages come from them instead of
# the end of the file, in both WAL modes, for an index without a delta
# area, one with it (where some of the zero blocks are side blocks) and one
# with leaf groups; then pagebtree_check and scans against a sequential
# scan.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

# zero blocks per index: enough for the new entries below to need no more
my %zeros = (z_plain => 24, z_delta => 120, z_group => 24);
my @indexes = sort keys %zeros;

for my $rmgr (1, 0)
{
	my $mode = $rmgr ? 'preloaded' : 'not preloaded';
	my $node = pbt_new_node("zero_$rmgr", rmgr => $rmgr,
		conf => "autovacuum = off\n");
	$node->start;
	$node->safe_psql(
		'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE z (k int8, s text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO z SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX z_plain ON z USING pagebtree (k) WITH (delta = off);
CREATE INDEX z_delta ON z USING pagebtree (s) WITH (delta = on);
CREATE INDEX z_group ON z USING pagebtree (s) WITH (leaf_group_size = 4);
});
	my %path = map {
		$_ => $node->data_dir . '/'
		  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$_')")
	} @indexes;
	$node->stop;
	my %blocks;
	for my $idx (@indexes)
	{
		open(my $fh, '>>', $path{$idx}) or die "open $path{$idx}: $!";
		binmode $fh;
		print $fh "\0" x (8192 * $zeros{$idx});
		close $fh;
		$blocks{$idx} = (-s $path{$idx}) / 8192;
	}
	$node->start;

	my $vacuum_log;
	$node->psql('postgres', 'VACUUM (VERBOSE) z',
		stderr => \$vacuum_log, on_error_die => 1);
	for my $idx (@indexes)
	{
		my ($reusable) = $vacuum_log =~ /index "$idx": pages: .* (\d+) reusable/;
		# every zero block but the delta area's side blocks among them
		my $want = $zeros{$idx};
		if ($idx eq 'z_delta')
		{
			my $g = $node->safe_psql('postgres',
				"SELECT delta_group FROM pagebtree_metapage('$idx')");
			$want -= grep { ($_ - 1) % ($g + 1) == 0 }
			  ($blocks{$idx} - $zeros{$idx} .. $blocks{$idx} - 1);
		}
		is($reusable, $want, "$mode: VACUUM finds the zero blocks of $idx free");
	}

	# new keys at the right end: splits need new pages (the group index
	# takes them for new groups only from deleted groups, so only its
	# inner pages can come from the zero blocks)
	$node->safe_psql('postgres', q{
INSERT INTO z SELECT g, 'zz' || md5(g::text) FROM generate_series(20001, 32000) g});
	for my $idx ('z_plain', 'z_delta')
	{
		is($node->safe_psql('postgres', "SELECT pg_relation_size('$idx') / 8192"),
			$blocks{$idx}, "$mode: $idx grew into its zero blocks, not the file");
	}
	pbt_check_indexes($node, "$mode: after the reuse", table => 'z');
	pbt_index_vs_seqscan($node, 'postgres',
		'SELECT k FROM z WHERE k BETWEEN 15000 AND 25000 ORDER BY k', 'z_plain');
	pbt_index_vs_seqscan($node, 'postgres',
		"SELECT s FROM z WHERE s >= 'f' ORDER BY s", qr/z_(delta|group)/);
	$node->stop;
}

done_testing();
