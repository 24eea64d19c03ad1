
# Streaming replication of pagebtree indexes.
#
# A primary (shared_preload_libraries = 'pagebtree', custom WAL resource
# manager; and, second, a primary using generic WAL) and a streaming hot
# standby made with pg_basebackup.  While the primary runs a write workload
# that splits many pages:
#   - index scans on the standby, under one REPEATABLE READ snapshot, return
#     exactly the rows of a sequential scan on the standby;
#   - the standby survives an immediate stop during replay;
# after the standby caught up, it returns the same rows as the primary, and
# its leaves have the layouts that point lookups gave an adaptive index on
# the primary (conversions are replayed; standby lookups convert nothing);
# then the standby is promoted, pagebtree_check passes there and it takes writes.
# The table has two indexes with a delta area (t_dpk, t_dls) and the primary
# runs with pagebtree.delta_append_always = on: its inserts append to runs,
# which fold at the threshold, at VACUUM and when their leaves split, and
# the standby, whose scans merge the runs while it replays them, ends with
# the primary's runs, entry for entry (entries must be pending on the
# primary during the workload, and after it, when the comparison is made).
# The table also has two indexes with leaf groups (t_gk, int8, fillfactor
# = 100; t_gs, text COLLATE "C"; leaf_group_size = 4), built before the
# base backup: the workload rebalances and splits groups (logged by its
# clients with log_min_messages = debug2; both must happen), the standby
# replays the whole-group images while pbt_verify scans the groups in both
# directions, and pagebtree_check passes on them on the hot standby.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(sleep time);
use PagebtreeTest;

pbt_seed(2002);

my $workload_seconds = $ENV{PBT_STANDBY_SECONDS} // 20;

for my $setup ({ name => 'rmgr', rmgr => 1 }, { name => 'generic', rmgr => 0 })
{
	my $name    = $setup->{name};
	my $primary = pbt_new_node("primary_$name", rmgr => $setup->{rmgr},
		streaming => 1, delta_always => 1);
	$primary->start;
	pbt_create_schema($primary, delta => 1);
	my @delta = qw(t_dpk t_dls);
	my $runs_q = q{SELECT i, leaf, entries, bytes, folds
  FROM unnest(ARRAY['t_dpk', 't_dls']) i, LATERAL pagebtree_runs(i::regclass)
 ORDER BY 1, 2};
	pbt_load($primary, 1, 30000);
	pbt_load($primary, 1, 400, copies => 5);
	pbt_create_groups($primary);

	# a slot keeps the WAL the standby has not received yet: its replay
	# may fall behind while it waits for the verification queries
	$primary->safe_psql('postgres',
		"SELECT pg_create_physical_replication_slot('standby_$name')");
	# never cancel the standby's verification queries; replay waits for them
	my $standby = pbt_new_standby($primary, "standby_$name", qq(
max_standby_streaming_delay = -1
primary_slot_name = 'standby_$name'
));
	$primary->wait_for_catchup($standby);

	is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'),
		't', "$name: standby is in recovery");
	my $fp0p = pbt_verify($primary, "$name primary initial", ranges => 2, text_ranges => 1);
	my $fp0s = pbt_verify($standby, "$name standby initial", ranges => 2, text_ranges => 1);
	is($fp0s, $fp0p, "$name: standby has the primary's rows after the base backup");

	# writes on the primary, reads on the standby while it replays them
	my $wlpos = -s $primary->logfile;
	my $wl = pbt_start_workload($primary, clients => 3,
		seconds => $workload_seconds, tag => "standby_$name",
		options => '-c log_min_messages=debug2');
	my $deadline = time() + $workload_seconds - 2;
	my $round    = 0;
	my $restarted = 0;
	my $max_pending = 0;
	while (time() < $deadline)
	{
		$round++;
		my $r = pbt_runs($primary, \@delta);
		$max_pending = $r->{entries} if $r->{entries} > $max_pending;
		pbt_verify($standby, "$name standby during replay, round $round",
			ranges => 2, text_ranges => 1);
		if (!$restarted && time() > $deadline - $workload_seconds / 2)
		{
			# crash the standby in the middle of replay; it must resume
			$standby->stop('immediate');
			$standby->start;
			$restarted = 1;
		}
	}
	if (!$restarted)
	{
		$standby->stop('immediate');
		$standby->start;
	}
	ok($round >= 1, "$name: verified the standby $round times during replay");
	pbt_stop_workload($wl, name => "$name primary workload", expect_ok => 1);
	my $gops = pbt_group_ops(
		substr(PostgreSQL::Test::Utils::slurp_file($primary->logfile), $wlpos),
		qr/^t_g[ks]$/);
	ok($gops->{rebalance} + $gops->{split} > 0,
		"$name: the primary's workload rebalanced or split leaf groups ($gops->{rebalance} rebalances, $gops->{split} splits)");

	ok($max_pending > 0,
		"$name: entries were pending in runs on the primary during the workload (up to $max_pending)");

	# entries pending after the workload's last VACUUM, for the standby;
	# it has the primary's runs, entry for entry (retried: autovacuum may
	# fold some between reading the primary's and the standby's)
	pbt_load($primary, 60001, 62000);
	my $runs = pbt_runs($primary, \@delta);
	ok($runs->{entries} > 0 && $runs->{folds} > 0,
		"$name: entries pending in runs on the primary, runs folded")
	  or diag("pending $runs->{entries}, folds $runs->{folds}");
	note "$name: $runs->{entries} entries pending in $runs->{runs} runs, $runs->{folds} folds";
	my ($runs_p, $runs_s);
	for my $try (1 .. 5)
	{
		$runs_p = $primary->safe_psql('postgres', $runs_q);
		$primary->wait_for_catchup($standby);
		$runs_s = $standby->safe_psql('postgres', $runs_q);
		last if $runs_s eq $runs_p;
	}
	ok($runs_s eq $runs_p, "$name: the standby replayed the primary's runs")
	  or diag("primary:\n$runs_p\nstandby:\n$runs_s");

	# an index built while the standby is streaming
	$primary->safe_psql('postgres',
		'CREATE INDEX t_pad ON t USING pagebtree (pad); DELETE FROM t WHERE k % 97 = 0;');
	$primary->wait_for_catchup($standby);

	my $fpp = pbt_verify($primary, "$name primary after workload");
	my $fps = pbt_verify($standby, "$name standby after catch-up");
	ok(defined $fpp && defined $fps && $fps eq $fpp,
		"$name: standby returns the same rows as the primary")
	  or diag("primary $fpp, standby $fps");

	my $pad_q = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT pad, count(*) FROM t WHERE pad >= 'a' GROUP BY pad ORDER BY pad;};
	my $pad_plan = $standby->safe_psql('postgres',
		q{SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT pad FROM t WHERE pad >= 'a' ORDER BY pad;});
	like($pad_plan, qr/Index (Only )?Scan using t_pad/,
		"$name: standby uses the index built during streaming");
	is($standby->safe_psql('postgres', $pad_q),
		$primary->safe_psql('postgres', $pad_q),
		"$name: index built during streaming gives the same rows on the standby");

	# operation-adaption: point lookups on the primary turn heads leaves
	# of string-like keys into fingerprint leaves, WAL-logged conversions
	# the standby replays; lookups on the standby convert nothing
	$primary->safe_psql('postgres', q{
CREATE TABLE adapt (id int, k text COLLATE "C");
INSERT INTO adapt SELECT i, md5((i % 400)::text) || '/' || i FROM generate_series(1, 20000) i;
CREATE INDEX adapt_k ON adapt USING pagebtree (k);
});
	my $lookups = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
