
# VACUUM's removals on a hot standby wait for scans that hold the leaf's
# pin, as VACUUM's cleanup lock does on the primary.
#
# An index-only scan keeps its leaf pinned while the executor works through
# the batch it copied.  If VACUUM's removal of those entries replayed under
# that pin, the heap's later VACUUM records could set the visibility map
# bit of the pages whose rows the batch still names, and the scan would
# return deleted rows without visiting the heap.  Redo of VACUUM's leaf
# deletions (XLOG_PBT_DELETE marked vacuum) and of its changes to a
# leaf's delta-area run (XLOG_PBT_VACUUM_FOLD) takes the leaf's cleanup
# lock, so replay waits for the cursor (max_standby_streaming_delay = -1).
# Generic WAL's redo takes no cleanup locks, so without the resource
# manager a standby plans no index-only scans on pagebtree indexes: the
# same cursor is a plain index scan there, which visits the heap
# (docs/ARCHITECTURE.md, section 5).  Nor does a standby with it whose
# primary runs without it: the metapage says that the last VACUUM (or the
# build) logged generic WAL.  An insert's removal of dead entries takes no
# cleanup lock on the standby, as on the primary, even without a horizon.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use PagebtreeTest;

# 'replayed' once the standby has replayed up to lsn, 'BufferPin' if its
# startup process waits for a pin first, else its wait event after tries
# polls 0.1 s apart
sub replay_state
{
	my ($standby, $lsn, $tries) = @_;
	my $state = '';
	for (1 .. $tries)
	{
		$state = $standby->safe_psql(
			'postgres', qq{
SELECT CASE WHEN pg_last_wal_replay_lsn() >= '$lsn' THEN 'replayed'
            ELSE coalesce(wait_event, '') END
FROM pg_stat_activity WHERE backend_type = 'startup'});
		last if $state eq 'replayed' || $state eq 'BufferPin';
		usleep(100_000);
	}
	return $state;
}

