
# VACUUM reads an index without leaf groups in block order, as btree does.
# A split moves entries from its page to a new right sibling; if that
# sibling were a free page at a block the pass has already gone by, the
# dead entries among them would escape VACUUM and outlive their heap
# tuples.  So while the pass runs, splits extend the index instead of
# reusing free pages (vacuum_blocks in pbt_vacuum.c).
#
# A cursor's index-only scan pins a leaf in the middle of the index, so
# VACUUM's pass stops there, waiting for its cleanup lock, after the free
# pages at the start of the index.  Inserts then split the leaves behind
# it, which hold dead entries.  Once the cursor closes and VACUUM ends, no
# entry may name a heap tuple that is gone, and the free pages, untouched
# meanwhile, are reused by the next splits.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use PagebtreeTest;

# entries whose heap tuple is gone
my $orphans = q{
SELECT count(*) FROM generate_series(1, pg_relation_size('t_k') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('t_k', b) s,
     LATERAL pagebtree_page_items('t_k', b) i
WHERE s.page_type = 'leaf' AND NOT EXISTS (SELECT 1 FROM t WHERE t.ctid = i.heap_tid)};

for my $rmgr (1, 0)
{
	my $mode = $rmgr ? 'preloaded' : 'not preloaded';
	my $node = pbt_new_node("vacuum_order_$rmgr", rmgr => $rmgr,
		conf => "autovacuum = off\n");
	$node->start;
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

	my $leaf = $node->safe_psql(
		'postgres', q{
SELECT b FROM generate_series(1, pg_relation_size('t_k') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('t_k', b) s,
     LATERAL pagebtree_page_items('t_k', b) i
WHERE s.page_type = 'leaf' AND i.heap_tid = (SELECT ctid FROM t WHERE k = 30000)});
	my $count_free = sprintf(
		q{SELECT count(*) FROM generate_series(1, %d) b,
     LATERAL pagebtree_page_stats('t_k', b) s WHERE s.page_type = 'deleted'},
		$leaf - 1);
	my $free = $node->safe_psql('postgres', $count_free);
	cmp_ok($free, '>', 10, "$mode: free pages before the cursor's leaf ($leaf)");

	# dead entries behind the leaf (deleted before the cursor's snapshot)
	$node->safe_psql('postgres', 'DELETE FROM t WHERE k > 40000 AND k % 2 = 0');

	# the cursor pins the leaf of 30000
	my $cursor = $node->background_psql('postgres', on_error_stop => 1);
	$cursor->query_safe(
		'SET enable_seqscan = off; SET enable_bitmapscan = off; BEGIN');
	my $query = 'SELECT k FROM t WHERE k >= 30000 ORDER BY k';
	like($cursor->query_safe("EXPLAIN (COSTS OFF) $query"),
		qr/^Index Only Scan using t_k/, "$mode: the cursor scans index-only");
	$cursor->query_safe("DECLARE c CURSOR FOR $query");
	is($cursor->query_safe('FETCH 1 FROM c'), '30000', "$mode: the cursor is at 30000");

	# VACUUM stops at the leaf
	my $vacuum = $node->background_psql('postgres', on_error_stop => 1);
	$vacuum->query_until(qr/started/, "\\echo started\nVACUUM t;\n\\echo vacuumed\n");
	my $state = '';
	for (1 .. 600)
	{
		$state = $node->safe_psql('postgres',
			q{SELECT coalesce(wait_event, '') FROM pg_stat_activity WHERE query = 'VACUUM t;'});
		last if $state eq 'BufferPin';
		usleep(100_000);
	}
	is($state, 'BufferPin', "$mode: VACUUM waits for the cursor's leaf");

	# splits of the leaves behind it, which hold the dead entries
	my $size = $node->safe_psql('postgres', q{SELECT pg_relation_size('t_k') / 8192});
	$node->safe_psql('postgres',
		'INSERT INTO t SELECT g FROM generate_series(40001, 60000) g');
	cmp_ok($node->safe_psql('postgres', q{SELECT pg_relation_size('t_k') / 8192}),
		'>', $size + 10, "$mode: the inserts split leaves");
	is($node->safe_psql('postgres', $count_free), $free,
		"$mode: splits during the pass leave the free pages alone");

	$cursor->query_safe('COMMIT');
	$cursor->quit;
	$vacuum->query_until(qr/vacuumed/, '');
	$vacuum->quit;

	is($node->safe_psql('postgres', $orphans), '0',
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
	$node->stop;
}

done_testing();