DO $$
DECLARE
	key text;
	n int;
	wrong int := 0;
BEGIN
	FOR key IN SELECT k FROM adapt, generate_series(1, 3) ORDER BY random() LOOP
		EXECUTE 'SELECT count(*) FROM adapt WHERE k = $1' INTO n USING key;
		IF n <> 1 THEN wrong := wrong + 1; END IF;
	END LOOP;
	IF wrong > 0 THEN RAISE EXCEPTION '% lookups found other rows', wrong; END IF;
END $$;};
	my $summary = q{SELECT layout, pages FROM pagebtree_layout_summary('adapt_k')
WHERE page_type = 'leaf' ORDER BY layout};
	$primary->safe_psql('postgres', $lookups);
	$primary->wait_for_catchup($standby);
	my $layouts = $primary->safe_psql('postgres', $summary);
	like($layouts, qr/^fingerprint\|\d+/m,
		"$name: point lookups made fingerprint leaves on the primary");
	is($standby->safe_psql('postgres', $summary), $layouts,
		"$name: the standby replayed the layout conversions");
	$standby->safe_psql('postgres', $lookups);
	is($standby->safe_psql('postgres', $summary), $layouts,
		"$name: lookups on the standby convert nothing");

	# pagebtree_check on the hot standby (read-only checks)
	my ($ret, $out, $err) = $standby->psql('postgres',
		"SELECT pagebtree_check('t_k', true), pagebtree_check('t_s', true), "
		  . "pagebtree_check('adapt_k', true), pagebtree_check('t_dpk', true), "
		  . "pagebtree_check('t_dls', true), pagebtree_check('t_gk', true), "
		  . "pagebtree_check('t_gs', true)");
	ok($ret == 0, "$name: pagebtree_check works on the hot standby")
	  or diag($err);

	# promote and use the former standby
	$standby->promote;
	$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
	  or die "promotion of standby_$name timed out";
	pbt_check_indexes($standby, "$name promoted");
	($ret, $out, $err) = $standby->psql('postgres',
		"SELECT pagebtree_check('t_pad', true)");
	ok($ret == 0, "$name promoted: pagebtree_check('t_pad', true)") or diag($err);

	$wl = pbt_start_workload($standby, clients => 2, seconds => 3,
		tag => "promoted_$name");
	pbt_stop_workload($wl, name => "$name promoted workload", expect_ok => 1);
	pbt_check_indexes($standby, "$name promoted after writes");
	pbt_verify($standby, "$name promoted after writes");

	$standby->stop;
	$primary->stop;
}

done_testing();
