# Parallel index scans of a leaf-group index (issue #23) while inserts
# rebalance and split its groups.  The participants share the scan one
# leaf at a time, and a participant that steps into a subnode of the group
# another one read last must notice a rebalance in between (the published
# group epoch) and read on from the published resume key, in both
# directions.  Two pgbench clients insert into a narrow key range at the
# middle of the index; each scan filters its rows through a slow function
# so that a participant holds a leaf long enough for the others' steps to
# meet rebalances.  In one REPEATABLE READ snapshot, a parallel scan
# forward (Gather), one backward (Gather Merge) and a sequential scan must
# agree; the scans repeat at least ten times and until the server log
# shows that participants read on from a resume key at least three times
# (DEBUG2), for at most 60 seconds.  Then the index must pass
# pagebtree_check.
#
# With the published group left out (pbt_read_shared not restoring it), 8
# of 37 rounds returned rows twice or missed some, and no resume was
# logged.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use PagebtreeTest;
use Time::HiRes qw(time);

my $node = PostgreSQL::Test::Cluster->new('parallel_group_scan');
$node->init;
$node->append_conf('postgresql.conf', q{
max_worker_processes = 8
max_parallel_workers = 4
log_min_messages = debug2
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE pg (i int8, k int8) WITH (autovacuum_enabled = off);
INSERT INTO pg SELECT i, (i * 7919) % 3000017 FROM generate_series(1, 20000) i;
CREATE INDEX pg_k ON pg USING pagebtree (k)
    WITH (leaf_group_size = 16, delta = off);
VACUUM ANALYZE pg;
-- about 20 microseconds a row
CREATE FUNCTION slow(k int8) RETURNS boolean LANGUAGE plpgsql PARALLEL SAFE AS $$
DECLARE
    x int8 := k;
BEGIN
    FOR j IN 1..200 LOOP
        x := (x * 31 + j) % 1000003;
    END LOOP;
    RETURN x >= 0;
END;
$$;
});

my $par = q{
SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0;
SET LOCAL cpu_operator_cost = 0; SET LOCAL min_parallel_index_scan_size = 0;
SET LOCAL min_parallel_table_scan_size = 0; SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL parallel_leader_participation = off;
SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
};
my $seq = q{
SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL enable_seqscan = on;
SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off;
};
my $sums = 'count(*), sum(k), sum(i), sum((k * 31 + i) % 1000003)';
my $fwd = "SELECT 'x', $sums FROM pg WHERE k > 1490000 AND slow(k)";
my $bwd = "SELECT 'x', $sums FROM (SELECT k, i FROM pg WHERE k > 1490000 AND slow(k) ORDER BY k DESC) s";
my $heap = "SELECT 'x', $sums FROM pg WHERE k > 1490000";

my $plans = $node->safe_psql('postgres', qq{
BEGIN;
$par
EXPLAIN (COSTS OFF) $fwd;
EXPLAIN (COSTS OFF) $bwd;
COMMIT;
});
like($plans, qr/Gather\n.*Parallel Index Scan using pg_k/s, 'the forward scan is a parallel index scan');
like($plans, qr/Gather Merge\n.*Parallel Index Scan Backward using pg_k/s,
	'the backward scan is a parallel index scan');

my ($load, $outref, $errref) = pbt_start_script($node, q{
\set k random(1500000, 1520000)
INSERT INTO pg VALUES (-1, :k);
}, 2, 60, '-R', 10000);

sub resumes
{
	my @hits = slurp_file($node->logfile) =~ /reads on from its resume key/g;
	return scalar @hits;
}

my $start = time;
my ($rounds, $differ) = (0, 0);
while (time - $start < 60 && ($rounds < 10 || resumes() < 3))
{
	my @res = split /\n/, $node->safe_psql('postgres', qq{
BEGIN ISOLATION LEVEL REPEATABLE READ;
$par
$fwd;
$bwd;
$seq
$heap;
COMMIT;
});
	$rounds++;
	if ($res[0] ne $res[2] || $res[1] ne $res[2])
	{
		$differ++;
		diag("round $rounds: forward $res[0], backward $res[1], sequential $res[2]");
	}
}
$load->kill_kill;
my $n = resumes();
note("$rounds rounds, $n resumes");
cmp_ok($n, '>=', 1, "participants read on from a resume key after rebalances ($n times in $rounds rounds)");
is($differ, 0, "parallel scans forward and backward equal a sequential scan in every round ($rounds)");
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM pg'), '>', 20000, 'the inserts ran');
is($node->safe_psql('postgres', q{SELECT max(epoch) > 1 FROM pagebtree_groups('pg_k')}),
	't', 'groups were rebalanced or split');
$node->safe_psql('postgres', "SELECT pagebtree_check('pg_k', true)");
pass('pagebtree_check passes after the load');

$node->stop;
done_testing();
