
# A hot-standby query that could still follow a link to a deleted page is
# cancelled before the primary reuses the page, with or without the
# resource manager.
#
# VACUUM deletes empty leaves and stamps them with the next transaction id;
# a page is reused only once no snapshot on the primary predates that
# stamp, but a standby's snapshots are not the primary's.  Before reusing
# it, the primary logs the stamp as a recovery conflict: in pagebtree's
# REUSE_PAGE record when preloaded, else in nbtree's, whose redo does the
# same and nothing else.  A standby transaction whose snapshot is older
# than the stamp (a primary transaction was running when the page was
# deleted) must be cancelled when the reuse replays; one that starts after
# it is not.  The test runs in both WAL modes and shows the reuse in the
# WAL with pg_waldump.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

my $conflicts = q{SELECT confl_snapshot FROM pg_stat_database_conflicts
  WHERE datname = 'postgres'};

for my $rmgr (1, 0)
{
	my $mode = $rmgr ? 'preloaded' : 'not preloaded';
	my $primary = pbt_new_node("primary_$rmgr", rmgr => $rmgr, streaming => 1,
		conf => "autovacuum = off\n");
	$primary->start;
	$primary->safe_psql(
		'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE t (g int8, k text) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT g, lpad(g::text, 10, '0') || repeat('x', 30)
FROM generate_series(1, 20000) g;
CREATE INDEX t_k ON t USING pagebtree (k) WITH (delta = off, fillfactor = 100);
});
	my $standby = pbt_new_standby($primary, "standby_$rmgr",
		"max_standby_streaming_delay = 0\nhot_standby_feedback = off\n");

	# a primary transaction that began before VACUUM deleted the pages
	# (after the rows were deleted) holds the pages back, and gives standby
	# snapshots an older xmin
	$primary->safe_psql('postgres', 'DELETE FROM t WHERE g BETWEEN 8000 AND 16000');
	my $old = $primary->background_psql('postgres', on_error_stop => 1);
	$old->query_safe('BEGIN; SELECT txid_current()');
	$primary->safe_psql('postgres', 'VACUUM t');
	$primary->wait_for_catchup($standby);

	my $reader = $standby->background_psql('postgres', on_error_stop => 0);
	$reader->query_safe(
		'BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM t');

	$old->query_safe('COMMIT');
	$old->quit;
	my $start_lsn = $primary->lsn('insert');
	my $relfilenode = $primary->safe_psql('postgres',
		q{SELECT pg_relation_filenode('t_k')});
	# (the stamp is the next transaction id: one more must begin first)
	$primary->safe_psql('postgres', 'SELECT txid_current()');
	$primary->safe_psql('postgres', 'VACUUM t');
	$primary->wait_for_catchup($standby);
	is($standby->safe_psql('postgres', $conflicts), '0',
		"$mode: the standby transaction outlived VACUUM's replay");
	my $pages = $primary->safe_psql('postgres',
		q{SELECT pg_relation_size('t_k') / 8192});
	$primary->safe_psql('postgres',
		q{INSERT INTO t SELECT g, lpad(g::text, 10, '0') || repeat('x', 30)
		  FROM generate_series(20001, 28000) g});
	# (the new keys fill about 60 leaves; a deleted page that another
	# process holds at that moment, such as the background writer writing
	# it out, is passed over, as nbtree's _bt_allocbuf passes it over)
	my $grown = $primary->safe_psql('postgres',
		q{SELECT pg_relation_size('t_k') / 8192}) - $pages;
	ok($grown <= 5, "$mode: the new keys took the deleted pages")
	  or diag("the index grew by $grown pages from $pages");
	my $end_lsn = $primary->lsn('insert');
	$primary->wait_for_catchup($standby);

	my ($stdout, $stderr) = run_command(
		[
			'pg_waldump', '-p', $primary->data_dir . '/pg_wal',
			'-s', $start_lsn, '-e', $end_lsn
		]);
	# (pg_waldump names no custom record: pagebtree's REUSE_PAGE is 0x20)
	my $record = $rmgr ? qr/rmgr: custom\d+ .*UNKNOWN \(20\)/ : qr/rmgr: Btree .*REUSE_PAGE/;
	my $reuses = () = $stdout =~ /$record/g;
	ok($reuses > 0, "$mode: $reuses REUSE_PAGE records in the WAL");

	is($standby->safe_psql('postgres', $conflicts), '1',
		"$mode: the standby transaction older than the deletion was cancelled");
	eval { $reader->quit; };

	is( $standby->safe_psql(
			'postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM t WHERE k > '0000007000'}),
		$primary->safe_psql('postgres',
			q{SELECT count(*) FROM t WHERE k > '0000007000'}),
		"$mode: a new standby query returns the primary's rows");
	is($standby->safe_psql('postgres', q{SELECT pagebtree_check('t_k', true)}),
		'', "$mode: pagebtree_check passes on the standby");

	$standby->stop;
	$primary->stop;
}
done_testing();
