
# Unlogged tables with pagebtree indexes behave like with btree indexes:
#   - a clean restart keeps the rows and the indexes;
#   - after a crash (immediate stop, kill -9) the table is empty and its
#     indexes are reset from their init fork: empty but usable -- index
#     scans work and new rows are indexed.
# Run with and without shared_preload_libraries = 'pagebtree', for an index
# built on a filled table and one built on an empty table.  A btree-indexed
# unlogged table next to it serves as the reference.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

pbt_seed(3003);

sub index_count
{
	my ($node, $sql) = @_;
	return $node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; $sql");
}

for my $setup ({ name => 'rmgr', rmgr => 1 }, { name => 'generic', rmgr => 0 })
{
	my $name = $setup->{name};
	my $node = pbt_new_node("unlogged_$name", rmgr => $setup->{rmgr}, streaming => 1);
	$node->start;

	# u: index built on a filled table; ue: indexes built on an empty table
	$node->safe_psql('postgres', 'CREATE EXTENSION pagebtree');
	$node->safe_psql(
		'postgres', q{
CREATE UNLOGGED TABLE u (id bigserial, k int8 NOT NULL, s text NOT NULL, pad text);
INSERT INTO u (k, s, pad) SELECT g, md5(g::text), 'load' FROM generate_series(1, 20000) g;
CREATE INDEX u_k ON u USING pagebtree (k);
CREATE INDEX u_s ON u USING pagebtree (s);
CREATE UNLOGGED TABLE ue (id bigserial, k int8 NOT NULL, s text NOT NULL, pad text);
CREATE INDEX ue_k ON ue USING pagebtree (k);
CREATE INDEX ue_s ON ue USING pagebtree (s);
INSERT INTO ue (k, s, pad) SELECT g % 7000, md5(g::text), 'load' FROM generate_series(1, 20000) g;
CREATE UNLOGGED TABLE ub (k int8 NOT NULL);
CREATE INDEX ub_k ON ub USING btree (k);
INSERT INTO ub SELECT g FROM generate_series(1, 20000) g;
CREATE TABLE logged (k int8);
CREATE INDEX logged_k ON logged USING pagebtree (k);
INSERT INTO logged SELECT g FROM generate_series(1, 5000) g;
});

	# the init forks exist
	for my $idx (qw(u_k u_s ue_k ue_s))
	{
		my $path = $node->safe_psql('postgres', "SELECT pg_relation_filepath('$idx')");
		ok(-f $node->data_dir . "/${path}_init", "$name: $idx has an init fork");
	}

	pbt_check_indexes($node, "$name before restart", table => $_) for qw(u ue);
	pbt_verify($node, "$name before restart", table => $_, ranges => 3, text_ranges => 0)
	  for qw(u ue);

	# clean restart: everything is kept
	$node->restart;
	is($node->safe_psql('postgres', 'SELECT count(*) FROM u'), '20000',
		"$name: u keeps its rows across a clean restart");
	is(index_count($node, 'SELECT count(*) FROM u WHERE k BETWEEN 100 AND 199'),
		'100', "$name: u index scan after a clean restart");
	is(index_count($node, 'SELECT count(*) FROM ue WHERE k = 5'),
		'3', "$name: ue index scan after a clean restart");
	pbt_check_indexes($node, "$name after clean restart", table => $_) for qw(u ue);
	pbt_verify($node, "$name after clean restart", table => $_, ranges => 3, text_ranges => 0)
	  for qw(u ue);

	for my $how (qw(immediate kill9))
	{
		my $label = "$name after $how";
		# more rows, some not yet checkpointed, then crash
		$node->safe_psql('postgres', q{
INSERT INTO u (k, s, pad) SELECT g, md5(g::text), 'more' FROM generate_series(20001, 30000) g;
INSERT INTO ue (k, s, pad) SELECT g % 7000, md5(g::text), 'more' FROM generate_series(1, 5000) g;
INSERT INTO ub SELECT g FROM generate_series(20001, 30000) g;
});
		if ($how eq 'kill9')
		{
			$node->kill9;
		}
		else
		{
			$node->stop('immediate');
		}
		pbt_start_after_crash($node);

		is($node->safe_psql('postgres', 'SELECT count(*) FROM ub'), '0',
			"$label: the btree reference table is empty");
		is($node->safe_psql('postgres', 'SELECT count(*) FROM u'), '0',
			"$label: u is empty");
		is($node->safe_psql('postgres', 'SELECT count(*) FROM ue'), '0',
			"$label: ue is empty");
		is(index_count($node, 'SELECT count(*) FROM u WHERE k BETWEEN 1 AND 100000'),
			'0', "$label: u index scan returns nothing");
		is(index_count($node, "SELECT count(*) FROM ue WHERE s > ''"),
			'0', "$label: ue index scan returns nothing");
		is($node->safe_psql('postgres', 'SELECT count(*) FROM logged'), '5000',
			"$label: the logged table keeps its rows");
		is(index_count($node, 'SELECT count(*) FROM logged WHERE k BETWEEN 10 AND 19'),
			'10', "$label: logged index scan");
		my $meta = $node->safe_psql('postgres',
			"SELECT root IS NOT NULL, nblocks >= 1 FROM pagebtree_metapage('u_k')");
		is($meta, 't|t', "$label: u_k has a valid metapage");
		pbt_check_indexes($node, "$label (empty)", table => $_) for qw(u ue);

		# usable again
		$node->safe_psql('postgres', q{
INSERT INTO u (k, s, pad) SELECT g, md5(g::text), 'again' FROM generate_series(1, 15000) g;
INSERT INTO ue (k, s, pad) SELECT g % 7000, md5(g::text), 'again' FROM generate_series(1, 15000) g;
INSERT INTO ub SELECT g FROM generate_series(1, 15000) g;
});
		is(index_count($node, 'SELECT count(*) FROM u WHERE k BETWEEN 100 AND 199'),
			'100', "$label: u index scan after refilling");
		pbt_check_indexes($node, "$label (refilled)", table => $_) for qw(u ue);
		pbt_verify($node, "$label (refilled)", table => $_, ranges => 3, text_ranges => 0)
		  for qw(u ue);

		# and it survives a clean restart again
		$node->restart;
		is($node->safe_psql('postgres', 'SELECT count(*) FROM u'), '15000',
			"$label: refilled u keeps its rows across a clean restart");
		pbt_check_indexes($node, "$label (refilled, restarted)", table => $_) for qw(u ue);

		# back to the state before the next crash
		$node->safe_psql('postgres', q{
TRUNCATE u; TRUNCATE ue; TRUNCATE ub;
INSERT INTO u (k, s, pad) SELECT g, md5(g::text), 'load' FROM generate_series(1, 20000) g;
INSERT INTO ue (k, s, pad) SELECT g % 7000, md5(g::text), 'load' FROM generate_series(1, 20000) g;
INSERT INTO ub SELECT g FROM generate_series(1, 20000) g;
});
	}

	$node->stop;
}

done_testing();
