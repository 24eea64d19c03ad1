# CREATE INDEX CONCURRENTLY and REINDEX INDEX CONCURRENTLY of pagebtree
# indexes while 4 pgbench clients insert, update (moving keys, so not HOT)
# and delete rows of the table.  The builds must overlap the load (rows
# are inserted while each runs, and the load is still running when the
# last one finishes).  Between the builds and the rebuilds, parallel scans
# of the new indexes, forward and backward, one with keys on a second column
# alone among them, must equal a sequential scan in the same snapshot while
# the load splits leaves.  Afterwards every index must be valid
# (pg_index.indisvalid), pass pagebtree_check with heapallindexed, and
# return through an index scan exactly what a sequential scan returns.
#
# PBT_CIC_SECONDS sets the load's duration (default 20); the builds run
# within its first seconds.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PagebtreeTest;
use Time::HiRes qw(usleep);

my $seconds = $ENV{PBT_CIC_SECONDS} // 20;

my $node = PostgreSQL::Test::Cluster->new('concurrent_build');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pagebtree'
max_connections = 20
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE cb (id int8, k int8, t text COLLATE "C", n numeric, v int);
INSERT INTO cb SELECT i, i * 7, md5(i::text), i % 1000, 0 FROM generate_series(1, 100000) i;
CREATE SEQUENCE cb_seq START 100001;
ANALYZE cb;
});

my $script = q{
\set id random(1, 150000)
\set k random(1, 1000000)
\set r random(1, 100)
\if :r <= 45
INSERT INTO cb VALUES (nextval('cb_seq'), :k, md5(:k::text), :k % 1000, 1);
\elif :r <= 80
UPDATE cb SET k = k + 1, t = t || 'u', v = v + 1 WHERE id = :id;
\else
DELETE FROM cb WHERE id BETWEEN :id AND :id + 5;
\endif
};
my ($load, $outref, $errref) = pbt_start_script($node, $script, 4, $seconds);
# let the load start
usleep(1_000_000);

my %indexes = (
	cb_id => 'CREATE UNIQUE INDEX CONCURRENTLY cb_id ON cb USING pagebtree (id)',
	cb_k  => 'CREATE INDEX CONCURRENTLY cb_k ON cb USING pagebtree (k DESC)',
	cb_tv => 'CREATE INDEX CONCURRENTLY cb_tv ON cb USING pagebtree (t, v) WITH (delta = on)',
	cb_n  => 'CREATE INDEX CONCURRENTLY cb_n ON cb USING pagebtree (n) INCLUDE (k)',
);
my @order = qw(cb_id cb_k cb_tv cb_n);
for my $idx (@order)
{
	my $before = $node->safe_psql('postgres', 'SELECT last_value FROM cb_seq');
	$node->safe_psql('postgres', $indexes{$idx});
	my $after = $node->safe_psql('postgres', 'SELECT last_value FROM cb_seq');
	cmp_ok($after, '>', $before, "$idx: rows inserted while CREATE INDEX CONCURRENTLY ran ($before -> $after)");
}

# Parallel index scans while the load splits leaves: in one REPEATABLE
# READ transaction (one snapshot), a parallel scan of each index, forward
# and backward, and a sequential scan must return the same rows.
my $par_settings = q{
SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0;
SET LOCAL cpu_operator_cost = 0; SET LOCAL min_parallel_index_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
};
my $seq_settings = q{
SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL enable_seqscan = on;
SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off;
};
my @par_queries = (
	'SELECT id FROM cb WHERE id > 500 ORDER BY id',
	'SELECT id FROM cb WHERE id > 500 ORDER BY id DESC',
	'SELECT k FROM cb WHERE k BETWEEN 7000 AND 900000 ORDER BY k DESC',
	'SELECT k FROM cb WHERE k BETWEEN 7000 AND 900000 ORDER BY k',
	'SELECT t, v FROM cb WHERE t > \'1\' ORDER BY t, v',
	# keys on v alone: t is unique, so skipping cannot pay, and the
	# participants share the leaves after their trials of the first values
	'SELECT t, v FROM cb WHERE v <= 2 ORDER BY t, v',
);

