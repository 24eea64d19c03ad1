
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
# VACUUM also deletes an inner page whose leaves it empties, with its last
# leaf (wide keys, compared by their comparator: a level-2 tree).  Checked
# with heapallindexed, so that a walk that skipped a level would be caught
# by its count:
#   - the leftmost level-1 page, deleted before the walk of its level
#     reaches it: the level below starts at its right sibling's first child;
#   - the same page deleted while the check reads its first child: the
#     parent, now deleted, hands its children's check to its right sibling.
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
	{ name => 'the leaf after a deleted leftmost one', delete => 0, read => 1 },
	{ name => 'the deleted leftmost inner page', inner => 1, read => 'inner' },
	{ name => 'the first child of a deleted inner page', inner => 1, read => 'child', first_read => 1 })
{
	my $type = $case->{inner} ? 'int8[]' : 'int8';
	my $key = $case->{inner} ? 'ARRAY(SELECT g * 100 + j FROM generate_series(1, 24) j)' : 'g';
	$node->safe_psql(
		'postgres', qq{
DROP TABLE IF EXISTS r;
CREATE TABLE r (k $type) WITH (autovacuum_enabled = off);
INSERT INTO r SELECT $key FROM generate_series(1, 20000) g;
CREATE INDEX r_k ON r USING pagebtree (k) WITH (delta = off);
});
	my ($deleted, $target, $tids);
	if ($case->{inner})
	{
		# the leftmost page of level 1, and all the rows of its leaves
		$deleted = $node->safe_psql('postgres', q{
SELECT s.blkno FROM generate_series(1, pg_relation_size('r_k') / 8192 - 1) b,
     LATERAL pagebtree_page_stats('r_k', b) s
WHERE s.page_type = 'inner' AND s.level = 1 AND s.prev = -1});
		$target = $case->{read} eq 'inner' ? $deleted : $node->safe_psql('postgres',
			"SELECT child FROM pagebtree_page_items('r_k', $deleted) WHERE itemno = 1");
		$tids = "ctid = ANY (ARRAY(SELECT i.heap_tid FROM pagebtree_page_items('r_k', $deleted) c, "
		  . "LATERAL pagebtree_page_items('r_k', c.child) i))";
		is($node->safe_psql('postgres', q{SELECT level FROM pagebtree_metapage('r_k')}),
			'2', "$case->{name}: the index has two levels above its leaves");
	}
	else
	{
		my @leaves = leaves();
		($deleted, $target) = @leaves[ $case->{delete}, $case->{read} ];
		$tids = "ctid = ANY (ARRAY(SELECT heap_tid FROM pagebtree_page_items('r_k', $deleted)))";
	}
	my $lowest = $node->safe_psql('postgres', "SELECT min(k) FROM r WHERE $tids");
	$node->safe_psql('postgres', "DELETE FROM r WHERE $tids");

	# the checker, paused before it starts so that gdb can attach
	my ($out, $err) = ('', '');
	my $checker = IPC::Run::start(
		[
			'psql', '-X', '-A', '-t', '-d', $node->connstr('postgres'),
			'-c', 'SELECT pg_backend_pid()',
			'-c', 'SELECT pg_sleep(2)',
			'-c', "SELECT 'check:' || pagebtree_check('r_k', " . ($case->{inner} ? 'true' : 'false') . ')'
		],
		'<', \undef, '>', \$out, '2>', \$err);
	my $deadline = time + 60;
	$checker->pump while $out !~ /^(\d+)$/m && time < $deadline;
	my ($pid) = $out =~ /^(\d+)$/m;

	# its second read of the block: the first is the parent's check of
	# its children, the second the walk of the block's level (the
	# relation's file number, first in RelationData after two Oids, tells
	# the index from catalogs); or its first
	my $file = $node->safe_psql('postgres', q{SELECT pg_relation_filenode('r_k')});
	my ($gdb, $gdb_out) = pbt_gdb_pause($pid,
		[
			"break *ReadBuffer if \$rsi == $target && *(unsigned int *) (\$rdi + 8) == $file",
			$case->{first_read} ? () : 'ignore 1 1'
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
		qr/deleted/, "$case->{name}: VACUUM deleted page $deleted meanwhile");
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
