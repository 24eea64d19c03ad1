
# A leaf group whose split never came is reclaimed by VACUUM.
#
# A group split logs the new group's blocks as holes first (so that no
# extension hands them out after a crash), then the split that links them
# into the tree.  A crash between the two records leaves a group of holes
# that nothing links to.  gdb stops a backend at the split's record, after
# the new group's record is flushed by another commit, and the backend is
# killed.  After restart, VACUUM turns the unlinked holes into a deleted
# group (pbt_group_reclaim_orphan), and the next group split takes its
# blocks instead of extending the index.  Groups of 8: the reclaim's record
# registers more blocks than a record may without XLogEnsureRecordSpace.
# Skipped where gdb cannot stop a backend.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

plan skip_all => 'gdb is not installed'
  unless system('gdb --version >/dev/null 2>&1') == 0;

my $node = pbt_new_node('group_orphan', rmgr => 1, conf => "autovacuum = off\n");
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE t (k int8) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT g * 2 FROM generate_series(1, 20000) g;
CREATE INDEX t_k ON t USING pagebtree (k)
  WITH (leaf_group_size = 8, fillfactor = 100, delta = off);
CHECKPOINT;
});

my $pages = q{SELECT count(*) FILTER (WHERE s.flags LIKE '%hole%') || ' '
    || count(*) FILTER (WHERE s.flags LIKE '%deleted%') || ' '
    || pg_relation_size('t_k') / 8192
  FROM generate_series(1, pg_relation_size('t_k') / 8192 - 1) b,
       LATERAL pagebtree_page_stats('t_k', b) s};
my ($holes0, $deleted0, $size0) = split / /, $node->safe_psql('postgres', $pages);
my $split = 'INSERT INTO t SELECT 10001 + 2 * g FROM generate_series(0, 19) g';

# the splitting backend, paused before it starts so that gdb can attach
my ($out, $err) = ('', '');
my $splitter = IPC::Run::start(
	[
		'psql', '-X', '-A', '-t', '-d', $node->connstr('postgres'),
		'-c', 'SELECT pg_backend_pid()',
		'-c', 'SELECT pg_sleep(2)',
		'-c', $split
	],
	'<', \undef, '>', \$out, '2>', \$err);
my $deadline = time + 60;
$splitter->pump while $out !~ /^(\d+)$/m && time < $deadline;
my ($pid) = $out =~ /^(\d+)$/m;

# the first record is the new group's holes, the second the split
my ($gdb, $gdb_out) = pbt_gdb_pause($pid, [ 'break pbt_log_group_pages', 'ignore 1 1' ], 10);
if (!$gdb)
{
	$splitter->kill_kill;
	$node->stop;
	plan skip_all => $gdb_out;
}
$gdb->pump while $$gdb_out !~ /HIT/ && time < $deadline;
if (!ok($$gdb_out =~ /HIT/, 'the splitter stopped at the split record'))
{
	$gdb->kill_kill;
	$splitter->kill_kill;
	$node->stop('immediate');
	done_testing();
	exit 0;
}
# another commit flushes the WAL, the new group's record with it
$node->safe_psql('postgres', 'CREATE TABLE flush ()');
kill 'KILL', $pid;
$gdb->kill_kill;
$splitter->kill_kill;
$node->kill9;
pbt_start_after_crash($node);

my ($holes1, $deleted1, $size1) = split / /, $node->safe_psql('postgres', $pages);
is($holes1 - $holes0, 8, 'after the crash, the new group is 8 unlinked holes');
is($node->safe_psql('postgres', q{SELECT pagebtree_check('t_k', true)}), '',
	'pagebtree_check passes after the crash');

$node->safe_psql('postgres', 'VACUUM t');
my ($holes2, $deleted2, $size2) = split / /, $node->safe_psql('postgres', $pages);
is($holes2, $holes0, 'VACUUM took the holes');
is($deleted2 - $deleted0, 8, 'they are a deleted group');

$node->safe_psql('postgres', $split);
my ($holes3, $deleted3, $size3) = split / /, $node->safe_psql('postgres', $pages);
is($size3, $size2, 'the split took the deleted group: the index did not grow');
is($deleted3, $deleted0, 'no deleted page is left');
is($node->safe_psql('postgres', q{SELECT pagebtree_check('t_k', true)}), '',
	'pagebtree_check passes');
is( $node->safe_psql(
		'postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(k) FROM t WHERE k BETWEEN 9000 AND 12000}),
	$node->safe_psql(
		'postgres', q{SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*), sum(k) FROM t WHERE k BETWEEN 9000 AND 12000}),
	'the index returns what a sequential scan does');

$node->stop;
done_testing();