# In one snapshot: the plan of query q under settings, its rows' digest,
# and the digest of heap_q's rows (default: q's) through the heap.
sub index_and_heap
{
	my ($settings, $q, $heap_q) = @_;
	my ($agg, $heap_agg) =
	  map { "SELECT md5(string_agg(x::text, ';')) || ' ' || count(*) FROM ($_) x" } ($q, $heap_q // $q);
	my $res = $node->safe_psql('postgres', qq{
BEGIN ISOLATION LEVEL REPEATABLE READ;
$settings
EXPLAIN (COSTS OFF) $agg;
$agg;
$seq_settings
$heap_agg;
COMMIT;
});
	my @lines = split /\n/, $res;
	my ($via_heap, $via_index) = (pop @lines, pop @lines);
	return (join("\n", @lines), $via_index, $via_heap);
}
for my $q (@par_queries)
{
	my ($plan, $via_par, $via_seq) = index_and_heap($par_settings, $q);
	like($plan, qr/Parallel Index (Only )?Scan (Backward )?using cb_/,
		"parallel index scan during the load: $q");
	is($via_par, $via_seq, "parallel scan during the load equals a sequential scan: $q");
}

# = ANY arrays of ids close together, read in one pass while the load
# splits leaves, against the same ids through the heap in the same snapshot
my @any_queries = (
	[ 'SELECT id FROM cb WHERE id = ANY (ARRAY(SELECT generate_series(100, 20000))) ORDER BY id',
	  'SELECT id FROM cb WHERE id BETWEEN 100 AND 20000 ORDER BY id' ],
	[ 'SELECT id FROM cb WHERE id = ANY (ARRAY(SELECT generate_series(100, 20000, 3))) ORDER BY id DESC',
	  'SELECT id FROM cb WHERE id BETWEEN 100 AND 20000 AND id % 3 = 1 ORDER BY id DESC' ],
);
for my $qs (@any_queries)
{
	my ($plan, $via_index, $via_heap) = index_and_heap(
		'SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;', @$qs);
	like($plan, qr/Index (Only )?Scan (Backward )?using cb_id/,
		"the index during the load: $qs->[0]");
	is($via_index, $via_heap, "index scan during the load equals the heap's rows: $qs->[0]");
}

for my $idx (@order)
{
	my $before = $node->safe_psql('postgres', 'SELECT last_value FROM cb_seq');
	my $oid = $node->safe_psql('postgres', "SELECT '$idx'::regclass::oid");
	$node->safe_psql('postgres', "REINDEX INDEX CONCURRENTLY $idx");
	my $after = $node->safe_psql('postgres', 'SELECT last_value FROM cb_seq');
	my $newoid = $node->safe_psql('postgres', "SELECT '$idx'::regclass::oid");
	cmp_ok($after, '>', $before, "$idx: rows inserted while REINDEX CONCURRENTLY ran ($before -> $after)");
	isnt($newoid, $oid, "$idx: REINDEX CONCURRENTLY built a new index");
}
ok($load->pumpable, 'the write load was still running when the builds finished');
$load->finish;
is($load->result(0), 0, 'pgbench succeeded') or diag($$errref);
like($$outref, qr{processed: [1-9]}, 'pgbench processed transactions');
like($$outref, qr{number of failed transactions: 0}, 'no pgbench transaction failed');

# each index's ordered contents, through the index and through the heap
my %q = (
	cb_id => 'SELECT id FROM cb WHERE id > 0 ORDER BY id',
	cb_k  => 'SELECT k FROM cb WHERE k > 0 ORDER BY k DESC',
	cb_tv => 'SELECT t, v FROM cb WHERE t >= \'\' ORDER BY t, v',
	cb_n  => 'SELECT n, k FROM cb WHERE n >= 0 ORDER BY n, k',
);
for my $idx (@order)
{
	is($node->safe_psql('postgres',
			"SELECT indisvalid AND indisready AND indislive FROM pg_index WHERE indexrelid = '$idx'::regclass"),
		't', "$idx: valid");
	is($node->safe_psql('postgres', "SELECT pagebtree_check('$idx'::regclass, true)"),
		'', "$idx: pagebtree_check with heapallindexed passes");
	my $agg = "SELECT md5(string_agg(x::text, ';')) || ' ' || count(*) FROM ($q{$idx}) x";
	my $plan = $node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off; EXPLAIN (COSTS OFF) $q{$idx}");
	like($plan, qr/Index (Only )?Scan (Backward )?using $idx /, "$idx: the query scans the index");
	my $via_index = $node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off; $agg");
	my $via_heap = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $agg");
	is($via_index, $via_heap, "$idx: index scan equals sequential scan ($via_heap)");
}
my $dup = $node->safe_psql('postgres', 'SELECT count(*) - count(DISTINCT id) FROM cb');
is($dup, '0', 'ids unique');

$node->stop;
done_testing();
