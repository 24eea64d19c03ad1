
# A bitmap scan that steps into a subnode whose group was split or
# rebalanced since it read the previous one reads on from its resume key
# (the high key of the subnode it read last).  The leaf it lands on now
# also holds entries below that key, which the scan has already added to
# its bitmap: it must skip them, so that the Bitmap Index Scan's row count
# in EXPLAIN ANALYZE is the number of entries in range, as btree's is.
# gdb stops the scan where it is about to read the group's second subnode
# (prefetching off, so that it reads through ReadBuffer), another session
# inserts into the first subnode until the group splits, and the scan goes
# on.  Skipped where gdb cannot stop a backend, or not on x86-64.

use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use Config;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use PagebtreeTest;

plan skip_all => 'gdb is not installed'
  unless system('gdb --version >/dev/null 2>&1') == 0;
plan skip_all => 'the breakpoint condition needs x86-64'
  unless $Config{archname} =~ /x86_64/;

my $node = pbt_new_node('bitmap_resume', rmgr => 1, conf => "autovacuum = off\n");
$node->start;
# even keys, every group full (fillfactor 100): the next insert into one of
# its subnodes splits the group
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION pagebtree;
CREATE TABLE g (k int8) WITH (autovacuum_enabled = off);
INSERT INTO g SELECT 2 * i FROM generate_series(1, 20000) i;
CREATE INDEX g_k ON g USING pagebtree (k)
  WITH (leaf_group_size = 4, fillfactor = 100, delta = off);
VACUUM g;
});
my ($start, $epoch) = split /\|/, $node->safe_psql('postgres',
	'SELECT start, epoch FROM pagebtree_groups(\'g_k\') ORDER BY start LIMIT 1');
is( $node->safe_psql('postgres',
		"SELECT prev FROM pagebtree_page_stats('g_k', $start)"),
	'-1', 'the first group starts with the leftmost leaf');
my $second = $node->safe_psql('postgres',
	"SELECT next FROM pagebtree_page_stats('g_k', $start)");

# the scan covers the whole first group and more
my $range = 'k BETWEEN 0 AND 20000';
my $count = $node->safe_psql('postgres', "SELECT count(*) FROM g WHERE $range");
my $query = "SELECT count(*) FROM g WHERE $range";
my $settings = 'SET enable_seqscan = off; SET enable_indexscan = off; '
  . 'SET effective_io_concurrency = 0; SET max_parallel_workers_per_gather = 0;';
like($node->safe_psql('postgres', "$settings EXPLAIN (COSTS OFF) $query"),
	qr/Bitmap Index Scan on g_k/, 'the query is a bitmap scan of g_k');

my ($out, $err) = ('', '');
my $scanner = IPC::Run::start(
	[
		'psql', '-X', '-A', '-t', '-d', $node->connstr('postgres'),
		'-c', 'SELECT pg_backend_pid()',
		'-c', 'SELECT pg_sleep(2)',
		'-c', "$settings SET client_min_messages = debug2; "
		  . "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $query"
	],
	'<', \undef, '>', \$out, '2>', \$err);
my $deadline = time + 60;
$scanner->pump while $out !~ /^(\d+)$/m && time < $deadline;
my ($pid) = $out =~ /^(\d+)$/m;

# the index's file number is first in RelationData after two Oids
my $file = $node->safe_psql('postgres', q{SELECT pg_relation_filenode('g_k')});
my ($gdb, $gdb_out) = pbt_gdb_pause($pid,
	"break *ReadBuffer if \$rsi == $second && *(unsigned int *) (\$rdi + 8) == $file", 5);
if (!$gdb)
{
	$scanner->kill_kill;
	$node->stop;
	plan skip_all => $gdb_out;
}
$gdb->pump while $$gdb_out !~ /HIT/ && time < $deadline;
ok($$gdb_out =~ /HIT/, "the scan stopped before it read subnode $second");

# odd keys into the first subnode, until its group's epoch changes
$node->safe_psql('postgres',
	"INSERT INTO g SELECT 2 * i + 1 FROM generate_series(1, 200) i");
isnt( $node->safe_psql('postgres',
		"SELECT epoch FROM pagebtree_groups('g_k') WHERE start = $start"),
	$epoch, 'the inserts split or rebalanced the group meanwhile');
$gdb->finish;
$scanner->finish;

like($err, qr/reads on from its resume key after a rebalance of the group at block $start/,
	'the scan read on from its resume key');
like($out, qr/Bitmap Index Scan on g_k \(actual rows=$count(\.00)? loops=1\)/,
	"the Bitmap Index Scan counts the $count entries in range once");
like($out, qr/Bitmap Heap Scan on g \(actual rows=$count(\.00)? loops=1\)/,
	'and the heap scan returns them');
is($node->safe_psql('postgres', q{SELECT pagebtree_check('g_k', true)}),
	'', 'pagebtree_check passes');

$node->stop;
done_testing();
