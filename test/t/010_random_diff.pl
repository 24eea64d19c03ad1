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
# After the first round, two indexes with leaf groups (issue #23) join
# both tables, built on its rows: rd_p_kg1 ((-k1)) INCLUDE (k1), int8 with
# fillfactor = 100, and rd_p_kg2 (reverse(k2)), text COLLATE "C" with a
# delta area (delta = on: its inserts append to its subnodes' runs, which
# rebalances take along), both leaf_group_size = 4 (btree: rd_b_kg1,
# rd_b_kg2); pbt_diff_round checks
# them with the other rd_p_k% indexes, the later rounds' DML must
# rebalance and split their groups (DEBUG2 in the round's session), and
# every round compares random range, LIMIT, = ANY and NULL queries in both
# directions through them (plain, index-only and bitmap scans).
#
# PBT_DIFF_GENERIC=1 runs it without preloading (generic WAL) and without
# delta_append_always, as a user gets pagebtree by default: every index
# then has a delta area, heads leaves append to runs and dense, posting
# and semidense leaves that are dirty take inserts in place.
#
# PBT_DIFF_ROUNDS and PBT_DIFF_ROWS scale it (defaults: 10 rounds of
# 30,000 new rows per table, 600,000 rows inserted in all, plus the
# updates and deletes; the group indexes still rebalance and split
# thousands of times).

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $rounds = $ENV{PBT_DIFF_ROUNDS} // 10;
my $rows = $ENV{PBT_DIFF_ROWS} // 30000;
my $seed = $ENV{PBT_DIFF_SEED} // 0.4242;

my $generic = $ENV{PBT_DIFF_GENERIC} // 0;
my $preload = $generic ? '' : 'pagebtree';
my $append_always = $generic ? 'off' : 'on';

my $node = PostgreSQL::Test::Cluster->new('random_diff');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = '$preload'
shared_buffers = 256MB
max_wal_size = 2GB
fsync = off
pagebtree.delta_append_always = $append_always
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

srand(int($seed * 1e6));
my $total = 0;
my %groupops = (rebalance => 0, split => 0);
my $have_groups = 0;
for my $round (1 .. $rounds)
{
	my $final = $round == $rounds ? 'true' : 'false';
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		"SET client_min_messages = debug2;\nSELECT pbt_diff_round($seed, $round, $rows, $final)");
	my $ops = pbt_group_ops($stderr);
	$groupops{$_} += $ops->{$_} for keys %$ops;
	$stderr = join("\n", grep { !/^(psql:.*)?DEBUG: / } split /\n/, $stderr);
	is($ret, 0, "round $round: pagebtree and btree agree, pagebtree_check passes")
	  or diag($stderr);
	last if $ret != 0;
	$total += $stdout;
	if ($have_groups)
	{
		note "round $round: $ops->{rebalance} group rebalances, $ops->{split} group splits";
		my $n = group_queries($round);
		last if !$n;
		$total += $n;
	}
	else
	{
		# the group indexes, built on the first round's rows
		$node->safe_psql('postgres', q{
CREATE INDEX rd_p_kg1 ON rd_p USING pagebtree ((-k1)) INCLUDE (k1)
  WITH (leaf_group_size = 4, fillfactor = 100);
CREATE INDEX rd_b_kg1 ON rd_b USING btree ((-k1)) INCLUDE (k1);
CREATE INDEX rd_p_kg2 ON rd_p USING pagebtree (reverse(k2))
  WITH (leaf_group_size = 4, delta = on);
CREATE INDEX rd_b_kg2 ON rd_b USING btree (reverse(k2));
});
		$have_groups = 1;
	}
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

if ($rounds > 1)
{
	ok($groupops{rebalance} > 0 && $groupops{split} > 0,
		"the rounds rebalanced ($groupops{rebalance}) and split ($groupops{split}) leaf groups");
	my $gruns = pbt_runs($node, ['rd_p_kg2']);
	ok($gruns->{folds} > 0,
		"rd_p_kg2, groups with a delta area: $gruns->{folds} runs folded, $gruns->{entries} entries pending");
}

my $nrows = $node->safe_psql('postgres', 'SELECT count(*) FROM rd_p');
cmp_ok($total, '>', 0, "compared $total queries; $nrows live rows at the end");

$node->stop;
done_testing();

# Random queries through the group indexes, on both tables, compared by
# pbt_diff_query (which also checks that the pagebtree plan uses the group
# index).  Returns the number of queries compared, 0 on a difference.
sub group_queries
{
	my ($round) = @_;
	my @sql;
	for my $i (1 .. 4)
	{
		my $a   = int(rand(1.1e6)) - 50000;
		my $b   = $a + int(rand(20000));
		my $dir = rand() < 0.5 ? 'ASC' : 'DESC';
		my $kind = (qw(index indexonly bitmap))[ int(rand(3)) ];
		my $d1  = int(rand(10));
		my $d2  = $d1 . int(rand(10));
		my @arr = ($a, $a + 1, int(rand(1e6)), $a + 7, $b);
		my $arr = 'ARRAY[' . join(', ', map { -$_ } @arr) . ', NULL]';
		my ($na, $nb) = (-$a, -$b);    # (no "--" in the SQL)
		my @q = (
			[ "SELECT -k1 FROM \$T WHERE -k1 BETWEEN $nb AND $na ORDER BY -k1 $dir", 'rd_p_kg1' ],
			[ "SELECT -k1, k1 FROM \$T WHERE -k1 > $na ORDER BY -k1 $dir LIMIT 50", 'rd_p_kg1' ],
			[ "SELECT -k1 FROM \$T WHERE -k1 = ANY($arr) ORDER BY -k1 $dir", 'rd_p_kg1' ],
			$i == 1 ? ([ "SELECT -k1, k1 FROM \$T WHERE -k1 IS NULL", 'rd_p_kg1' ]) : (),
			[ "SELECT reverse(k2) FROM \$T WHERE reverse(k2) >= '$d2' AND reverse(k2) < '${d2}5' ORDER BY reverse(k2) $dir", 'rd_p_kg2' ],
			[ "SELECT reverse(k2) FROM \$T WHERE reverse(k2) > '$d2' ORDER BY reverse(k2) $dir LIMIT 40", 'rd_p_kg2' ],
			[ "SELECT reverse(k2) FROM \$T WHERE reverse(k2) = ANY(ARRAY['${d2}123/meti/1/gro.elpmaxe//:sptth', '7/meti/$d1/gro.elpmaxe//:sptth']) ORDER BY reverse(k2) $dir", 'rd_p_kg2' ],
		);
		for my $q (@q)
		{
			my ($text, $idx) = @$q;
			push @sql, "SELECT pbt_diff_query(\$q\$$text\$q\$, '$kind', '$idx');";
		}
	}
	my ($ret, $out, $err) = $node->psql('postgres', join("\n", @sql), on_error_stop => 1);
	is($ret, 0, "round $round: " . scalar(@sql) . ' queries through the group indexes agree with btree')
	  or diag($err);
	return $ret == 0 ? scalar(@sql) : 0;
}
