
# Crash recovery of pagebtree indexes.
#
# Three setups: the custom WAL resource manager (shared_preload_libraries =
# 'pagebtree'), generic WAL (no preloading; with wal_consistency_checking =
# 'generic', so that crash recovery compares every page it replays with the
# image its record carries), both with wal_level = replica;
# and wal_level = minimal, where a table and its indexes created and filled
# in one transaction skip WAL and are synced at commit.  In each, run a
# concurrent write workload (inserts, updates, deletes, rollbacks, duplicate
# keys, VACUUM, CHECKPOINT) that splits many pages, crash the server at
# varied points -- immediate shutdown or kill -9 of the postmaster --
# restart it, and check that
#   - pagebtree_check(index, heapallindexed => true) finds no problem in any
#     pagebtree index of the table,
#   - index scans (plain and index-only, both directions, ranges) return
#     exactly the rows of a sequential scan, in order.
# The table also has two indexes with a delta area (t_dpk, t_dls; tmin_dpk
# in the minimal setup, filled in the transaction that creates it), and
# the nodes run with pagebtree.delta_append_always = on, so that the
# workload appends to runs, folds them at the threshold and at VACUUM, and
# splits leaves that have runs; every crash happens with entries pending
# (checked just before it).  In the rmgr setup, every second cycle's DML
# clients run with delta_append_always = off instead: then an insert
# appends only if writing its leaf would cost a page write or a full-page
# image, and folds the run when the leaf is written anyway.  After the
# last cycle, a VACUUM that folds the runs is followed by one more crash.
# The table also has two indexes with leaf groups (t_gk on int8 with
# fillfactor = 100, t_gs on text COLLATE "C"; leaf_group_size = 4, built
# after the initial load), in all three setups, so that the crashes come
# with group rebalances and group splits in flight (whole-group images,
# downlinks of group splits left to be finished); the DML clients log them
# (log_min_messages = debug2 in their sessions), and every setup must have
# had both.  pbt_verify scans them in both directions, and in the minimal
# setup tmin_g is a group index built in the transaction that skips WAL.
# PBT_CRASH_CYCLES (default 4) sets the number of crashes per setup;
# PBT_TEST_SEED the random seed.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(sleep usleep);
use PagebtreeTest;

pbt_seed(1001);

my $cycles = $ENV{PBT_CRASH_CYCLES} // 4;

my @setups = (
	{ name => 'rmgr',    rmgr => 1, streaming => 1 },
	# every generic record carries an image of its pages, which crash
	# recovery compares with the page it replayed
	{ name => 'generic', rmgr => 0, streaming => 1,
	  conf => "wal_consistency_checking = 'generic'\n" },
	{ name => 'minimal', rmgr => 1, streaming => 0 },
);