for my $config ([ 1, 1 ], [ 0, 0 ], [ 0, 1 ])
{
	# the primary's removals take the standby's cleanup lock with the
	# resource manager on both
	my ($rmgr, $standby_rmgr) = @$config;
	my $mode = $rmgr ? 'preloaded' : 'not preloaded';
	$mode .= ', standby preloaded' if $standby_rmgr && !$rmgr;
	my $primary = pbt_new_node("primary_$rmgr$standby_rmgr", rmgr => $rmgr, streaming => 1,
		conf => "autovacuum = off\n");
	$primary->start;
	# t: entries in leaves only; r: the deleted rows' entries pending in
	# runs.  The cursor's first row (1) is on a heap page that stays
	# all-visible, so that the cursor holds no heap pin (which would make
	# the heap's prune record wait, and hide the index's part).
	$primary->safe_psql(
		'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE t (a int4) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT generate_series(2, 1000);
INSERT INTO t VALUES (1);
CREATE INDEX t_a ON t USING pagebtree (a) WITH (delta = off);
CREATE TABLE r (a int4) WITH (autovacuum_enabled = off);
INSERT INTO r SELECT generate_series(1, 1000, 2);
CREATE INDEX r_a ON r USING pagebtree (a) WITH (delta = on);
CREATE TABLE s (a int4) WITH (autovacuum_enabled = off);
INSERT INTO s SELECT generate_series(2, 1000);
INSERT INTO s VALUES (1);
CREATE INDEX s_a ON s USING pagebtree (a) WITH (delta = off);
VACUUM t;
VACUUM r;
VACUUM s;
SET pagebtree.delta_append_always = on;
INSERT INTO r SELECT generate_series(2, 40, 2);
});
	is( $primary->safe_psql(
			'postgres', q{SELECT sum(entries) FROM pagebtree_runs('r_a')}),
		'20', "$mode: the 20 even keys of r are pending in a run");

	my $standby = pbt_new_standby($primary, "standby_$rmgr$standby_rmgr",
		"max_standby_streaming_delay = -1\n"
		  . ($standby_rmgr ? "shared_preload_libraries = 'pagebtree'\n" : ''));

	for my $case (
		{ table => 't', deleted => 'a BETWEEN 2 AND 400', what => 'leaf entries' },
		{ table => 'r', deleted => 'a % 2 = 0', what => 'run entries' })
	{
		my ($tab, $what) = ($case->{table}, "$mode, $case->{what}");
		my $query = "SELECT a FROM $tab WHERE a <= 500 ORDER BY a";
		$primary->safe_psql('postgres', "DELETE FROM $tab WHERE $case->{deleted}");
		$primary->wait_for_catchup($standby);

		# a cursor on the standby: its first batch names deleted rows too
		my $bg = $standby->background_psql('postgres', on_error_stop => 1);
		$bg->query_safe(
			'SET enable_seqscan = off; SET enable_bitmapscan = off; BEGIN');
		# (without the resource manager, no index-only scans on a standby)
		my $scan = $rmgr ? 'Index Only Scan' : 'Index Scan';
		like($bg->query_safe("EXPLAIN (COSTS OFF) $query"),
			qr/^$scan using ${tab}_a/, "$what: the plan is an $scan");
		$bg->query_safe("DECLARE c CURSOR FOR $query");
		is($bg->query_safe('FETCH 1 FROM c'), '1', "$what: the cursor returned 1");

		# VACUUM removes the entries, then sets the heap pages all-visible
		$primary->safe_psql('postgres', "VACUUM $tab");
		is(replay_state($standby, $primary->lsn('insert'), 600),
			$rmgr ? 'BufferPin' : 'replayed',
			$rmgr
			? "$what: replay waits for the cursor's pin"
			: "$what: replay goes on (the scan visits the heap)");

		my $want = $primary->safe_psql('postgres',
			"SELECT string_agg(a::text, ',' ORDER BY a) FROM $tab WHERE a > 1 AND a <= 500"
		);
		my $got = $bg->query_safe('FETCH ALL FROM c');
		$got =~ s/\n/,/g;
		is($got, $want, "$what: the rest of the cursor has no deleted row");
		$bg->query_safe('COMMIT');
		$bg->quit;

		$primary->wait_for_catchup($standby);
		is( $standby->safe_psql(
				'postgres', "SELECT pagebtree_check('${tab}_a', true)"),
			'', "$what: pagebtree_check passes on the standby after replay");
		is( $standby->safe_psql(
				'postgres', "SELECT count(*) FROM $tab WHERE a <= 500"),
			$primary->safe_psql(
				'postgres', "SELECT count(*) FROM $tab WHERE a <= 500"),
			"$what: the standby counts what the primary does");
	}

	# An insert's removal of dead entries, unlike VACUUM's, does not wait
	# for pins, as nbtree's does not.  Its heap tuples are gone already
	# (VACUUM without index cleanup), so its horizon is invalid like
	# VACUUM's; the cursor starts after that replayed, so it conflicts
	# with no snapshot either.
	{
		my $what = "$mode, an insert's removal";
		my $query = 'SELECT a FROM s WHERE a <= 500 ORDER BY a';
		$primary->safe_psql('postgres', q{
DELETE FROM s WHERE a BETWEEN 2 AND 400;
VACUUM (INDEX_CLEANUP off) s;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM s WHERE a BETWEEN 2 AND 400;});
		$primary->wait_for_catchup($standby);
		my $want = $primary->safe_psql('postgres',
			"SELECT string_agg(a::text, ',' ORDER BY a) FROM s WHERE a > 1 AND a <= 500");

		my $bg = $standby->background_psql('postgres', on_error_stop => 1);
		$bg->query_safe(
			'SET enable_seqscan = off; SET enable_bitmapscan = off; BEGIN');
		$bg->query_safe("DECLARE c CURSOR FOR $query");
		is($bg->query_safe('FETCH 1 FROM c'), '1', "$what: the cursor returned 1");

		# new rows of the deleted keys fill the leaf the cursor holds
		# (pg_walinspect, where installed, shows the removal's record)
		my ($ret) = $primary->psql('postgres',
			'CREATE EXTENSION IF NOT EXISTS pg_walinspect');
		my $start = $primary->lsn('insert');
		$primary->safe_psql('postgres',
			'INSERT INTO s SELECT a % 399 + 2 FROM generate_series(1, 3000) a');
		my $lsn = $primary->lsn('insert');
		like( $primary->safe_psql(
				'postgres', qq{
SELECT string_agg(description, ';') FROM pg_get_wal_records_info('$start', '$lsn')
WHERE resource_manager = 'pagebtree' AND record_type = 'DELETE'}),
			qr/^ndeleted [1-9][0-9]*, snapshotConflictHorizon 0$/,
			"$what: one insert removed dead entries, without a horizon")
		  if $rmgr && $ret == 0;
		is(replay_state($standby, $lsn, 300), 'replayed',
			"$what: replay does not wait for the cursor's pin");

		my $got = $bg->query_safe('FETCH ALL FROM c');
		$got =~ s/\n/,/g;
		is($got, $want, "$what: the cursor returns the rows of its snapshot");
		$bg->query_safe('COMMIT');
		$bg->quit;
		is( $standby->safe_psql('postgres', "SELECT pagebtree_check('s_a', true)"),
			'', "$what: pagebtree_check passes on the standby after replay");
		is( $standby->safe_psql('postgres', 'SELECT count(*) FROM s'),
			$primary->safe_psql('postgres', 'SELECT count(*) FROM s'),
			"$what: the standby counts what the primary does");
	}
	$standby->stop;
	$primary->stop;
}

done_testing();
