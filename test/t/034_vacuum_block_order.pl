
# VACUUM reads the index in block order, as btree does (vacuum_blocks in
# pbt_vacuum.c).  Two ways entries could move behind the pass, each shown
# while a cursor's index-only scan pins a leaf, so that VACUUM's pass waits
# there for its cleanup lock:
#
# 1. A split moves entries from its page to a new right sibling; if that
#    sibling were a free page at a block the pass has already gone by, the
#    dead entries among them would escape VACUUM and outlive their heap
#    tuples.  So while the pass runs, splits extend the index instead of
#    reusing free pages.  Inserts split the leaves behind the pinned leaf,
#    which hold dead entries; the free pages at the start of the index must
#    stay free, and be reused by splits after the pass.
#
# 2. A rebalance of a leaf group moves entries left, into subnodes the pass
#    has read.  The cursor pins the group's second subnode; inserts into
#    its last one rebalance the group, moving dead entries of the third
#    into the first two.  The pass must see the group's new epoch and read
#    the group again.
#
# After VACUUM, no entry may name a heap tuple that is gone.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use PagebtreeTest;

# entries of index $index (on table $table) whose heap tuple is gone
sub orphans
{
	my ($index, $table) = @_;
	return qq{
SELECT count(*) FROM generate_series(1, pg_relation_size('$index') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('$index', b) s,
     LATERAL pagebtree_page_items('$index', b) i
WHERE s.page_type = 'leaf' AND NOT EXISTS (SELECT 1 FROM $table t WHERE t.ctid = i.heap_tid)};
}

# orphans() after the pass under test, once the dead tuples its heap scan
# left behind are gone too: a heap page the checkpointer happens to pin is
# not pruned (VACUUM VERBOSE: "tuples missed ... due to cleanup lock
# contention"), and its dead tuples keep their entries, correctly.  A second
# VACUUM removes those; an entry that escaped the pass names an unused line
# pointer, which no VACUUM removes.  INDEX_CLEANUP ON because VACUUM
# bypasses the index for so few dead tuples.
sub orphans_after_vacuum
{
	my ($node, $index, $table) = @_;
	$node->safe_psql('postgres', "VACUUM (INDEX_CLEANUP ON) $table");
	return $node->safe_psql('postgres', orphans($index, $table));
}

# the leaf of index $index that holds the entry of table row $where
sub leaf_of
{
	my ($node, $index, $table, $where) = @_;
	return $node->safe_psql(
		'postgres', qq{
SELECT b FROM generate_series(1, pg_relation_size('$index') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('$index', b) s,
     LATERAL pagebtree_page_items('$index', b) i
WHERE s.page_type = 'leaf' AND i.heap_tid = (SELECT ctid FROM $table WHERE $where)});
}

# A cursor whose index-only scan of $query stands on its first row $first
# (pinning that row's leaf), and a VACUUM of $table waiting for that pin.
sub vacuum_stopped_by_cursor
{
	my ($node, $mode, $table, $index, $query, $first) = @_;
	my $cursor = $node->background_psql('postgres', on_error_stop => 1);
	$cursor->query_safe(
		'SET enable_seqscan = off; SET enable_bitmapscan = off; BEGIN');
	like($cursor->query_safe("EXPLAIN (COSTS OFF) $query"),
		qr/^Index Only Scan using $index/, "$mode: the cursor scans index-only");
	$cursor->query_safe("DECLARE c CURSOR FOR $query");
	is($cursor->query_safe('FETCH 1 FROM c'), $first, "$mode: the cursor is at $first");

	my $vacuum = $node->background_psql('postgres', on_error_stop => 1);
	$vacuum->query_until(qr/started/,
		"SET log_min_messages = debug2;\n\\echo started\nVACUUM $table;\n\\echo vacuumed\n");
	my $state = '';
	for (1 .. 600)
	{
		$state = $node->safe_psql('postgres',
			qq{SELECT coalesce(wait_event, '') FROM pg_stat_activity WHERE query = 'VACUUM $table;'});
		last if $state eq 'BufferPin';
		usleep(100_000);
	}
	is($state, 'BufferPin', "$mode: VACUUM waits for the cursor's leaf");
	return ($cursor, $vacuum);
}

sub finish_vacuum
{
	my ($cursor, $vacuum) = @_;
	$cursor->query_safe('COMMIT');
	$cursor->quit;
	$vacuum->query_until(qr/vacuumed/, '');
	$vacuum->quit;
}

for my $rmgr (1, 0)
{
	my $mode = $rmgr ? 'preloaded' : 'not preloaded';
	my $node = pbt_new_node("vacuum_order_$rmgr", rmgr => $rmgr,
		conf => "autovacuum = off\n");
	$node->start;

	# 1. splits during the pass take no free page
	$node->safe_psql(
		'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE t (k int4) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT generate_series(1, 60000);
CREATE INDEX t_k ON t USING pagebtree (k) WITH (delta = off, layout = 'heads');
DELETE FROM t WHERE k <= 15000;
VACUUM t;
});
	# the emptied leaves, deleted by the first VACUUM, are free after this one
	$node->safe_psql('postgres', 'SELECT txid_current()');
	$node->safe_psql('postgres', 'VACUUM t');

	my $leaf = leaf_of($node, 't_k', 't', 'k = 30000');
	my $count_free = sprintf(
		q{SELECT count(*) FROM generate_series(1, %d) b,
     LATERAL pagebtree_page_stats('t_k', b) s WHERE s.page_type = 'deleted'},
		$leaf - 1);
	my $free = $node->safe_psql('postgres', $count_free);
	cmp_ok($free, '>', 10, "$mode: free pages before the cursor's leaf ($leaf)");

	# dead entries behind the leaf (deleted before the cursor's snapshot)
	$node->safe_psql('postgres', 'DELETE FROM t WHERE k > 40000 AND k % 2 = 0');

	my ($cursor, $vacuum) = vacuum_stopped_by_cursor($node, $mode, 't', 't_k',
		'SELECT k FROM t WHERE k >= 30000 ORDER BY k', '30000');

	# splits of the leaves behind it, which hold the dead entries
	my $size = $node->safe_psql('postgres', q{SELECT pg_relation_size('t_k') / 8192});
	$node->safe_psql('postgres',
		'INSERT INTO t SELECT g FROM generate_series(40001, 60000) g');
	cmp_ok($node->safe_psql('postgres', q{SELECT pg_relation_size('t_k') / 8192}),
		'>', $size + 10, "$mode: the inserts split leaves");
	is($node->safe_psql('postgres', $count_free), $free,
		"$mode: splits during the pass leave the free pages alone");

	finish_vacuum($cursor, $vacuum);
	is(orphans_after_vacuum($node, 't_k', 't'), '0',
		"$mode: no entry names a heap tuple VACUUM removed");
	is($node->safe_psql('postgres', "SELECT pagebtree_check('t_k', true)"),
		'', "$mode: pagebtree_check passes");
	pbt_index_vs_seqscan($node, 'postgres',
		'SELECT k FROM t WHERE k > 35000', 't_k');

	# the pass is over: splits take the free pages again
	$node->safe_psql('postgres',
		'INSERT INTO t SELECT g FROM generate_series(20001, 30000) g');
	cmp_ok($node->safe_psql('postgres', $count_free), '<', $free,
		"$mode: after VACUUM, splits reuse free pages");
	is($node->safe_psql('postgres', "SELECT pagebtree_check('t_k', true)"),
		'', "$mode: pagebtree_check passes after the reuse");

	# 2. a rebalance during the pass moves dead entries into subnodes behind it
	$node->safe_psql(
		'postgres', q{
CREATE TABLE g (k int4) WITH (autovacuum_enabled = off);
INSERT INTO g SELECT generate_series(1, 20000);
CREATE INDEX g_k ON g USING pagebtree (k)
  WITH (leaf_group_size = 4, delta = off, layout = 'heads');
});
	# a group of four subnodes in use, not the last: its first two made sparse
	my ($start, $epoch) = split /\|/, $node->safe_psql(
		'postgres', q{
SELECT start, epoch FROM pagebtree_groups('g_k')
WHERE subnodes = 4 AND holes = 0 ORDER BY start DESC LIMIT 1});
	my $keys = sub {
		my ($first, $last) = @_;
		return $node->safe_psql(
			'postgres', qq{
SELECT min(k) || ' ' || max(k) FROM g WHERE ctid IN (
  SELECT i.heap_tid FROM generate_series($first, $last) b,
         LATERAL pagebtree_page_items('g_k', b) i)});
	};
	my ($lo, $mid) = split / /, $keys->($start, $start + 1);
	my ($mid2, $hi) = split / /, $keys->($start + 2, $start + 3);
	$node->safe_psql('postgres',
		"DELETE FROM g WHERE k BETWEEN $lo AND $mid AND k % 10 <> 0; VACUUM g");
	# dead entries in the third and fourth subnodes
	$node->safe_psql('postgres',
		"DELETE FROM g WHERE k BETWEEN $mid2 AND $hi AND k % 2 = 0");

	my $pinned = $node->safe_psql('postgres',
		"SELECT min(k) FROM g WHERE k > ($lo + $mid) / 2 AND k <= $mid");
	is(leaf_of($node, 'g_k', 'g', "k = $pinned"), $start + 1,
		"$mode: row $pinned is on the group's second subnode");
	my $log_offset = -s $node->logfile;
	($cursor, $vacuum) = vacuum_stopped_by_cursor($node, $mode, 'g', 'g_k',
		"SELECT k FROM g WHERE k >= $pinned ORDER BY k", $pinned);

	# duplicates of the last subnode's keys fill it: the group rebalances
	my $new_epoch = $epoch;
	for my $round (1 .. 20)
	{
		$node->safe_psql('postgres',
			"INSERT INTO g SELECT k FROM g WHERE k BETWEEN $hi - 200 AND $hi - 1 AND k % 2 = 1");
		$new_epoch = $node->safe_psql('postgres',
			"SELECT epoch FROM pagebtree_groups('g_k') WHERE start = $start");
		last if $new_epoch ne $epoch;
	}
	isnt($new_epoch, $epoch, "$mode: the group rebalanced during the pass");
	cmp_ok($node->safe_psql('postgres', orphans('g_k', 'g') . " AND b = $start"),
		'>', 0, "$mode: the rebalance moved dead entries into the first subnode");

	finish_vacuum($cursor, $vacuum);
	ok($node->log_contains("reads the leaf group at block $start again", $log_offset),
		"$mode: VACUUM read the group again");
	is(orphans_after_vacuum($node, 'g_k', 'g'), '0',
		"$mode: no entry of the group index names a heap tuple VACUUM removed");
	is($node->safe_psql('postgres', "SELECT pagebtree_check('g_k', true)"),
		'', "$mode: pagebtree_check passes on the group index");
	pbt_index_vs_seqscan($node, 'postgres',
		"SELECT k FROM g WHERE k BETWEEN $lo AND $hi", 'g_k');
	$node->stop;
}

done_testing();
