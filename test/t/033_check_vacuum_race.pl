
# pagebtree_check walks each level by right-links, copying one page at a
# time.  VACUUM may delete a leaf between the walk's read of its left
# sibling and its own read, and an insert may then put a key of the
# deleted leaf's range into its right sibling.  Neither is corruption.
# gdb stops the checker where it is about to read the leaf (block id in
# ReadBuffer's argument register), VACUUM (and the insert) run, and the
# check must then pass:
#   - the deleted leaf itself: the walk goes on through its right-link;
#   - the leaf after a deleted one, holding a key below the high key of
#     the page the walk came from: its lower bound is its new left
#     sibling's high key;
#   - the leftmost leaf, deleted before the walk starts there: the walk
#     starts at its right-link;
#   - the leaf after it, when the walk has read the leftmost one: the leaf
#     is now leftmost.
# Skipped where gdb cannot stop a backend, or not on x86-64.

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

my $node = pbt_new_node('check_race', rmgr => 1, conf => "autovacuum = off\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION pagebtree');

# the leaves in key order: [block, ...]
sub leaves
{
	my @blocks;
	my $blk = $node->safe_psql(
		'postgres', q{
SELECT s.blkno FROM generate_series(1, pg_relation_size('r_k') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('r_k', b) s
WHERE s.page_type = 'leaf' AND s.prev = -1});
	while ($blk ne '-1')
	{
		push @blocks, $blk;
		$blk = $node->safe_psql('postgres',
			"SELECT next FROM pagebtree_page_stats('r_k', $blk)");
	}
	return @blocks;
}

for my $case (
	{ name => 'the deleted leaf', delete => 3, read => 3 },
	{ name => 'the leaf after a deleted one', delete => 3, read => 4, insert => 1 },
	{ name => 'the deleted leftmost leaf', delete => 0, read => 0 },
	{ name => 'the leaf after a deleted leftmost one', delete => 0, read => 1 })
{
	$node->safe_psql(
		'postgres', q{
DROP TABLE IF EXISTS r;
CREATE TABLE r (k int8) WITH (autovacuum_enabled = off);
INSERT INTO r SELECT g FROM generate_series(1, 20000) g;
CREATE INDEX r_k ON r USING pagebtree (k) WITH (delta = off);
});
	my @leaves = leaves();
	my ($deleted, $target) = @leaves[ $case->{delete}, $case->{read} ];
	my $tids = "ctid = ANY (ARRAY(SELECT heap_tid FROM pagebtree_page_items('r_k', $deleted)))";
	my $lowest = $node->safe_psql('postgres', "SELECT min(k) FROM r WHERE $tids");
	$node->safe_psql('postgres', "DELETE FROM r WHERE $tids");

	# the checker, paused before it starts so that gdb can attach
	my ($out, $err) = ('', '');
	my $checker = IPC::Run::start(
		[
			'psql', '-X', '-A', '-t', '-d', $node->connstr('postgres'),
			'-c', 'SELECT pg_backend_pid()',
			'-c', 'SELECT pg_sleep(2)',
			'-c', q{SELECT 'check:' || pagebtree_check('r_k')}
		],
		'<', \undef, '>', \$out, '2>', \$err);
	my $deadline = time + 60;
	$checker->pump while $out !~ /^(\d+)$/m && time < $deadline;
	my ($pid) = $out =~ /^(\d+)$/m;

	# its second read of the block: the first is the parent's check of
	# its children, the second the walk of the leaf level (the relation's
	# file number, first in RelationData after two Oids, tells the index
	# from catalogs)
	my $file = $node->safe_psql('postgres', q{SELECT pg_relation_filenode('r_k')});
	my ($gdb, $gdb_out) = pbt_gdb_pause($pid,
		[
			"break *ReadBuffer if \$rsi == $target && *(unsigned int *) (\$rdi + 8) == $file",
			'ignore 1 1'
		],
		5);
	if (!$gdb)
	{
		$checker->kill_kill;
		$node->stop;
		plan skip_all => $gdb_out;
	}
	$gdb->pump while $$gdb_out !~ /HIT/ && time < $deadline;
	if (!ok($$gdb_out =~ /HIT/,
			"$case->{name}: the checker stopped before it read block $target"))
	{
		$gdb->kill_kill;
		$checker->kill_kill;
		last;
	}
	$node->safe_psql('postgres', 'VACUUM r');
	like($node->safe_psql('postgres',
			"SELECT flags FROM pagebtree_page_stats('r_k', $deleted)"),
		qr/deleted/, "$case->{name}: VACUUM deleted leaf $deleted meanwhile");
	$node->safe_psql('postgres', "INSERT INTO r VALUES ($lowest)")
	  if $case->{insert};
	$gdb->finish;
	$checker->finish;
	like($out, qr/^check:$/m, "$case->{name}: the check passes");
	is($err, '', "$case->{name}: and reports nothing");
	is($node->safe_psql('postgres', q{SELECT pagebtree_check('r_k', true)}),
		'', "$case->{name}: a check after it passes too");
}

$node->stop;
done_testing();
