# Randomized differential test: pagebtree against btree on identical data.
#
# test/random/random_diff.sql defines the workload: every round applies the
# same deterministic INSERT/UPDATE/DELETE stream to a pagebtree-indexed and a
# btree-indexed table, VACUUMs both on odd rounds, checks every pagebtree
# index, and compares 20 random ordered/range/equality/= ANY/NULL queries
# per iteration through plain, index-only and bitmap scans, and one
# iteration in seven through parallel plans (Parallel Index [Only] Scan
# where the planner picks one, with parallel costs zeroed; every round must
# have some).  Any difference raises an error, which fails this test.  = ANY scans prefetch the leaves
# of their next elements from the start (pagebtree.prefetch_arrays_always).
#
# Two of the pagebtree indexes (rd_p_k5d, rd_p_k53d) have a delta area and
# the server runs with pagebtree.delta_append_always = on: their inserts go
# to runs of pending entries, which fold at the threshold, at leaf splits
# and at VACUUM; every round checks that entries are pending after its DML
# and that VACUUM folded them (autovacuum is off for the two tables, so
# that only these VACUUMs fold runs).
#
# PBT_DIFF_ROUNDS and PBT_DIFF_ROWS scale it (defaults: 10 rounds of
# 50,000 new rows per table, 1 million rows inserted in all, plus the
# updates and deletes).

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $rounds = $ENV{PBT_DIFF_ROUNDS} // 10;
my $rows = $ENV{PBT_DIFF_ROWS} // 50000;
my $seed = $ENV{PBT_DIFF_SEED} // 0.4242;

my $node = PostgreSQL::Test::Cluster->new('random_diff');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pagebtree'
shared_buffers = 256MB
max_wal_size = 2GB
fsync = off
pagebtree.delta_append_always = on
pagebtree.prefetch_arrays_always = on
effective_io_concurrency = 8
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION pagebtree');
$node->safe_psql('postgres',
	PostgreSQL::Test::Utils::slurp_file("$FindBin::RealBin/../random/random_diff.sql"));
$node->safe_psql('postgres', 'SELECT pbt_diff_setup()');
# only the VACUUMs below: an autovacuum would fold the runs at any time
$node->safe_psql('postgres',
	'ALTER TABLE rd_p SET (autovacuum_enabled = off); ALTER TABLE rd_b SET (autovacuum_enabled = off)');

my $total = 0;
for my $round (1 .. $rounds)
{
	my $final = $round == $rounds ? 'true' : 'false';
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		"SELECT pbt_diff_round($seed, $round, $rows, $final)");
	is($ret, 0, "round $round: pagebtree and btree agree, pagebtree_check passes")
	  or diag($stderr);
	last if $ret != 0;
	$total += $stdout;
	my $runs = pbt_runs($node, [qw(rd_p_k5d rd_p_k53d)]);
	ok($runs->{entries} > 0 && $runs->{folds} > 0,
		"round $round: $runs->{entries} entries pending in $runs->{runs} runs, $runs->{folds} folds")
	  or diag("pending $runs->{entries}, folds $runs->{folds}");
	if ($round % 2 == 1)
	{
		$node->safe_psql('postgres', 'VACUUM rd_p, rd_b');
		my $vac = pbt_runs($node, [qw(rd_p_k5d rd_p_k53d)]);
		ok($vac->{entries} < $runs->{entries} && $vac->{folds} > $runs->{folds},
			"round $round: VACUUM folded runs ($vac->{entries} entries still pending)")
		  or diag("pending $runs->{entries} -> $vac->{entries}, folds $runs->{folds} -> $vac->{folds}");
	}
}

my $nrows = $node->safe_psql('postgres', 'SELECT count(*) FROM rd_p');
cmp_ok($total, '>', 0, "compared $total queries; $nrows live rows at the end");

$node->stop;
done_testing();