for my $setup (@setups)
{
	my $name = $setup->{name};
	my $node = pbt_new_node("crash_$name",
		rmgr => $setup->{rmgr}, streaming => $setup->{streaming},
		delta_always => 1, conf => $setup->{conf});
	$node->start;

	pbt_create_schema($node, delta => 1);
	my @delta = qw(t_dpk t_dls);
	pbt_load($node, 1, 30000);
	pbt_load($node, 1, 400, copies => 5);    # some duplicates
	pbt_create_groups($node);
	my %groupops = (rebalance => 0, split => 0);

	ok( $node->safe_psql('postgres',
			"SELECT count(*) FROM pagebtree_layout_summary('t_km') WHERE layout = 'posting'") > 0,
		"$name: t_km (13 keys) has posting leaves after the load");
	my $level = $node->safe_psql('postgres',
		"SELECT level FROM pagebtree_metapage('t_s')");
	note "$name: t_s has level $level after the initial load";

	# delta = auto (the default) gives an index a delta area when it is
	# built larger than shared_buffers (2MB: 256 pages), or when the
	# resource manager is not loaded
	$node->safe_psql('postgres', q{
CREATE TABLE tsize AS
  SELECT g::int8 AS k, md5(g::text) || repeat('x', 100) AS v FROM generate_series(1, 30000) g;
CREATE INDEX tsize_k ON tsize USING pagebtree (k);
CREATE INDEX tsize_v ON tsize USING pagebtree (v);
});
	is( $node->safe_psql('postgres', q{
SELECT string_agg(format('%s %s %s', relname, delta_group > 0, nblocks > 256), ', ' ORDER BY relname)
FROM pg_class, LATERAL pagebtree_metapage(oid) WHERE relname LIKE 'tsize_%'}),
		$setup->{rmgr}
		  ? 'tsize_k f f, tsize_v t t'
		  : 'tsize_k t f, tsize_v t t',
		"$name: delta = auto reserves a delta area for large indexes, and for all without the resource manager");
	$node->safe_psql('postgres', 'DROP TABLE tsize');

	if (!$setup->{streaming})
	{
		# wal_level = minimal: a table and index created and filled in one
		# transaction are not WAL-logged but synced at commit.
		$node->safe_psql(
			'postgres', q{
BEGIN;
CREATE TABLE tmin (id bigserial, k int8 NOT NULL, s text NOT NULL, pad text);
CREATE INDEX tmin_k ON tmin USING pagebtree (k);
CREATE INDEX tmin_dpk ON tmin USING pagebtree (pad COLLATE "C", k) INCLUDE (id)
  WITH (delta = on);
INSERT INTO tmin (k, s, pad) SELECT g % 5000, md5(g::text), 'x' FROM generate_series(1, 20000) g;
CREATE INDEX tmin_s ON tmin USING pagebtree (s);
CREATE INDEX tmin_g ON tmin USING pagebtree (s COLLATE "C")
  WITH (leaf_group_size = 4, fillfactor = 100);
COMMIT;
INSERT INTO tmin (k, s, pad) SELECT g % 5000, md5(g::text), 'y' FROM generate_series(20001, 25000) g;
});
	}

	for my $cycle (1 .. $cycles)
	{
		my $label = "$name cycle $cycle";
		my $heuristic = $setup->{rmgr} && $setup->{streaming} && $cycle % 2 == 0;
		my $cyclepos = -s $node->logfile;
		my $wl    = pbt_start_workload(
			$node,
			clients => 4,
			seconds => 300,
			seed    => int(rand(1 << 30)),
			tag     => "${name}_$cycle",
			options => '-c log_min_messages=debug2'
			  . ($heuristic ? ' -c pagebtree.delta_append_always=off' : ''));

		# crash after a varied amount of work, at a moment when entries are
		# pending (a VACUUM of the workload may just have folded them all)
		my $delay = 1 + rand(5);
		sleep($delay);
		my $runs = pbt_runs($node, \@delta);
		for (my $try = 0; $try < 50 && !($runs->{entries} > 0 && $runs->{folds} > 0); $try++)
		{
			usleep(200_000);
			$runs = pbt_runs($node, \@delta);
		}
		ok($runs->{entries} > 0 && $runs->{folds} > 0,
			"$label: entries pending in runs before the crash"
			  . ($heuristic ? ' (appends to clean leaves only)' : ''))
		  or diag("pending $runs->{entries}, folds $runs->{folds}");
		note "$label: $runs->{entries} entries pending in $runs->{runs} runs, "
		  . "$runs->{folds} folds before the crash";
		my $how = ($cycle % 2 == 0) ? 'kill9' : 'immediate';
		note "$label: crashing with $how after ${delay}s";
		if ($how eq 'kill9')
		{
			$node->kill9;
		}
		else
		{
			$node->stop('immediate');
		}
		pbt_stop_workload($wl, name => $label);

		my $logpos = -s $node->logfile;
		my $ops = pbt_group_ops(
			substr(PostgreSQL::Test::Utils::slurp_file($node->logfile), $cyclepos),
			qr/^t_g[ks]$/);
		$groupops{$_} += $ops->{$_} for keys %$ops;
		note "$label: $ops->{rebalance} group rebalances, $ops->{split} group splits before the crash";
		pbt_start_after_crash($node);
		like(
			substr(PostgreSQL::Test::Utils::slurp_file($node->logfile), $logpos),
			qr/database system was (interrupted|not properly shut down); automatic recovery in progress|redo starts at/,
			"$label: crash recovery ran");

		pbt_check_indexes($node, $label);
		pbt_verify($node, $label);

		if (!$setup->{streaming})
		{
			pbt_check_indexes($node, "$label tmin", table => 'tmin');
			pbt_verify($node, "$label tmin", table => 'tmin', ranges => 2, text_ranges => 0);
		}
	}

	ok($groupops{rebalance} > 0 && $groupops{split} > 0,
		"$name: the workload rebalanced and split leaf groups before the crashes")
	  or diag("rebalances $groupops{rebalance}, splits $groupops{split}");

	# a final round of writes after the last recovery, then a clean check
	my $wl = pbt_start_workload($node, clients => 2, seconds => 3, tag => "${name}_final");
	pbt_stop_workload($wl, name => "$name final", expect_ok => 1);
	pbt_check_indexes($node, "$name final");
	pbt_verify($node, "$name final");

	# VACUUM folds the runs (and drops dead pending entries); then a crash
	# right after it.  The workload's own VACUUM (or autovacuum) may just
	# have folded every run, so add pending entries with autovacuum off.
	$node->safe_psql('postgres', 'ALTER TABLE t SET (autovacuum_enabled = off)');
	pbt_load($node, 40001, 40300);
	my $before = pbt_runs($node, \@delta);
	ok($before->{entries} > 0, "$name final: entries pending before VACUUM")
	  or diag("pending $before->{entries}");
	$node->safe_psql('postgres', 'VACUUM t');
	my $after = pbt_runs($node, \@delta);
	ok($after->{folds} > $before->{folds} && $after->{entries} < $before->{entries},
		"$name final: VACUUM folded runs")
	  or diag("pending $before->{entries} -> $after->{entries}, "
		  . "folds $before->{folds} -> $after->{folds}");
	$node->stop('immediate');
	$node->start;
	pbt_check_indexes($node, "$name after VACUUM and a crash");
	pbt_verify($node, "$name after VACUUM and a crash", ranges => 2, text_ranges => 2);

	my $wal_mode = $node->safe_psql('postgres',
		"SELECT wal_mode FROM pagebtree_metapage('t_k')");
	note "$name: pagebtree_metapage('t_k').wal_mode = $wal_mode";

	$node->stop;
}

done_testing();
