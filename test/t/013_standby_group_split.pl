
# A hot-standby scan in the middle of the redo of a leaf group split.
#
# A group split is one core XLOG_FPI record of both groups' pages and the
# right sibling's, whose redo restores and releases them one at a time in
# block id order.  The old group's last subnode links to the new group's
# first: if the new group came after the old one in the record, a standby
# reader could follow that link to a hole (the new group's blocks as
# pbt_new_group logged them: empty and rightmost) and miss every key above
# the separator.  gdb stops the standby's startup process where redo is
# about to restore block id 8 of the split record (of a group of 8: the
# first page of the second half of the record), and standby queries in
# that window must return what a sequential scan returns.  Skipped where
# gdb cannot stop the startup process, or not on x86-64 (the breakpoint's
# condition reads the block id from its argument register).

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use Config;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

plan skip_all => 'gdb is not installed'
  unless system('gdb --version >/dev/null 2>&1') == 0;
plan skip_all => 'the breakpoint condition needs x86-64'
  unless $Config{archname} =~ /x86_64/;

my $primary = pbt_new_node('primary', rmgr => 1, streaming => 1,
	conf => "autovacuum = off\n");
$primary->start;
# full groups of 8 (fillfactor 100): the first insert into one splits it
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE t (k int8);
INSERT INTO t SELECT g * 2 FROM generate_series(1, 100000) g;
CREATE INDEX t_k ON t USING pagebtree (k)
  WITH (leaf_group_size = 8, fillfactor = 100, delta = off);
CHECKPOINT;
});

my $standby = pbt_new_standby($primary, 'standby',
	"max_standby_streaming_delay = -1\n");
$primary->wait_for_catchup($standby);

like($standby->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE k BETWEEN 40000 AND 60000}),
	qr/Index Only Scan using t_k/, 'the standby reads t by t_k');

# Only a record of more than 8 blocks has a block id 8: the split's.  The
# breakpoint is on the function's first instruction, where the block id
# is still in its argument register.
my ($gdb, $out) = pbt_pause_redo($standby,
	'break *XLogReadBufferForRedo if ($rsi & 0xff) == 8', 5);
if (!$gdb)
{
	$standby->stop;
	$primary->stop;
	plan skip_all => $out;
}
my $deadline = time + 60;

my $groups = q{SELECT count(*) FROM pagebtree_groups('t_k')};
my $before = $primary->safe_psql('postgres', $groups);
# (the first that does not fit splits the group; the others go to halves)
$primary->safe_psql('postgres',
	'INSERT INTO t SELECT 50001 + 2 * g FROM generate_series(0, 19) g');
is($primary->safe_psql('postgres', $groups), $before + 1,
	'the inserts split a group');
$gdb->pump while $$out !~ /HIT/ && time < $deadline;
if (!ok($$out =~ /HIT/, 'replay stopped in the middle of the group split'))
{
	$gdb->kill_kill;
	$standby->stop;
	$primary->stop;
	done_testing();
	exit 0;
}

# each query by the index and by a sequential scan, under one snapshot
my @queries = (
	'SELECT count(*) FROM t WHERE k BETWEEN 40000 AND 60000',
	'SELECT string_agg(k::text, \',\') FROM (SELECT k FROM t WHERE k BETWEEN 52000 AND 52100 ORDER BY k DESC) s',
	'SELECT count(*) FROM t WHERE k = 53000');
my $sql = "BEGIN ISOLATION LEVEL REPEATABLE READ;\n";
for my $q (@queries)
{
	$sql .= "SET enable_seqscan = off; SET enable_bitmapscan = off;\n"
	  . "SELECT 'index ' || ($q);\n"
	  . "SET enable_seqscan = on; SET enable_indexscan = off; SET enable_indexonlyscan = off;\n"
	  . "SELECT 'seq ' || ($q);\n"
	  . "RESET enable_indexscan; RESET enable_indexonlyscan;\n";
}
my @result = split /\n/, $standby->safe_psql('postgres', "$sql COMMIT;");
for my $i (0 .. $#queries)
{
	my ($index) = $result[2 * $i] =~ /^index (.*)$/;
	my ($seq) = $result[2 * $i + 1] =~ /^seq (.*)$/;
	is($index, $seq, "in the window, the index answers as a sequential scan: $queries[$i]");
}
$gdb->finish;

$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', 'SELECT count(*) FROM t WHERE k BETWEEN 40000 AND 60000'),
	'10021', 'after replay the standby sees the new rows');
is($standby->safe_psql('postgres', q{SELECT pagebtree_check('t_k', true)}),
	'', 'pagebtree_check passes on the standby');

$standby->stop;
$primary->stop;
done_testing();
