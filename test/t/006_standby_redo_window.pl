
# A hot-standby scan in the middle of the redo of a fold, and of a split
# that merges a run.
#
# Redo of XLOG_PBT_FOLD changes the leaf (block 0) and clears the run on the
# side page (block 1); redo of XLOG_PBT_SPLIT with a run clears it too
# (block 4).  A standby reader must see either the old leaf and run or the
# new ones, never the new leaf with the old run (every folded entry twice).
# gdb stops the standby's startup process where redo updates the slot
# (pbt_side_run_set), a standby query runs in that window, and its count
# must equal a sequential scan's under the same snapshot.  Redo keeps the
# leaf locked there, so the index scan waits until gdb lets replay go on.
# Skipped where gdb cannot attach to the startup process.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

plan skip_all => 'gdb is not installed'
  unless system('gdb --version >/dev/null 2>&1') == 0;

my $primary = pbt_new_node('primary', rmgr => 1, streaming => 1,
	conf => "autovacuum = off\n");
$primary->start;
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE t (k int4);
INSERT INTO t SELECT g FROM generate_series(1, 20000) g
 WHERE g NOT BETWEEN 5000 AND 5010;
CREATE INDEX t_k ON t USING pagebtree (k) WITH (delta = on);
SET pagebtree.delta_append_always = on;
-- 11 pending entries on the rightmost leaf, which has room, and 11 on a
-- full leaf in the middle
INSERT INTO t SELECT g FROM generate_series(20001, 20011) g;
INSERT INTO t SELECT g FROM generate_series(5000, 5010) g;
CHECKPOINT;
});
is( $primary->safe_psql(
		'postgres', 'SELECT sum(entries) FROM pagebtree_runs(\'t_k\')'),
	'22',
	'22 entries pending before the standby starts');

my $standby = pbt_new_standby($primary, 'standby',
	"max_standby_streaming_delay = -1\n");
$primary->wait_for_catchup($standby);

my $count = q{SELECT count(*) FROM t WHERE k BETWEEN %d AND %d};

for my $round (
	{ name => 'fold', lo => 20001 },
	{ name => 'split with a run', lo => 5000 })
{
	my ($lo, $hi) = ($round->{lo}, $round->{lo} + 10);
	# stop replay where redo updates the run's slot, 5 s long
	my ($gdb, $out) = pbt_pause_redo($standby, 'break pbt_side_run_set', 5);
	skip_rest($out) unless $gdb;
	my $deadline = time + 60;

	# 40 more entries in the same leaf pass the threshold: fold (or split)
	$primary->safe_psql('postgres',
		"SET pagebtree.delta_append_always = on;
		 INSERT INTO t SELECT $lo + g % 11 FROM generate_series(1, 40) g");
	$gdb->pump while $$out !~ /HIT/ && time < $deadline;
	if (!ok($$out =~ /HIT/, "$round->{name}: replay stopped in the redo of the run's slot"))
	{
		$gdb->kill_kill;
		last;
	}

	# the index scan and a sequential scan under one snapshot
	my $result = $standby->safe_psql(
		'postgres', sprintf(q{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT '%s' || (%s);
SET enable_seqscan = on; SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SELECT '%s' || (%s);
COMMIT;}, 'index ', sprintf($count, $lo, $hi), 'seq ', sprintf($count, $lo, $hi)));
	my ($index) = $result =~ /index (\d+)/;
	my ($seq)   = $result =~ /seq (\d+)/;
	is($index, $seq,
		"$round->{name}: a standby index scan in the window counts what a sequential scan does ($seq)");
	$gdb->finish;

	$primary->wait_for_catchup($standby);
	is($standby->safe_psql('postgres', sprintf($count, $lo, $hi)),
		'51', "$round->{name}: after replay the standby sees all 51 rows");
}

is($standby->safe_psql('postgres', q{SELECT pagebtree_check('t_k', true)}),
	'', 'pagebtree_check passes on the standby');
is( $standby->safe_psql(
		'postgres', 'SELECT coalesce(sum(entries), 0) FROM pagebtree_runs(\'t_k\')'),
	$primary->safe_psql(
		'postgres', 'SELECT coalesce(sum(entries), 0) FROM pagebtree_runs(\'t_k\')'),
	'the standby has the primary\'s pending entries');

$standby->stop;
$primary->stop;
done_testing();

sub skip_rest
{
	my ($why) = @_;
	$standby->stop;
	$primary->stop;
	plan skip_all => $why if Test::More->builder->current_test == 0;
	diag("skipped the rest: $why");
	done_testing();
	exit 0;
}
